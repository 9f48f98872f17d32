#include "api/slurmrest/shapes.h"

#include <algorithm>
#include <map>

#include "model/hostlist.h"
#include "model/limits.h"
#include "report/sinfo_format.h"

namespace muster::slurmrest {

namespace bj = boost::json;

namespace {

// Slurm's "null" for a value it leaves unset (NO_VAL): here 0 or less.
bj::value PositiveOrNull(int64_t v) { return v > 0 ? bj::value(v) : bj::value(nullptr); }

std::string Join(const std::vector<std::string>& v, const char* sep = ",") {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : sep) + s;
  return out;
}

// A Slurm time limit in minutes: null for UNLIMITED (slurmrestd's INFINITE), at least 1.
bj::value LimitMinutes(int64_t seconds) {
  if (seconds == kUnlimited || seconds < 0) return nullptr;
  return std::max<int64_t>(1, (seconds + 59) / 60);
}

// What squeue and sacct call the job's standard output when it names none (sbatch's default).
std::string StdoutPath(const JobRecord& j) {
  if (!j.stdout_pattern.empty()) return j.stdout_pattern;
  if (j.interactive) return "";
  return (j.workdir.empty() ? std::string() : j.workdir + "/") + (j.array_job_id ? "slurm-%A_%a.out" : "slurm-%j.out");
}

bool HoldsResources(const JobRecord& j) {
  return j.state == JobState::kRunning || j.state == JobState::kSuspended || j.state == JobState::kCompleting;
}

// job_resources: where the job runs. Muster places CPUs by count, not by socket and core, so
// "sockets" stays empty (docs/slurm-compatibility.md).
bj::object JobResources(const JobRecord& j) {
  if (j.allocation.empty() || j.start_time == 0) return {};
  bj::array nodes;
  int64_t cores = 0;
  std::vector<std::string> names;
  for (const NodeAllocation& a : j.allocation) {
    const int64_t cpus = (a.cpu_milli + 999) / 1000;
    cores += cpus;
    names.push_back(a.node);
    nodes.push_back(bj::object{{"sockets", bj::object()},
                               {"nodename", a.node},
                               {"cpus_used", 0},
                               {"memory_used", 0},
                               {"memory_allocated", a.memory_mb}});
  }
  return bj::object{{"nodes", CompressHostlist(names)},
                    {"allocated_cores", cores},
                    {"allocated_hosts", static_cast<int64_t>(j.allocation.size())},
                    {"allocated_nodes", std::move(nodes)}};
}

// gres_detail: "gpu:2(IDX:0-1)" per node while the job holds GPUs there.
bj::array GresDetail(const JobRecord& j) {
  bj::array out;
  if (!HoldsResources(j)) return out;
  for (const NodeAllocation& a : j.allocation) {
    const std::vector<int> idx = GpuIndexes(a);
    if (idx.empty()) continue;
    std::string list;
    for (size_t i = 0; i < idx.size();) {
      size_t k = i;
      while (k + 1 < idx.size() && idx[k + 1] == idx[k] + 1) ++k;
      list += (list.empty() ? "" : ",") + std::to_string(idx[i]) + (k > i ? "-" + std::to_string(idx[k]) : "");
      i = k + 1;
    }
    out.emplace_back("gpu:" + std::to_string(idx.size()) + "(IDX:" + list + ")");
  }
  return out;
}

struct ErrorName {
  const char* message;
  int number;
};
// slurm_errno.h's numbers for the messages Muster answers with.
constexpr ErrorName kErrors[] = {
    {"Invalid partition name specified", 2000},
    {"Access/permission denied", 2002},
    {"Job script not specified", 2009},
    {"Invalid user id", 2010},
    {"Invalid group id", 2011},
    {"Requested node configuration is not available", 2014},
    {"Requested partition configuration not available now", 2015},
    {"Invalid job id specified", 2017},
    {"Job/step already completing or completed", 2021},
    {"Job is pending execution", 2024},
    {"Requested time limit is invalid (missing or exceeds some limit)", 2051},
    {"Invalid account or account/partition combination specified", 2045},
    {"Invalid qos specification", 2066},
    {"Job can not be altered now, try again later", 2050},
    {"Invalid node name specified", 2018},
    {"Unable to contact slurm controller (connect failure)", 1001},
};

}  // namespace

