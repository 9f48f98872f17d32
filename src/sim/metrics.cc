#include "sim/metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace muster {

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

StatusOr<QueueMetrics> ComputeQueueMetrics(const std::vector<FinishedJob>& jobs, int64_t capacity_gpus) {
  if (capacity_gpus <= 0) return InvalidArgument("the cluster has no GPUs");
  QueueMetrics m;
  m.jobs = static_cast<int64_t>(jobs.size());
  if (jobs.empty()) return m;
  std::vector<double> jct;
  jct.reserve(jobs.size());
  double queue = 0, slowdown = 0, gpu_seconds = 0;
  int64_t first = std::numeric_limits<int64_t>::max(), last = std::numeric_limits<int64_t>::min();
  std::map<std::string, double> by_vc;
  for (const FinishedJob& j : jobs) {
    const int64_t held = j.run_s >= 0 ? j.run_s : j.end_s - j.start_s;
    if (j.start_s < j.arrival_s || j.end_s < j.start_s || held > j.end_s - j.start_s) {
      return InvalidArgument("job " + std::to_string(j.id) + ": times out of order (arrival " +
                             std::to_string(j.arrival_s) + ", start " + std::to_string(j.start_s) + ", end " +
                             std::to_string(j.end_s) + ", ran " + std::to_string(held) + ")");
    }
    const double run = static_cast<double>(held);
    jct.push_back(static_cast<double>(j.end_s - j.arrival_s));
    queue += jct.back() - run;
    slowdown += jct.back() / std::max(run, 1.0);
    const double used = run * j.gpus;
    gpu_seconds += used;
    by_vc[j.vc] += used;
    first = std::min(first, j.arrival_s);
    last = std::max(last, j.end_s);
  }
  const double n = static_cast<double>(jobs.size());
  double sum = 0;
  for (double x : jct) sum += x;
  m.avg_jct_s = sum / n;
  m.p50_jct_s = Percentile(jct, 0.5);
  m.p99_jct_s = Percentile(jct, 0.99);
  m.avg_queue_s = queue / n;
  m.avg_slowdown = slowdown / n;
  m.makespan_s = last - first;
  m.gpu_utilization = m.makespan_s > 0 ? gpu_seconds / (static_cast<double>(capacity_gpus) * static_cast<double>(m.makespan_s)) : 0;
  for (const auto& [vc, used] : by_vc) m.vc_share[vc] = gpu_seconds > 0 ? used / gpu_seconds : 0;
  return m;
}

}  // namespace muster
