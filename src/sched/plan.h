// Plan: the free resources of every node during one scheduling cycle, changed only through
// Take(), with checkpoints: Mark() returns a checkpoint and Rollback(mark) undoes everything taken
// since, so a gang is placed all or nothing. Also keeps the indexes the placer searches (nodes by
// number of free whole GPUs, nodes with partly used GPUs). Not thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "base/bitset.h"
#include "sched/cluster_index.h"
#include "sched/decision.h"

namespace muster {

struct NodeFree {
  int64_t cpu_milli = 0;
  int64_t memory_mb = 0;
  int jobs = 0;
  bool exclusive = false;      // held whole by an exclusive job
  uint64_t free_mask = 0;      // GPUs with nothing allocated
  uint64_t partial_mask = 0;   // GPUs partly allocated (shared by fractional jobs)
};

class Plan {
 public:
  enum class View {
    kCurrent,     // the snapshot's usage; schedulable nodes only
    kEmptyUp,     // nothing running; schedulable nodes only ("would fit if the cluster were idle")
    kEmptyAll,    // nothing running; every node, whatever its state ("can ever fit")
  };
  Plan(const ClusterIndex& index, const ClusterSnapshot& snapshot, View view = View::kCurrent);
  // Starts again from `snapshot` (built from the same index), reusing the buffers.
  void Load(const ClusterSnapshot& snapshot, View view = View::kCurrent);

  const NodeFree& free(int node) const { return nodes_[node]; }
  int gpu_free_milli(int node, int gpu) const { return kMilliPerGpu - gpu_used_[offset_[node] + gpu]; }
  // Nodes that are usable in this plan (schedulable, or all with View::kEmptyAll).
  const DynamicBitset& usable() const { return usable_; }
  // Usable nodes with exactly k free whole (non-MIG) GPUs, k in [0, max_gpus_per_node].
  const DynamicBitset& by_free_whole(int k) const { return buckets_[k]; }
  // Usable nodes that have a partly used GPU.
  const DynamicBitset& with_partial() const { return partial_nodes_; }
  int free_whole(int node) const;

  int Mark() const { return static_cast<int>(undo_.size()); }
  void Rollback(int mark);
  // Whether `a` fits on canonical node `node` as things stand.
  bool Fits(int node, const NodeAllocation& a) const;
  // Takes `a` on canonical node `node`; CHECK-fails if it does not fit (the placer checks first).
  // `new_job`: false when a job already on the node takes more (a suspended job resumed takes its
  // CPUs back): the node's job count stays.
  void Take(int node, const NodeAllocation& a, bool new_job = true);
  // Gives back what a running job holds on canonical node `node` (a preemption victim), undone by
  // Rollback like a Take. CHECK-fails if `a` holds more than is in use. `job_leaves`: false when
  // the job stays on the node with the rest (a suspended job gives back only its CPUs).
  void Release(int node, const NodeAllocation& a, bool job_leaves = true);

 private:
  struct Undo {
    int node;
    NodeFree before;
    int gpu;          // -1: node-level entry only
    int16_t gpu_used_before;
  };
  void Reindex(int node, const NodeFree& before);

  const ClusterIndex& index_;
  std::vector<NodeFree> nodes_;
  std::vector<int> offset_;
  std::vector<int16_t> gpu_used_;
  DynamicBitset usable_;
  std::vector<DynamicBitset> buckets_;
  DynamicBitset partial_nodes_;
  std::vector<Undo> undo_;
};

}  // namespace muster
