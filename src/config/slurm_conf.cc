// slurm.conf (+ topology.conf, gres.conf) -> scheduler inputs. See docs/cluster-file.md, "From
// Slurm's slurm.conf", for the keys read; the tokenizer follows Slurm's parse_config.c (its
// key=value regex, comment and continuation handling) as read from its source.
#include "config/slurm_conf.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "base/strings.h"
#include "config/slurm_conf_nodes.h"
#include "config/slurm_conf_values.h"
#include "config/yaml_reader.h"  // ReadTextFile
#include "model/gpu_links.h"
#include "model/hostlist.h"
#include "model/job_request.h"
#include "model/limits.h"
#include "model/slurm_syntax.h"

namespace muster {

namespace {

constexpr size_t kMaxNodes = 100'000;   // keeps a typo like gpu[1-9999999] from eating memory

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

using Pair = SlurmConfPair;
using LogicalLine = SlurmConfLine;
using Options = SlurmConfOptions;
using namespace slurm_conf;

// ---- the reader -----------------------------------------------------------------------------------

class SlurmConfReader {
 public:
  explicit SlurmConfReader(std::string source) : source_(std::move(source)) {}

  const std::string& source() const { return source_; }
  const std::string& topology_plugin() const { return topology_plugin_; }
  int topology_plugin_line() const { return topology_plugin_line_; }

  Status ReadSlurmConf(const std::string& text) {
    for (const LogicalLine& logical : SlurmConfLines(text)) {
      if (IsSlurmConfInclude(logical.text)) {
        return InvalidArgument(SlurmConfWhere(source_, logical.starts.front().second) +
                               ": Include is not supported (put the included lines into this file)");
      }
      ASSIGN_OR_RETURN(std::vector<Pair> pairs, TokenizeSlurmConfLine(logical, source_));
      // As in Slurm, NodeName=, PartitionName=, ... take the rest of their line as their options;
      // other keys stand alone, several to a line if need be.
      for (size_t k = 0; k < pairs.size(); ++k) {
        const std::string& key = pairs[k].lower;
        if (key == "nodename" || key == "partitionname" || key == "downnodes" || key == "nodeset" ||
            key == "frontendname") {
          std::vector<Pair> rest(pairs.begin() + static_cast<std::ptrdiff_t>(k), pairs.end());
          if (key == "nodename") RETURN_IF_ERROR(ReadNodeLine(rest));
          if (key == "partitionname") RETURN_IF_ERROR(ReadPartitionLine(rest));
          if (key == "downnodes") RETURN_IF_ERROR(ReadDownNodesLine(rest));
          if (key == "nodeset") RETURN_IF_ERROR(ReadNodeSetLine(rest));
          break;  // frontendname: nothing Muster uses
        }
        RETURN_IF_ERROR(ReadGlobal(pairs[k]));
      }
    }
    if (nodes().empty()) return InvalidArgument(source_ + ": defines no nodes (no NodeName= lines)");
    return Status::Ok();
  }

  // gres.conf: NodeName=<hostlist> Name=gpu [Type=..] File=/dev/nvidia[0-7] [Links=..], AutoDetect=.
  Status ReadGresConf(const std::string& text, const std::string& gsrc) {
    gres_source_ = gsrc;
    for (const LogicalLine& logical : SlurmConfLines(text)) {
      if (IsSlurmConfInclude(logical.text)) {
        return InvalidArgument(SlurmConfWhere(gsrc, logical.starts.front().second) +
                               ": Include is not supported (put the included lines into this file)");
      }
      ASSIGN_OR_RETURN(std::vector<Pair> pairs, TokenizeSlurmConfLine(logical, gsrc));
      if (pairs.empty()) continue;
      Options o(gsrc, "gres.conf");
      RETURN_IF_ERROR(o.AddLine(pairs, GresOptions()));
      // The nodes the line is about: those named (names not in slurm.conf are skipped, as slurmd
      // skips lines for other hosts), or all of them.
      std::vector<size_t> targets;
      const Pair* node_names = o.Find("nodename");
      if (node_names != nullptr) {
        StatusOr<std::vector<std::string>> hosts = ExpandHostlist(node_names->value);
        if (!hosts.ok()) return o.Error(*node_names, hosts.status().message());
        for (const std::string& h : *hosts) {
          if (auto it = node_pos_.find(h); it != node_pos_.end()) targets.push_back(it->second);
        }
      }
      if (const Pair* a = o.Find("autodetect")) {
        const std::string v = Lower(a->value);
        if (v != "off" && v != "nvml" && v != "rsmi" && v != "oneapi" && v != "nrt" && v != "nvidia") {
          return o.Error(*a, "expected off, nvml, nvidia, rsmi, oneapi or nrt");
        }
        if (node_names == nullptr) {
          global_autodetect_ = v != "off";
        } else {
          for (size_t i : targets) node_autodetect_[i] = v != "off";
        }
      }
      const Pair* name = o.Find("name");
      if (name == nullptr) {
        if (o.Find("autodetect") != nullptr) continue;
        return InvalidArgument(SlurmConfWhere(gsrc, pairs[0].line) + ": missing Name= (the gres name, e.g. Name=gpu)");
      }
      if (Lower(name->value) != "gpu") continue;  // mps, shard, nic, ...: nothing Muster models
      ASSIGN_OR_RETURN(GresLine gpu, ReadGresGpuLine(o));
      if (node_names == nullptr) {
        // A line for every node: it applies to the nodes with GPUs in slurm.conf (a shared gres.conf
        // says nothing about the CPU-only ones).
        for (size_t i = 0; i < nodes().size(); ++i) {
          if (!specs_[i].empty()) targets.push_back(i);
        }
      }
      for (size_t i : targets) {
        for (int64_t d = 0; d < gpu.count; ++d) {
          devices_[i].push_back(GresDevice{gpu.type, gpu.links, gpu.links_pair != nullptr,
                                           gpu.links_pair ? *gpu.links_pair : Pair{}});
        }
        if (first_gres_line_.count(i) == 0) first_gres_line_[i] = pairs[0].line;
      }
    }
    return Status::Ok();
  }

