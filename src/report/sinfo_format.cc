// sinfo, after Slurm 22.05's src/sinfo (print.c for headers and values, sinfo.c for grouping
// nodes into lines, opts.c for the layouts) and the captures sinfo.txt and sinfo_Nl.txt. Two
// details read from the captures rather than the manual: -N -l prints the partition right-justified
// and the CPUS column left-justified.
#include "base/strings.h"
#include "report/sinfo_format.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "model/hostlist.h"
#include "model/name_order.h"

namespace muster {
namespace {

constexpr int kMinComputedWidth = 9;  // "%#P" / "%#N" are never narrower than this

const char* Header(char type) {
  switch (type) {
    case 'P': return "PARTITION";
    case 'a': return "AVAIL";
    case 'l': return "TIMELIMIT";
    case 'D': return "NODES";
    case 't': return "STATE";
    case 'T': return "STATE";
    case 'N': return "NODELIST";
    case 'c': return "CPUS";
    case 'z': return "S:C:T";
    case 'm': return "MEMORY";
    case 'd': return "TMP_DISK";
    case 'w': return "WEIGHT";
    case 'f': return "AVAIL_FEATURES";
    case 'E': return "REASON";
    case 'G': return "GRES";
    case 's': return "JOB_SIZE";
    case 'r': return "ROOT";
    case 'h': return "OVERSUBSCRIBE";
    case 'g': return "GROUPS";
    case 'O': return "CPU_LOAD";
    case 'e': return "FREE_MEM";
    case 'C': return "CPUS(A/I/O/T)";
    case 'F': return "NODES(A/I/O/T)";
    case 'u': return "USER";
    case 'H': return "TIMESTAMP";
    default: return nullptr;
  }
}

bool IsAggregate(char type) { return type == 'D' || type == 'N' || type == 'C' || type == 'F'; }
bool IsPartitionLevel(char type) {
  return type == 'P' || type == 'a' || type == 'l' || type == 's' || type == 'r' || type == 'h' || type == 'g';
}

// One node as sinfo sees it.
struct NodeView {
  const NodeRecord* record;
  NodeActivity usage;
  SlurmNodeState state;
};

std::string NodeValue(char type, const NodeView& v) {
  const Node& n = v.record->node;
  switch (type) {
    case 't': return v.state.compact;
    case 'T': return v.state.long_name;
    case 'c': return std::to_string(n.cpus);
    case 'z':
      return std::to_string(n.sockets) + ":" + std::to_string(n.cores_per_socket) + ":" +
             std::to_string(n.threads_per_core);
    case 'm': return std::to_string(n.memory_mb);
    case 'd': return std::to_string(n.tmp_disk_mb);
    case 'w': return "1";
    case 'f': {
      std::string s;
      for (const std::string& f : n.features) s += (s.empty() ? "" : ",") + f;
      return s.empty() ? "(null)" : s;
    }
    case 'E': return n.reason.empty() ? "none" : n.reason;
    case 'u': return n.reason_user.empty() ? "Unknown" : n.reason_user;
    case 'H': return FormatSlurmTime(n.reason_time, "Unknown");
    case 'G': return NodeGres(n);
    case 'O': {
      if (v.usage.cpu_load < 0) return "N/A";
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.2f", v.usage.cpu_load);
      return buf;
    }
    case 'e': return v.usage.free_memory_mb < 0 ? "N/A" : std::to_string(v.usage.free_memory_mb);
    default: return "";
  }
}

std::string PartitionValue(char type, const Partition& p) {
  switch (type) {
    case 'P': return p.name + (p.is_default ? "*" : "");
    case 'a': return p.up ? "up" : "down";
    case 'l': return p.max_time_s == kUnlimited ? "infinite" : FormatElapsed(p.max_time_s);
    case 's': {
      const std::string max = p.max_nodes == kUnlimited ? "infinite" : std::to_string(p.max_nodes);
      return std::to_string(std::max(p.min_nodes, 1)) + "-" + max;
    }
    case 'r': return "no";
    case 'h': return "NO";
    case 'g': return "all";
    default: return "";
  }
}

// One output line: a partition and the nodes it groups.
struct Line {
  const Partition* partition;
  size_t partition_index;
  std::vector<const NodeView*> nodes;
  std::string key;  // the grouped per-node values
};

bool Unavailable(const NodeView& v) {
  return v.record->node.drain || v.record->node.state == NodeState::kDown ||
         v.record->node.state == NodeState::kFuture || v.record->node.state == NodeState::kUnknown ||
         v.state.compact.back() == '*';
}

std::string AggregateValue(char type, const Line& line) {
  switch (type) {
    case 'D': return std::to_string(line.nodes.size());
    case 'N': {
      std::vector<std::string> names;
      for (const NodeView* v : line.nodes) names.push_back(v->record->node.name);
      return CompressHostlist(names);
    }
    case 'C': {
      int64_t alloc = 0, other = 0, total = 0;
      for (const NodeView* v : line.nodes) {
        const int cpus = v->record->node.cpus;
        total += cpus;
        if (Unavailable(*v)) {
          other += cpus;
        } else {
          alloc += std::min(cpus, v->usage.cpus);
        }
      }
      return std::to_string(alloc) + "/" + std::to_string(total - alloc - other) + "/" + std::to_string(other) +
             "/" + std::to_string(total);
    }
    case 'F': {
      int64_t alloc = 0, idle = 0, other = 0;
      for (const NodeView* v : line.nodes) {
        if (Unavailable(*v)) {
          ++other;
        } else if (v->state.sort_rank == 2) {
          ++idle;
        } else {
          ++alloc;
        }
      }
      return std::to_string(alloc) + "/" + std::to_string(idle) + "/" + std::to_string(other) + "/" +
             std::to_string(line.nodes.size());
    }
    default: return "";
  }
}

std::string LineValue(char type, const Line& line) {
  if (IsPartitionLevel(type)) return PartitionValue(type, *line.partition);
  if (IsAggregate(type)) {
    if (line.nodes.empty()) return type == 'D' ? "0" : (type == 'N' ? "" : "0/0/0/0");
    return AggregateValue(type, line);
  }
  if (line.nodes.empty()) return "n/a";  // a partition without nodes
  return NodeValue(type, *line.nodes.front());
}

}  // namespace

namespace {

// Whether a node in `st` is in the state sinfo -t names (-1: not a state name).
int StateMatches(const std::string& want, const SlurmNodeState& st) {
  const std::string w = Lower(want);
  const std::string& c = st.compact;
  const std::string& full = st.complete;
  auto has = [&](const char* s) { return full.find(s) != std::string::npos; };
  if (w == "idle") return c.rfind("idle", 0) == 0;
  if (w == "alloc" || w == "allocated") return c.rfind("alloc", 0) == 0;
  if (w == "mix" || w == "mixed") return c.rfind("mix", 0) == 0;
  if (w == "down") return has("DOWN");
  if (w == "drain") return has("DRAIN");
  if (w == "drained") return has("DRAIN") && c.rfind("drng", 0) != 0;
  if (w == "draining" || w == "drng") return c.rfind("drng", 0) == 0;
  if (w == "fail") return has("FAIL");
  if (w == "future" || w == "futr") return has("FUTURE");
  if (w == "unknown" || w == "unk") return has("UNKNOWN");
  if (w == "no_respond" || w == "?") return !c.empty() && c.back() == '*';
  if (w == "completing" || w == "comp") return has("COMPLETING");
  for (const char* never : {"reserved", "resv", "perfctrs", "cloud", "powering_down", "powered_down", "power_down",
                            "powering_up", "maint", "reboot", "reboot^", "planned", "inval"}) {
    if (w == never) return 0;
  }
  return -1;
}

// sinfo -R: one line per reason (with its user and time), over every partition's nodes.
std::string FormatReasons(const std::map<std::string, NodeView>& views, const std::vector<FormatField>& fields,
                          const SinfoOptions& options) {
  std::vector<const NodeView*> order;
  for (const auto& [name, v] : views) order.push_back(&v);
  std::stable_sort(order.begin(), order.end(), [](const NodeView* a, const NodeView* b) {
    return NaturalCompare(a->record->node.name, b->record->node.name) < 0;
  });
  std::vector<Line> lines;
  for (const NodeView* v : order) {
    std::string key;
    for (const FormatField& f : fields) {
      if (!IsAggregate(f.type) && !IsPartitionLevel(f.type)) key += NodeValue(f.type, *v) + '\x1f';
    }
    Line* line = nullptr;
    for (Line& l : lines) {
      if (l.key == key) line = &l;
    }
    if (line == nullptr) {
      lines.push_back(Line{nullptr, 0, {}, key});
      line = &lines.back();
    }
    line->nodes.push_back(v);
  }
  auto value = [](char type, const Line& line) {
    if (IsPartitionLevel(type)) return std::string();
    if (IsAggregate(type)) return AggregateValue(type, line);
    return NodeValue(type, *line.nodes.front());
  };
  std::string out;
  if (!options.no_header) {
    for (const FormatField& f : fields) out += PrintField(Header(f.type), f.width, f.right) + f.suffix;
    out += "\n";
  }
  for (const Line& line : lines) {
    for (const FormatField& f : fields) out += PrintField(value(f.type, line), f.width, f.right) + f.suffix;
    out += "\n";
  }
  return out;
}

}  // namespace

Status CheckSinfoState(const std::string& name) {
  if (StateMatches(name, SlurmNodeState{"idle", "idle", "IDLE", 0}) >= 0) return Status::Ok();
  return InvalidArgument("Bad state string: \"" + name + "\"\nsinfo: error: valid states: unknown,down,idle,"
                         "allocated,?,mixed,future,drain,drained,draining,no_respond,reserved,perfctrs,cloud,"
                         "completing,powering_down,powered_down,power_down,powering_up,fail,maint,reboot,reboot^,"
                         "unknown");
}

namespace {

// The format asked for, else the one the options imply (-R, -s, -N, -l).
std::string ChosenFormat(const SinfoOptions& options) {
  std::string format = options.format;
  if (format.empty() && options.reasons) format = kSinfoReasonFormat;
  if (format.empty() && options.summarize) format = kSinfoSummaryFormat;
  if (format.empty()) {
    if (options.node_oriented) {
      format = options.long_output ? kSinfoNodeLongFormat : kSinfoNodeFormat;
    } else {
      format = options.long_output ? kSinfoLongFormat : kSinfoDefaultFormat;
    }
  }
  return format;
}

// The nodes to show, by name, with what they run and their state: those named (-n), in the states
// asked for (-t), and with -R only those with a reason.
std::map<std::string, NodeView> ListedNodes(const std::vector<NodeRecord>& nodes, const NodeActivityMap& usage,
                                            const SinfoOptions& options, int64_t now) {
  std::map<std::string, NodeView> views;
  for (const NodeRecord& r : nodes) {
    auto it = usage.find(r.node.name);
    const NodeActivity u = it == usage.end() ? NodeActivity() : it->second;
    const bool responding = NodeResponding(r, now, options.slurmd_timeout_s);
    NodeView v{&r, u, NodeStateOf(r, u, responding)};
    if (!options.node_names.empty() &&
        std::find(options.node_names.begin(), options.node_names.end(), r.node.name) == options.node_names.end()) {
      continue;
    }
    if (!options.states.empty() &&
        std::none_of(options.states.begin(), options.states.end(),
                     [&](const std::string& s) { return StateMatches(s, v.state) == 1; })) {
      continue;
    }
    // (A node with a GPU its health watch took out is listed too: its reason names the GPU.)
    if (options.reasons && !(r.node.drain || r.node.state == NodeState::kDown || !r.failed_gpus.empty() ||
                             v.state.complete.find("FAIL") != std::string::npos)) {
      continue;
    }
    views.emplace(r.node.name, v);
  }
  return views;
}

// The lines, in the order they print: one per partition and node (-N), or per partition and group
// of equal nodes.
std::vector<Line> GroupedLines(const std::vector<Partition>& partitions, const std::map<std::string, NodeView>& views,
                               const std::vector<FormatField>& fields, const SinfoOptions& options) {
  std::vector<Line> lines;
  bool state_printed = false;
  for (const FormatField& f : fields) state_printed = state_printed || f.type == 't' || f.type == 'T';
  for (size_t pi = 0; pi < partitions.size(); ++pi) {
    const Partition& p = partitions[pi];
    const size_t first_line = lines.size();
    for (const std::string& name : p.nodes) {
      auto it = views.find(name);
      if (it == views.end()) continue;
      const NodeView* v = &it->second;
      std::string key;
      for (const FormatField& f : fields) {
        if (!IsAggregate(f.type) && !IsPartitionLevel(f.type)) key += NodeValue(f.type, *v) + '\x1f';
      }
      Line* line = nullptr;
      if (!options.node_oriented) {
        for (size_t i = first_line; i < lines.size(); ++i) {
          if (lines[i].key == key) line = &lines[i];
        }
      }
      if (line == nullptr) {
        lines.push_back(Line{&p, pi, {}, key});
        line = &lines.back();
      }
      line->nodes.push_back(v);
    }
    if (lines.size() == first_line && !options.node_oriented) lines.push_back(Line{&p, pi, {}, ""});
  }
  if (options.node_oriented) {
    std::stable_sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) {
      const int c = NaturalCompare(a.nodes.front()->record->node.name, b.nodes.front()->record->node.name);
      if (c != 0) return c < 0;
      return a.partition_index < b.partition_index;
    });
  } else if (state_printed) {
    std::stable_sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) {
      if (a.partition_index != b.partition_index) return a.partition_index < b.partition_index;
      const int ra = a.nodes.empty() ? -1 : a.nodes.front()->state.sort_rank;
      const int rb = b.nodes.empty() ? -1 : b.nodes.front()->state.sort_rank;
      return ra > rb;
    });
  }

  return lines;
}

