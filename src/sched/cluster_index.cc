#include "sched/cluster_index.h"

#include <algorithm>

#include "model/name_order.h"

namespace muster {


int ClusterIndex::AddSubtree(const Topology& topo, int sw, std::vector<int>& order, const std::vector<Node>& nodes,
                             const std::unordered_map<std::string, int>& by_name, std::vector<bool>& placed) {
  const Switch& s = topo.switches()[sw];
  int t = static_cast<int>(tree_.size());
  tree_.push_back(TreeNode{s.name, s.level, static_cast<int>(order.size()), 0, {}});
  if (s.children.empty()) {
    std::vector<int> members;
    for (const std::string& n : s.nodes) {
      auto it = by_name.find(n);
      // Switch members that are not cluster nodes are ignored (Slurm warns and goes on);
      // a node listed under two leaves is rejected when the topology is parsed.
      if (it != by_name.end() && !placed[it->second]) members.push_back(it->second);
    }
    std::sort(members.begin(), members.end(),
              [&](int a, int b) { return NaturalLess(nodes[a].name, nodes[b].name); });
    for (int m : members) {
      placed[m] = true;
      order.push_back(m);
    }
  } else {
    for (int c : s.children) {
      int ct = AddSubtree(topo, c, order, nodes, by_name, placed);
      tree_[t].children.push_back(ct);
    }
  }
  tree_[t].end = static_cast<int>(order.size());
  return t;
}

ClusterIndex::ClusterIndex(const ClusterSnapshot& snapshot) {
  const std::vector<Node>& nodes = snapshot.nodes;
  std::unordered_map<std::string, int> pos_by_name;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) pos_by_name.emplace(nodes[i].name, i);

  // Canonical order: roots of the switch tree in file order, depth-first; then the rest.
  std::vector<int> order;
  std::vector<bool> placed(nodes.size(), false);
  std::vector<int> top;
  const Topology& topo = snapshot.topology;
  for (int s = 0; s < static_cast<int>(topo.switches().size()); ++s) {
    if (topo.switches()[s].parent < 0) top.push_back(AddSubtree(topo, s, order, nodes, pos_by_name, placed));
  }
  std::vector<int> rest;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    if (!placed[i]) rest.push_back(i);
  }
  if (!rest.empty()) {
    std::sort(rest.begin(), rest.end(), [&](int a, int b) { return NaturalLess(nodes[a].name, nodes[b].name); });
    int t = static_cast<int>(tree_.size());
    tree_.push_back(TreeNode{"(no switch)", 0, static_cast<int>(order.size()), 0, {}});
    order.insert(order.end(), rest.begin(), rest.end());
    tree_[t].end = static_cast<int>(order.size());
    top.push_back(t);
  }
  if (top.size() == 1) {
    root_ = top[0];
  } else {
    // Several roots (or none): a virtual root over all of them; it ranks above every switch.
    int level = 0;
    for (int t : top) level = std::max(level, tree_[t].level + 1);
    root_ = static_cast<int>(tree_.size());
    tree_.push_back(TreeNode{"(root)", level, 0, static_cast<int>(order.size()), top});
  }

  nodes_.resize(order.size());
  at_pos_.assign(nodes.size(), -1);
  for (int i = 0; i < static_cast<int>(order.size()); ++i) at_pos_[order[i]] = i;
  schedulable_ = DynamicBitset(static_cast<int>(order.size()));
  for (int i = 0; i < static_cast<int>(order.size()); ++i) {
    const Node& n = nodes[order[i]];
    IndexedNode& in = nodes_[i];
    in.node = &n;
    in.snapshot_pos = order[i];
    std::vector<int> numa(n.gpus.size());
    for (size_t g = 0; g < n.gpus.size(); ++g) {
      numa[g] = n.gpus[g].numa_node;
      if (!n.gpus[g].is_mig()) in.whole_mask |= uint64_t{1} << g;
      const std::string& type = n.gpus[g].type();
      auto it = std::find_if(in.type_masks.begin(), in.type_masks.end(),
                             [&](const auto& tm) { return tm.first == type; });
      if (it == in.type_masks.end()) {
        in.type_masks.emplace_back(type, uint64_t{1} << g);
      } else {
        it->second |= uint64_t{1} << g;
      }
    }
    in.whole_count = std::popcount(in.whole_mask);
    in.layout = picker_.Intern(n.links.size() == static_cast<int>(n.gpus.size()) ? n.links
                                                                                 : GpuLinkMatrix::PcieOnly(n.gpus.size()),
                               numa);
    max_gpus_ = std::max(max_gpus_, static_cast<int>(n.gpus.size()));
    by_name_.Insert(n.name, i);
    schedulable_.assign(i, n.schedulable());
  }
  for (int t = 0; t < static_cast<int>(tree_.size()); ++t) {
    if (tree_[t].children.empty() && t != root_) {
      for (int i = tree_[t].begin; i < tree_[t].end; ++i) nodes_[i].leaf = t;
    }
  }
  if (tree_[root_].children.empty()) {
    for (auto& in : nodes_) in.leaf = root_;
  }

  levels_.resize(tree_[root_].level + 1);
  for (int t = 0; t < static_cast<int>(tree_.size()); ++t) levels_[tree_[t].level].push_back(t);

  for (const Partition& p : snapshot.partitions) {
    DynamicBitset bits(size());
    for (const std::string& n : p.nodes) {
      int i = Find(n);
      if (i >= 0) bits.set(i);
    }
    partitions_.emplace(p.name, std::make_pair(&p, std::move(bits)));
    if (p.is_default && default_partition_.empty()) default_partition_ = p.name;
  }
  if (default_partition_.empty() && !snapshot.partitions.empty()) default_partition_ = snapshot.partitions[0].name;
  empty_ = DynamicBitset(size());
}

int ClusterIndex::Find(const std::string& name) const {
  return by_name_.Find(name);
}

const Partition* ClusterIndex::FindPartition(const std::string& name) const {
  auto it = partitions_.find(name);
  return it == partitions_.end() ? nullptr : it->second.first;
}

const DynamicBitset& ClusterIndex::PartitionNodes(const std::string& name) const {
  auto it = partitions_.find(name);
  return it == partitions_.end() ? empty_ : it->second.second;
}

StatusOr<DynamicBitset> ClusterIndex::MatchConstraint(const std::string& expr) const {
  ASSIGN_OR_RETURN(const std::vector<std::vector<std::string>> terms, ParseConstraint(expr));
  DynamicBitset result(size());
  for (int i = 0; i < size(); ++i) {
    if (SatisfiesConstraint(*nodes_[i].node, terms)) result.set(i);
  }
  return result;
}

}  // namespace muster
