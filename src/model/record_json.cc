#include "model/record_json.h"

namespace muster {

using nlohmann::json;

namespace {

// Reads optional fields with type checks; the first error wins and names the field.
class Reader {
 public:
  Reader(const json& j, std::string what) : j_(j), what_(std::move(what)) {
    if (!j_.is_object()) status_ = InvalidArgument(what_ + ": expected a JSON object");
  }
  template <typename T>
  void Get(const char* key, T& out) {
    if (!status_.ok() || !j_.contains(key) || j_[key].is_null()) return;
    try {
      out = j_[key].get<T>();
    } catch (const json::exception&) {
      status_ = InvalidArgument(what_ + "." + key + ": wrong type");
    }
  }
  const json* Sub(const char* key) const { return j_.contains(key) ? &j_[key] : nullptr; }
  void Fail(Status s) {
    if (status_.ok()) status_ = std::move(s);
  }
  const Status& status() const { return status_; }

 private:
  const json& j_;
  std::string what_;
  Status status_;
};

}  // namespace

const char* JobStateName(JobState s) {
  switch (s) {
    case JobState::kPending: return "PENDING";
    case JobState::kRunning: return "RUNNING";
    case JobState::kSuspended: return "SUSPENDED";
    case JobState::kCompleting: return "COMPLETING";
    case JobState::kCompleted: return "COMPLETED";
    case JobState::kCancelled: return "CANCELLED";
    case JobState::kFailed: return "FAILED";
    case JobState::kTimeout: return "TIMEOUT";
    case JobState::kNodeFail: return "NODE_FAIL";
    case JobState::kPreempted: return "PREEMPTED";
    case JobState::kOutOfMemory: return "OUT_OF_MEMORY";
    case JobState::kBootFail: return "BOOT_FAIL";
    case JobState::kDeadline: return "DEADLINE";
  }
  return "PENDING";
}

const char* JobStateCompact(JobState s) {
  switch (s) {
    case JobState::kPending: return "PD";
    case JobState::kRunning: return "R";
    case JobState::kSuspended: return "S";
    case JobState::kCompleting: return "CG";
    case JobState::kCompleted: return "CD";
    case JobState::kCancelled: return "CA";
    case JobState::kFailed: return "F";
    case JobState::kTimeout: return "TO";
    case JobState::kNodeFail: return "NF";
    case JobState::kPreempted: return "PR";
    case JobState::kOutOfMemory: return "OOM";
    case JobState::kBootFail: return "BF";
    case JobState::kDeadline: return "DL";
  }
  return "PD";
}

StatusOr<JobState> ParseJobState(const std::string& name) {
  std::string up;
  for (char c : name) up += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (int i = 0; i <= static_cast<int>(JobState::kDeadline); ++i) {
    auto s = static_cast<JobState>(i);
    if (up == JobStateName(s) || up == JobStateCompact(s)) return s;
  }
  if (up == "CANCELED") return JobState::kCancelled;
  return InvalidArgument("invalid job state '" + name + "'");
}

bool IsFinished(JobState s) {
  switch (s) {
    case JobState::kPending:
    case JobState::kRunning:
    case JobState::kSuspended:
    case JobState::kCompleting:
      return false;
    default:
      return true;
  }
}

json ToJson(const JobRequest& r) {
  return json{{"name", r.name},
              {"partition", r.partition},
              {"min_nodes", r.min_nodes},
              {"max_nodes", r.max_nodes},
              {"ntasks", r.ntasks},
              {"ntasks_per_node", r.ntasks_per_node},
              {"cpus_per_task", r.cpus_per_task},
              {"mem_per_node_mb", r.mem_per_node_mb},
              {"mem_per_cpu_mb", r.mem_per_cpu_mb},
              {"mem_per_gpu_mb", r.mem_per_gpu_mb},
              {"gpu_type", r.gpu_type},
              {"gpus_per_node", r.gpus_per_node},
              {"gpus_total", r.gpus_total},
              {"gpus_per_task", r.gpus_per_task},
              {"cpus_per_gpu", r.cpus_per_gpu},
              {"gpu_milli", r.gpu_milli},
              {"gpu_memory_mb", r.gpu_memory_mb},
              {"constraint", r.constraint},
              {"exclusive", r.exclusive},
              {"time_limit_s", r.time_limit_s},
              {"nodelist", r.nodelist},
              {"exclude", r.exclude}};
}

StatusOr<JobRequest> JobRequestFromJson(const json& j) {
  JobRequest r;
  Reader in(j, "request");
  in.Get("name", r.name);
  in.Get("partition", r.partition);
  in.Get("min_nodes", r.min_nodes);
  in.Get("max_nodes", r.max_nodes);
  in.Get("ntasks", r.ntasks);
  in.Get("ntasks_per_node", r.ntasks_per_node);
  in.Get("cpus_per_task", r.cpus_per_task);
  in.Get("mem_per_node_mb", r.mem_per_node_mb);
  in.Get("mem_per_cpu_mb", r.mem_per_cpu_mb);
  in.Get("mem_per_gpu_mb", r.mem_per_gpu_mb);
  in.Get("gpu_type", r.gpu_type);
  in.Get("gpus_per_node", r.gpus_per_node);
  in.Get("gpus_total", r.gpus_total);
  in.Get("gpus_per_task", r.gpus_per_task);
  in.Get("cpus_per_gpu", r.cpus_per_gpu);
  in.Get("gpu_milli", r.gpu_milli);
  in.Get("gpu_memory_mb", r.gpu_memory_mb);
  in.Get("constraint", r.constraint);
  in.Get("exclusive", r.exclusive);
  in.Get("time_limit_s", r.time_limit_s);
  in.Get("nodelist", r.nodelist);
  in.Get("exclude", r.exclude);
  if (!in.status().ok()) return in.status();
  return r;
}

json ToJson(const Node& n) {
  json gpus = json::array();
  for (const Gpu& g : n.gpus) {
    gpus.push_back({{"index", g.index},
                    {"model", g.model},
                    {"memory_mb", g.memory_mb},
                    {"uuid", g.uuid},
                    {"numa_node", g.numa_node},
                    {"mig_profile", g.mig_profile},
                    {"parent_index", g.parent_index}});
  }
  json links = json::array();
  for (int a = 0; a < n.links.size(); ++a) {
    json row = json::array();
    for (int b = 0; b < n.links.size(); ++b) row.push_back(n.links.links(a, b));
    links.push_back(row);
  }
  return json{{"name", n.name},
              {"cpus", n.cpus},
              {"sockets", n.sockets},
              {"cores_per_socket", n.cores_per_socket},
              {"threads_per_core", n.threads_per_core},
              {"numa_nodes", n.numa_nodes},
              {"memory_mb", n.memory_mb},
              {"features", n.features},
              {"state", NodeStateName(n.state)},
              {"drain", n.drain},
              {"reason", n.reason},
              {"gpus", gpus},
              {"links", links},
              {"nvswitch", n.links.nvswitch()}};
}

StatusOr<Node> NodeFromJson(const json& j) {
  Node n;
  Reader in(j, "node");
  in.Get("name", n.name);
  in.Get("cpus", n.cpus);
  in.Get("sockets", n.sockets);
  in.Get("cores_per_socket", n.cores_per_socket);
  in.Get("threads_per_core", n.threads_per_core);
  in.Get("numa_nodes", n.numa_nodes);
  in.Get("memory_mb", n.memory_mb);
  in.Get("features", n.features);
  in.Get("drain", n.drain);
  in.Get("reason", n.reason);
  std::string state = "idle";
  in.Get("state", state);
  if (!in.status().ok()) return in.status();
  bool known = false;
  for (NodeState s : {NodeState::kIdle, NodeState::kMixed, NodeState::kAllocated, NodeState::kCompleting,
                      NodeState::kDown, NodeState::kFuture, NodeState::kUnknown}) {
    if (state == NodeStateName(s)) n.state = s, known = true;
  }
  if (!known) return InvalidArgument("node.state: unknown state '" + state + "'");
  if (const json* gpus = in.Sub("gpus"); gpus != nullptr && gpus->is_array()) {
    for (const json& g : *gpus) {
      Gpu gpu;
      Reader gr(g, "node.gpus[]");
      gr.Get("index", gpu.index);
      gr.Get("model", gpu.model);
      gr.Get("memory_mb", gpu.memory_mb);
      gr.Get("uuid", gpu.uuid);
      gr.Get("numa_node", gpu.numa_node);
      gr.Get("mig_profile", gpu.mig_profile);
      gr.Get("parent_index", gpu.parent_index);
      if (!gr.status().ok()) return gr.status();
      n.gpus.push_back(gpu);
    }
  }
  if (const json* links = in.Sub("links"); links != nullptr && links->is_array() && !links->empty()) {
    const int size = static_cast<int>(links->size());
    if (size != static_cast<int>(n.gpus.size())) return InvalidArgument("node.links: size differs from the GPU count");
    bool nvswitch = false;
    in.Get("nvswitch", nvswitch);
    if (nvswitch && size > 1 && (*links)[0].is_array() && (*links)[0].size() > 1 && (*links)[0][1].is_number_integer()) {
      n.links = GpuLinkMatrix::NvSwitch(size, (*links)[0][1].get<int>());
      return n;
    }
    GpuLinkMatrix m(size);
    for (int a = 0; a < size; ++a) {
      const json& row = (*links)[a];
      if (!row.is_array() || static_cast<int>(row.size()) != size) return InvalidArgument("node.links: not square");
      for (int b = a + 1; b < size; ++b) {
        if (!row[b].is_number_integer()) return InvalidArgument("node.links: not a number");
        int v = row[b].get<int>();
        if (v < 0 || v > 255) return InvalidArgument("node.links: out of range");
        m.set_links(a, b, v);
      }
    }
    n.links = m;
  }
  return n;
}

json ToJson(const JobRecord& j) {
  json alloc = json::array();
  for (const JobNodeAllocation& a : j.allocation) {
    alloc.push_back({{"node", a.node},
                     {"cpu_milli", a.cpu_milli},
                     {"memory_mb", a.memory_mb},
                     {"tasks", a.tasks},
                     {"gpus", a.gpus},
                     {"shared_gpu", a.shared_gpu},
                     {"shared_milli", a.shared_milli},
                     {"exclusive", a.exclusive}});
  }
  return json{{"id", j.id},
              {"name", j.name},
              {"uid", j.uid},
              {"gid", j.gid},
              {"user", j.user},
              {"group", j.group},
              {"account", j.account},
              {"partition", j.partition},
              {"request", ToJson(j.request)},
              {"submit_args", j.submit_args},
              {"script", j.script},
              {"script_args", j.script_args},
              {"workdir", j.workdir},
              {"environment", j.environment},
              {"stdout", j.stdout_pattern},
              {"stderr", j.stderr_pattern},
              {"stdin", j.stdin_path},
              {"priority", j.priority},
              {"time_limit_s", j.time_limit_s},
              {"requeue", j.requeue},
              {"held", j.held},
              {"state", JobStateName(j.state)},
              {"reason", j.reason},
              {"reason_detail", j.reason_detail},
              {"submit_time", j.submit_time},
              {"eligible_time", j.eligible_time},
              {"start_time", j.start_time},
              {"end_time", j.end_time},
              {"exit_code", j.exit_code},
              {"exit_signal", j.exit_signal},
              {"restart_count", j.restart_count},
              {"allocation", alloc},
              {"batch_host", j.batch_host}};
}

StatusOr<JobRecord> JobRecordFromJson(const json& j) {
  JobRecord r;
  Reader in(j, "job");
  in.Get("id", r.id);
  in.Get("name", r.name);
  in.Get("uid", r.uid);
  in.Get("gid", r.gid);
  in.Get("user", r.user);
  in.Get("group", r.group);
  in.Get("account", r.account);
  in.Get("partition", r.partition);
  in.Get("submit_args", r.submit_args);
  in.Get("script", r.script);
  in.Get("script_args", r.script_args);
  in.Get("workdir", r.workdir);
  in.Get("environment", r.environment);
  in.Get("stdout", r.stdout_pattern);
  in.Get("stderr", r.stderr_pattern);
  in.Get("stdin", r.stdin_path);
  in.Get("priority", r.priority);
  in.Get("time_limit_s", r.time_limit_s);
  in.Get("requeue", r.requeue);
  in.Get("held", r.held);
  in.Get("reason", r.reason);
  in.Get("reason_detail", r.reason_detail);
  in.Get("submit_time", r.submit_time);
  in.Get("eligible_time", r.eligible_time);
  in.Get("start_time", r.start_time);
  in.Get("end_time", r.end_time);
  in.Get("exit_code", r.exit_code);
  in.Get("exit_signal", r.exit_signal);
  in.Get("restart_count", r.restart_count);
  in.Get("batch_host", r.batch_host);
  std::string state = "PENDING";
  in.Get("state", state);
  if (!in.status().ok()) return in.status();
  StatusOr<JobState> st = ParseJobState(state);
  if (!st.ok()) return st.status().WithPrefix("job.state");
  r.state = *st;
  if (const json* req = in.Sub("request"); req != nullptr) {
    StatusOr<JobRequest> q = JobRequestFromJson(*req);
    if (!q.ok()) return q.status().WithPrefix("job");
    r.request = *q;
  }
  if (const json* alloc = in.Sub("allocation"); alloc != nullptr && alloc->is_array()) {
    for (const json& a : *alloc) {
      JobNodeAllocation na;
      Reader ar(a, "job.allocation[]");
      ar.Get("node", na.node);
      ar.Get("cpu_milli", na.cpu_milli);
      ar.Get("memory_mb", na.memory_mb);
      ar.Get("tasks", na.tasks);
      ar.Get("gpus", na.gpus);
      ar.Get("shared_gpu", na.shared_gpu);
      ar.Get("shared_milli", na.shared_milli);
      ar.Get("exclusive", na.exclusive);
      if (!ar.status().ok()) return ar.status();
      r.allocation.push_back(std::move(na));
    }
  }
  return r;
}

json ToJson(const NodeRecord& n) {
  return json{{"node", ToJson(n.node)},
              {"agent_address", n.agent_address},
              {"last_heartbeat", n.last_heartbeat},
              {"boot_time", n.boot_time},
              {"version", n.version}};
}

StatusOr<NodeRecord> NodeRecordFromJson(const json& j) {
  NodeRecord r;
  Reader in(j, "node_record");
  in.Get("agent_address", r.agent_address);
  in.Get("last_heartbeat", r.last_heartbeat);
  in.Get("boot_time", r.boot_time);
  in.Get("version", r.version);
  if (!in.status().ok()) return in.status();
  const json* node = in.Sub("node");
  if (node == nullptr) return InvalidArgument("node_record.node: missing");
  StatusOr<Node> n = NodeFromJson(*node);
  if (!n.ok()) return n.status();
  r.node = *n;
  return r;
}

json ToJson(const StepRecord& s) {
  return json{{"job_id", s.job_id},         {"step_id", s.step_id},   {"name", s.name},
              {"nodes", s.nodes},           {"ntasks", s.ntasks},     {"state", JobStateName(s.state)},
              {"start_time", s.start_time}, {"end_time", s.end_time}, {"exit_code", s.exit_code}};
}

StatusOr<StepRecord> StepRecordFromJson(const json& j) {
  StepRecord s;
  Reader in(j, "step");
  in.Get("job_id", s.job_id);
  in.Get("step_id", s.step_id);
  in.Get("name", s.name);
  in.Get("nodes", s.nodes);
  in.Get("ntasks", s.ntasks);
  in.Get("start_time", s.start_time);
  in.Get("end_time", s.end_time);
  in.Get("exit_code", s.exit_code);
  std::string state = "RUNNING";
  in.Get("state", state);
  if (!in.status().ok()) return in.status();
  StatusOr<JobState> st = ParseJobState(state);
  if (!st.ok()) return st.status().WithPrefix("step.state");
  s.state = *st;
  return s;
}

json ToJson(const Partition& p) {
  return json{{"name", p.name},
              {"nodes", p.nodes},
              {"default", p.is_default},
              {"up", p.up},
              {"min_nodes", p.min_nodes},
              {"max_nodes", p.max_nodes},
              {"max_time_s", p.max_time_s},
              {"default_time_s", p.default_time_s},
              {"priority_tier", p.priority_tier},
              {"def_mem_per_cpu_mb", p.def_mem_per_cpu_mb}};
}

StatusOr<Partition> PartitionFromJson(const json& j) {
  Partition p;
  Reader in(j, "partition");
  in.Get("name", p.name);
  in.Get("nodes", p.nodes);
  in.Get("default", p.is_default);
  in.Get("up", p.up);
  in.Get("min_nodes", p.min_nodes);
  in.Get("max_nodes", p.max_nodes);
  in.Get("max_time_s", p.max_time_s);
  in.Get("default_time_s", p.default_time_s);
  in.Get("priority_tier", p.priority_tier);
  in.Get("def_mem_per_cpu_mb", p.def_mem_per_cpu_mb);
  if (!in.status().ok()) return in.status();
  return p;
}

}  // namespace muster
