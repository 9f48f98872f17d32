#include "sched/gpu_picker.h"

#include <bit>
#include <cstdint>
#include <utility>
#include <vector>

#include "base/check.h"

// Why not copy Slurm. Read in SchedMD/slurm src/plugins/select/cons_tres/gres_select_filter.c
// (commit 027f275c): Slurm has no global "sort GPUs by links"; it scores single GPUs, never sets.
// _set_node_bits and _set_task_bits first take the lowest-index free GPU of each socket that holds
// the job's cores, score every other GPU by its link count to those first picks only, quantize the
// scores to at most 5 levels (0..4), and add GPUs from the best level down, lowest index first. The
// scores are not updated as GPUs are added, so the set is a "star" around the first pick, not the
// set with the most links inside it. _set_sock_bits scores a GPU by its links to all free GPUs (its
// degree), whoever else gets picked. _set_job_bits1 (--gpus per job) finds the best-linked pair,
// then drops the GPUs with the fewest links to one end of that pair: a star again.
// Example: DGX-1 V100, 3 GPUs, cores on socket 0: Slurm seeds GPU 0, adds 3 (NV2 to 0), then 1
// (NV1 to 0, before 2 by index) = {0,1,3} with 4 links, while {0,2,3} has 5 (gpu_picker_test.cc).
// The only function named like that, _sort_gpu_by_links_order (src/plugins/gres/gpu/gres_gpu.c),
// orders gres.conf records by enumeration position (the -1 in Links=), not by link quality.
// We score whole sets instead.

