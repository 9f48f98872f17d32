#include "sched/multifactor_priority.h"

#include <algorithm>
#include <cmath>

namespace muster {
namespace {

double Clamp01(double x) { return std::isnan(x) ? 0 : std::clamp(x, 0.0, 1.0); }

int64_t Weighted(int64_t weight, double factor) { return static_cast<int64_t>(std::floor(weight * factor)); }

}  // namespace

PriorityFactors ComputeFactors(const PriorityInputs& in, const PriorityWeights& w, int64_t now) {
  PriorityFactors f;
  if (w.max_age_s > 0) {
    f.age = Clamp01(static_cast<double>(std::max<int64_t>(0, now - in.eligible_time)) / static_cast<double>(w.max_age_s));
  }
  f.fairshare = Clamp01(in.fairshare);
  double size = 0;
  if (in.gpus > 0 && in.cluster_gpus > 0) {
    size = in.gpus / in.cluster_gpus;
  } else if (in.cluster_cpus > 0) {
    size = in.cpus / in.cluster_cpus;
  }
  size = Clamp01(size);
  f.job_size = w.favor_small ? 1 - size : size;
  if (in.max_partition_tier > 0) f.partition = Clamp01(static_cast<double>(in.partition_tier) / in.max_partition_tier);
  if (in.max_qos_priority > 0) f.qos = Clamp01(static_cast<double>(in.qos_priority) / in.max_qos_priority);
  return f;
}

int64_t CombinePriority(const PriorityFactors& f, const PriorityWeights& w, const PriorityInputs& in) {
  int64_t p = in.site + Weighted(w.age, f.age) + Weighted(w.fairshare, f.fairshare) +
              Weighted(w.job_size, f.job_size) + Weighted(w.partition, f.partition) + Weighted(w.qos, f.qos) -
              in.nice;
  return std::max<int64_t>(1, p);
}

}  // namespace muster