bj::object Envelope(Plugin plugin) {
  const bool db = plugin == Plugin::kDbV0038;
  return bj::object{
      {"meta",
       bj::object{{"plugin", bj::object{{"type", db ? "openapi/dbv0.0.38" : "openapi/v0.0.38"},
                                        {"name", db ? "Slurm OpenAPI DB v0.0.38" : "Slurm OpenAPI v0.0.38"}}},
                  {"Slurm", bj::object{{"version", bj::object{{"major", 22}, {"micro", 8}, {"minor", 5}}},
                                       {"release", "22.05.8"}}}}},
      {"errors", bj::array()}};
}

bj::object ErrorEntry(const std::string& description, int error_number, const std::string& error,
                      const std::string& source) {
  return bj::object{{"description", description}, {"error_number", error_number}, {"error", error}, {"source", source}};
}

int SlurmErrorNumber(const std::string& message) {
  for (const ErrorName& e : kErrors) {
    if (message == e.message) return e.number;
  }
  return -1;
}

bj::object InOrder(const bj::object& o, std::initializer_list<const char*> order) {
  bj::object out;
  out.reserve(o.size());
  for (const char* k : order) {
    if (const bj::value* v = o.if_contains(k)) out.emplace(k, *v);
  }
  for (const auto& kv : o) {
    if (!out.contains(kv.key())) out.emplace(kv.key(), kv.value());
  }
  return out;
}