// The table: "%#" fields as wide as their longest value, the header unless -h, the date with -l.
std::string PrintLines(const std::vector<FormatField>& fields, const std::vector<Line>& lines,
                       const SinfoOptions& options, int64_t now) {
  // Widths of "%#" fields: the longest value printed, at least kMinComputedWidth.
  std::vector<FormatField> sized = fields;
  for (FormatField& f : sized) {
    if (!f.computed) continue;
    size_t w = kMinComputedWidth;
    for (const Line& line : lines) w = std::max(w, LineValue(f.type, line).size());
    f.width = static_cast<int>(w);
  }

  std::string out;
  if (options.long_output) out += FormatDateLine(now) + "\n";
  if (!options.no_header) {
    for (const FormatField& f : sized) out += PrintField(Header(f.type), f.width, f.right) + f.suffix;
    out += "\n";
  }
  for (const Line& line : lines) {
    for (const FormatField& f : sized) out += PrintField(LineValue(f.type, line), f.width, f.right) + f.suffix;
    out += "\n";
  }
  return out;
}

}  // namespace

StatusOr<std::string> FormatSinfo(const std::vector<Partition>& partitions, const std::vector<NodeRecord>& nodes,
                                  const NodeActivityMap& usage, const SinfoOptions& options, int64_t now) {
  for (const std::string& s : options.states) RETURN_IF_ERROR(CheckSinfoState(s));
  ASSIGN_OR_RETURN(std::vector<FormatField> fields, ParseFormat(ChosenFormat(options), "node"));
  for (const FormatField& f : fields) {
    if (Header(f.type) == nullptr) {
      return InvalidArgument(std::string("Invalid node format specification: ") + f.type);
    }
  }
  const std::map<std::string, NodeView> views = ListedNodes(nodes, usage, options, now);
  if (options.reasons) return FormatReasons(views, fields, options);
  return PrintLines(fields, GroupedLines(partitions, views, fields, options), options, now);
}

}  // namespace muster