namespace muster {
namespace {

// Exhaustive search when there are at most C(16,8) candidate sets: every node of up to 16 GPUs, and
// also small counts on big nodes (64 choose 2 = 2016). Beyond that, greedy.
constexpr uint64_t kMaxExhaustiveSubsets = 12870;

// GpuPickCache memo bounds: keys are free_mask * 128 + count, exact only while free_mask < 2^57;
// and a layout's memo is dropped when it grows past this many entries (results are recomputable).
constexpr int kMemoMaskBits = 57;
constexpr size_t kMaxMemoEntries = size_t{1} << 16;

uint64_t ValidMask(int n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }

// The free GPUs renumbered 0..m-1 in index order (so lexicographic order is kept), with what every
// candidate set needs precomputed. Lives on the stack: PickGpus allocates nothing.
struct FreeGpus {
  int m = 0;
  int total = 0;             // LinkSum of all free GPUs
  int index[64];             // compact position -> GPU index
  int row[64];               // links from this GPU to all free GPUs
  uint64_t numa_bit[64];     // one bit per distinct NUMA node
  uint8_t link[64][64];      // link counts between free GPUs (compact positions)
};

void Build(const GpuLinkMatrix& links, const std::vector<int>& numa_of_gpu, uint64_t free_mask, FreeGpus* f) {
  int m = 0;
  for (uint64_t rest = free_mask; rest != 0; rest &= rest - 1) f->index[m++] = std::countr_zero(rest);
  f->m = m;
  int numa_ids[64];
  int num_numa = 0;
  int twice_total = 0;
  for (int p = 0; p < m; ++p) {
    int numa = numa_of_gpu.empty() ? 0 : numa_of_gpu[f->index[p]];
    int id = 0;
    while (id < num_numa && numa_ids[id] != numa) ++id;
    if (id == num_numa) numa_ids[num_numa++] = numa;
    f->numa_bit[p] = uint64_t{1} << id;
    int row = 0;
    for (int q = 0; q < m; ++q) {
      uint8_t l = static_cast<uint8_t>(links.links(f->index[p], f->index[q]));
      f->link[p][q] = l;
      row += l;
    }
    f->row[p] = row;
    twice_total += row;
  }
  f->total = twice_total / 2;
}

// The four criteria of gpu_picker.h for one candidate set (a mask over compact positions).
struct Key {
  int in = -1;      // 1. links inside the set (larger wins)
  int numa = 65;    // 2. NUMA nodes spanned (fewer wins)
  int left = -1;    // 3. links among the GPUs that stay free (larger wins)
  uint64_t mask = 0;  // 4. lexicographically smallest index list wins
};

// All candidates have the same size, so the smaller index list is the one holding the lowest GPU
// where the two sets differ.
bool Better(const Key& a, const Key& b) {
  if (a.in != b.in) return a.in > b.in;
  if (a.numa != b.numa) return a.numa < b.numa;
  if (a.left != b.left) return a.left > b.left;
  uint64_t diff = a.mask ^ b.mask;
  return (a.mask & diff & (~diff + 1)) != 0;
}

// Links left among the free GPUs outside the set: total = in + left + cross, and the set's row sums
// count its inside links twice and the cross links once, so left = total + in - rowsum.
int LeftLinks(const FreeGpus& f, int in, int rowsum) { return f.total + in - rowsum; }

Key Evaluate(const FreeGpus& f, uint64_t set) {
  int in = 0;
  int rowsum = 0;
  uint64_t numa = 0;
  for (uint64_t rest = set; rest != 0;) {
    int a = std::countr_zero(rest);
    rest &= rest - 1;
    rowsum += f.row[a];
    numa |= f.numa_bit[a];
    const uint8_t* row = f.link[a];
    for (uint64_t others = rest; others != 0; others &= others - 1) in += row[std::countr_zero(others)];
  }
  return Key{in, std::popcount(numa), LeftLinks(f, in, rowsum), set};
}

// C(m, k) <= limit, without overflow.
bool SubsetsAtMost(int m, int k, uint64_t limit) {
  if (k > m - k) k = m - k;
  uint64_t c = 1;
  for (int i = 1; i <= k; ++i) {
    c = c * static_cast<uint64_t>(m - k + i) / static_cast<uint64_t>(i);  // exact: C(m-k+i, i)
    if (c > limit) return false;
  }
  return true;
}

// Every k-subset of the m free GPUs in increasing mask order (Gosper's hack), best by Better.
uint64_t PickExhaustive(const FreeGpus& f, int k) {
  uint64_t set = (uint64_t{1} << k) - 1;  // k < m <= 64
  const uint64_t last = set << (f.m - k);
  Key best;
  bool have = false;
  while (true) {
    Key key = Evaluate(f, set);
    if (!have || Better(key, best)) {
      best = key;
      have = true;
    }
    if (set == last) break;
    // Next set with the same popcount. No overflow: only `last` has its lowest run of ones at the top.
    uint64_t low = set & (~set + 1);
    uint64_t ripple = set + low;
    set = (((ripple ^ set) >> 2) / low) | ripple;
  }
  return best.mask;
}

// Grows `set` one GPU at a time to k GPUs, each time adding the GPU that adds the most links, ties
// broken by the same criteria 2-4. Returns the grown set's key.
Key GrowFrom(const FreeGpus& f, uint64_t set, int k) {
  int in = 0;
  int rowsum = 0;
  uint64_t numa = 0;
  int gain[64];  // links from each GPU to the set
  for (int c = 0; c < f.m; ++c) gain[c] = 0;
  for (uint64_t rest = set; rest != 0; rest &= rest - 1) {
    int a = std::countr_zero(rest);
    in += gain[a];
    rowsum += f.row[a];
    numa |= f.numa_bit[a];
    for (int c = 0; c < f.m; ++c) gain[c] += f.link[c][a];
  }
  for (int size = std::popcount(set); size < k; ++size) {
    Key step;
    int chosen = -1;
    for (int c = 0; c < f.m; ++c) {
      if ((set >> c) & 1) continue;
      Key key{in + gain[c], std::popcount(numa | f.numa_bit[c]), LeftLinks(f, in + gain[c], rowsum + f.row[c]),
              set | (uint64_t{1} << c)};
      if (chosen < 0 || Better(key, step)) {
        step = key;
        chosen = c;
      }
    }
    set = step.mask;
    in = step.in;
    rowsum += f.row[chosen];
    numa |= f.numa_bit[chosen];
    for (int c = 0; c < f.m; ++c) gain[c] += f.link[c][chosen];
  }
  return Key{in, std::popcount(numa), LeftLinks(f, in, rowsum), set};
}

// Too many sets to try (more than 16 free GPUs and 3 <= k <= m-3). Greedy, deterministic: grow from
// the best pair (ranked by the four criteria), and also from every single free GPU, and keep the
// best grown set by the four criteria. The extra starts cost O(m^2 k) and fix the best-pair seed's
// blind spot: criterion 3 steers it into a partly used island (to keep whole islands free), and then
// it cannot reach a whole free island that has more links (see the 4x8 islands test).
uint64_t PickGreedy(const FreeGpus& f, int k) {
  Key pair;
  bool have = false;
  for (int a = 0; a < f.m; ++a) {
    for (int b = a + 1; b < f.m; ++b) {
      int in = f.link[a][b];
      Key key{in, std::popcount(f.numa_bit[a] | f.numa_bit[b]), LeftLinks(f, in, f.row[a] + f.row[b]),
              (uint64_t{1} << a) | (uint64_t{1} << b)};
      if (!have || Better(key, pair)) {
        pair = key;
        have = true;
      }
    }
  }
  Key best = GrowFrom(f, pair.mask, k);
  for (int s = 0; s < f.m; ++s) {
    Key grown = GrowFrom(f, uint64_t{1} << s, k);
    if (Better(grown, best)) best = grown;
  }
  return best.mask;
}

}  // namespace

uint64_t PickGpus(const GpuLinkMatrix& links, const std::vector<int>& numa_of_gpu, uint64_t free_mask,
                  int count) {
  const int n = links.size();
  MUSTER_CHECK(numa_of_gpu.empty() || static_cast<int>(numa_of_gpu.size()) == n)
      << "NUMA map has " << numa_of_gpu.size() << " entries for " << n << " GPUs";
  free_mask &= ValidMask(n);
  const int m = std::popcount(free_mask);
  if (count <= 0 || count > m) return 0;
  if (count == m) return free_mask;

  FreeGpus f;
  Build(links, numa_of_gpu, free_mask, &f);
  uint64_t compact = SubsetsAtMost(m, count, kMaxExhaustiveSubsets) ? PickExhaustive(f, count)
                                                                     : PickGreedy(f, count);
  uint64_t chosen = 0;
  for (; compact != 0; compact &= compact - 1) chosen |= uint64_t{1} << f.index[std::countr_zero(compact)];
  return chosen;
}

int GpuPickCache::Intern(const GpuLinkMatrix& links, const std::vector<int>& numa_of_gpu) {
  MUSTER_CHECK(numa_of_gpu.empty() || static_cast<int>(numa_of_gpu.size()) == links.size())
      << "NUMA map has " << numa_of_gpu.size() << " entries for " << links.size() << " GPUs";
  // An empty NUMA map means "all on one node"; store it spelled out so both spellings share an id.
  std::vector<int> numa = numa_of_gpu.empty() ? std::vector<int>(links.size(), 0) : numa_of_gpu;
  // Linear: a cluster has a handful of distinct node layouts.
  for (size_t i = 0; i < layouts_.size(); ++i) {
    if (layouts_[i].links == links && layouts_[i].numa == numa) return static_cast<int>(i);
  }
  layouts_.push_back(Layout{links, std::move(numa), {}, std::vector<int>(links.size() + 1, -1)});
  return static_cast<int>(layouts_.size()) - 1;
}

uint64_t GpuPickCache::Pick(int layout_id, uint64_t free_mask, int count) {
  MUSTER_CHECK(layout_id >= 0 && layout_id < static_cast<int>(layouts_.size())) << "unknown layout " << layout_id;
  Layout& layout = layouts_[layout_id];
  free_mask &= ValidMask(layout.links.size());
  if (count <= 0 || count > std::popcount(free_mask)) return 0;
  if ((free_mask >> kMemoMaskBits) != 0) return PickGpus(layout.links, layout.numa, free_mask, count);
  const uint64_t key = free_mask * 128 + static_cast<uint64_t>(count);  // count <= 57 here
  auto it = layout.memo.find(key);
  if (it != layout.memo.end()) return it->second;
  if (layout.memo.size() >= kMaxMemoEntries) layout.memo.clear();
  uint64_t chosen = PickGpus(layout.links, layout.numa, free_mask, count);
  layout.memo.emplace(key, chosen);
  return chosen;
}

int GpuPickCache::LinkSum(int layout_id, uint64_t mask) const {
  MUSTER_CHECK(layout_id >= 0 && layout_id < static_cast<int>(layouts_.size())) << "unknown layout " << layout_id;
  return layouts_[layout_id].links.LinkSum(mask);
}

int GpuPickCache::BestLinkSum(int layout_id, int count) {
  MUSTER_CHECK(layout_id >= 0 && layout_id < static_cast<int>(layouts_.size())) << "unknown layout " << layout_id;
  Layout& layout = layouts_[layout_id];
  if (count <= 0 || count > layout.links.size()) return 0;
  int& best = layout.best_link_sum[count];
  if (best < 0) best = layout.links.LinkSum(Pick(layout_id, ValidMask(layout.links.size()), count));
  return best;
}

}  // namespace muster
