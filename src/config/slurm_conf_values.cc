#include "config/slurm_conf_values.h"

#include <algorithm>
#include <cctype>

#include "base/strings.h"
#include "model/slurm_syntax.h"

namespace muster::slurm_conf {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

// Names used in gres and constraint syntax: no blanks, ':', ',', '&', '|', brackets (as in
// cluster_file.cc, so both loaders accept the same names).
bool IsPlainName(const std::string& s) {
  if (s.empty() || s.size() > 128) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '+';
  });
}


std::vector<std::string> SplitOn(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t at = s.find(sep, start);
    out.emplace_back(s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

// Known options, lower case -> canonical key. Slurm's lists (read_config.c), through 24.11: an
// option Slurm knows is accepted here even when Muster does not use it.
const std::map<std::string, std::string>& NodeOptions() {
  static const std::map<std::string, std::string> known = [] {
    std::map<std::string, std::string> m;
    for (const char* k : {"nodename", "bcastaddr", "boards", "corespeccount", "corespersocket", "cpubind", "cpus",
                          "cpuspeclist", "gres", "memspeclimit", "nodeaddr", "nodehostname", "parameters", "port",
                          "realmemory", "reason", "restrictedcorespergpu", "sockets", "socketsperboard", "state",
                          "threadspercore", "tmpdisk", "topology", "tresweights", "weight", "extra"}) {
      m[k] = k;
    }
    m["feature"] = "features";
    m["features"] = "features";
    m["procs"] = "cpus";
    return m;
  }();
  return known;
}

const std::map<std::string, std::string>& PartitionOptions() {
  static const std::map<std::string, std::string> known = [] {
    std::map<std::string, std::string> m;
    for (const char* k :
         {"partitionname", "allocnodes", "allowaccounts", "allowgroups", "allowqos", "alternate", "cpubind",
          "default", "defaulttime", "defcpupergpu", "defmempercpu", "defmempergpu", "defmempernode", "denyaccounts",
          "denyqos", "disablerootjobs", "exclusivetopo", "exclusiveuser", "gracetime", "hidden", "lln",
          "maxcpuspernode", "maxcpuspersocket", "maxmempercpu", "maxmempernode", "maxnodes", "maxtime", "minnodes",
          "nodes", "oversubscribe", "overtimelimit", "powerdownonidle", "preemptmode", "priority",
          "priorityjobfactor", "prioritytier", "qos", "reqresv", "resumetimeout", "rootonly",
          "selecttypeparameters", "shared", "state", "suspendtime", "suspendtimeout", "topology",
          "tresbillingweights"}) {
      m[k] = k;
    }
    return m;
  }();
  return known;
}

const std::map<std::string, std::string>& DownNodesOptions() {
  static const std::map<std::string, std::string> m = {{"downnodes", "downnodes"}, {"reason", "reason"},
                                                       {"state", "state"}};
  return m;
}

const std::map<std::string, std::string>& NodeSetOptions() {
  static const std::map<std::string, std::string> m = {
      {"nodeset", "nodeset"}, {"nodes", "nodes"}, {"feature", "feature"}, {"features", "feature"}};
  return m;
}

const std::map<std::string, std::string>& GresOptions() {
  static const std::map<std::string, std::string> known = [] {
    std::map<std::string, std::string> m;
    for (const char* k : {"nodename", "name", "type", "file", "count", "cores", "cpus", "links", "flags",
                          "autodetect", "multiplefiles"}) {
      m[k] = k;
    }
    return m;
  }();
  return known;
}

// A node's State= (or a DownNodes line's): how it maps onto Node. Slurm reads these names in
// state_str2int; CLOUD nodes (powered down until needed) and UNKNOWN nodes (state learnt when
// their daemon registers) start out available.
StatusOr<NodeStateValue> ParseNodeState(const std::string& v) {
  const std::string s = Lower(v);
  if (s == "unknown" || s == "idle" || s == "cloud") return NodeStateValue{NodeState::kIdle, false};
  if (s == "down" || s == "fail") return NodeStateValue{NodeState::kDown, false};
  if (s == "drain" || s == "failing") return NodeStateValue{NodeState::kIdle, true};
  if (s == "future") return NodeStateValue{NodeState::kFuture, false};
  return InvalidArgument("unknown node state (expected UNKNOWN, IDLE, CLOUD, DOWN, DRAIN, FAIL, FAILING or FUTURE)");
}

// Parses Gres=; non-gpu gres (mps, shard, nic, ...) are skipped.
StatusOr<std::vector<GresSpec>> ParseGres(const std::string& value) {
  std::vector<GresSpec> out;
  // Split on ',' outside parentheses: "gpu:a100:2(S:0,1),gpu:v100:1".
  std::vector<std::string> items;
  std::string cur;
  int depth = 0;
  for (char c : value) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      items.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (depth != 0) return InvalidArgument("unbalanced parentheses");
  items.push_back(cur);
  int64_t total = 0;
  for (const std::string& item : items) {
    std::string spec = item;
    if (size_t paren = spec.find('('); paren != std::string::npos) {
      if (spec.back() != ')') return InvalidArgument("text after the ')' of " + SlurmConfQuote(item));
      spec.erase(paren);
    }
    if (spec.empty()) return InvalidArgument("an empty gres in the list");
    std::vector<std::string> parts = SplitOn(spec, ':');
    if (Lower(parts[0]) != "gpu") continue;
    parts.erase(parts.begin());
    auto no_consume = [](const std::string& p) { return Lower(p) == "no_consume"; };
    parts.erase(std::remove_if(parts.begin(), parts.end(), no_consume), parts.end());
    GresSpec g;
    int64_t count = 1;
    if (!parts.empty() && ParseSlurmConfInt(parts.back(), &count)) parts.pop_back();
    if (parts.size() > 1) return InvalidArgument("expected gpu[:type]:count, got " + SlurmConfQuote(item));
    if (parts.size() == 1) {
      if (!IsPlainName(parts[0])) return InvalidArgument("invalid GPU type " + SlurmConfQuote(parts[0]));
      g.type = parts[0];
    }
    total += count;
    if (total > kMaxDevicesPerNode) {
      return InvalidArgument("more than " + std::to_string(kMaxDevicesPerNode) + " GPUs on a node");
    }
    g.count = static_cast<int>(count);
    if (g.count > 0) out.push_back(std::move(g));
  }
  return out;
}

// A gres type that is a MIG profile ("1g.10gb", "3g.40gb", or one after a model and '_', as in
// "a100_3g.40gb"): such devices are MIG slices, as Slurm's own MIG examples name them. Returns the
// slice's memory in MiB, or 0 if the type is not a profile.
int64_t MigProfileMemoryMb(const std::string& full_type) {
  const size_t underscore = full_type.rfind('_');
  const std::string type = underscore == std::string::npos ? full_type : full_type.substr(underscore + 1);
  size_t i = 0;
  while (i < type.size() && i < 3 && IsDigit(type[i])) ++i;
  if (i == 0 || type.compare(i, 2, "g.") != 0) return 0;
  size_t j = i + 2, k = j;
  while (k < type.size() && k - j < 6 && IsDigit(type[k])) ++k;
  if (k == j || type.compare(k, std::string::npos, "gb") != 0) return 0;
  int64_t gb = 0;
  if (!ParseSlurmConfInt(std::string_view(type).substr(j, k - j), &gb) || gb == 0) return 0;
  return gb * 1024;
}

// "gpu:a100:4,gpu:2" for messages.
std::string FormatGres(const std::vector<std::pair<std::string, int>>& by_type) {
  std::string out;
  for (const auto& [type, count] : by_type) {
    if (!out.empty()) out += ",";
    out += "gpu:" + (type.empty() ? "" : type + ":") + std::to_string(count);
  }
  return out.empty() ? "no GPUs" : out;
}

}  // namespace muster::slurm_conf
