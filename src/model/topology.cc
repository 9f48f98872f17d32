#include "model/topology.h"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "base/strings.h"
#include "model/hostlist.h"
#include "model/slurm_syntax.h"

namespace muster {
namespace {


std::string LineTag(int line) { return "line " + std::to_string(line); }

// Quotes and backslashes would not survive ToTopologyConf (they start quoted values and line
// continuations), and no real host or switch name has them.
Status CheckName(const std::string& name, const std::string& context) {
  if (name.find_first_of("\"\\") != std::string::npos) {
    return InvalidArgument(context + ": name '" + name + "' contains '\"' or '\\'");
  }
  return Status::Ok();
}

// Expands a hostlist value and drops repeats, keeping first occurrences (Slurm turns these lists
// into bitmaps or looks each name up, so a repeat means nothing there either).
StatusOr<std::vector<std::string>> ExpandUnique(const std::string& value, const std::string& context) {
  StatusOr<std::vector<std::string>> names = ExpandHostlist(value);
  if (!names.ok()) return names.status().WithPrefix(context);
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
  for (std::string& name : *names) {
    RETURN_IF_ERROR(CheckName(name, context));
    if (seen.insert(name).second) out.push_back(std::move(name));
  }
  return out;
}

StatusOr<uint32_t> ParseLinkSpeed(const std::string& value, int line) {
  bool digits = !value.empty() && value.size() <= 10 &&
                std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits || std::stoull(value) > UINT32_MAX) {
    return InvalidArgument(LineTag(line) + ": LinkSpeed='" + value + "' is not an integer in [0, 4294967295]");
  }
  return static_cast<uint32_t>(std::stoull(value));
}

}  // namespace

StatusOr<Topology> Topology::ParseTopologyConf(const std::string& text) {
  Topology topo;
  std::vector<std::vector<std::string>> child_names;  // per switch, resolved once all are read
  std::unordered_map<std::string, int> index;
  for (const SlurmConfLine& logical : SlurmConfLines(text)) {
    ASSIGN_OR_RETURN(std::vector<SlurmConfPair> pairs, TokenizeSlurmConfLine(logical, /*source=*/""));
    if (pairs.empty()) continue;
    const int line = pairs[0].line;
    for (const SlurmConfPair& p : pairs) {
      if (p.value.empty()) return InvalidArgument(LineTag(p.line) + ": " + p.key + "= has an empty value");
    }
    // Slurm's parser knows only SwitchName at the top level; the rest of the line are its options.
    if (Lower(pairs[0].key) != "switchname") {
      return InvalidArgument(LineTag(line) + ": expected SwitchName= first, got '" + pairs[0].key + "='");
    }
    Switch sw;
    sw.name = pairs[0].value;
    if (sw.name.find_first_of(",[] \t") != std::string::npos) {
      return InvalidArgument(LineTag(line) + ": SwitchName '" + sw.name +
                             "' must be a single name (no ',', '[', ']' or blanks)");
    }
    RETURN_IF_ERROR(CheckName(sw.name, LineTag(line) + ": SwitchName="));
    if (auto [it, inserted] = index.emplace(sw.name, static_cast<int>(topo.switches_.size())); !inserted) {
      return InvalidArgument(LineTag(line) + ": switch '" + sw.name + "' is already defined on line " +
                             std::to_string(topo.lines_[it->second]));
    }
    const std::string where = LineTag(line) + ": switch '" + sw.name + "'";
    std::vector<std::string> children;
    bool has_nodes = false, has_switches = false, has_speed = false;
    for (size_t k = 1; k < pairs.size(); ++k) {
      const std::string key = Lower(pairs[k].key);
      bool* seen = nullptr;
      if (key == "nodes") seen = &has_nodes;
      if (key == "switches") seen = &has_switches;
      if (key == "linkspeed") seen = &has_speed;
      if (seen == nullptr) {
        return InvalidArgument(where + ": unknown key '" + pairs[k].key +
                               "' (expected Nodes, Switches or LinkSpeed)");
      }
      if (*seen) return InvalidArgument(where + ": " + pairs[k].key + "= given twice");
      *seen = true;
      if (key == "nodes") {
        ASSIGN_OR_RETURN(sw.nodes, ExpandUnique(pairs[k].value, where + ": Nodes="));
      } else if (key == "switches") {
        ASSIGN_OR_RETURN(children, ExpandUnique(pairs[k].value, where + ": Switches="));
      } else {
        ASSIGN_OR_RETURN(sw.link_speed, ParseLinkSpeed(pairs[k].value, line));
      }
    }
    if (has_nodes && has_switches) {
      return InvalidArgument(where + " has both Nodes= and Switches= (a switch holds nodes or switches)");
    }
    topo.switches_.push_back(std::move(sw));
    topo.lines_.push_back(line);
    child_names.push_back(std::move(children));
  }
  for (size_t i = 0; i < topo.switches_.size(); ++i) {
    for (const std::string& name : child_names[i]) {
      auto it = index.find(name);
      if (it == index.end()) {
        return InvalidArgument(LineTag(topo.lines_[i]) + ": switch '" + topo.switches_[i].name +
                               "' lists unknown switch '" + name + "' in Switches=");
      }
      topo.switches_[i].children.push_back(it->second);
    }
  }
  RETURN_IF_ERROR(topo.Finish());
  return topo;
}