  Status ReadTopologyConf(const std::string& text, const std::string& tsrc) {
    StatusOr<Topology> t = Topology::ParseTopologyConf(text);
    if (!t.ok()) {
      // "line N: ..." -> "<tsrc>:N: ...".
      const std::string& msg = t.status().message();
      size_t k = 5;
      while (k < msg.size() && k < 15 && IsDigit(msg[k])) ++k;
      if (msg.rfind("line ", 0) == 0 && k > 5 && msg.compare(k, 2, ": ") == 0) {
        return InvalidArgument(tsrc + ":" + msg.substr(5, k - 5) + ": " + msg.substr(k + 2));
      }
      return InvalidArgument(tsrc + ": " + msg);
    }
    for (const Switch& sw : t->switches()) {
      for (const std::string& n : sw.nodes) {
        if (!node_pos_.count(n)) {
          return InvalidArgument(SlurmConfWhere(tsrc, SwitchLine(text, sw.name)) + ": switch '" + sw.name +
                                 "' lists node '" + n + "', which " + source_ + " does not define");
        }
      }
    }
    snap().topology = std::move(*t);
    return Status::Ok();
  }

  StatusOr<ClusterConfig> Finish() {
    NoteHarmlessKeys();
    RETURN_IF_ERROR(ApplyDownNodes());
    for (size_t i = 0; i < nodes().size(); ++i) RETURN_IF_ERROR(BuildGpus(i));
    RETURN_IF_ERROR(BuildPartitions());
    NoteUnsupportedOptionLines();
    // Everything above checks with file locations; this is the last line of defence.
    RETURN_IF_ERROR(snap().Validate().WithPrefix(source_));
    return std::move(out_);
  }

 private:
  struct PendingLine {
    Options options;
    int line = 0;
  };

  ClusterSpec& snap() { return out_.spec; }
  std::vector<Node>& nodes() { return out_.spec.nodes; }

  Status ReadGlobal(const Pair& p) {
    if (p.lower == "clustername") {
      // Slurm maps the name to lower case ("because of limitations in some databases").
      if (!IsPlainName(p.value)) return SlurmConfPairError(source_, p, "invalid cluster name");
      out_.name = Lower(p.value);
    } else if (p.lower == "topologyplugin") {
      topology_plugin_ = Lower(p.value);
      topology_plugin_line_ = p.line;
    } else if (p.lower == "defmempercpu") {
      StatusOr<int64_t> mb = ParseMemoryMb(p.value);
      if (!mb.ok()) return SlurmConfPairError(source_, p, mb.status().message());
      def_mem_per_cpu_mb_ = *mb;
    } else if (p.lower == "schedulertype") {
      ReadSchedulerType(p);
    } else if (p.lower == "preempttype") {
      ReadPreemptType(p);
    } else if (p.lower == "schedulerparameters") {
      return ReadSchedulerParameters(p);
    } else if (p.lower == "authaltparameters") {
      ReadAuthAltParameters(p);
    } else if (auto mapped = MappedGlobalKeys().find(p.lower); mapped != MappedGlobalKeys().end()) {
      return ReadMapped(p, mapped->second);
    } else {
      NoteIgnored(p);
    }
    return Status::Ok();
  }

