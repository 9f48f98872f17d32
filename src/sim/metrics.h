// Scheduling-quality metrics of a replayed trace: job completion
// time (JCT = end - arrival), queueing delay (JCT - run time: the time it waited, before its first
// start and, when preempted, between runs), slowdown (JCT / run time), makespan (last end - first
// arrival), GPU utilization over the makespan and each virtual cluster's share of the GPU time.
// Percentiles interpolate linearly between ranks (numpy's default). Pure.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"

namespace muster {

struct FinishedJob {
  int64_t id = 0;
  int64_t arrival_s = 0, start_s = 0, end_s = 0;
  int gpus = 0;
  std::string vc;
  int64_t run_s = -1;  // the seconds it ran, in all its runs; -1: end - start (one run)
};

struct QueueMetrics {
  int64_t jobs = 0;
  double avg_jct_s = 0, p50_jct_s = 0, p99_jct_s = 0;
  double avg_queue_s = 0;
  double avg_slowdown = 0;
  int64_t makespan_s = 0;
  double gpu_utilization = 0;              // GPU-seconds used / (capacity x makespan), in [0, 1]
  std::map<std::string, double> vc_share;  // each VC's fraction of the GPU-seconds used
};

// The `q`-quantile (0..1) of `v` with linear interpolation between ranks; 0 for an empty `v`.
double Percentile(std::vector<double> v, double q);

// Errors name the first job whose times are out of order (start before arrival, end before
// start). `capacity_gpus` must be positive.
StatusOr<QueueMetrics> ComputeQueueMetrics(const std::vector<FinishedJob>& jobs, int64_t capacity_gpus);

}  // namespace muster
