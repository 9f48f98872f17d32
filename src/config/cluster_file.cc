// Cluster files (YAML) -> scheduler inputs. See docs/cluster-file.md.
#include "config/cluster_file.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

#include "config/yaml_reader.h"
#include "model/gpu_links.h"
#include "model/hostlist.h"
#include "model/job_request.h"
#include "model/limits.h"

namespace muster {

namespace {

using config_internal::Describe;
using config_internal::ErrorAt;
using config_internal::Index;
using config_internal::MapReader;
using config_internal::Quote;

constexpr int kMaxDevicesPerNode = 64;     // ClusterSpec::Validate's limit
constexpr size_t kMaxNodes = 100'000;      // keeps a typo like gpu[1-9999999] from eating memory
constexpr int64_t kMaxCpus = 1'000'000;

// Names used in gres and constraint syntax: no blanks, ':', ',', '&', '|', brackets.
bool IsPlainName(const std::string& s) {
  if (s.empty() || s.size() > 128) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '+';
  });
}

std::string Join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string s;
  for (const std::string& x : v) {
    if (!s.empty()) s += sep;
    s += x;
  }
  return s;
}

// The memory of a MIG slice from its profile name: "3g.40gb" -> 40 GiB; 0 if the name has none.
int64_t MigProfileMemoryMb(const std::string& profile) {
  size_t dot = profile.find('.');
  if (dot == std::string::npos) return 0;
  size_t i = dot + 1, j = i;
  while (j < profile.size() && j - i < 6 && std::isdigit(static_cast<unsigned char>(profile[j]))) ++j;
  if (j == i || profile.compare(j, 2, "gb") != 0) return 0;
  return std::stoll(profile.substr(i, j - i)) * 1024;
}

// ---- node_types ---------------------------------------------------------------------------------

struct NodeType {
  Node proto;  // everything but the name (and GPU uuids)
};