  // AuthAltParameters=jwt_key=PATH[,...]: the key slurmrestd's JWTs are signed with
  // (controller.jwt_key), and max_token_lifespan=SECONDS (controller.jwt_max_lifespan; slurmctld
  // enforces no limit for a value below 1, and logs it); its other options
  // (disable_token_creation, jwks=, ...) are ignored.
  void ReadAuthAltParameters(const Pair& p) {
    std::stringstream in(p.value);
    for (std::string opt; std::getline(in, opt, ',');) {
      if (Lower(opt).rfind("max_token_lifespan=", 0) == 0) {
        const std::string v = opt.substr(19);
        char* end = nullptr;
        const long long n = std::strtoll(v.c_str(), &end, 10);
        if (v.empty() || *end != '\0' || n < 1 || n > (int64_t{1} << 31)) {
          Warn(At(p) + ": max_token_lifespan must be a number of seconds from 1 to 2147483648; no limit enforced");
          Set("controller.jwt_max_lifespan", p, "0");
        } else {
          Set("controller.jwt_max_lifespan", p, std::to_string(n));
        }
        continue;
      }
      if (opt.rfind("jwt_key=", 0) != 0) continue;
      const std::string path = opt.substr(8);
      if (path.empty() || path[0] != '/') {
        Warn(At(p) + ": jwt_key must be an absolute path; ignored");
      } else {
        Set("controller.jwt_key", p, path);
      }
    }
  }

  // A key that sets one of muster.yaml's, in muster.yaml's terms. A value Muster cannot take
  // (SlurmdTimeout=0: never) is ignored with a warning; a malformed one is an error, as in
  // slurmctld.
  Status ReadMapped(const Pair& p, const MappedKey& k) {
    const bool number = k.value == SettingValue::kInt || k.value == SettingValue::kSeconds || k.value == SettingValue::kTime;
    ASSIGN_OR_RETURN(std::optional<std::string> value, number ? NumberValue(p, k) : WordValue(p, k));
    if (value) Set(k.muster_key, p, std::move(*value));
    return Status::Ok();
  }

  // An integer (seconds for a Slurm time), or nothing when outside what Muster takes.
  StatusOr<std::optional<std::string>> NumberValue(const Pair& p, const MappedKey& k) {
    int64_t n = 0;
    if (k.value == SettingValue::kTime) {
      StatusOr<int64_t> t = ParseTimeSpec(p.value);
      if (!t.ok()) return SlurmConfPairError(source_, p, "expected a time (minutes, or [days-]hours:minutes:seconds)");
      n = *t;
    } else if (!ParseSlurmConfInt(p.value, &n)) {
      return SlurmConfPairError(source_, p, "expected a non-negative integer");
    }
    if (n < k.min || n > k.max) {
      Warn(At(p) + ": Muster's " + k.muster_key + " takes " + std::to_string(k.min) + " to " + std::to_string(k.max) +
           (k.value == SettingValue::kInt ? "" : " seconds") + "; ignored");
      return std::optional<std::string>();
    }
    return std::optional<std::string>(std::to_string(n));
  }

  // A path, a YES/NO as true/false, or a preemption mode's name.
  StatusOr<std::optional<std::string>> WordValue(const Pair& p, const MappedKey& k) {
    if (k.value == SettingValue::kPath) {
      if (p.value.empty() || p.value[0] != '/') return SlurmConfPairError(source_, p, "expected an absolute path");
      return std::optional<std::string>(p.value);
    }
    if (k.value == SettingValue::kPreemptMode) {
      // "REQUEUE", or with GANG ("SUSPEND,GANG"): the mode is the first word.
      StatusOr<PreemptMode> mode = ParsePreemptMode(p.value.substr(0, p.value.find(',')));
      if (!mode.ok()) return SlurmConfPairError(source_, p, mode.status().message());
      return std::optional<std::string>(Lower(PreemptModeName(*mode)));
    }
    const std::string v = Lower(p.value);
    const bool yes = v == "yes" || v == "true" || v == "1";
    if (!yes && v != "no" && v != "false" && v != "0") return SlurmConfPairError(source_, p, "expected YES or NO");
    return std::optional<std::string>(yes == (k.value == SettingValue::kYesNo) ? "true" : "false");
  }

  // "<source>:<line>: Key=value", where a message about a pair starts.
  std::string At(const Pair& p) const { return SlurmConfWhere(source_, p.line) + ": " + p.key + "=" + SlurmConfShort(p.value); }

  // sched/backfill (Slurm's default) or sched/builtin (no backfill); another plugin is warned about.
  void ReadSchedulerType(const Pair& p) {
    const std::string v = Lower(p.value);
    if (v == "sched/backfill" || v == "sched/builtin") {
      Set("scheduler.backfill", p, v == "sched/backfill" ? "true" : "false");
    } else {
      Warn(At(p) + ": not supported by Muster (it schedules with backfill or, scheduler.backfill: false, without); ignored");
    }
  }