namespace muster {

namespace {
// The TCP port a node's agent listens on ("127.0.0.1:7001", "[::1]:7001"); 0 for a Unix socket.
int AgentPort(const std::string& address) {
  const size_t colon = address.rfind(':');
  if (address.rfind("unix:", 0) == 0 || colon == std::string::npos) return 0;
  const std::string port = address.substr(colon + 1);
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos) return 0;
  return std::stoi(port);
}
}  // namespace

boost::json::value SinfoJson(const std::vector<Partition>& partitions, const std::vector<NodeRecord>& nodes,
                         const NodeActivityMap& usage, int64_t now) {
  namespace bj = boost::json;
  std::vector<const NodeRecord*> order;
  for (const NodeRecord& r : nodes) order.push_back(&r);
  std::stable_sort(order.begin(), order.end(), [](const NodeRecord* a, const NodeRecord* b) {
    return NaturalCompare(a->node.name, b->node.name) < 0;
  });
  bj::array out;
  for (const NodeRecord* r : order) {
    const Node& n = r->node;
    bj::array parts;
    for (const Partition& p : partitions) {
      if (std::find(p.nodes.begin(), p.nodes.end(), n.name) != p.nodes.end()) parts.emplace_back(p.name);
    }
    if (parts.empty()) continue;
    auto it = usage.find(n.name);
    const NodeActivity u = it == usage.end() ? NodeActivity() : it->second;
    const SlurmNodeState st = NodeStateOf(*r, u, NodeResponding(*r, now));
    // "MIXED+DRAIN" -> state "mixed", state_flags ["DRAIN"], as Slurm's v0.0.38 splits them.
    std::string base = st.complete.substr(0, st.complete.find('+'));
    for (char& c : base) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    bj::array flags;
    for (size_t pos = st.complete.find('+'); pos != std::string::npos;) {
      const size_t next = st.complete.find('+', pos + 1);
      flags.emplace_back(st.complete.substr(pos + 1, next == std::string::npos ? std::string::npos : next - pos - 1));
      pos = next;
    }
    const int gpus = static_cast<int>(n.gpus.size());
    const bj::value features = bj::value_from(n.features);
    std::string tres = "cpu=" + std::to_string(n.cpus) + ",mem=" + FormatMemoryRounded(n.memory_mb) + ",billing=" +
                       std::to_string(n.cpus) + (gpus ? ",gres/gpu=" + std::to_string(gpus) : "");
    std::string used;
    if (u.cpus > 0 || u.memory_mb > 0 || u.gpus > 0) {
      used = "cpu=" + std::to_string(u.cpus) + ",mem=" + FormatMemoryRounded(u.memory_mb) +
             (u.gpus ? ",gres/gpu=" + std::to_string(u.gpus) : "");
    }
    out.push_back(bj::object{
        {"name", n.name},
        {"hostname", r->hostname.empty() ? n.name : r->hostname},
        {"address", r->agent_address},
        {"port", AgentPort(r->agent_address)},
        {"comment", ""},
        {"extra", ""},
        {"owner", nullptr},  // no node is reserved to one user
        {"mcs_label", ""},
        {"temporary_disk", 0},
        {"tres_weighted", 0.0},  // no TRES billing weights (Slurm's 0.0 without them)
        {"gres_drained", "N/A"},
        {"cpu_binding", 0},
        {"next_state_after_reboot", "invalid"},  // no reboot is pending (scontrol reboot is not offered)
        {"next_state_after_reboot_flags", bj::array()},
        {"burstbuffer_network_address", ""},
        {"state", base},
        {"state_flags", flags},
        {"cpus", n.cpus},
        {"alloc_cpus", u.cpus},
        {"idle_cpus", std::max(0, n.cpus - u.cpus)},
        {"sockets", n.sockets},
        {"cores", n.cores_per_socket},
        {"threads", n.threads_per_core},
        {"boards", 1},
        {"real_memory", n.memory_mb},
        {"alloc_memory", u.memory_mb},
        {"free_memory", u.free_memory_mb < 0 ? bj::value(nullptr) : bj::value(u.free_memory_mb)},
        {"cpu_load", u.cpu_load < 0 ? bj::value(nullptr) : bj::value(static_cast<int64_t>(u.cpu_load * 100))},
        {"gres", NodeGres(n) == "(null)" ? std::string() : NodeGres(n)},
        {"gres_used", "gpu:" + std::to_string(u.gpus)},
        {"features", features},
        {"active_features", features},
        {"partitions", parts},
        {"reason", n.reason},
        {"reason_set_by_user", n.reason_user},
        {"reason_changed_at", n.reason_time},
        {"boot_time", r->boot_time},
        {"slurmd_start_time", r->start_time},
        {"architecture", r->arch},
        {"operating_system", r->os},
        {"last_busy", u.last_busy},
        {"slurmd_version", r->version},
        {"tres", tres},
        {"tres_used", used.empty() ? bj::value(nullptr) : bj::value(used)},
        {"weight", 1},
    });
  }
  return bj::object{{"meta", {{"plugin", {{"type", "muster"}, {"name", "Muster sinfo"}}}}},
              {"errors", bj::array()},
              {"nodes", out}};
}

}  // namespace muster