Status ReadNodeType(const std::string& source, const std::string& name, const YAML::Node& key_node,
                    const YAML::Node& value, NodeType* out) {
  const std::string path = "node_types." + name;
  if (!IsPlainName(name)) {
    return ErrorAt(source, key_node, path, "a node type name may use letters, digits, '_', '-', '.' and '+'");
  }
  ASSIGN_OR_RETURN(MapReader r, MapReader::Make(source, value, path,
                                                {"cpus", "sockets", "threads_per_core", "numa_nodes", "memory",
                                                 "gpus", "gpu_model", "gpu_memory", "links", "mig", "mig_memory",
                                                 "features"}));
  Node& n = out->proto;
  RETURN_IF_ERROR(r.Int("cpus", &n.cpus, 1, kMaxCpus, /*required=*/true));
  RETURN_IF_ERROR(r.Int("sockets", &n.sockets, 1, 1024));
  RETURN_IF_ERROR(r.Int("threads_per_core", &n.threads_per_core, 1, 64));
  if (n.cpus % (n.sockets * n.threads_per_core) != 0) {
    return r.Error("cpus", std::to_string(n.cpus) + " CPUs do not divide into " + std::to_string(n.sockets) +
                               " sockets of " + std::to_string(n.threads_per_core) + "-thread cores");
  }
  n.cores_per_socket = n.cpus / (n.sockets * n.threads_per_core);
  n.numa_nodes = n.sockets;
  RETURN_IF_ERROR(r.Int("numa_nodes", &n.numa_nodes, 1, 1024));
  RETURN_IF_ERROR(r.MemoryMb("memory", &n.memory_mb, /*required=*/true));
  RETURN_IF_ERROR(r.MemoryMb("tmp_disk", &n.tmp_disk_mb));
  RETURN_IF_ERROR(r.StringList("features", &n.features));
  for (const std::string& f : n.features) {
    if (!IsPlainName(f)) return r.Error("features", "invalid feature name " + Quote(f));
  }

  std::vector<std::string> mig;
  RETURN_IF_ERROR(r.StringList("mig", &mig));
  const bool is_mig = r.Has("mig");
  int physical = is_mig ? 1 : 0;
  RETURN_IF_ERROR(r.Int("gpus", &physical, 0, kMaxDevicesPerNode));
  if (is_mig && mig.empty()) return r.Error("mig", "lists no MIG slices");
  if (is_mig && physical == 0) return r.Error("gpus", "a type with MIG slices needs at least one GPU");
  if (is_mig && static_cast<int64_t>(physical) * static_cast<int64_t>(mig.size()) > kMaxDevicesPerNode) {
    return r.Error("mig", std::to_string(physical) + " GPUs x " + std::to_string(mig.size()) +
                              " slices is more than " + std::to_string(kMaxDevicesPerNode) + " devices per node");
  }
  std::string model;
  RETURN_IF_ERROR(r.String("gpu_model", &model, /*required=*/physical > 0));
  if (physical == 0 && r.Has("gpu_model")) return r.Error("gpu_model", "the type has no GPUs (set gpus: N)");
  if (physical > 0 && !IsPlainName(model)) return r.Error("gpu_model", "invalid GPU model name " + Quote(model));
  for (const char* whole_only : {"gpu_memory", "links"}) {
    if (is_mig && r.Has(whole_only)) {
      return r.Error(whole_only, "does not apply to MIG slices (their memory comes from mig_memory or the "
                                 "profile name; slices share no NVLink)");
    }
    if (physical == 0 && r.Has(whole_only)) return r.Error(whole_only, "the type has no GPUs (set gpus: N)");
  }
  if (!is_mig && r.Has("mig_memory")) return r.Error("mig_memory", "given without mig slices");

  if (is_mig) {
    int64_t slice_memory = 0;
    RETURN_IF_ERROR(r.MemoryMb("mig_memory", &slice_memory));
    for (int p = 0; p < physical; ++p) {
      for (const std::string& profile : mig) {
        if (!IsPlainName(profile)) return r.Error("mig", "invalid MIG profile name " + Quote(profile));
        Gpu g;
        g.index = static_cast<int>(n.gpus.size());
        g.model = model;
        g.mig_profile = profile;
        g.parent_index = p;
        g.numa_node = p * n.numa_nodes / physical;
        g.memory_mb = slice_memory > 0 ? slice_memory : MigProfileMemoryMb(profile);
        if (g.memory_mb == 0) {
          return r.Error("mig", "cannot tell the memory of MIG profile " + Quote(profile) +
                                    " from its name; set mig_memory");
        }
        n.gpus.push_back(g);
      }
    }
    n.links = GpuLinkMatrix::PcieOnly(static_cast<int>(n.gpus.size()));
    return Status::Ok();
  }
  int64_t gpu_memory = 0;
  RETURN_IF_ERROR(r.MemoryMb("gpu_memory", &gpu_memory));
  for (int g = 0; g < physical; ++g) {
    Gpu gpu;
    gpu.index = g;
    gpu.model = model;
    gpu.memory_mb = gpu_memory;
    gpu.numa_node = g * n.numa_nodes / physical;
    n.gpus.push_back(gpu);
  }
  std::string links = "pcie";
  RETURN_IF_ERROR(r.String("links", &links));
  StatusOr<GpuLinkMatrix> m = GpuLinkMatrix::Parse(links, physical);
  if (!m.ok()) return r.Has("links") ? r.Error("links", m.status().message()) : m.status();
  n.links = *m;
  return Status::Ok();
}

// ---- the cluster document -------------------------------------------------------------------------

class ClusterReader {
 public:
  ClusterReader(const std::string& text, std::string source) : text_(text), source_(std::move(source)) {}

  StatusOr<ClusterConfig> Read() {
    ASSIGN_OR_RETURN(YAML::Node doc, config_internal::ParseYaml(text_, source_));
    if (doc.IsNull()) return InvalidArgument(source_ + ": the cluster file is empty (see docs/cluster-file.md)");
    ASSIGN_OR_RETURN(MapReader root, MapReader::Make(source_, doc, "",
                                                     {"cluster", "node_types", "nodes", "topology", "partitions",
                                                      "usage"}));
    RETURN_IF_ERROR(root.String("cluster", &out_.name));
    RETURN_IF_ERROR(ReadTypes(root));
    RETURN_IF_ERROR(ReadNodes(root));
    RETURN_IF_ERROR(ReadTopology(root));
    RETURN_IF_ERROR(ReadPartitions(root));
    RETURN_IF_ERROR(ReadUsage(root));
    // Everything above checks with file locations; this is the last line of defence.
    RETURN_IF_ERROR(out_.spec.Validate().WithPrefix(source_));
    return std::move(out_);
  }

 private:
  ClusterSpec& snap() { return out_.spec; }