bj::object JobJson(const JobRecord& j, const std::string& cluster) {
  const JobRequest& r = j.request;
  const bool started = j.start_time > 0;
  bj::object o;
  o.reserve(110);
  o["account"] = j.account;
  o["accrue_time"] = j.eligible_time;
  o["admin_comment"] = "";
  o["array_job_id"] = j.array_job_id;
  o["array_task_id"] = j.array_job_id ? bj::value(j.array_task_id) : bj::value(nullptr);
  o["array_max_tasks"] = j.array_max_running;
  o["array_task_string"] = "";
  o["association_id"] = 0;
  o["batch_features"] = "";
  o["batch_flag"] = !j.interactive;
  o["batch_host"] = j.batch_host;
  o["flags"] = bj::array();
  o["burst_buffer"] = "";
  o["burst_buffer_state"] = "";
  o["cluster"] = cluster;
  o["cluster_features"] = "";
  o["command"] = "";
  o["comment"] = j.options.comment;
  o["container"] = "";
  o["contiguous"] = false;
  o["core_spec"] = nullptr;
  o["thread_spec"] = nullptr;
  o["cores_per_socket"] = nullptr;
  o["billable_tres"] = static_cast<double>(JobCpuCount(j));
  o["cpus_per_task"] = r.cpus_per_task > 1 ? bj::value(r.cpus_per_task) : bj::value(nullptr);
  o["cpu_frequency_minimum"] = nullptr;
  o["cpu_frequency_maximum"] = nullptr;
  o["cpu_frequency_governor"] = nullptr;
  o["cpus_per_tres"] = r.cpus_per_gpu > 0 ? "gres:gpu:" + std::to_string(r.cpus_per_gpu) : std::string();
  o["deadline"] = 0;
  o["delay_boot"] = 0;
  o["dependency"] = j.dependency_left;
  o["derived_exit_code"] = 0;
  o["eligible_time"] = j.eligible_time;
  o["end_time"] = JobExpectedEnd(j);
  o["excluded_nodes"] = CompressHostlist(r.exclude);
  o["exit_code"] = (j.exit_code << 8) | (j.exit_signal & 0x7f);
  o["features"] = r.constraint;
  o["federation_origin"] = "";
  o["federation_siblings_active"] = "";
  o["federation_siblings_viable"] = "";
  o["gres_detail"] = GresDetail(j);
  o["group_id"] = j.gid;
  o["group_name"] = j.group;
  o["job_id"] = j.id;
  o["job_resources"] = JobResources(j);
  o["job_state"] = JobStateName(j.state);
  o["last_sched_evaluation"] = started ? j.start_time : j.eligible_time;
  o["licenses"] = "";
  o["max_cpus"] = 0;
  o["max_nodes"] = r.max_nodes;
  o["mcs_label"] = "";
  o["memory_per_tres"] = r.mem_per_gpu_mb > 0 ? "gres:gpu:" + std::to_string(r.mem_per_gpu_mb) : std::string();
  o["name"] = j.name;
  o["nodes"] = JobNodeList(j);
  o["nice"] = j.nice != 0 ? bj::value(j.nice) : bj::value(nullptr);
  o["tasks_per_core"] = nullptr;
  o["tasks_per_node"] = r.ntasks_per_node;
  o["tasks_per_socket"] = nullptr;
  o["tasks_per_board"] = 0;
  o["cpus"] = JobCpuCount(j);
  o["node_count"] = JobNodeCount(j);
  o["tasks"] = JobTaskCount(j);
  o["het_job_id"] = 0;
  o["het_job_id_set"] = "";
  o["het_job_offset"] = 0;
  o["partition"] = j.partition;
  o["prefer"] = "";
  o["memory_per_node"] = PositiveOrNull(r.mem_per_node_mb);
  o["memory_per_cpu"] = PositiveOrNull(r.mem_per_cpu_mb);
  o["minimum_cpus_per_node"] = std::max(1, r.cpus_per_task);
  o["minimum_tmp_disk_per_node"] = 0;
  o["preempt_time"] = j.preempt_time;
  o["pre_sus_time"] = 0;
  o["priority"] = j.priority;
  o["profile"] = nullptr;
  o["qos"] = j.qos.empty() ? std::string(kDefaultQos) : j.qos;
  o["reboot"] = false;
  o["required_nodes"] = CompressHostlist(r.nodelist);
  o["requeue"] = j.requeue;
  o["resize_time"] = 0;
  o["restart_cnt"] = Restarts(j);  // lost launches left out
  o["resv_name"] = "";
  o["shared"] = nullptr;
  o["show_flags"] = bj::array{"SHOW_ALL", "SHOW_DETAIL", "SHOW_LOCAL"};
  o["sockets_per_board"] = 0;
  o["sockets_per_node"] = nullptr;
  o["start_time"] = started ? j.start_time : j.expected_start;
  o["state_description"] = j.reason_detail;
  o["state_reason"] = j.reason.empty() ? std::string("None") : j.reason;
  o["standard_error"] = j.stderr_pattern;
  o["standard_input"] = j.stdin_path.empty() ? std::string("/dev/null") : j.stdin_path;
  o["standard_output"] = StdoutPath(j);
  o["submit_time"] = j.submit_time;
  o["suspend_time"] = j.suspend_time;
  o["system_comment"] = "";
  o["time_limit"] = LimitMinutes(j.time_limit_s);
  o["time_minimum"] = 0;
  o["threads_per_core"] = nullptr;
  o["tres_bind"] = "";
  o["tres_freq"] = "";
  o["tres_per_job"] = JobTresPerJob(j);
  o["tres_per_node"] = JobTresPerNode(j);
  o["tres_per_socket"] = "";
  o["tres_per_task"] = JobTresPerTask(j);
  o["tres_req_str"] = JobTres(j);
  o["tres_alloc_str"] = started ? JobTres(j) : std::string();
  o["user_id"] = j.uid;
  o["user_name"] = j.user;
  o["wckey"] = j.options.wckey;
  o["current_working_directory"] = j.workdir;
  return o;
}

