#include "sched/mix_learner.h"

#include <algorithm>
#include <cmath>

namespace muster {

namespace {

constexpr size_t kMaxKeys = 4096;  // a long-lived controller sees many shapes: the lightest go

int64_t WholeCpus(int64_t cpu_milli) { return (cpu_milli + 999) / 1000 * 1000; }

}  // namespace

MixLearner::MixLearner(double half_life_jobs, int max_gpus_per_node)
    : growth_(std::exp2(1.0 / std::max(half_life_jobs, 1.0))), max_gpus_per_node_(std::max(max_gpus_per_node, 1)) {}

void MixLearner::Observe(const RequestShape& s) {
  if (s.gpu_memory_mb > 0 && s.gpu_milli <= 0) return;
  ++observed_;
  const int min_nodes = std::max(s.min_nodes, 1);
  if (s.gpu_milli > 0) {  // one shared slice per node
    const int64_t cpu = s.per_node.cpu_milli + s.unit.cpu_milli * s.units / min_nodes;
    Add(Key{WholeCpus(cpu), s.gpu_milli, 1, s.gpu_type}, min_nodes);
    return;
  }
  const int64_t gpus = int64_t{s.per_node.gpus} * min_nodes + int64_t{s.unit.gpus} * s.units;
  const int64_t cpu = s.per_node.cpu_milli * min_nodes + s.unit.cpu_milli * s.units;
  const int64_t nodes = std::max<int64_t>(min_nodes, (gpus + max_gpus_per_node_ - 1) / max_gpus_per_node_);
  const int per_node_gpus = static_cast<int>((gpus + nodes - 1) / nodes);
  Add(Key{WholeCpus(cpu / nodes), per_node_gpus > 0 ? 1000 : 0, per_node_gpus, s.gpu_type}, static_cast<double>(nodes));
}

void MixLearner::Add(const Key& key, double slices) {
  weights_[key] += next_ * slices;
  next_ *= growth_;
  if (next_ > 1e12) {  // rescale before the weights lose precision
    for (auto& [k, w] : weights_) w /= next_;
    next_ = 1;
  }
  if (weights_.size() > kMaxKeys) {
    std::vector<std::pair<double, Key>> by_weight;
    for (const auto& [k, w] : weights_) by_weight.emplace_back(w, k);
    std::sort(by_weight.begin(), by_weight.end());
    for (size_t i = 0; i < by_weight.size() / 2; ++i) weights_.erase(by_weight[i].second);
  }
}

std::vector<MixShape> MixLearner::Shapes(double cover, size_t max_shapes) const {
  std::vector<std::pair<double, const Key*>> order;
  double total = 0;
  for (const auto& [k, w] : weights_) {
    order.emplace_back(w, &k);
    total += w;
  }
  // Heaviest first; among equals the smaller key (deterministic).
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : *a.second < *b.second;
  });
  std::vector<MixShape> out;
  double covered = 0;
  for (const auto& [w, k] : order) {
    if (out.size() >= max_shapes || (cover < 1 && covered >= cover * total)) break;
    MixShape m;
    m.cpu_milli = std::get<0>(*k);
    m.gpu_milli = std::get<1>(*k);
    m.num_gpu = std::get<2>(*k);
    m.gpu_type = std::get<3>(*k);
    m.weight = w;
    out.push_back(std::move(m));
    covered += w;
  }
  return out;
}

}  // namespace muster
