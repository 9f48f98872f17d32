#include "model/record_json.h"

#include <algorithm>

#include <boost/json.hpp>

#include "base/json_codec.h"
#include "model/job_record_fields.h"

namespace muster {

namespace bj = boost::json;
using json::Reader;
using json::Writer;

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

void SumAllocation(const JobRecord& job, std::map<std::string, NodeAllocated>& by_node) {
  if (!HoldsResources(job.state)) return;
  const bool cpus = HoldsCpus(job);
  for (const NodeAllocation& a : job.allocation) {
    NodeAllocated& u = by_node[a.node];
    if (cpus) u.cpus += static_cast<int>(CpusOf(a));
    u.gpus += static_cast<int>(GpuCount(a));
    u.memory_mb += a.memory_mb;
  }
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

std::string DescribeGpuFaults(const std::vector<GpuFault>& faults) {
  std::string out;
  for (const GpuFault& f : faults) {
    if (!out.empty()) out += "; ";
    out += "GPU " + std::to_string(f.index) + (f.needs_reset ? " needs a reset: " : " failed: ") + f.reason;
  }
  return out;
}


namespace {

// The keys of the records besides the job (whose keys are model/job_record_fields.h's), in the
// visitor protocol of base/json_codec.h.
template <class V, class G>
void GpuFields(V& v, G& g, const Gpu& d) {
  v("index", g.index, d.index);
  v("model", g.model, d.model);
  v("memory_mb", g.memory_mb, d.memory_mb);
  v("uuid", g.uuid, d.uuid);
  v("numa_node", g.numa_node, d.numa_node);
  v("mig_profile", g.mig_profile, d.mig_profile);
  v("parent_index", g.parent_index, d.parent_index);
}

// A node's keys but its state, GPUs and NVLink matrix (written and read by hand below).
template <class V, class N>
void NodeScalarFields(V& v, N& n, const Node& d) {
  v("name", n.name, d.name);
  v("cpus", n.cpus, d.cpus);
  v("sockets", n.sockets, d.sockets);
  v("cores_per_socket", n.cores_per_socket, d.cores_per_socket);
  v("threads_per_core", n.threads_per_core, d.threads_per_core);
  v("numa_nodes", n.numa_nodes, d.numa_nodes);
  v("memory_mb", n.memory_mb, d.memory_mb);
  v("tmp_disk_mb", n.tmp_disk_mb, d.tmp_disk_mb);
  v("features", n.features, d.features);
  v("drain", n.drain, d.drain);
  v("reason", n.reason, d.reason);
  v("reason_user", n.reason_user, d.reason_user);
  v("reason_time", n.reason_time, d.reason_time);
  v("gpus", n.gpus, d.gpus, [](auto& sub, auto& g, const Gpu& gd) { GpuFields(sub, g, gd); });
}

template <class V, class F>
void GpuFaultFields(V& v, F& f, const GpuFault& d) {
  v("index", f.index, d.index);
  v("needs_reset", f.needs_reset, d.needs_reset);
  v("reason", f.reason, d.reason);
}

// A node record's keys but "node" (the node, read with NodeFromJson so its errors name "node.").
template <class V, class R>
void NodeRecordFields(V& v, R& r, const NodeRecord& d) {
  v("failed_gpus", r.failed_gpus, d.failed_gpus,
    [](auto& sub, auto& f, const GpuFault& fd) { GpuFaultFields(sub, f, fd); });
  v("agent_address", r.agent_address, d.agent_address);
  v("last_heartbeat", r.last_heartbeat, d.last_heartbeat);
  v("boot_time", r.boot_time, d.boot_time);
  v("start_time", r.start_time, d.start_time);
  v("version", r.version, d.version);
  v("arch", r.arch, d.arch);
  v("os", r.os, d.os);
  v("hostname", r.hostname, d.hostname);
}

template <class V, class S>
void StepFields(V& v, S& s, const StepRecord& d) {
  v("job_id", s.job_id, d.job_id);
  v("step_id", s.step_id, d.step_id);
  v("name", s.name, d.name);
  v("nodes", s.nodes, d.nodes);
  v("ntasks", s.ntasks, d.ntasks);
  v("state", s.state, d.state);
  v("start_time", s.start_time, d.start_time);
  v("end_time", s.end_time, d.end_time);
  v("exit_code", s.exit_code, d.exit_code);
  v("node_cpus", s.node_cpus, d.node_cpus);
  v("node_mem_mb", s.node_mem_mb, d.node_mem_mb);
  v("node_gpus", s.node_gpus, d.node_gpus);
  v("time_limit_s", s.time_limit_s, d.time_limit_s);
}

template <class V, class P>
void PartitionFields(V& v, P& p, const Partition& d) {
  v("name", p.name, d.name);
  v("nodes", p.nodes, d.nodes);
  v("default", p.is_default, d.is_default);
  v("up", p.up, d.up);
  v("min_nodes", p.min_nodes, d.min_nodes);
  v("max_nodes", p.max_nodes, d.max_nodes);
  v("max_time_s", p.max_time_s, d.max_time_s);
  v("default_time_s", p.default_time_s, d.default_time_s);
  v("priority_tier", p.priority_tier, d.priority_tier);
  v("def_mem_per_cpu_mb", p.def_mem_per_cpu_mb, d.def_mem_per_cpu_mb);
  v("def_mem_from_cluster", p.def_mem_from_cluster, d.def_mem_from_cluster);
  v("allow_groups", p.access.allow_groups, d.access.allow_groups);
  v("allow_accounts", p.access.allow_accounts, d.access.allow_accounts);
  v("deny_accounts", p.access.deny_accounts, d.access.deny_accounts);
  v("allow_qos", p.access.allow_qos, d.access.allow_qos);
  v("deny_qos", p.access.deny_qos, d.access.deny_qos);
}

template <class T, class Fn>
bj::object Write(const T& record, bj::storage_ptr sp, Fn fields) {
  static const T kDefault{};
  bj::object o(std::move(sp));
  Writer w(o);
  fields(w, record, kDefault);
  return o;
}

// `j` read by `fields` under `what` ("job": "job.uid: wrong type").
template <class T, class Fn>
StatusOr<T> Read(const bj::value& j, const std::string& what, Fn fields) {
  static const T kDefault{};
  if (!j.is_object()) return InvalidArgument(what + ": expected a JSON object");
  Status status;
  T out{};
  Reader r(j.get_object(), what + ".", &status, json::ErrorStyle::kRecord);
  fields(r, out, kDefault);
  if (!status.ok()) return status;
  return out;
}

constexpr NodeState kNodeStates[] = {NodeState::kIdle,       NodeState::kMixed, NodeState::kAllocated,
                                     NodeState::kCompleting, NodeState::kDown,  NodeState::kFuture,
                                     NodeState::kUnknown};

}  // namespace

bj::object ToJson(const JobRequest& r, bj::storage_ptr sp) {
  return Write(r, std::move(sp), [](auto& v, auto& x, const JobRequest& d) { record_fields::JobRequestFields(v, x, d); });
}

StatusOr<JobRequest> JobRequestFromJson(const bj::value& j) {
  return Read<JobRequest>(j, "request", [](auto& v, auto& x, const JobRequest& d) { record_fields::JobRequestFields(v, x, d); });
}

bj::object ToJson(const JobRecord& j, bj::storage_ptr sp) {
  return Write(j, std::move(sp), [](auto& v, auto& x, const JobRecord& d) { record_fields::JobRecordFields(v, x, d); });
}

StatusOr<JobRecord> JobRecordFromJson(const bj::value& j) {
  return Read<JobRecord>(j, "job", [](auto& v, auto& x, const JobRecord& d) { record_fields::JobRecordFields(v, x, d); });
}

bj::object ToJson(const Node& n, bj::storage_ptr sp) {
  bj::object o = Write(n, sp, [](auto& v, auto& x, const Node& d) { NodeScalarFields(v, x, d); });
  o.insert_or_assign("state", NodeStateName(n.state));
  bj::array links(sp);
  for (int a = 0; a < n.links.size(); ++a) {
    bj::array row(sp);
    for (int b = 0; b < n.links.size(); ++b) row.emplace_back(n.links.links(a, b));
    links.emplace_back(std::move(row));
  }
  o.insert_or_assign("links", std::move(links));
  o.insert_or_assign("nvswitch", n.links.nvswitch());
  return o;
}

StatusOr<Node> NodeFromJson(const bj::value& j) {
  ASSIGN_OR_RETURN(Node n, Read<Node>(j, "node", [](auto& v, auto& x, const Node& d) { NodeScalarFields(v, x, d); }));
  const bj::object& o = j.get_object();
  Status status;
  Reader in(o, "node.", &status, json::ErrorStyle::kRecord);
  std::string state = "idle";
  in("state", state);
  bool nvswitch = false;
  in("nvswitch", nvswitch);
  if (!status.ok()) return status;
  bool known = false;
  for (NodeState s : kNodeStates) {
    if (state == NodeStateName(s)) n.state = s, known = true;
  }
  if (!known) return InvalidArgument("node.state: unknown state '" + state + "'");
  const bj::value* links = in.Find("links");
  if (links == nullptr || !links->is_array() || links->get_array().empty()) return n;
  const bj::array& rows = links->get_array();
  const int size = static_cast<int>(rows.size());
  if (size != static_cast<int>(n.gpus.size())) return InvalidArgument("node.links: size differs from the GPU count");
  if (nvswitch && size > 1 && rows[0].is_array() && rows[0].get_array().size() > 1) {
    int per_pair = 0;
    if (in.Read(rows[0].get_array()[1], per_pair, "node.links")) {
      n.links = GpuLinkMatrix::NvSwitch(size, per_pair);
      return n;
    }
  }
  GpuLinkMatrix m(size);
  for (int a = 0; a < size; ++a) {
    const bj::value& row = rows[static_cast<size_t>(a)];
    if (!row.is_array() || static_cast<int>(row.get_array().size()) != size) return InvalidArgument("node.links: not square");
    for (int b = a + 1; b < size; ++b) {
      int v = 0;
      if (!in.Read(row.get_array()[static_cast<size_t>(b)], v, "node.links")) {
        return InvalidArgument("node.links: not a number");
      }
      if (v < 0 || v > 255) return InvalidArgument("node.links: out of range");
      m.set_links(a, b, v);
    }
  }
  n.links = m;
  return n;
}

bj::object ToJson(const NodeRecord& n, bj::storage_ptr sp) {
  bj::object o = Write(n, sp, [](auto& v, auto& x, const NodeRecord& d) { NodeRecordFields(v, x, d); });
  o.insert_or_assign("node", ToJson(n.node, sp));
  return o;
}

StatusOr<NodeRecord> NodeRecordFromJson(const bj::value& j) {
  ASSIGN_OR_RETURN(NodeRecord r,
                   Read<NodeRecord>(j, "node_record", [](auto& v, auto& x, const NodeRecord& d) { NodeRecordFields(v, x, d); }));
  const bj::value* node = j.get_object().if_contains("node");
  if (node == nullptr) return InvalidArgument("node_record.node: missing");
  ASSIGN_OR_RETURN(r.node, NodeFromJson(*node));
  return r;
}

bj::object ToJson(const StepRecord& s, bj::storage_ptr sp) {
  return Write(s, std::move(sp), [](auto& v, auto& x, const StepRecord& d) { StepFields(v, x, d); });
}

StatusOr<StepRecord> StepRecordFromJson(const bj::value& j) {
  return Read<StepRecord>(j, "step", [](auto& v, auto& x, const StepRecord& d) { StepFields(v, x, d); });
}

bj::object ToJson(const Partition& p, bj::storage_ptr sp) {
  return Write(p, std::move(sp), [](auto& v, auto& x, const Partition& d) { PartitionFields(v, x, d); });
}

StatusOr<Partition> PartitionFromJson(const bj::value& j) {
  return Read<Partition>(j, "partition", [](auto& v, auto& x, const Partition& d) { PartitionFields(v, x, d); });
}

StatusOr<bj::value> ParseRecordText(std::string_view text, std::string_view what) {
  bj::parse_options opt;
  opt.max_depth = 32;
  opt.allow_invalid_utf8 = true;  // names are the users' bytes
  bj::error_code ec;
  bj::value v = bj::parse(bj::string_view(text.data(), text.size()), ec, {}, opt);
  if (ec) return InvalidArgument(std::string(what) + ": malformed JSON: " + ec.message());
  return v;
}

}  // namespace muster
