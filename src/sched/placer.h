// Placer: finds where one job goes and takes it in the Plan, whole or not at all.
//
// Rules (docs/placement.md explains them with examples):
//  - A job that fits on one node gets one node: the node whose GPU set has the best NVLink
//    connectivity relative to what its layout can offer, then the best fit (fewest free whole
//    GPUs, then for CPU-only jobs least free CPU), then the lowest canonical index.
//  - A fractional request goes to the partly used GPU with the least room that still fits it,
//    anywhere in its candidate nodes; only if none fits does it open a free GPU, on the best-fit node.
//  - A multi-node job goes under the lowest switch whose subtree can hold it; among switches of that
//    level the best fit (least capacity for the job that still holds it); inside, the fewest
//    children (largest first, the last one best-fit), down to nodes chosen the same way.
//  - Inside a node, GPUs are chosen link-aware (sched/gpu_picker.h).
//  - Given a WorkloadMix (sched/workload_mix.h), a one-node job goes, among the nodes of the best
//    link quality, to the one whose expected fragment it decreases most (in the mix's steps), then
//    the first in canonical order (a CPU-only job: the least free CPU first); a fractional request
//    goes to the GPU of that node it leaves least fragmented (among equals the tightest).
// Deterministic: depends only on the index, the plan and the arguments.
#pragma once

#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "base/bitset.h"
#include "sched/cluster_index.h"
#include "sched/plan.h"
#include "sched/request_shape.h"
#include "sched/workload_mix.h"

namespace muster {

class Placer {
 public:
  Placer(const ClusterIndex& index, Plan& plan, const WorkloadMix* mix = nullptr)
      : index_(index), plan_(plan), mix_(mix != nullptr && !mix->empty() ? mix : nullptr) {}

  // Places `shape` on nodes from `candidates` (static filter: partition, features, -w/-x). On
  // success the allocation is taken in the plan and returned in canonical node order.
  std::optional<std::vector<NodeAllocation>> Place(const RequestShape& shape, const DynamicBitset& candidates);

  // Units of `shape` node `i` can hold now (0 = not eligible), capped at shape.units.
  int Capacity(int i, const RequestShape& shape) const;

 private:
  using Pick = std::vector<std::pair<int, int>>;  // (node, units)
  struct Quality {
    int links;  // NVLink link sum of the GPUs the node would give
    int best;   // the most its layout can give for that many GPUs (> 0)
  };
  Quality LinkQuality(int i, int units, const RequestShape& shape) const;

  std::optional<Pick> SingleNode(const RequestShape& shape, const DynamicBitset& candidates) const;
  std::optional<Pick> FractionalSingle(const RequestShape& shape, const DynamicBitset& candidates) const;
  std::optional<Pick> MultiNode(const RequestShape& shape, const DynamicBitset& candidates) const;
  bool SelectIn(int t, int need, const RequestShape& shape, const std::vector<std::pair<int, int>>& elig,
                Pick& out) const;
  bool Spread(int t, const RequestShape& shape, const std::vector<std::pair<int, int>>& elig, Pick& pick) const;
  // GPU slice for a fractional request on node i: (gpu index, milli) or (-1, 0).
  std::pair<int, int> Slice(int i, const RequestShape& shape) const;
  std::optional<NodeAllocation> Build(int i, int units, const RequestShape& shape) const;
  // Best-fit order key among nodes that can take what is asked (smaller is better).
  std::tuple<int, int64_t, int> FitKey(int i, const RequestShape& shape) const;
  // How much placing `units` of `shape` on node i decreases the mix's expected fragment, in the
  // mix's steps (larger is better).
  // A slice's GPU is the one that gains most (`gpu`; -1 for other requests).
  int64_t FragmentGain(int i, int units, const RequestShape& shape, int* gpu) const;

  const ClusterIndex& index_;
  Plan& plan_;
  const WorkloadMix* mix_;
  mutable std::vector<int> gpu_free_;  // FragmentGain's scratch
  // The slice SingleNode chose with the mix, for Build (valid during one Place).
  mutable int slice_node_ = -1, slice_gpu_ = -1;
};

// Where `shape` would go among `candidates`, with `plan` left as it was (a trial placement).
std::optional<std::vector<NodeAllocation>> TryPlace(const ClusterIndex& index, Plan& plan, const RequestShape& shape,
                                                    const DynamicBitset& candidates);

}  // namespace muster
