// Link-aware choice of GPUs inside one node. Pure functions plus a memo cache; deterministic.
//
// Among the free GPUs, PickGpus chooses `count` of them by, in order:
//   1. the largest sum of NVLink link counts over all pairs inside the chosen set;
//   2. NUMA locality: the fewest distinct NUMA nodes spanned by the chosen set;
//   3. the largest link sum left among the GPUs that stay free (keeps good sets for later jobs);
//   4. the lowest indices (lexicographically smallest sorted index list).
// Exhaustive over subsets for up to 16 GPUs; greedy beyond (documented in docs/placement.md).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "model/gpu_links.h"

namespace muster {

// Bit i of a mask = GPU index i. Returns the chosen mask, or 0 if `free_mask` has fewer than
// `count` GPUs (or count <= 0). `numa_of_gpu[i]` is GPU i's NUMA node.
uint64_t PickGpus(const GpuLinkMatrix& links, const std::vector<int>& numa_of_gpu, uint64_t free_mask,
                  int count);

// Memoizes PickGpus per GPU layout (links + NUMA map interned to a small id). Not thread-safe.
class GpuPickCache {
 public:
  // Returns the id of this layout (equal layouts share an id).
  int Intern(const GpuLinkMatrix& links, const std::vector<int>& numa_of_gpu);
  uint64_t Pick(int layout_id, uint64_t free_mask, int count);
  // Sum of NVLink link counts over the pairs of `mask` on this layout.
  int LinkSum(int layout_id, uint64_t mask) const;
  // The link sum of the best `count` GPUs of an idle node of this layout: the most it can offer.
  int BestLinkSum(int layout_id, int count);

 private:
  struct Layout {
    GpuLinkMatrix links;
    std::vector<int> numa;
    std::unordered_map<uint64_t, uint64_t> memo;  // key: free_mask * 128 + count
    std::vector<int> best_link_sum;               // by count; -1 = not computed yet
  };
  std::vector<Layout> layouts_;
};

}  // namespace muster
