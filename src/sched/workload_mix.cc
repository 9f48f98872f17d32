#include "sched/workload_mix.h"

#include <algorithm>
#include <bit>

namespace muster {

namespace {

// Whether shape `s` may run on node `i` (an empty node set: on every node).
bool MayRunOn(const MixShape& s, int i) { return s.nodes.size() == 0 || (i < s.nodes.size() && s.nodes.test(i)); }

}  // namespace

WorkloadMix::WorkloadMix(std::vector<MixShape> shapes, int step_milli)
    : shapes_(std::move(shapes)), step_milli_(std::max(step_milli, 1)) {
  double total = 0;
  for (const MixShape& s : shapes_) total += std::max(s.weight, 0.0);
  for (MixShape& s : shapes_) s.weight = total > 0 ? std::max(s.weight, 0.0) / total : 0;
}

int WorkloadMix::KindOf(const ClusterIndex& index, int i) const {
  if (kind_of_.size() != static_cast<size_t>(index.size())) kind_of_.assign(index.size(), -1);
  if (kind_of_[i] >= 0) return kind_of_[i];
  const IndexedNode& in = index.node(i);
  std::string k;
  auto put = [&](uint64_t v) { k.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(in.whole_mask);
  for (const MixShape& s : shapes_) {
    put(MayRunOn(s, i) ? in.TypeMask(s.gpu_type) : ~uint64_t{0});
  }
  auto [it, added] = kinds_.emplace(std::move(k), static_cast<int>(kinds_.size()));
  kind_of_[i] = it->second;
  return it->second;
}

double WorkloadMix::Compute(const ClusterIndex& index, int i, int64_t cpu_left, std::span<const int> gpu_free) const {
  const IndexedNode& in = index.node(i);
  int64_t idle = 0;
  for (uint64_t m = in.whole_mask; m; m &= m - 1) {
    const int g = std::countr_zero(m);
    if (static_cast<size_t>(g) < gpu_free.size()) idle += gpu_free[g];
  }
  double total = 0;
  for (const MixShape& s : shapes_) {
    double frag = static_cast<double>(idle);
    if (s.gpu_milli > 0 && s.num_gpu > 0 && MayRunOn(s, i) && cpu_left >= s.cpu_milli) {
      const uint64_t mask = in.TypeMask(s.gpu_type) & in.whole_mask;
      int usable = 0;        // GPUs with room for the shape
      int64_t room = 0;      // their free thousandths
      int64_t by_gpu = 0;    // how many of the shape their room holds
      for (uint64_t m = mask; m; m &= m - 1) {
        const int g = std::countr_zero(m);
        if (static_cast<size_t>(g) >= gpu_free.size() || gpu_free[g] < s.gpu_milli) continue;
        ++usable;
        room += gpu_free[g];
        if (s.num_gpu == 1) by_gpu += gpu_free[g] / s.gpu_milli;
      }
      if (s.num_gpu > 1) by_gpu = usable / s.num_gpu;
      if (usable >= s.num_gpu) {
        frag = static_cast<double>(idle - room);
        // Where CPU runs out first, the room its jobs cannot reach is stranded too.
        const int64_t by_cpu = s.cpu_milli > 0 ? cpu_left / s.cpu_milli : by_gpu;
        if (by_cpu < by_gpu) {
          frag += static_cast<double>(room) * (1.0 - static_cast<double>(by_cpu) / static_cast<double>(by_gpu));
        }
      }
    }
    total += s.weight * frag;
  }
  return total;
}

double WorkloadMix::Fragment(const ClusterIndex& index, int i, int64_t cpu_left, std::span<const int> gpu_free) const {
  if (shapes_.empty()) return 0;
  // The fragment depends on the node's kind, its CPU left and the multiset of its GPUs' free
  // thousandths only when every GPU is alike for every shape; otherwise on their order too.
  const int kind = KindOf(index, i);
  key_.clear();
  auto put = [&](int64_t v) { key_.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(kind);
  put(cpu_left);
  for (int f : gpu_free) put(f);
  auto it = memo_.find(key_);
  if (it != memo_.end()) return it->second;
  const double f = Compute(index, i, cpu_left, gpu_free);
  if (memo_.size() > (1u << 20)) memo_.clear();  // bounded: a long run's states are many
  memo_.emplace(key_, f);
  return f;
}

}  // namespace muster