  // preempt/none (Slurm's default), preempt/qos or preempt/partition_prio: which of Muster's
  // preemption rules apply (preemption.by_qos, preemption.by_partition_tier).
  void ReadPreemptType(const Pair& p) {
    const std::string v = Lower(p.value);
    if (v != "preempt/none" && v != "preempt/qos" && v != "preempt/partition_prio") {
      Warn(At(p) + ": not supported by Muster (preempt/none, preempt/qos or preempt/partition_prio); ignored");
      return;
    }
    Set("preemption.by_qos", p, v == "preempt/qos" ? "true" : "false");
    Set("preemption.by_partition_tier", p, v == "preempt/partition_prio" ? "true" : "false");
  }

  // Comma-separated options; those Muster reads set muster.yaml's keys, the rest are named in one
  // warning.
  Status ReadSchedulerParameters(const Pair& p) {
    std::string ignored;
    for (const std::string& option : SplitOn(p.value, ',')) {
      if (option.empty()) continue;
      const size_t eq = option.find('=');
      const std::string name = Lower(option.substr(0, eq));
      const auto mapped = MappedSchedulerParameters().find(name);
      if (mapped == MappedSchedulerParameters().end()) {
        ignored += (ignored.empty() ? "" : ", ") + option;
        continue;
      }
      int64_t n = 0;
      if (eq == std::string::npos || !ParseSlurmConfInt(std::string_view(option).substr(eq + 1), &n) || n < 1 ||
          n > 100'000) {
        return SlurmConfPairError(source_, p, name + " expects an integer in [1, 100000]");
      }
      const auto& [muster_key, unit] = mapped->second;
      Set(muster_key, p, std::to_string(n * unit));
    }
    if (!ignored.empty()) {
      Warn(SlurmConfWhere(source_, p.line) + ": " + p.key + ": options not supported by Muster, ignored: " +
           SlurmConfShort(ignored));
    }
    return Status::Ok();
  }

  void Set(const std::string& muster_key, const Pair& p, std::string value) {
    out_.settings[muster_key] = ClusterFileSetting{At(p), std::move(value)};
  }

  void Warn(std::string message) { out_.warnings.push_back(std::move(message)); }

  // A key Muster does not read: unsupported and unknown keys get a warning each, harmless ones one
  // together (NoteHarmlessKeys).
  void NoteIgnored(const Pair& p) {
    std::string name = p.key;
    const std::string where = At(p);
    switch (ClassifyGlobalKey(p.lower, &name)) {
      case GlobalKeyUse::kHarmless:
        harmless_ += (harmless_.empty() ? "" : ", ") + name + " (line " + std::to_string(p.line) + ")";
        break;
      case GlobalKeyUse::kUnsupported:
        Warn(where + ": not supported by Muster, ignored");
        break;
      case GlobalKeyUse::kUnknown:
        Warn(where + ": not a slurm.conf key Muster knows, ignored");
        break;
    }
  }

  void NoteHarmlessKeys() {
    if (harmless_.empty()) return;
    Warn(source_ + ": keys for Slurm's own daemons and plugins, with nothing for Muster to do, ignored: " + harmless_);
  }

  // Options of a NodeName=/PartitionName= line (with its DEFAULT line's) that Muster does not act
  // on, when set to other than Slurm's default: noted by the line they are written on.
  void NoteUnsupportedOptions(const Options& o, const std::map<std::string, std::string>& unsupported) {
    for (const auto& [key, slurm_default] : unsupported) {
      const Pair* p = o.Find(key);
      if (p == nullptr || p->value.empty() || (!slurm_default.empty() && Lower(p->value) == slurm_default)) continue;
      unsupported_options_[p->line].insert(p->key + "=" + SlurmConfShort(p->value));
    }
  }

  void NoteUnsupportedOptionLines() {
    for (const auto& [line, options] : unsupported_options_) {
      std::string list;
      for (const std::string& o : options) list += (list.empty() ? "" : ", ") + o;
      Warn(SlurmConfWhere(source_, line) + ": options not supported by Muster, ignored: " + list);
    }
  }

