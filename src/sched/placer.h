// Placer: finds where one job goes and takes it in the Plan, whole or not at all.
//
// Rules (docs/placement.md explains them with examples):
//  - A job that fits on one node gets one node: the node whose GPU set has the best NVLink
//    connectivity relative to what its layout can offer, then the best score of the placement
//    scorer (sched/placement_scorer.h; best fit: fewest free whole GPUs, then for CPU-only jobs
//    least free CPU, then the lowest canonical index).
//  - With best fit, a fractional request goes to the partly used GPU with the least room that still
//    fits it, anywhere in its candidate nodes; only if none fits does it open a free GPU, on the
//    best-fit node.
//  - A multi-node job goes under the lowest switch whose subtree can hold it; among switches of that
//    level the best fit (least capacity for the job that still holds it); inside, the fewest
//    children (largest first, the last one best-fit), down to nodes chosen the same way.
//  - Inside a node, GPUs are chosen link-aware (sched/gpu_picker.h).
//  - The learned scorer (sched/learned_scorer.cc), given a WorkloadMix (sched/workload_mix.h):
//    a one-node job goes, among the nodes of the best link quality, to the one whose expected
//    fragment it decreases most (in the mix's steps), then the first in canonical order (a
//    CPU-only job: the least free CPU first); a fractional request goes to the GPU of that node it
//    leaves least fragmented (among equals the tightest).
// Deterministic: depends only on the index, the plan and the arguments.
#pragma once

#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "base/bitset.h"
#include "sched/cluster_index.h"
#include "sched/placement_scorer.h"
#include "sched/plan.h"
#include "sched/request_shape.h"
#include "sched/workload_mix.h"

namespace muster {

// The thousandths of `gpu` a slice of `shape` takes (more than kMilliPerGpu: it cannot hold it).
int SliceMilli(const Gpu& gpu, const RequestShape& shape);

class Placer {
 public:
  // `scorer`: how one-node jobs choose among nodes (null: PlacementScorerRegistry's default);
  // `mix`: the workload it may place by (null or empty: none).
  Placer(const ClusterIndex& index, Plan& plan, const WorkloadMix* mix = nullptr,
         const PlacementScorer* scorer = nullptr);

  // Places `shape` on nodes from `candidates` (static filter: partition, features, -w/-x). On
  // success the allocation is taken in the plan and returned in canonical node order.
  std::optional<std::vector<NodeAllocation>> Place(const RequestShape& shape, const DynamicBitset& candidates);

  // Units of `shape` node `i` can hold now (0 = not eligible), capped at shape.units.
  int Capacity(int i, const RequestShape& shape) const;

  // For the scorers (a candidate and its context):
  const ClusterIndex& index() const { return index_; }
  const Plan& plan() const { return plan_; }
  const WorkloadMix* mix() const { return mix_; }  // null when none or empty
  // What node i would give `units` of `shape` as things stand (nothing when its GPUs cannot).
  std::optional<NodeAllocation> Build(int i, int units, const RequestShape& shape) const;
  // Best-fit order key among nodes that can take what is asked (smaller is better).
  std::tuple<int, int64_t, int> FitKey(int i, const RequestShape& shape) const;
  // A scorer's buffer (per GPU of a node), reused across candidates.
  std::vector<int>& scratch() const { return gpu_free_; }

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
  // The scorer that ranks `shape`'s candidates: scorer_, or best fit where it does not score it.
  const PlacementScorer& ScorerFor(const RequestShape& shape) const;

  const ClusterIndex& index_;
  Plan& plan_;
  const WorkloadMix* mix_;
  const PlacementScorer* scorer_;
  mutable std::vector<int> gpu_free_;  // the scorers' scratch
  // The slice SingleNode's scorer chose, for Build (valid during one Place).
  mutable int slice_node_ = -1, slice_gpu_ = -1;
};

// Where `shape` would go among `candidates`, with `plan` left as it was (a trial placement).
std::optional<std::vector<NodeAllocation>> TryPlace(const ClusterIndex& index, Plan& plan, const RequestShape& shape,
                                                    const DynamicBitset& candidates);

}  // namespace muster
