#include "sim/place_command.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <ostream>
#include <sstream>
#include <unordered_map>

#include "config/slurm_conf.h"
#include "model/hostlist.h"
#include "model/job_request.h"
#include "sim/tool_args.h"

namespace muster {

namespace {

// A plain text table: columns separated by two spaces, numbers right-aligned.
class Table {
 public:
  explicit Table(std::vector<std::string> header, std::vector<bool> right = {})
      : right_(std::move(right)) {
    right_.resize(header.size(), false);
    rows_.push_back(std::move(header));
  }
  void Add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  std::string Render(const std::string& indent = "") const {
    std::vector<size_t> w(rows_[0].size(), 0);
    for (const auto& r : rows_) {
      for (size_t c = 0; c < r.size() && c < w.size(); ++c) w[c] = std::max(w[c], r[c].size());
    }
    std::string out;
    for (const auto& r : rows_) {
      std::string line = indent;
      for (size_t c = 0; c < w.size(); ++c) {
        const std::string cell = c < r.size() ? r[c] : "";
        const std::string pad(w[c] - cell.size(), ' ');
        if (c + 1 == w.size() && !right_[c]) {
          line += cell;
        } else {
          line += right_[c] ? pad + cell : cell + pad;
          if (c + 1 < w.size()) line += "  ";
        }
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + "\n";
    }
    return out;
  }

 private:
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
};

std::string Percent(int64_t part, int64_t whole) {
  if (whole <= 0) return "0%";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return buf;
}

// A time limit as sinfo prints it: "infinite", "30:00", "1:00:00", "2-00:00:00".
std::string SinfoTime(int64_t s) {
  if (s == kUnlimited) return "infinite";
  char buf[48];
  const int64_t d = s / 86400, h = s / 3600 % 24, m = s / 60 % 60, sec = s % 60;
  if (d > 0) {
    std::snprintf(buf, sizeof buf, "%lld-%02lld:%02lld:%02lld", static_cast<long long>(d), static_cast<long long>(h),
                  static_cast<long long>(m), static_cast<long long>(sec));
  } else if (h > 0) {
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", static_cast<long long>(h), static_cast<long long>(m),
                  static_cast<long long>(sec));
  } else {
    std::snprintf(buf, sizeof buf, "%lld:%02lld", static_cast<long long>(m), static_cast<long long>(sec));
  }
  return buf;
}

std::string FormatCpuMilli(int64_t milli) {
  std::string s = std::to_string(milli / 1000);
  if (milli % 1000 != 0) s += FormatGpuMilli(milli % 1000).substr(1);  // ".5"
  return s;
}

int64_t UsedGpuMilli(const ClusterSnapshot& c) {
  int64_t used = 0;
  for (const NodeUsage& u : c.usage) {
    for (const GpuUsage& g : u.gpus) used += g.milli;
  }
  return used;
}

int64_t TotalGpus(const ClusterSnapshot& c) {
  int64_t n = 0;
  for (const Node& node : c.nodes) n += static_cast<int64_t>(node.gpus.size());
  return n;
}

// "128 h100, 32 v100, 16 a100 MIG slices": device counts by kind, in order of first appearance.
std::string GpuKinds(const ClusterSnapshot& c) {
  std::vector<std::pair<std::string, int>> kinds;
  for (const Node& n : c.nodes) {
    for (const Gpu& g : n.gpus) {
      // A slurm.conf cluster may leave the model unknown (untyped gres, MIG profiles as types).
      std::string k = g.is_mig() ? (g.model.empty() ? "" : g.model + " ") + "MIG slices"
                                 : (g.model.empty() ? "untyped GPUs" : g.model);
      auto it = std::find_if(kinds.begin(), kinds.end(), [&](const auto& p) { return p.first == k; });
      if (it == kinds.end()) {
        kinds.emplace_back(k, 1);
      } else {
        ++it->second;
      }
    }
  }
  std::string s;
  for (const auto& [k, n] : kinds) s += (s.empty() ? "" : ", ") + std::to_string(n) + " " + k;
  return s;
}

using NodeMap = std::unordered_map<std::string, const Node*>;

NodeMap NodesByName(const ClusterSnapshot& c) {
  NodeMap m;
  for (const Node& n : c.nodes) m.emplace(n.name, &n);
  return m;
}

const Node* FindNode(const NodeMap& m, const std::string& name) {
  auto it = m.find(name);
  return it == m.end() ? nullptr : it->second;
}

using JobMap = std::unordered_map<int64_t, const PendingJob*>;

// The job a decision is about (an empty one for an id not in the queue: only for hand-made input).
const PendingJob* FindJob(const JobMap& m, int64_t id) {
  static const PendingJob kUnknown;
  auto it = m.find(id);
  return it == m.end() ? &kUnknown : it->second;
}

// "1 node", "2 nodes".
std::string Count(size_t n, const std::string& word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

std::string LeafName(const ClusterSnapshot& c, const std::string& node) {
  int leaf = c.topology.LeafOf(node);
  return leaf < 0 ? "" : c.topology.switches()[leaf].name;
}

std::string DefaultPartition(const ClusterSnapshot& c) {
  for (const Partition& p : c.partitions) {
    if (p.is_default) return p.name;
  }
  return c.partitions.empty() ? "" : c.partitions[0].name;
}

std::string JobPartition(const ClusterSnapshot& c, const PendingJob& j) {
  return j.request.partition.empty() ? DefaultPartition(c) : j.request.partition;
}

std::string OrDash(const std::string& s) { return s.empty() ? "-" : s; }

std::string Header(const PlaceResult& r) {
  const ClusterSnapshot& c = r.before;
  std::ostringstream o;
  int drained = 0, down = 0, busy = 0;
  std::vector<std::string> unavailable;
  for (size_t i = 0; i < c.nodes.size(); ++i) {
    const Node& n = c.nodes[i];
    if (n.drain) ++drained;
    if (n.state == NodeState::kDown) ++down;
    if (!n.schedulable()) {
      unavailable.push_back(n.name + " " + (n.drain ? "drained" : NodeStateName(n.state)) +
                            (n.reason.empty() ? "" : " (" + n.reason + ")"));
    }
    if (i < c.usage.size() && c.usage[i].jobs > 0) ++busy;
  }
  const int64_t total = TotalGpus(c);
  const int64_t used = UsedGpuMilli(c);
  o << "Cluster " << (r.cluster_name.empty() ? "(unnamed)" : r.cluster_name) << ": " << Count(c.nodes.size(), "node")
    << " (" << drained << " drained, " << down << " down), " << Count(total, "GPU device");
  if (total > 0) o << " (" << GpuKinds(c) << ")";
  o << ", " << Count(c.partitions.size(), "partition") << "\n";
  o << "GPUs already in use: " << FormatGpuMilli(used) << " of " << total << " (" << Percent(used, total * 1000)
    << "), work running on " << Count(busy, "node") << "\n";
  for (const std::string& u : unavailable) o << "Unavailable: " << u << "\n";
  o << "\n";
  Table t({"PARTITION", "AVAIL", "TIMELIMIT", "MAXNODES", "NODES", "GPUS", "NODELIST"},
          {false, false, false, true, true, true, false});
  const std::string def = DefaultPartition(c);
  const NodeMap by_name = NodesByName(c);
  for (const Partition& p : c.partitions) {
    int64_t gpus = 0;
    for (const std::string& n : p.nodes) {
      if (const Node* node = FindNode(by_name, n)) gpus += static_cast<int64_t>(node->gpus.size());
    }
    t.Add({p.name + (p.name == def ? "*" : ""), p.up ? "up" : "down", SinfoTime(p.max_time_s),
           p.max_nodes == kUnlimited ? "UNLIMITED" : std::to_string(p.max_nodes), std::to_string(p.nodes.size()),
           std::to_string(gpus), CompressHostlist(p.nodes)});
  }
  o << t.Render();
  return o.str();
}

// "0,1,2,3", "7(0.5)", "2(1g.10gb)" and what links the set: "h100, NVSwitch".
std::string GpuText(const Node* node, const NodeAllocation& a) {
  std::string s = "gpus=";
  uint64_t mask = 0;
  bool whole = true, mig = false;
  for (size_t k = 0; k < a.gpus.size(); ++k) {
    const GpuShare& g = a.gpus[k];
    if (k) s += ",";
    s += std::to_string(g.index);
    const Gpu* gpu = node != nullptr && g.index >= 0 && g.index < static_cast<int>(node->gpus.size())
                         ? &node->gpus[g.index]
                         : nullptr;
    if (gpu != nullptr && gpu->is_mig()) {
      s += "(" + gpu->mig_profile + ")";
      mig = true;
    } else if (g.milli != kMilliPerGpu) {
      s += "(" + FormatGpuMilli(g.milli) + ")";
      whole = false;
    }
    if (g.index >= 0 && g.index < 64) mask |= uint64_t{1} << g.index;
  }
  if (node == nullptr || node->gpus.empty() || a.gpus.empty()) return s;
  const int first = a.gpus[0].index;
  if (first < 0 || first >= static_cast<int>(node->gpus.size())) return s;
  std::string what = node->gpus[first].model.empty() ? "gpu" : node->gpus[first].model;
  if (mig) {
    what += " MIG";
  } else if (!whole) {
    what += ", shared";
  } else if (a.gpus.size() >= 2) {
    if (node->links.nvswitch()) {
      what += ", NVSwitch";
    } else if (node->links.size() == static_cast<int>(node->gpus.size())) {
      const int links = node->links.LinkSum(mask);
      what += links > 0 ? ", " + std::to_string(links) + " NVLink links within the set" : ", PCIe only";
    } else {
      what += ", PCIe only";
    }
  }
  return s + "  [" + what + "]";
}

std::string Allocations(const PlaceResult& r, const std::vector<const Decision*>& started,
                        const JobMap& jobs) {
  std::ostringstream o;
  o << "Allocations (GPU indexes as CUDA_VISIBLE_DEVICES sees them; (f) = fraction of a GPU):\n";
  const NodeMap by_name = NodesByName(r.before);
  for (const Decision* d : started) {
    const PendingJob* j = FindJob(jobs, d->job_id);
    std::vector<std::string> names, leaves;
    for (const NodeAllocation& a : d->nodes) {
      names.push_back(a.node);
      std::string leaf = LeafName(r.before, a.node);
      if (!leaf.empty() && std::find(leaves.begin(), leaves.end(), leaf) == leaves.end()) leaves.push_back(leaf);
    }
    o << "  " << d->job_id << " " << OrDash(j->request.name) << " (" << OrDash(j->user) << "): "
      << CompressHostlist(names);
    if (d->nodes.size() > 1) {
      o << ", " << d->nodes.size() << " nodes";
      if (leaves.size() == 1) o << " under switch " << leaves[0];
      if (leaves.size() > 1) {
        o << " across switches ";
        for (size_t k = 0; k < leaves.size(); ++k) o << (k ? "," : "") << leaves[k];
      }
    }
    o << "\n";
    Table t({"", "", "", "", ""});
    for (const NodeAllocation& a : d->nodes) {
      const Node* node = FindNode(by_name, a.node);
      t.Add({a.node, "cpus=" + FormatCpuMilli(a.cpu_milli), "mem=" + FormatMemoryMb(a.memory_mb),
             a.gpus.empty() ? "gpus=none" : GpuText(node, a), a.exclusive ? "exclusive" : ""});
    }
    std::string body = t.Render("      ");
    o << body.substr(body.find('\n') + 1);  // drop the empty header line
  }
  return o.str();
}

}  // namespace

std::string FormatMemoryMb(int64_t mb) {
  if (mb == 0) return "0";
  if (mb % (1024 * 1024) == 0) return std::to_string(mb / (1024 * 1024)) + "T";
  if (mb % 1024 == 0) return std::to_string(mb / 1024) + "G";
  return std::to_string(mb) + "M";
}

std::string FormatGpuMilli(int64_t milli) {
  std::string s = std::to_string(milli / 1000);
  int64_t frac = milli % 1000;
  if (frac < 0) frac = -frac;
  if (frac == 0) return s;
  char buf[8];
  std::snprintf(buf, sizeof buf, "%03d", static_cast<int>(frac));
  std::string f = buf;
  while (!f.empty() && f.back() == '0') f.pop_back();
  return s + "." + f;
}

PlaceResult RunPlace(const ClusterConfig& cluster, const std::vector<PendingJob>& queue, bool strict, int cycles) {
  PlaceResult r;
  r.cluster_name = cluster.name;
  r.strict = strict;
  r.before = ClusterSnapshot(cluster.spec);
  r.before.usage = cluster.usage;  // what the file says is in use already
  r.after = r.before;
  r.queue = queue;
  SchedulerOptions options;
  options.strict_priority = strict;
  std::vector<PendingJob> left = queue;
  for (int k = 0; k < cycles; ++k) {
    std::vector<Decision> decisions = RunCycle(r.after, left, options);
    std::unordered_map<int64_t, DecisionKind> kind;
    for (const Decision& d : decisions) {
      kind[d.job_id] = d.kind;
      if (d.kind == DecisionKind::kStart) ApplyAllocation(r.after, d.nodes);
    }
    std::erase_if(left, [&](const PendingJob& j) { return kind[j.id] != DecisionKind::kPending; });
    r.cycles.push_back(std::move(decisions));
  }
  return r;
}

std::string FormatPlace(const PlaceResult& r) {
  std::ostringstream o;
  o << Header(r) << "\n";

  JobMap jobs;
  for (const PendingJob& j : r.queue) jobs[j.id] = &j;
  // Each job's final decision (a start in any cycle, else its last decision) and the order in
  // which cycle 1 considered the jobs.
  std::unordered_map<int64_t, const Decision*> last;
  for (const auto& cycle : r.cycles) {
    for (const Decision& d : cycle) {
      auto it = last.find(d.job_id);
      if (it == last.end() || it->second->kind != DecisionKind::kStart) last[d.job_id] = &d;
    }
  }
  std::vector<const Decision*> order, started, rejected;
  int pending = 0;
  if (!r.cycles.empty()) {
    for (const Decision& d : r.cycles[0]) {
      const Decision* f = last.at(d.job_id);
      order.push_back(f);
      if (f->kind == DecisionKind::kStart) started.push_back(f);
      if (f->kind == DecisionKind::kReject) rejected.push_back(f);
      if (f->kind == DecisionKind::kPending) ++pending;
    }
  }

  o << "Queue after " << r.cycles.size() << (r.cycles.size() == 1 ? " cycle" : " cycles") << " ("
    << (r.strict ? "strict priority" : "no strict priority: first fit in priority order")
    << "), in scheduling order:\n";
  Table t({"JOBID", "PARTITION", "NAME", "USER", "ST", "NODES", "NODELIST(REASON)"},
          {true, false, false, false, false, true, false});
  for (const Decision* d : order) {
    if (d->kind == DecisionKind::kReject) continue;
    const PendingJob* j = FindJob(jobs, d->job_id);
    std::string where;
    int nodes = 0;
    if (d->kind == DecisionKind::kStart) {
      std::vector<std::string> names;
      for (const NodeAllocation& a : d->nodes) names.push_back(a.node);
      where = CompressHostlist(names);
      nodes = static_cast<int>(names.size());
    } else {
      where = std::string("(") + PendingReasonName(d->reason) + (d->message.empty() ? "" : ", " + d->message) + ")";
      nodes = j->request.min_nodes > 0 ? j->request.min_nodes : 1;
    }
    t.Add({std::to_string(d->job_id), JobPartition(r.before, *j), OrDash(j->request.name), OrDash(j->user),
           d->kind == DecisionKind::kStart ? "R" : "PD", std::to_string(nodes), where});
  }
  o << t.Render();
  if (!rejected.empty()) {
    o << "\nRejected (sbatch refuses these at submission):\n";
    for (const Decision* d : rejected) {
      const PendingJob* j = FindJob(jobs, d->job_id);
      o << "  job " << d->job_id << " " << OrDash(j->request.name) << " (" << OrDash(j->user)
        << "): sbatch: error: Batch job submission failed: " << d->message << "\n";
    }
  }
  if (!started.empty()) o << "\n" << Allocations(r, started, jobs);

  if (r.cycles.size() > 1) {
    o << "\nCycles (started jobs applied and rejected jobs dropped between cycles):\n";
    std::unordered_map<int64_t, const Decision*> prev;
    for (size_t k = 0; k < r.cycles.size(); ++k) {
      int s = 0, p = 0, x = 0;
      std::vector<std::string> changes;
      for (const Decision& d : r.cycles[k]) {
        s += d.kind == DecisionKind::kStart;
        p += d.kind == DecisionKind::kPending;
        x += d.kind == DecisionKind::kReject;
        auto it = prev.find(d.job_id);
        if (k > 0 && it != prev.end() && !(*it->second == d)) {
          changes.push_back("job " + it->second->ToString() + " -> " + d.ToString());
        }
      }
      o << "  cycle " << k + 1 << ": " << s << " started, " << p << " pending, " << x << " rejected";
      if (k > 0) o << (changes.empty() ? " (no change)" : " (CHANGED)");
      o << "\n";
      for (const std::string& c : changes) o << "    " << c << "\n";
      for (const Decision& d : r.cycles[k]) prev[d.job_id] = &d;
    }
  }

  const int64_t total = TotalGpus(r.before) * 1000;
  const int64_t before = UsedGpuMilli(r.before), after = UsedGpuMilli(r.after);
  o << "\nSummary: " << order.size() << " jobs: " << started.size() << " started, " << pending << " pending, "
    << rejected.size() << " rejected\n";
  o << "GPUs allocated: " << FormatGpuMilli(before) << "/" << total / 1000 << " (" << Percent(before, total)
    << ") before, " << FormatGpuMilli(after) << "/" << total / 1000 << " (" << Percent(after, total) << ") after\n";
  return o.str();
}

std::string PlaceUsage() {
  return "usage: muster place --cluster FILE --queue FILE [--strict|--no-strict] [--cycles N]\n"
         "\n"
         "Loads a cluster (nodes, GPUs, switches, partitions, running work) and a queue of pending\n"
         "jobs from YAML files (docs/cluster-file.md), runs the scheduler and prints what it decided:\n"
         "the partitions, an squeue-like table with pending reasons, sbatch errors for jobs that can\n"
         "never run, the nodes and GPUs of every started job, and a summary.\n"
         "\n"
         "  --cluster FILE  the cluster file (e.g. examples/cluster.yaml), or a Slurm site's slurm.conf\n"
         "                  (any *.conf; topology.conf and gres.conf beside it are read as Slurm does)\n"
         "  --queue FILE    the queue file (e.g. examples/queue.yaml)\n"
         "  --strict        strict priority (the default): a job waiting for resources holds back the\n"
         "                  lower-priority jobs of its partition, as Slurm's main scheduler does\n"
         "  --no-strict     try every job in priority order (first fit; may starve large jobs)\n"
         "  --cycles N      run N cycles, applying the started jobs between them (default 1);\n"
         "                  the cycles after the first should change nothing\n"
         "  -h, --help      show this help\n";
}

namespace {

enum PlaceOpt : int { kPlCluster, kPlQueue, kPlStrict, kPlNoStrict, kPlCycles };

constexpr OptionSpec kPlaceOptions[] = {
    {"cluster", 0, OptionArg::kRequired, OptionUse::kOwn, kPlCluster},
    {"queue", 0, OptionArg::kRequired, OptionUse::kOwn, kPlQueue},
    {"strict", 0, OptionArg::kNone, OptionUse::kOwn, kPlStrict},
    {"no-strict", 0, OptionArg::kNone, OptionUse::kOwn, kPlNoStrict},
    {"cycles", 0, OptionArg::kRequired, OptionUse::kOwn, kPlCycles},
    {"help", 'h', OptionArg::kNone, OptionUse::kMeta},
};

}  // namespace

StatusOr<PlaceArgs> ParsePlaceArgs(const std::vector<std::string>& args) {
  PlaceArgs a;
  bool strict_given = false;
  ASSIGN_OR_RETURN(ToolLine line, ReadToolLine(kPlaceOptions, args, [&](const OptionOccurrence& o) -> Status {
    const std::string v = o.value.value_or("");
    switch (static_cast<PlaceOpt>(o.spec->id)) {
      case kPlCluster:
      case kPlQueue: {
        const std::string opt = "--" + std::string(o.spec->name);
        std::string& dst = o.spec->id == kPlCluster ? a.cluster_path : a.queue_path;
        if (!dst.empty()) return InvalidArgument(opt + " given twice");
        if (v.empty()) return InvalidArgument(opt + " needs a file name");
        dst = v;
        break;
      }
      case kPlStrict:
      case kPlNoStrict:
        if (strict_given && a.strict != (o.spec->id == kPlStrict)) {
          return InvalidArgument("--strict and --no-strict contradict each other");
        }
        strict_given = true;
        a.strict = o.spec->id == kPlStrict;
        break;
      case kPlCycles: {
        int n = 0;
        auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
        if (v.empty() || ec != std::errc() || end != v.data() + v.size() || n < 1 || n > 1000) {
          return InvalidArgument("--cycles: expected a number from 1 to 1000, got '" + v + "'");
        }
        a.cycles = n;
        break;
      }
    }
    return Status::Ok();
  }));
  if (line.help) {
    a.help = true;
    return a;
  }
  RETURN_IF_ERROR(RefuseToolOperands(line));
  if (a.cluster_path.empty()) return InvalidArgument("--cluster FILE is required");
  if (a.queue_path.empty()) return InvalidArgument("--queue FILE is required");
  return a;
}

int PlaceMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  StatusOr<PlaceArgs> a = ParsePlaceArgs(args);
  if (!a.ok()) {
    err << "muster place: " << a.status().message() << "\n\n" << PlaceUsage();
    return 2;
  }
  if (a->help) {
    out << PlaceUsage();
    return 0;
  }
  StatusOr<ClusterConfig> cluster = LoadAnyClusterFile(a->cluster_path);
  if (!cluster.ok()) {
    err << "muster place: " << cluster.status().message() << "\n";
    return 1;
  }
  StatusOr<std::vector<PendingJob>> queue = LoadQueueFile(a->queue_path);
  if (!queue.ok()) {
    err << "muster place: " << queue.status().message() << "\n";
    return 1;
  }
  out << FormatPlace(RunPlace(*cluster, *queue, a->strict, a->cycles));
  return 0;
}

}  // namespace muster