  Status ReadNodeLine(const std::vector<Pair>& pairs) {
    Options line(source_, "NodeName");
    RETURN_IF_ERROR(line.AddLine(pairs, NodeOptions()));
    if (Lower(pairs[0].value) == "default") {
      node_defaults_.Merge(line);
      return Status::Ok();
    }
    Options o = node_defaults_;
    o.Merge(line);
    NoteUnsupportedOptions(o, UnsupportedNodeOptions());
    const Pair& names = pairs[0];

    Node proto;
    RETURN_IF_ERROR(ReadNodeCpus(o, &proto));
    proto.memory_mb = 1;  // Slurm's default RealMemory
    RETURN_IF_ERROR(o.Memory("realmemory", &proto.memory_mb));
    RETURN_IF_ERROR(o.Memory("tmpdisk", &proto.tmp_disk_mb));
    if (const Pair* f = o.Find("features"); f != nullptr && !f->value.empty()) {
      for (const std::string& feature : SplitOn(f->value, ',')) {
        if (!IsPlainName(feature)) return o.Error(*f, "invalid feature name " + SlurmConfQuote(feature));
        if (!proto.has_feature(feature)) proto.features.push_back(feature);
      }
    }
    if (const Pair* s = o.Find("state")) {
      StatusOr<NodeStateValue> st = ParseNodeState(s->value);
      if (!st.ok()) return o.Error(*s, st.status().message());
      proto.state = st->state;
      proto.drain = st->drain;
      if (const Pair* r = o.Find("reason"); r != nullptr && (proto.drain || proto.state == NodeState::kDown)) {
        proto.reason = r->value;
      }
    }
    std::vector<GresSpec> specs;
    if (const Pair* g = o.Find("gres")) {
      if (!g->value.empty() && Lower(g->value) != "(null)" && Lower(g->value) != "none") {
        StatusOr<std::vector<GresSpec>> parsed = ParseGres(g->value);
        if (!parsed.ok()) return o.Error(*g, parsed.status().message());
        specs = std::move(*parsed);
      }
    }

    StatusOr<std::vector<std::string>> hosts = ExpandHostlist(names.value);
    if (!hosts.ok()) return SlurmConfPairError(source_, names, hosts.status().message());
    if (hosts->empty()) return SlurmConfPairError(source_, names, "names no nodes");
    if (nodes().size() + hosts->size() > kMaxNodes) {
      return SlurmConfPairError(source_, names, "more than " + std::to_string(kMaxNodes) + " nodes in the cluster");
    }
    for (const std::string& h : *hosts) {
      if (!IsPlainName(h)) return SlurmConfPairError(source_, names, "invalid node name " + SlurmConfQuote(h));
      if (auto [at, inserted] = node_pos_.emplace(h, nodes().size()); !inserted) {
        return SlurmConfPairError(source_, names,
                         "node " + SlurmConfQuote(h) + " is already defined on line " + std::to_string(node_line_[at->second]));
      }
      Node n = proto;
      n.name = h;
      nodes().push_back(std::move(n));
      specs_.push_back(specs);
      node_line_.push_back(names.line);
      gres_pair_.push_back(o.Find("gres") ? *o.Find("gres") : Pair{});
    }
    devices_.resize(nodes().size());
    return Status::Ok();
  }

  Status ReadPartitionLine(const std::vector<Pair>& pairs) {
    Options line(source_, "PartitionName");
    RETURN_IF_ERROR(line.AddLine(pairs, PartitionOptions()));
    if (Lower(pairs[0].value) == "default") {
      partition_defaults_.Merge(line);
      return Status::Ok();
    }
    if (!IsPlainName(pairs[0].value)) return SlurmConfPairError(source_, pairs[0], "invalid partition name");
    for (const PendingLine& p : partitions_) {
      if (p.options.Find("partitionname")->value == pairs[0].value) {
        return SlurmConfPairError(source_, pairs[0], "partition " + SlurmConfQuote(pairs[0].value) + " is already defined on line " +
                                                std::to_string(p.line));
      }
    }
    Options o = partition_defaults_;
    o.Merge(line);
    partitions_.push_back(PendingLine{std::move(o), pairs[0].line});
    return Status::Ok();
  }

  Status ReadDownNodesLine(const std::vector<Pair>& pairs) {
    Options o(source_, "DownNodes");
    RETURN_IF_ERROR(o.AddLine(pairs, DownNodesOptions()));
    down_nodes_.push_back(PendingLine{std::move(o), pairs[0].line});
    return Status::Ok();
  }

  Status ReadNodeSetLine(const std::vector<Pair>& pairs) {
    Options o(source_, "NodeSet");
    RETURN_IF_ERROR(o.AddLine(pairs, NodeSetOptions()));
    if (!IsPlainName(pairs[0].value)) return SlurmConfPairError(source_, pairs[0], "invalid node set name");
    node_sets_.push_back(PendingLine{std::move(o), pairs[0].line});
    return Status::Ok();
  }

  // Node names of a Nodes= value: a host list whose names may also be node sets, or ALL.
  StatusOr<std::vector<std::string>> NodesOf(const Options& o, const Pair& p, bool allow_sets) {
    std::vector<std::string> out;
    if (Lower(p.value) == "all") {
      for (const Node& n : nodes()) out.push_back(n.name);
      return out;
    }
    StatusOr<std::vector<std::string>> hosts = ExpandHostlist(p.value);
    if (!hosts.ok()) return o.Error(p, hosts.status().message());
    std::unordered_set<std::string> seen;
    for (const std::string& h : *hosts) {
      if (allow_sets) {
        if (auto set = node_set_nodes_.find(h); set != node_set_nodes_.end()) {
          for (const std::string& n : set->second) {
            if (seen.insert(n).second) out.push_back(n);
          }
          continue;
        }
      }
      if (!node_pos_.count(h)) return o.Error(p, "unknown node " + SlurmConfQuote(h));
      if (seen.insert(h).second) out.push_back(h);
    }
    return out;
  }

