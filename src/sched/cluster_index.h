// ClusterIndex: the static part of a snapshot arranged for fast placement, built once per
// snapshot. Nodes get a canonical order: depth-first through the switch tree (children in the
// order topology.conf lists them; nodes of a leaf in natural name order), then nodes outside the
// tree in natural name order. So every switch covers a contiguous range of node indexes, and the
// order does not depend on the order of the snapshot's node list. Immutable after construction
// except for the GPU pick memo (not thread-safe).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/bitset.h"
#include "base/name_index.h"
#include "sched/cluster_snapshot.h"
#include "sched/gpu_picker.h"

namespace muster {

struct IndexedNode {
  const Node* node = nullptr;
  int snapshot_pos = 0;     // position in ClusterSnapshot::nodes / usage
  int leaf = 0;             // tree index of its leaf (a virtual leaf for nodes outside the tree)
  int layout = 0;           // GpuPickCache layout id
  uint64_t whole_mask = 0;  // GPUs that are not MIG slices
  int whole_count = 0;
  std::vector<std::pair<std::string, uint64_t>> type_masks;  // gres type -> its GPUs

  // GPUs a request for `type` may use: "" = the whole (non-MIG) GPUs; else GPUs of that model
  // or MIG profile.
  uint64_t TypeMask(const std::string& type) const {
    if (type.empty()) return whole_mask;
    for (const auto& [t, m] : type_masks) if (t == type) return m;
    return 0;
  }
};

struct TreeNode {
  std::string name;
  int level = 0;              // 0 = leaf
  int begin = 0, end = 0;     // node index range [begin, end)
  std::vector<int> children;  // tree indexes
};

class ClusterIndex {
 public:
  explicit ClusterIndex(const ClusterSnapshot& snapshot);
  ClusterIndex(const ClusterIndex&) = delete;
  ClusterIndex& operator=(const ClusterIndex&) = delete;

  int size() const { return static_cast<int>(nodes_.size()); }
  const IndexedNode& node(int i) const { return nodes_[i]; }
  // Canonical index of a node name, or -1.
  int Find(const std::string& name) const;
  // The same, given where the node probably is in the snapshot's `nodes` (a hint kept with a
  // running job): the name at that place is compared, else looked up.
  int Find(const std::string& name, int snapshot_pos) const {
    if (snapshot_pos >= 0 && snapshot_pos < static_cast<int>(at_pos_.size())) {
      const int i = at_pos_[snapshot_pos];
      if (i >= 0 && nodes_[i].node->name == name) return i;
    }
    return Find(name);
  }

  const std::vector<TreeNode>& tree() const { return tree_; }
  int root() const { return root_; }
  int max_level() const { return tree_[root_].level; }
  // Tree indexes of the switches at `level` (0 = leaves), in canonical order.
  const std::vector<int>& level(int l) const { return levels_[l]; }

  const DynamicBitset& schedulable() const { return schedulable_; }
  // Partition by name (nullptr if unknown), its node set, the default partition's name.
  const Partition* FindPartition(const std::string& name) const;
  const DynamicBitset& PartitionNodes(const std::string& name) const;
  const std::string& default_partition() const { return default_partition_; }
  int max_gpus_per_node() const { return max_gpus_; }

  GpuPickCache& picker() const { return picker_; }

  // Nodes whose features satisfy a --constraint expression: names joined by '&' (and) and '|'
  // (or; '&' binds tighter). Errors for syntax Muster does not support (brackets, counts).
  StatusOr<DynamicBitset> MatchConstraint(const std::string& expr) const;

 private:
  int AddSubtree(const Topology& topo, int sw, std::vector<int>& order, const std::vector<Node>& nodes,
                 const std::unordered_map<std::string, int>& by_name, std::vector<bool>& placed);

  std::vector<IndexedNode> nodes_;
  std::vector<int> at_pos_;  // snapshot position -> canonical index
  NameIndex by_name_;
  std::vector<TreeNode> tree_;
  int root_ = 0;
  std::vector<std::vector<int>> levels_;
  DynamicBitset schedulable_;
  std::unordered_map<std::string, std::pair<const Partition*, DynamicBitset>> partitions_;
  std::string default_partition_;
  int max_gpus_ = 0;
  mutable GpuPickCache picker_;
  DynamicBitset empty_;
};

}  // namespace muster