  Status ReadTypes(const MapReader& root) {
    const YAML::Node* v = root.Find("node_types");
    if (v == nullptr) return root.Missing("node_types");
    if (!v->IsMap()) {
      return root.Error("node_types", "expected a map of node types (name: {cpus: ..., memory: ...}), got " +
                                          Describe(*v));
    }
    if (v->size() == 0) return root.Error("node_types", "lists no node types");
    for (auto it = v->begin(); it != v->end(); ++it) {
      if (!it->first.IsScalar()) {
        return ErrorAt(source_, it->first, "node_types", "a type name must be a plain name, got " +
                                                             Describe(it->first));
      }
      const std::string name = it->first.Scalar();
      if (types_.count(name)) return ErrorAt(source_, it->first, "node_types." + name, "defined twice");
      NodeType t;
      RETURN_IF_ERROR(ReadNodeType(source_, name, it->first, it->second, &t));
      types_.emplace(name, std::move(t));
      type_names_.push_back(name);
    }
    return Status::Ok();
  }

  Status ReadNodes(const MapReader& root) {
    std::vector<YAML::Node> items;
    RETURN_IF_ERROR(root.List("nodes", &items, /*required=*/true));
    if (items.empty()) return root.Error("nodes", "lists no nodes");
    for (size_t i = 0; i < items.size(); ++i) {
      ASSIGN_OR_RETURN(MapReader r, MapReader::Make(source_, items[i], Index("nodes", i),
                                                    {"names", "type", "state", "reason", "features"}));
      std::string names, type, state = "idle", reason;
      RETURN_IF_ERROR(r.String("names", &names, /*required=*/true));
      RETURN_IF_ERROR(r.String("type", &type, /*required=*/true));
      RETURN_IF_ERROR(r.Choice("state", {"idle", "down", "drain"}, &state));
      RETURN_IF_ERROR(r.String("reason", &reason));
      if (state == "idle" && r.Has("reason")) return r.Error("reason", "only a down or drained node has a reason");
      std::vector<std::string> extra;
      RETURN_IF_ERROR(r.StringList("features", &extra));
      for (const std::string& f : extra) {
        if (!IsPlainName(f)) return r.Error("features", "invalid feature name " + Quote(f));
      }
      auto t = types_.find(type);
      if (t == types_.end()) {
        return r.Error("type", "unknown node type " + Quote(type) + " (known: " + Join(type_names_) + ")");
      }
      StatusOr<std::vector<std::string>> hosts = ExpandHostlist(names);
      if (!hosts.ok()) return r.Error("names", hosts.status().message());
      if (hosts->empty()) return r.Error("names", "names no nodes");
      if (snap().nodes.size() + hosts->size() > kMaxNodes) {
        return r.Error("names", "more than " + std::to_string(kMaxNodes) + " nodes in the cluster");
      }
      for (const std::string& h : *hosts) {
        if (!IsPlainName(h)) return r.Error("names", "invalid node name " + Quote(h));
        auto [at, inserted] = node_pos_.emplace(h, snap().nodes.size());
        if (!inserted) return r.Error("names", "node " + Quote(h) + " is already defined");
        Node n = t->second.proto;
        n.name = h;
        for (Gpu& g : n.gpus) {
          g.uuid = (g.is_mig() ? "MIG-" : "GPU-") + h + "-" + std::to_string(g.index);
        }
        for (const std::string& f : extra) {
          if (!n.has_feature(f)) n.features.push_back(f);
        }
        if (state == "down") n.state = NodeState::kDown;
        n.drain = state == "drain";
        n.reason = reason;
        snap().nodes.push_back(std::move(n));
      }
    }
    return Status::Ok();
  }