bj::object PartitionJson(const Partition& p, const std::vector<NodeRecord>& nodes) {
  int64_t cpus = 0, mem = 0, gpus = 0;
  for (const NodeRecord& n : nodes) {
    if (std::find(p.nodes.begin(), p.nodes.end(), n.node.name) == p.nodes.end()) continue;
    cpus += n.node.cpus;
    mem += n.node.memory_mb;
    gpus += static_cast<int64_t>(n.node.gpus.size());
  }
  std::string tres = "cpu=" + std::to_string(cpus) + ",mem=" + FormatMemoryRounded(mem) + ",node=" +
                     std::to_string(p.nodes.size()) + ",billing=" + std::to_string(cpus) +
                     (gpus ? ",gres/gpu=" + std::to_string(gpus) : "");
  std::string mode = "disabled";
  if (p.has_preempt_mode) {
    mode = PreemptModeName(p.preempt_mode);
    std::transform(mode.begin(), mode.end(), mode.begin(), [](unsigned char c) { return std::tolower(c); });
  }
  const bool own_def_mem = p.def_mem_per_cpu_mb > 0 && !p.def_mem_from_cluster;
  return bj::object{
      {"flags", p.is_default ? bj::array{"default"} : bj::array()},
      {"preemption_mode", bj::array{bj::value(mode)}},
      {"allowed_allocation_nodes", ""},
      {"allowed_accounts", Join(p.access.allow_accounts)},
      {"allowed_groups", Join(p.access.allow_groups)},
      {"allowed_qos", Join(p.access.allow_qos)},
      {"alternative", ""},
      {"billing_weights", ""},
      {"default_memory_per_cpu", own_def_mem ? bj::value(p.def_mem_per_cpu_mb) : bj::value(nullptr)},
      {"default_memory_per_node", nullptr},
      {"default_time_limit", LimitMinutes(p.default_time_s)},
      {"denied_accounts", Join(p.access.deny_accounts)},
      {"denied_qos", Join(p.access.deny_qos)},
      {"preemption_grace_time", p.grace_time_s > 0 ? p.grace_time_s : 0},
      {"maximum_cpus_per_node", -1},
      {"maximum_memory_per_cpu", nullptr},
      {"maximum_memory_per_node", nullptr},
      {"maximum_nodes_per_job", p.max_nodes == kUnlimited ? -1 : p.max_nodes},
      {"max_time_limit", p.max_time_s == kUnlimited ? bj::value(-1) : LimitMinutes(p.max_time_s)},
      {"min nodes per job", p.min_nodes},
      {"name", p.name},
      {"nodes", CompressHostlist(p.nodes)},
      {"over_time_limit", nullptr},
      {"priority_job_factor", 1},
      {"priority_tier", p.priority_tier},
      {"qos", ""},
      {"state", p.up ? "UP" : "DOWN"},
      {"total_cpus", cpus},
      {"total_nodes", static_cast<int64_t>(p.nodes.size())},
      {"tres", tres},
  };
}

bj::array NodesJson(const std::vector<Partition>& partitions, const std::vector<NodeRecord>& nodes,
                    const NodeActivityMap& usage, int64_t now) {
  const bj::value sinfo = SinfoJson(partitions, nodes, usage, now);
  bj::array out;
  for (const bj::value& v : sinfo.as_object().at("nodes").as_array()) {
    bj::object n = InOrder(
        v.as_object(),
        {"architecture", "burstbuffer_network_address", "boards", "boot_time", "comment", "cores", "cpu_binding",
         "cpu_load", "extra", "free_memory", "cpus", "last_busy", "features", "active_features", "gres",
         "gres_drained", "gres_used", "mcs_label", "name", "next_state_after_reboot", "address", "hostname", "state",
         "state_flags", "next_state_after_reboot_flags", "operating_system", "owner", "partitions", "port",
         "real_memory", "reason", "reason_changed_at", "reason_set_by_user", "slurmd_start_time", "sockets",
         "threads", "temporary_disk", "weight", "tres", "slurmd_version", "alloc_memory", "alloc_cpus", "idle_cpus",
         "tres_used", "tres_weighted"});
    // v0.0.38 writes features as Slurm's comma lists, and an unused node's tres_used as null.
    for (const char* k : {"features", "active_features"}) {
      if (bj::value* f = n.if_contains(k); f != nullptr && f->is_array()) {
        std::string list;
        for (const bj::value& s : f->as_array()) list += (list.empty() ? "" : ",") + std::string(s.as_string());
        *f = list;
      }
    }
    // tres_used: slurmctld writes its memory exactly ("mem=2500M"), null when nothing is used.
    if (bj::value* t = n.if_contains("tres_used"); t != nullptr) {
      auto it = usage.find(std::string(n.at("name").as_string()));
      const NodeActivity u = it == usage.end() ? NodeActivity() : it->second;
      if (u.cpus > 0 || u.memory_mb > 0 || u.gpus > 0) {
        *t = "cpu=" + std::to_string(u.cpus) + ",mem=" + FormatMemoryExact(u.memory_mb) +
             (u.gpus ? ",gres/gpu=" + std::to_string(u.gpus) : "");
      } else {
        *t = nullptr;
      }
    }
    // "address" is the node's address alone (Slurm's NodeAddr): the agent's host without its
    // port (its port is "port"); an agent on a Unix socket gives the node's host name.
    if (bj::value* a = n.if_contains("address"); a != nullptr && a->is_string()) {
      std::string addr(a->as_string());
      if (addr.rfind("unix:", 0) == 0) {
        addr = std::string(n.at("hostname").as_string());
      } else if (const size_t colon = addr.rfind(':'); colon != std::string::npos) {
        addr = addr.substr(0, colon);
        if (addr.size() >= 2 && addr.front() == '[' && addr.back() == ']') addr = addr.substr(1, addr.size() - 2);
      }
      *a = addr;
    }
    if (bj::value* r = n.if_contains("reason_set_by_user"); r != nullptr && r->is_string() && r->as_string().empty()) {
      *r = nullptr;
    }
    out.push_back(std::move(n));
  }
  return out;
}