Topology Topology::TwoLevel(const std::vector<std::vector<std::string>>& leaf_nodes, int leaves_per_spine) {
  MUSTER_CHECK(leaves_per_spine >= 1) << "leaves_per_spine=" << leaves_per_spine;
  Topology topo;
  const int leaves = static_cast<int>(leaf_nodes.size());
  for (int i = 0; i < leaves; ++i) {
    Switch leaf;
    leaf.name = "leaf" + std::to_string(i);
    leaf.nodes = leaf_nodes[i];
    topo.switches_.push_back(std::move(leaf));
  }
  const int spines = leaves == 0 ? 0 : (leaves - 1) / leaves_per_spine + 1;  // no overflow near INT_MAX
  for (int s = 0; s < spines; ++s) {
    Switch spine;
    spine.name = "spine" + std::to_string(s);
    for (int i = s * leaves_per_spine; i < std::min(leaves, (s + 1) * leaves_per_spine); ++i) {
      spine.children.push_back(i);
    }
    topo.switches_.push_back(std::move(spine));
  }
  if (spines > 1) {
    Switch core;
    core.name = "core";
    for (int s = 0; s < spines; ++s) core.children.push_back(leaves + s);
    topo.switches_.push_back(std::move(core));
  }
  Status status = topo.Finish();
  MUSTER_CHECK(status.ok()) << status.ToString();
  return topo;
}

int Topology::LeafOf(const std::string& node) const {
  auto it = leaf_of_.find(node);
  return it == leaf_of_.end() ? -1 : it->second;
}

std::string Topology::ToTopologyConf() const {
  std::string out;
  for (const Switch& sw : switches_) {
    out += "SwitchName=" + sw.name;
    if (!sw.nodes.empty()) {
      out += " Nodes=" + CompressHostlist(sw.nodes);
    } else if (!sw.children.empty()) {
      std::vector<std::string> names;
      for (int c : sw.children) names.push_back(switches_[c].name);
      out += " Switches=" + CompressHostlist(names);
    }
    if (sw.link_speed != 1) out += " LinkSpeed=" + std::to_string(sw.link_speed);
    out += '\n';
  }
  return out;
}

