// Topology: the network switch tree (node -> leaf switch -> spine -> ...), as Slurm's topology.conf
// describes it. Plain value type once built. Leaf switches list nodes; upper switches list switches.
#pragma once

#include <cstdint>
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
  uint32_t link_speed = 1;        // LinkSpeed= (relative; Slurm's default is 1); kept for round trips
};

class Topology {
 public:
  // Parses topology.conf text: lines "SwitchName=s1 Nodes=gpu[001-016]" and
  // "SwitchName=spine Switches=s[1-4]" (optional LinkSpeed=, comments with '#', blank lines).
  // Errors name the line number and what is wrong (unknown switch, node under two leaves,
  // a switch with both Nodes= and Switches=, cycles, ...).
  // Keys are case-insensitive; a line ending in '\' continues on the next; a switch with neither
  // Nodes= nor Switches= is an empty leaf; several roots are allowed; text with no switches gives
  // an empty Topology. Switches keep file order; duplicates inside one Nodes=/Switches= list are
  // dropped (as Slurm does). Stricter than Slurm, which only warns: a node under two leaves and a
  // switch under two parents are errors.
  static StatusOr<Topology> ParseTopologyConf(const std::string& text);

  // Builds a topology directly (tests, synthetic clusters): leaves with their nodes, then
  // spines each holding `leaves_per_spine` consecutive leaves, then one root over the spines
  // (only if there is more than one spine). Named leaf<i>, spine<j> and core. No leaves gives an
  // empty Topology. Programmer input, not user input: CHECK-fails if leaves_per_spine < 1 or a
  // node name is empty or appears twice.
  static Topology TwoLevel(const std::vector<std::vector<std::string>>& leaf_nodes, int leaves_per_spine);

  bool empty() const { return switches_.empty(); }
  const std::vector<Switch>& switches() const { return switches_; }
  // Index of the leaf switch holding `node`, or -1 if the node is not in the tree.
  int LeafOf(const std::string& node) const;
  // Renders back to topology.conf syntax (node lists compressed as hostlists), one line per
  // switch in switches() order; LinkSpeed= only when not 1. Parsing the result gives the same
  // tree (node and child lists come back in hostlist-sorted order).
  std::string ToTopologyConf() const;

 private:
  std::vector<Switch> switches_;
  std::unordered_map<std::string, int> leaf_of_;
  std::vector<int> lines_;  // topology.conf line of each switch when parsed (error messages only)
  Status Finish();  // computes levels/parents, validates; used by both builders
};

}  // namespace muster
