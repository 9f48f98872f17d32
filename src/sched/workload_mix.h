// WorkloadMix: the shapes of the jobs a cluster expects, and how much of a node's idle GPU they
// could not use (its expected fragment).
//
// Fragmentation-aware placement after FGD (Weng et al., "Beware of Fragmentation", ATC'23): a job
// goes where it grows the expected fragment least. The fragment of a node for one shape is its idle
// GPU the shape cannot use:
//  - all of it if the shape cannot run there at all (another GPU type, not the node's, not enough
//    CPU or GPUs, or a CPU-only shape);
//  - else the idle GPU on cards too small for the shape (FGD's measure), plus, where the node's CPU
//    runs out before its GPUs do, the share of the rest that the CPU leaves unreachable (ours: a
//    node with 8 free GPUs and CPU for one 1-GPU job strands 7 of them, which FGD counts as usable).
// The node's fragment is the weighted mean over the shapes.
//
// Placer uses it when given one: among the nodes a one-node job fits, the largest decrease of the
// expected fragment wins, compared in steps of `step_milli` (closer than a step counts as equal),
// then the first node in canonical order. Deterministic.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/bitset.h"
#include "sched/cluster_index.h"

namespace muster {

struct MixShape {
  int64_t cpu_milli = 0;
  int gpu_milli = 0;  // per GPU, in thousandths; 0 = CPU only
  int num_gpu = 0;
  std::string gpu_type;  // "" = any whole GPU
  DynamicBitset nodes;   // the nodes it may run on (canonical index); empty = every node
  double weight = 0;     // its share of the jobs (normalised by WorkloadMix)
};

class WorkloadMix {
 public:
  WorkloadMix() = default;
  explicit WorkloadMix(std::vector<MixShape> shapes, int step_milli = 200);

  bool empty() const { return shapes_.empty(); }
  const std::vector<MixShape>& shapes() const { return shapes_; }
  int step_milli() const { return step_milli_; }

  // Expected fragment of node `i` of `index` (GPU thousandths) with `cpu_left` CPU thousandths and
  // `gpu_free[g]` thousandths free on each of its GPUs. Memoised per node kind and state.
  double Fragment(const ClusterIndex& index, int i, int64_t cpu_left, std::span<const int> gpu_free) const;

 private:
  double Compute(const ClusterIndex& index, int i, int64_t cpu_left, std::span<const int> gpu_free) const;
  int KindOf(const ClusterIndex& index, int i) const;

  std::vector<MixShape> shapes_;
  int step_milli_ = 200;
  // Nodes alike for the mix (same GPU masks per shape, same eligibility) share a kind.
  mutable std::vector<int> kind_of_;  // per canonical node, -1 = not worked out yet
  mutable std::unordered_map<std::string, int> kinds_;
  mutable std::unordered_map<std::string, double> memo_;
  mutable std::string key_;
};

}  // namespace muster