  Status ApplyDownNodes() {
    for (const PendingLine& d : down_nodes_) {
      const Options& o = d.options;
      const Pair& names = *o.Find("downnodes");
      NodeStateValue st{NodeState::kDown, false};
      if (const Pair* s = o.Find("state")) {
        StatusOr<NodeStateValue> v = ParseNodeState(s->value);
        if (!v.ok()) return o.Error(*s, v.status().message());
        st = *v;
      }
      ASSIGN_OR_RETURN(std::vector<std::string> hosts, NodesOf(o, names, /*allow_sets=*/false));
      for (const std::string& h : hosts) {
        Node& n = nodes()[node_pos_.at(h)];
        n.state = st.state;
        n.drain = st.drain;
        n.reason.clear();
        if (const Pair* r = o.Find("reason"); r != nullptr && (st.drain || st.state == NodeState::kDown)) {
          n.reason = r->value;
        }
      }
    }
    return Status::Ok();
  }

  // The node's GPU devices: from gres.conf when it lists them (types, order, NVLinks), else from
  // Gres= alone (typed as given, no NVLink). Model = the gres type; memory unknown (0).
  Status BuildGpus(size_t i) {
    Node& n = nodes()[i];
    const std::vector<GresSpec>& specs = specs_[i];
    std::vector<GresDevice> devices;
    const bool autodetect = node_autodetect_.count(i) ? node_autodetect_.at(i) : global_autodetect_;
    if (autodetect || devices_[i].empty()) {
      for (const GresSpec& s : specs) {
        for (int k = 0; k < s.count; ++k) devices.push_back(GresDevice{s.type, {}, false, Pair{}});
      }
    } else {
      devices = devices_[i];
      RETURN_IF_ERROR(MatchGres(i, &devices));
    }
    const int count = static_cast<int>(devices.size());
    n.gpus = GresGpus(n, devices);
    n.links = GpuLinkMatrix::PcieOnly(count);
    const bool any_links = std::any_of(devices.begin(), devices.end(), [](const GresDevice& d) { return d.has_links; });
    if (any_links) RETURN_IF_ERROR(BuildLinks(i, devices));
    return Status::Ok();
  }

  // gres.conf's devices of node i against its Gres=: the same count of each type. A device without
  // Type= takes the node's gres type when Gres= names exactly one.
  Status MatchGres(size_t i, std::vector<GresDevice>* devices) {
    const std::vector<GresSpec>& specs = specs_[i];
    std::vector<std::pair<std::string, int>> have;
    if (MatchGresTypes(specs, devices, &have)) return Status::Ok();
    const Node& n = nodes()[i];
    const std::string slurm_side = specs.empty() ? "no GPUs"
                                                 : "Gres=" + SlurmConfShort(gres_pair_[i].value);
    return InvalidArgument(SlurmConfWhere(gres_source_, first_gres_line_.at(i)) + ": node " + SlurmConfQuote(n.name) + " has " +
                           FormatGres(have) + " here but " + slurm_side + " in " +
                           SlurmConfWhere(source_, specs.empty() ? node_line_[i] : gres_pair_[i].line));
  }

  // gres.conf Links=: per GPU, its NVLink count to every GPU of the node in order (-1 for itself).
  Status BuildLinks(size_t i, const std::vector<GresDevice>& devices) {
    ASSIGN_OR_RETURN(nodes()[i].links, GresLinkMatrix(gres_source_, nodes()[i].name, devices));
    return Status::Ok();
  }