  // topology.conf errors say "line N" of the embedded text; for a block scalar (`topology: |`)
  // that line is also found in the file, so the error points there.
  Status ReadTopology(const MapReader& root) {
    const YAML::Node* v = root.Find("topology");
    if (v == nullptr) return Status::Ok();
    if (v->IsNull()) return Status::Ok();
    if (!v->IsScalar()) return root.Error("topology", "expected topology.conf text (topology: |), got " +
                                                          Describe(*v));
    StatusOr<Topology> t = Topology::ParseTopologyConf(v->Scalar());
    if (!t.ok()) {
      const std::string& msg = t.status().message();
      const YAML::Mark m = v->Mark();
      const bool block = !m.is_null() && m.pos >= 0 && static_cast<size_t>(m.pos) < text_.size() &&
                         (text_[m.pos] == '|' || text_[m.pos] == '>');
      int line = 0;
      if (block && msg.rfind("line ", 0) == 0) {
        for (size_t k = 5; k < msg.size() && k < 15 && std::isdigit(static_cast<unsigned char>(msg[k])); ++k) {
          line = line * 10 + (msg[k] - '0');
        }
      }
      if (line > 0) {
        return InvalidArgument(source_ + ":" + std::to_string(m.line + 1 + line) + ": topology: " + msg);
      }
      return root.Error("topology", msg);
    }
    for (const Switch& sw : t->switches()) {
      for (const std::string& n : sw.nodes) {
        if (!node_pos_.count(n)) {
          return root.Error("topology", "switch " + Quote(sw.name) + " lists unknown node " + Quote(n));
        }
      }
    }
    snap().topology = std::move(*t);
    return Status::Ok();
  }

  // allow_groups, allow_accounts, deny_accounts, allow_qos, deny_qos: lists of names (absent: ALL
  // for allow_*, none for deny_*). An allow_ and a deny_ list of the same kind are exclusive.
  Status ReadAccess(const MapReader& r, PartitionAccess* a) {
    RETURN_IF_ERROR(AccessList(r, "allow_groups", &a->allow_groups));
    RETURN_IF_ERROR(AccessList(r, "allow_accounts", &a->allow_accounts));
    RETURN_IF_ERROR(AccessList(r, "deny_accounts", &a->deny_accounts));
    RETURN_IF_ERROR(AccessList(r, "allow_qos", &a->allow_qos));
    RETURN_IF_ERROR(AccessList(r, "deny_qos", &a->deny_qos));
    if (r.Has("allow_accounts") && r.Has("deny_accounts")) {
      return r.Error("deny_accounts", "give allow_accounts or deny_accounts, not both");
    }
    if (r.Has("allow_qos") && r.Has("deny_qos")) return r.Error("deny_qos", "give allow_qos or deny_qos, not both");
    return Status::Ok();
  }

  Status AccessList(const MapReader& r, std::string_view key, std::vector<std::string>* out) {
    RETURN_IF_ERROR(r.StringList(key, out));
    if (key.substr(0, 6) == "allow_" && *out == std::vector<std::string>{"ALL"}) {
      out->clear();  // as in slurm.conf
      return Status::Ok();
    }
    for (const std::string& name : *out) {
      if (!IsPlainName(name)) return r.Error(key, "invalid name " + Quote(name));
    }
    if (r.Has(key) && out->empty()) return r.Error(key, "lists no names (leave it out for ALL)");
    return Status::Ok();
  }

