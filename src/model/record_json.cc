#include "model/record_json.h"

#include <algorithm>

#include "model/job_record_fields.h"

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

// Writes every field (the stored and wire form keep defaults, so a reader of any age sees them).
struct JsonWriter {
  json out = json::object();
  template <typename T>
  void Field(const char* key, const T& value, const T&) {
    out[key] = value;
  }
  void Field(const char* key, const JobState& value, const JobState&) { out[key] = JobStateName(value); }
  void Field(const char* key, const SharedText& value, const SharedText&) { out[key] = value.str(); }
  template <typename T, typename Fn>
  void Object(const char* key, const T& value, const T& def, Fn fields) {
    JsonWriter sub;
    fields(sub, value, def);
    out[key] = std::move(sub.out);
  }
  template <typename T, typename Fn>
  void Objects(const char* key, const std::vector<T>& values, const std::vector<T>&, Fn fields) {
    json arr = json::array();
    for (const T& v : values) {
      JsonWriter sub;
      fields(sub, v, T{});
      arr.push_back(std::move(sub.out));
    }
    out[key] = std::move(arr);
  }
};

// Reads the fields present (missing ones keep their defaults); the first error wins.
class JsonReader {
 public:
  JsonReader(const json& j, std::string what) : in_(j, what), what_(std::move(what)) {}
  template <typename T>
  void Field(const char* key, T& value, const T&) {
    in_.Get(key, value);
  }
  void Field(const char* key, JobState& value, const JobState&) {
    std::string name;
    in_.Get(key, name);
    if (name.empty() || !in_.status().ok()) return;
    StatusOr<JobState> st = ParseJobState(name);
    if (!st.ok()) return in_.Fail(st.status().WithPrefix(what_ + "." + key));
    value = *st;
  }
  void Field(const char* key, SharedText& value, const SharedText&) {
    std::string text;
    in_.Get(key, text);
    if (in_.status().ok() && !text.empty()) value = std::move(text);
  }
  template <typename T, typename Fn>
  void Object(const char* key, T& value, const T& def, Fn fields) {
    const json* sub = in_.Sub(key);
    if (!in_.status().ok() || sub == nullptr || sub->is_null()) return;
    JsonReader r(*sub, key);
    fields(r, value, def);
    if (!r.status().ok()) in_.Fail(r.status().WithPrefix(what_));
  }
  template <typename T, typename Fn>
  void Objects(const char* key, std::vector<T>& values, const std::vector<T>&, Fn fields) {
    const json* sub = in_.Sub(key);
    if (!in_.status().ok() || sub == nullptr || !sub->is_array()) return;
    for (const json& e : *sub) {
      T v{};
      JsonReader r(e, what_ + "." + key + "[]");
      fields(r, v, T{});
      if (!r.status().ok()) return in_.Fail(r.status());
      values.push_back(std::move(v));
    }
  }
  const Status& status() const { return in_.status(); }

 private:
  Reader in_;
  std::string what_;
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

json ToJson(const JobRequest& r) {
  JsonWriter w;
  record_fields::JobRequestFields(w, r, JobRequest{});
  return std::move(w.out);
}

StatusOr<JobRequest> JobRequestFromJson(const json& j) {
  JobRequest r;
  JsonReader in(j, "request");
  record_fields::JobRequestFields(in, r, JobRequest{});
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
              {"reason_user", n.reason_user},
              {"reason_time", n.reason_time},
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
  in.Get("reason_user", n.reason_user);
  in.Get("reason_time", n.reason_time);
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
  JsonWriter w;
  record_fields::JobRecordFields(w, j, JobRecord{});
  return std::move(w.out);
}

StatusOr<JobRecord> JobRecordFromJson(const json& j) {
  JobRecord r;
  JsonReader in(j, "job");
  record_fields::JobRecordFields(in, r, JobRecord{});
  if (!in.status().ok()) return in.status();
  return r;
}

std::string DescribeGpuFaults(const std::vector<GpuFault>& faults) {
  std::string out;
  for (const GpuFault& f : faults) {
    if (!out.empty()) out += "; ";
    out += "GPU " + std::to_string(f.index) + (f.needs_reset ? " needs a reset: " : " failed: ") + f.reason;
  }
  return out;
}

json ToJson(const GpuFault& f) { return json{{"index", f.index}, {"needs_reset", f.needs_reset}, {"reason", f.reason}}; }

json ToJson(const NodeRecord& n) {
  json failed = json::array();
  for (const GpuFault& f : n.failed_gpus) failed.push_back(ToJson(f));
  return json{{"node", ToJson(n.node)},
              {"failed_gpus", failed},
              {"agent_address", n.agent_address},
              {"last_heartbeat", n.last_heartbeat},
              {"boot_time", n.boot_time},
              {"start_time", n.start_time},
              {"version", n.version},
              {"arch", n.arch},
              {"os", n.os},
              {"hostname", n.hostname}};
}

StatusOr<NodeRecord> NodeRecordFromJson(const json& j) {
  NodeRecord r;
  Reader in(j, "node_record");
  in.Get("agent_address", r.agent_address);
  in.Get("last_heartbeat", r.last_heartbeat);
  in.Get("boot_time", r.boot_time);
  in.Get("start_time", r.start_time);
  in.Get("version", r.version);
  in.Get("arch", r.arch);
  in.Get("os", r.os);
  if (j.contains("hostname")) in.Get("hostname", r.hostname);
  if (!in.status().ok()) return in.status();
  if (j.contains("failed_gpus")) {
    if (!j["failed_gpus"].is_array()) return InvalidArgument("node_record.failed_gpus: must be a list");
    for (const json& f : j["failed_gpus"]) {
      GpuFault g;
      Reader fr(f, "node_record.failed_gpus[]");
      fr.Get("index", g.index);
      fr.Get("needs_reset", g.needs_reset);
      fr.Get("reason", g.reason);
      if (!fr.status().ok()) return fr.status();
      r.failed_gpus.push_back(g);
    }
  }
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
              {"start_time", s.start_time}, {"end_time", s.end_time}, {"exit_code", s.exit_code},
              {"node_cpus", s.node_cpus},
              {"node_mem_mb", s.node_mem_mb},
              {"node_gpus", s.node_gpus},
              {"time_limit_s", s.time_limit_s}};
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
  if (j.contains("node_cpus")) in.Get("node_cpus", s.node_cpus);
  if (j.contains("node_mem_mb")) in.Get("node_mem_mb", s.node_mem_mb);
  if (j.contains("node_gpus")) in.Get("node_gpus", s.node_gpus);
  if (j.contains("time_limit_s")) in.Get("time_limit_s", s.time_limit_s);
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
              {"def_mem_per_cpu_mb", p.def_mem_per_cpu_mb},
              {"def_mem_from_cluster", p.def_mem_from_cluster}};
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
  if (j.contains("def_mem_from_cluster")) in.Get("def_mem_from_cluster", p.def_mem_from_cluster);
  if (!in.status().ok()) return in.status();
  return p;
}

}  // namespace muster