Status Topology::Finish() {
  const int n = static_cast<int>(switches_.size());
  // "line 7: " when the switch came from a file, nothing when built in code.
  auto at = [&](int i) { return i < static_cast<int>(lines_.size()) ? LineTag(lines_[i]) + ": " : std::string(); };
  auto named = [&](int i) {
    std::string s = "'" + switches_[i].name + "'";
    return i < static_cast<int>(lines_.size()) ? s + " (" + LineTag(lines_[i]) + ")" : s;
  };

  std::unordered_map<std::string, int> by_name;
  for (int i = 0; i < n; ++i) {
    Switch& sw = switches_[i];
    if (sw.name.empty()) return InvalidArgument(at(i) + "switch #" + std::to_string(i) + " has no name");
    if (auto [it, inserted] = by_name.emplace(sw.name, i); !inserted) {
      return InvalidArgument(at(i) + "switch name " + named(i) + " is also used by switch " + named(it->second));
    }
    if (!sw.nodes.empty() && !sw.children.empty()) {
      return InvalidArgument(at(i) + "switch '" + sw.name + "' has both nodes and child switches");
    }
    sw.parent = -1;
    sw.level = 0;
  }

  for (int i = 0; i < n; ++i) {
    for (int c : switches_[i].children) {
      MUSTER_CHECK(c >= 0 && c < n) << "child index " << c << " of switch " << switches_[i].name;
      if (c == i) return InvalidArgument(at(i) + "switch '" + switches_[i].name + "' lists itself as a child");
      int& parent = switches_[c].parent;
      if (parent == i) {
        return InvalidArgument(at(i) + "switch '" + switches_[i].name + "' lists child '" + switches_[c].name +
                               "' twice");
      }
      if (parent != -1) {
        return InvalidArgument(at(i) + "switch '" + switches_[c].name + "' is listed under two parents: " +
                               named(parent) + " and " + named(i));
      }
      parent = i;
    }
  }

  leaf_of_.clear();
  for (int i = 0; i < n; ++i) {
    for (const std::string& node : switches_[i].nodes) {
      if (node.empty()) {
        return InvalidArgument(at(i) + "leaf switch '" + switches_[i].name + "' lists an empty node name");
      }
      auto [it, inserted] = leaf_of_.emplace(node, i);
      if (inserted) continue;
      if (it->second == i) {
        return InvalidArgument(at(i) + "leaf switch '" + switches_[i].name + "' lists node '" + node + "' twice");
      }
      return InvalidArgument(at(i) + "node '" + node + "' is under two leaf switches: " + named(it->second) +
                             " and " + named(i));
    }
  }

  // Levels bottom-up (Kahn's order over child -> parent edges), iterative so that a long chain in a
  // hostile file cannot overflow the stack. With one parent each, what is left unvisited has a cycle.
  std::vector<int> pending(n);
  std::vector<int> ready;
  for (int i = 0; i < n; ++i) {
    pending[i] = static_cast<int>(switches_[i].children.size());
    if (pending[i] == 0) ready.push_back(i);
  }
  int done = 0;
  while (!ready.empty()) {
    int i = ready.back();
    ready.pop_back();
    ++done;
    int p = switches_[i].parent;
    if (p == -1) continue;
    switches_[p].level = std::max(switches_[p].level, switches_[i].level + 1);
    if (--pending[p] == 0) ready.push_back(p);
  }
  if (done == n) return Status::Ok();

  // Every unvisited switch has an unvisited child; walking those must come back to a switch seen.
  int start = 0;
  while (pending[start] == 0) ++start;
  std::vector<int> path;
  std::vector<int> pos(n, -1);
  int cur = start;
  while (pos[cur] == -1) {
    pos[cur] = static_cast<int>(path.size());
    path.push_back(cur);
    for (int c : switches_[cur].children) {
      if (pending[c] > 0) {
        cur = c;
        break;
      }
    }
  }
  std::string cycle;
  for (size_t k = pos[cur]; k < path.size(); ++k) cycle += "'" + switches_[path[k]].name + "' -> ";
  cycle += "'" + switches_[cur].name + "'";
  return InvalidArgument(at(cur) + "switches form a cycle: " + cycle);
}

}  // namespace muster