  Status BuildPartitions() {
    for (const PendingLine& ns : node_sets_) {
      const Options& o = ns.options;
      std::vector<std::string> members;
      if (const Pair* p = o.Find("nodes")) {
        ASSIGN_OR_RETURN(members, NodesOf(o, *p, /*allow_sets=*/false));
      } else if (const Pair* f = o.Find("feature")) {
        for (const Node& n : nodes()) {
          if (n.has_feature(f->value)) members.push_back(n.name);
        }
      }
      node_set_nodes_[o.Find("nodeset")->value] = std::move(members);
    }
    int default_index = -1;
    for (const PendingLine& pl : partitions_) {
      const Options& o = pl.options;
      Partition p;
      p.name = o.Find("partitionname")->value;
      if (const Pair* v = o.Find("nodes")) {
        ASSIGN_OR_RETURN(p.nodes, NodesOf(o, *v, /*allow_sets=*/true));
      }
      RETURN_IF_ERROR(o.Bool("default", &p.is_default));
      // Several Default=YES: the last one wins, as in Slurm.
      if (p.is_default) {
        if (default_index >= 0) snap().partitions[default_index].is_default = false;
        default_index = static_cast<int>(snap().partitions.size());
      }
      if (const Pair* s = o.Find("state")) {
        const std::string v = Lower(s->value);
        if (v != "up" && v != "down" && v != "drain" && v != "inactive") {
          return o.Error(*s, "expected UP, DOWN, DRAIN or INACTIVE");
        }
        // DRAIN takes no new submissions but still starts queued jobs: for the scheduler it is UP.
        p.up = v == "up" || v == "drain";
      }
      RETURN_IF_ERROR(o.Time("maxtime", &p.max_time_s));
      RETURN_IF_ERROR(o.Time("defaulttime", &p.default_time_s));
      if (p.max_time_s != kUnlimited && p.default_time_s != kUnlimited && p.default_time_s > p.max_time_s) {
        return o.Error(*o.Find("defaulttime"), "is longer than MaxTime=" + FormatTimeSpec(p.max_time_s));
      }
      int64_t min_nodes = 0;
      RETURN_IF_ERROR(o.Int("minnodes", &min_nodes, 0, std::numeric_limits<int>::max()));
      p.min_nodes = static_cast<int>(min_nodes);
      if (const Pair* m = o.Find("maxnodes"); m != nullptr && Lower(m->value) != "unlimited" &&
                                               Lower(m->value) != "infinite") {
        RETURN_IF_ERROR(o.Int("maxnodes", &p.max_nodes, 1, std::numeric_limits<int>::max()));
        if (p.max_nodes < p.min_nodes) return o.Error(*m, "is less than MinNodes=" + std::to_string(p.min_nodes));
      }
      int64_t tier = p.priority_tier;
      RETURN_IF_ERROR(o.Int(o.Find("prioritytier") ? "prioritytier" : "priority", &tier, 0, 65533));
      p.priority_tier = static_cast<int>(tier);
      p.def_mem_per_cpu_mb = def_mem_per_cpu_mb_;
      p.def_mem_from_cluster = def_mem_per_cpu_mb_ > 0 && o.Find("defmempercpu") == nullptr;
      RETURN_IF_ERROR(o.Memory("defmempercpu", &p.def_mem_per_cpu_mb));
      if (const Pair* m = o.Find("preemptmode")) {
        // "REQUEUE", or with GANG ("SUSPEND,GANG"): the mode is the first word.
        StatusOr<PreemptMode> mode = ParsePreemptMode(m->value.substr(0, m->value.find(',')));
        if (!mode.ok()) return o.Error(*m, mode.status().message());
        p.preempt_mode = *mode;
        p.has_preempt_mode = true;
      }
      if (o.Find("gracetime")) RETURN_IF_ERROR(o.Int("gracetime", &p.grace_time_s, 0, std::numeric_limits<int>::max()));
      RETURN_IF_ERROR(ReadAccess(o, &p.access));
      NoteUnsupportedOptions(o, UnsupportedPartitionOptions());
      snap().partitions.push_back(std::move(p));
    }
    return Status::Ok();
  }

  // AllowGroups=, AllowAccounts=, AllowQos=, DenyAccounts=, DenyQos=: comma-separated names (an
  // Allow list may be ALL). As slurmctld does (with an error in its log), a Deny list beside the
  // Allow list of its kind is ignored, here with a warning.
  Status ReadAccess(const Options& o, PartitionAccess* a) {
    RETURN_IF_ERROR(AccessList(o, "allowgroups", &a->allow_groups));
    RETURN_IF_ERROR(AccessList(o, "allowaccounts", &a->allow_accounts));
    RETURN_IF_ERROR(AccessList(o, "denyaccounts", &a->deny_accounts));
    RETURN_IF_ERROR(AccessList(o, "allowqos", &a->allow_qos));
    RETURN_IF_ERROR(AccessList(o, "denyqos", &a->deny_qos));
    DropDenyBesideAllow(o, "AllowAccounts", a->allow_accounts, &a->deny_accounts);
    DropDenyBesideAllow(o, "AllowQos", a->allow_qos, &a->deny_qos);
    return Status::Ok();
  }

  Status AccessList(const Options& o, const std::string& key, std::vector<std::string>* out) {
    const Pair* p = o.Find(key);
    if (p == nullptr || p->value.empty() || (key.rfind("allow", 0) == 0 && Lower(p->value) == "all")) {
      return Status::Ok();
    }
    for (const std::string& name : SplitOn(p->value, ',')) {
      if (!IsPlainName(name)) return o.Error(*p, "invalid name " + SlurmConfQuote(name));
      if (std::find(out->begin(), out->end(), name) == out->end()) out->push_back(name);
    }
    return Status::Ok();
  }

