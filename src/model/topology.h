// Topology: the network switch tree (node -> leaf switch -> spine -> ...), as Slurm's topology.conf
// describes it. Plain value type once built. Leaf switches list nodes; upper switches list switches.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "base/status.h"

namespace muster {

struct Switch {
  std::string name;
  int level = 0;                  // 0 = leaf (holds nodes); parent level = max(child level) + 1
  int parent = -1;                // index into Topology::switches(), -1 for a root
  std::vector<int> children;      // child switch indexes (upper switches)
  std::vector<std::string> nodes; // node names (leaf switches), expanded, in hostlist order
};

class Topology {
 public:
  // Parses topology.conf text: lines "SwitchName=s1 Nodes=gpu[001-016]" and
  // "SwitchName=spine Switches=s[1-4]" (optional LinkSpeed=, comments with '#', blank lines).
  // Errors name the line number and what is wrong (unknown switch, node under two leaves,
  // a switch with both Nodes= and Switches=, cycles, ...).
  static StatusOr<Topology> ParseTopologyConf(const std::string& text);

  // Builds a topology directly (tests, synthetic clusters): leaves with their nodes, then
  // spines each holding `leaves_per_spine` consecutive leaves, then one root over the spines
  // (only if there is more than one spine).
  static Topology TwoLevel(const std::vector<std::vector<std::string>>& leaf_nodes, int leaves_per_spine);

  bool empty() const { return switches_.empty(); }
  const std::vector<Switch>& switches() const { return switches_; }
  // Index of the leaf switch holding `node`, or -1 if the node is not in the tree.
  int LeafOf(const std::string& node) const;
  // Renders back to topology.conf syntax (node lists compressed as hostlists).
  std::string ToTopologyConf() const;

 private:
  std::vector<Switch> switches_;
  std::unordered_map<std::string, int> leaf_of_;
  Status Finish();  // computes levels/parents, validates; used by both builders
};

}  // namespace muster