  Status ReadPartitions(const MapReader& root) {
    std::vector<YAML::Node> items;
    RETURN_IF_ERROR(root.List("partitions", &items, /*required=*/true));
    if (items.empty()) return root.Error("partitions", "lists no partitions");
    std::string default_name;
    for (size_t i = 0; i < items.size(); ++i) {
      ASSIGN_OR_RETURN(MapReader r, MapReader::Make(source_, items[i], Index("partitions", i),
                                                    {"name", "nodes", "default", "state", "max_time",
                                                     "default_time", "min_nodes", "max_nodes", "priority_tier",
                                                     "def_mem_per_cpu", "preempt_mode", "grace_time", "allow_groups",
                                                     "allow_accounts", "deny_accounts", "allow_qos", "deny_qos"}));
      Partition p;
      RETURN_IF_ERROR(r.String("name", &p.name, /*required=*/true));
      if (!IsPlainName(p.name)) return r.Error("name", "invalid partition name " + Quote(p.name));
      for (const Partition& q : snap().partitions) {
        if (q.name == p.name) return r.Error("name", "partition " + Quote(p.name) + " is already defined");
      }
      std::string nodes;
      RETURN_IF_ERROR(r.String("nodes", &nodes, /*required=*/true));
      if (nodes == "ALL") {
        for (const Node& n : snap().nodes) p.nodes.push_back(n.name);
      } else {
        StatusOr<std::vector<std::string>> hosts = ExpandHostlist(nodes);
        if (!hosts.ok()) return r.Error("nodes", hosts.status().message());
        if (hosts->empty()) return r.Error("nodes", "names no nodes");
        std::set<std::string> seen;
        for (const std::string& h : *hosts) {
          if (!node_pos_.count(h)) return r.Error("nodes", "unknown node " + Quote(h));
          if (seen.insert(h).second) p.nodes.push_back(h);
        }
      }
      RETURN_IF_ERROR(r.Bool("default", &p.is_default));
      if (p.is_default && !default_name.empty()) {
        return r.Error("default", "partition " + Quote(default_name) + " is already the default");
      }
      if (p.is_default) default_name = p.name;
      std::string state = "up";
      RETURN_IF_ERROR(r.Choice("state", {"up", "down", "inactive"}, &state));
      p.up = state == "up";
      RETURN_IF_ERROR(r.TimeS("max_time", &p.max_time_s));
      RETURN_IF_ERROR(r.TimeS("default_time", &p.default_time_s));
      if (p.max_time_s != kUnlimited && p.default_time_s != kUnlimited && p.default_time_s > p.max_time_s) {
        return r.Error("default_time", "is longer than max_time " + FormatTimeSpec(p.max_time_s));
      }
      RETURN_IF_ERROR(r.Int("min_nodes", &p.min_nodes, 1, std::numeric_limits<int>::max()));
      if (const YAML::Node* v = r.Find("max_nodes"); v != nullptr && v->IsScalar() &&
                                                      (v->Scalar() == "UNLIMITED" || v->Scalar() == "unlimited")) {
        p.max_nodes = kUnlimited;
      } else {
        RETURN_IF_ERROR(r.Int("max_nodes", &p.max_nodes, 1, std::numeric_limits<int>::max()));
      }
      if (p.max_nodes != kUnlimited && p.max_nodes < p.min_nodes) {
        return r.Error("max_nodes", "is less than min_nodes " + std::to_string(p.min_nodes));
      }
      RETURN_IF_ERROR(r.Int("priority_tier", &p.priority_tier, 0, 65533));
      RETURN_IF_ERROR(r.MemoryMb("def_mem_per_cpu", &p.def_mem_per_cpu_mb));
      if (r.Has("preempt_mode")) {
        std::string mode;
        RETURN_IF_ERROR(r.String("preempt_mode", &mode));
        StatusOr<PreemptMode> m = ParsePreemptMode(mode);
        if (!m.ok()) return r.Error("preempt_mode", m.status().message());
        p.preempt_mode = *m;
        p.has_preempt_mode = true;
      }
      RETURN_IF_ERROR(r.Int("grace_time", &p.grace_time_s, 0, std::numeric_limits<int>::max()));
      RETURN_IF_ERROR(ReadAccess(r, &p.access));
      snap().partitions.push_back(std::move(p));
    }
    return Status::Ok();
  }