bj::object DiagJson(const DiagAnswer& d) {
  bj::array rpcs;
  for (const DiagRpc& r : d.rpcs) {
    rpcs.push_back(bj::object{{"message_type", r.method + " " + r.route}, {"type_id", 0}, {"count", r.count},
                              {"average_time", r.count > 0 ? r.total_us / r.count : 0}, {"total_time", r.total_us}});
  }
  bj::array users;
  for (const DiagRpcUser& u : d.rpc_users) {
    users.push_back(bj::object{{"user", u.user}, {"user_id", u.uid}, {"count", u.count},
                               {"average_time", u.count > 0 ? u.total_us / u.count : 0}, {"total_time", u.total_us}});
  }
  const int64_t n = d.cycles, bf = d.bf_cycles;
  const int64_t minutes = (d.now - d.since) / 60;
  bj::object s{
      {"rpcs_by_message_type", std::move(rpcs)}, {"rpcs_by_user", std::move(users)}, {"parts_packed", 1},
      {"req_time", d.now}, {"req_time_start", d.since}, {"server_thread_count", d.server_threads},
      {"agent_queue_size", 0}, {"agent_count", 0}, {"agent_thread_count", 0}, {"dbd_agent_queue_size", 0},
      {"gettimeofday_latency", d.gettimeofday_latency_us}, {"schedule_cycle_max", d.cycle_max_us}, {"schedule_cycle_last", d.cycle_last_us},
      {"schedule_cycle_total", n}, {"schedule_cycle_mean", n > 0 ? d.cycle_total_us / n : 0},
      {"schedule_cycle_mean_depth", n > 0 ? d.cycle_depth_total / n : 0},
      {"schedule_cycle_per_minute", minutes > 0 ? n / minutes : 0}, {"schedule_queue_length", d.last_queue_length},
      {"jobs_submitted", d.jobs_submitted}, {"jobs_started", d.jobs_started}, {"jobs_completed", d.jobs_completed},
      {"jobs_canceled", d.jobs_canceled}, {"jobs_failed", d.jobs_failed},
      {"jobs_pending", d.jobs_pending}, {"jobs_running", d.jobs_running}, {"job_states_ts", d.now},
      {"bf_backfilled_jobs", d.bf_backfilled_jobs}, {"bf_last_backfilled_jobs", d.bf_backfilled_jobs},
      {"bf_backfilled_het_jobs", d.bf_backfilled_het},
      {"bf_cycle_counter", bf}, {"bf_cycle_mean", bf > 0 ? d.bf_total_us / bf : 0},
      {"bf_depth_mean", bf > 0 ? d.bf_depth_total / bf : 0}, {"bf_depth_mean_try", bf > 0 ? d.bf_depth_total / bf : 0},
      {"bf_cycle_last", d.bf_last_us}, {"bf_cycle_max", d.bf_max_us}, {"bf_queue_len", d.bf_last_depth},
      {"bf_queue_len_mean", bf > 0 ? d.bf_depth_total / bf : 0},
      {"bf_table_size", 0}, {"bf_table_size_mean", 0}, {"bf_when_last_cycle", d.bf_last_when}, {"bf_active", false},
  };
  return s;
}

}  // namespace muster::slurmrest