  void DropDenyBesideAllow(const Options& o, const std::string& allow_key, const std::vector<std::string>& allow,
                           std::vector<std::string>* deny) {
    if (allow.empty() || deny->empty()) return;
    const Pair& d = *o.Find("deny" + Lower(allow_key).substr(5));
    Warn(At(d) + ": partition " +
         SlurmConfQuote(o.Find("partitionname")->value) + " also has " + allow_key + "=, which wins (as in Slurm); ignored");
    deny->clear();
  }

  // The line of "SwitchName=<name>" in topology.conf text (1 if not found).
  int SwitchLine(const std::string& text, const std::string& name) const {
    for (const LogicalLine& l : SlurmConfLines(text)) {
      StatusOr<std::vector<Pair>> pairs = TokenizeSlurmConfLine(l, "");
      if (pairs.ok() && !pairs->empty() && (*pairs)[0].lower == "switchname" && (*pairs)[0].value == name) {
        return (*pairs)[0].line;
      }
    }
    return 1;
  }

  std::string source_;
  std::string gres_source_ = "gres.conf";
  ClusterConfig out_;
  std::string topology_plugin_;
  int topology_plugin_line_ = 0;
  int64_t def_mem_per_cpu_mb_ = 0;
  std::string harmless_;  // "AuthType (line 3), SlurmctldPort (line 4)": the keys NoteHarmlessKeys names
  std::map<int, std::set<std::string>> unsupported_options_;  // by line: "Weight=10", ...
  Options node_defaults_{source_, "NodeName"};
  Options partition_defaults_{source_, "PartitionName"};
  std::unordered_map<std::string, size_t> node_pos_;
  // Per node (same order as nodes()): Gres= as parsed and as written, its NodeName= line,
  // gres.conf's devices for it and the first gres.conf line naming it.
  std::vector<std::vector<GresSpec>> specs_;
  std::vector<Pair> gres_pair_;
  std::vector<int> node_line_;
  std::vector<std::vector<GresDevice>> devices_;
  std::map<size_t, int> first_gres_line_;
  bool global_autodetect_ = false;
  std::map<size_t, bool> node_autodetect_;
  std::vector<PendingLine> partitions_, down_nodes_, node_sets_;
  std::map<std::string, std::vector<std::string>> node_set_nodes_;
};

StatusOr<ClusterConfig> Load(const std::string& text, const std::string& source, const SlurmConfExtras& extras,
                             const std::string& dir) {
  SlurmConfReader r(source);
  RETURN_IF_ERROR(r.ReadSlurmConf(text));
  SlurmConfExtras files = extras;
  if (!dir.empty()) {
    // Slurm reads topology.conf only for the tree plugin, and then it must be there.
    const std::string topology = (std::filesystem::path(dir) / "topology.conf").string();
    if (r.topology_plugin() == "topology/tree") {
      StatusOr<std::string> t = config_internal::ReadTextFile(topology);
      if (!t.ok()) {
        return t.status().WithPrefix(SlurmConfWhere(source, r.topology_plugin_line()) + ": TopologyPlugin=topology/tree");
      }
      files.topology_conf = std::move(*t);
      files.topology_source = topology;
    }
    const std::string gres = (std::filesystem::path(dir) / "gres.conf").string();
    std::error_code ec;
    if (std::filesystem::exists(gres, ec)) {
      ASSIGN_OR_RETURN(std::string g, config_internal::ReadTextFile(gres));
      files.gres_conf = std::move(g);
      files.gres_source = gres;
    }
  }
  if (files.gres_conf) RETURN_IF_ERROR(r.ReadGresConf(*files.gres_conf, files.gres_source));
  if (files.topology_conf) RETURN_IF_ERROR(r.ReadTopologyConf(*files.topology_conf, files.topology_source));
  return r.Finish();
}

}  // namespace

StatusOr<ClusterConfig> LoadSlurmConf(const std::string& slurm_conf_text, const std::string& source,
                                      const SlurmConfExtras& extras) {
  try {
    return Load(slurm_conf_text, source, extras, "");
  } catch (const std::exception& e) {  // nothing here throws but std::bad_alloc; be safe anyway
    return InvalidArgument(source + ": " + e.what());
  }
}

StatusOr<ClusterConfig> LoadSlurmConfFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, config_internal::ReadTextFile(path));
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  try {
    return Load(text, path, SlurmConfExtras{}, dir);
  } catch (const std::exception& e) {
    return InvalidArgument(path + ": " + e.what());
  }
}

bool IsSlurmConfPath(const std::string& path) {
  const std::string name = std::filesystem::path(path).filename().string();
  return name.size() > 5 && name.compare(name.size() - 5, 5, ".conf") == 0;
}

StatusOr<ClusterConfig> LoadAnyClusterFile(const std::string& path) {
  return IsSlurmConfPath(path) ? LoadSlurmConfFile(path) : LoadClusterConfigFile(path);
}

}  // namespace muster