  // One entry per running job: what it holds on one node.
  Status ReadUsage(const MapReader& root) {
    std::vector<YAML::Node> items;
    RETURN_IF_ERROR(root.List("usage", &items, /*required=*/false));
    if (items.empty()) return Status::Ok();
    out_.usage.resize(snap().nodes.size());
    for (size_t i = 0; i < items.size(); ++i) {
      ASSIGN_OR_RETURN(MapReader r, MapReader::Make(source_, items[i], Index("usage", i),
                                                    {"node", "cpus", "memory", "gpus", "gpu_milli", "exclusive"}));
      std::string name;
      RETURN_IF_ERROR(r.String("node", &name, /*required=*/true));
      auto pos = node_pos_.find(name);
      if (pos == node_pos_.end()) return r.Error("node", "unknown node " + Quote(name));
      const Node& n = snap().nodes[pos->second];
      NodeUsage& u = out_.usage[pos->second];
      int64_t cpus = 0, memory = 0;
      bool exclusive = false;
      RETURN_IF_ERROR(r.Int("cpus", &cpus, 0, n.cpus));
      RETURN_IF_ERROR(r.MemoryMb("memory", &memory));
      RETURN_IF_ERROR(r.Bool("exclusive", &exclusive));
      if (u.exclusive) return r.Error("node", "node " + Quote(name) + " is already held by an exclusive job");
      if (exclusive && u.jobs > 0) {
        return r.Error("exclusive", "node " + Quote(name) + " already runs other work");
      }
      if (u.cpu_milli + cpus * 1000 > int64_t{n.cpus} * 1000) {
        return r.Error("cpus", "node " + Quote(name) + " has only " + std::to_string(n.cpus) + " CPUs (" +
                                   std::to_string(u.cpu_milli / 1000) + " already in use)");
      }
      if (memory > n.memory_mb - u.memory_mb) {
        return r.Error("memory", "node " + Quote(name) + " has only " + std::to_string(n.memory_mb) +
                                     " MiB of memory (" + std::to_string(u.memory_mb) + " MiB already in use)");
      }
      // GPU shares of this entry: index -> milli.
      std::map<int, int> shares;
      std::map<int, YAML::Node> share_at;
      const int devices = static_cast<int>(n.gpus.size());
      if (const YAML::Node* g = r.Find("gpus")) {
        if (!g->IsSequence()) return r.Error("gpus", "expected a list of GPU indexes, got " + Describe(*g));
        size_t k = 0;
        for (auto it = g->begin(); it != g->end(); ++it, ++k) {
          ASSIGN_OR_RETURN(int64_t idx, config_internal::ScalarInt(source_, *it, Index(r.PathOf("gpus"), k), 0,
                                                                   std::numeric_limits<int>::max()));
          if (idx >= devices) {
            return ErrorAt(source_, *it, Index(r.PathOf("gpus"), k),
                           "node " + Quote(name) + " has " + std::to_string(devices) + " GPUs (indexes 0-" +
                               std::to_string(devices - 1) + ")");
          }
          if (shares.count(static_cast<int>(idx))) {
            return ErrorAt(source_, *it, Index(r.PathOf("gpus"), k), "GPU " + std::to_string(idx) + " listed twice");
          }
          shares[static_cast<int>(idx)] = kMilliPerGpu;
          share_at.emplace(static_cast<int>(idx), static_cast<const YAML::Node&>(*it));
        }
      }
      if (const YAML::Node* g = r.Find("gpu_milli")) {
        if (!g->IsMap()) return r.Error("gpu_milli", "expected a map {GPU index: milli}, got " + Describe(*g));
        for (auto it = g->begin(); it != g->end(); ++it) {
          ASSIGN_OR_RETURN(int64_t idx, config_internal::ScalarInt(source_, it->first, r.PathOf("gpu_milli"), 0,
                                                                   std::numeric_limits<int>::max()));
          const std::string path = r.PathOf("gpu_milli") + "." + std::to_string(idx);
          if (idx >= devices) {
            return ErrorAt(source_, it->first, path,
                           "node " + Quote(name) + " has " + std::to_string(devices) + " GPUs");
          }
          ASSIGN_OR_RETURN(int64_t milli, config_internal::ScalarInt(source_, it->second, path, 1, kMilliPerGpu));
          if (shares.count(static_cast<int>(idx))) {
            return ErrorAt(source_, it->first, path, "GPU " + std::to_string(idx) + " is given twice");
          }
          shares[static_cast<int>(idx)] = static_cast<int>(milli);
          share_at.emplace(static_cast<int>(idx), it->second);
        }
      }
      if (u.gpus.size() < n.gpus.size()) u.gpus.resize(n.gpus.size());
      for (const auto& [idx, milli] : shares) {
        if (u.gpus[idx].milli + milli > kMilliPerGpu) {
          return ErrorAt(source_, share_at.at(idx), r.path(),
                         "GPU " + std::to_string(idx) + " of node " + Quote(name) + " would be " +
                             std::to_string(u.gpus[idx].milli + milli) + "/1000 used");
        }
        u.gpus[idx].milli += milli;
      }
      u.cpu_milli += cpus * 1000;
      u.memory_mb += memory;
      u.jobs += 1;
      u.exclusive = exclusive;
    }
    return Status::Ok();
  }

  const std::string& text_;
  std::string source_;
  ClusterConfig out_;
  std::unordered_map<std::string, NodeType> types_;
  std::vector<std::string> type_names_;
  std::unordered_map<std::string, size_t> node_pos_;
};

}  // namespace

StatusOr<ClusterConfig> LoadClusterConfigYaml(const std::string& text, const std::string& source) {
  try {
    return ClusterReader(text, source).Read();
  } catch (const std::exception& e) {  // yaml-cpp documents no throws past parsing; be safe anyway
    return InvalidArgument(source + ": " + e.what());
  }
}

StatusOr<ClusterConfig> LoadClusterConfigFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, config_internal::ReadTextFile(path));
  return LoadClusterConfigYaml(text, path);
}

}  // namespace muster
