// least-attained: Tiresias' discretized 2D-LAS, for training clusters where jobs checkpoint and
// may be stopped and requeued (with preemption by priority, a job ranked higher preempts running
// jobs ranked lower). A job's queue is how many of `las_queue_limits_gpu_s` its attained service
// (GPU-seconds run so far, in every run; a job without GPUs counts as one) has reached; lower
// queues first, first come first served within one (the scheduler's tie-break). Needs no durations.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "sched/job_order.h"
#include "sched/priority_policy.h"

namespace muster {
namespace {

class LeastAttainedOrder final : public JobOrderPolicy {
 public:
  std::string_view name() const override { return "least-attained"; }
  std::string priority_type() const override { return "muster/least-attained"; }
  bool ranks_by_multifactor() const override { return false; }
  int64_t Rank(const PrioritySettings& s, const OrderedJob& job, int64_t* same_below_run_s) const override;
};

int64_t LeastAttainedOrder::Rank(const PrioritySettings& s, const OrderedJob& job, int64_t* same_below_run_s) const {
  const int64_t run_s = job.run_s;
  const double per_s = std::max(1.0, job.gpus);
  const double attained = per_s * static_cast<double>(run_s);
  // The queue: how many limits it has reached (ascending; the configuration checks).
  const std::vector<int64_t>& limits = s.las_queue_limits_gpu_s;
  const auto reached = std::upper_bound(limits.begin(), limits.end(), attained,
                                        [](double a, int64_t limit) { return a < static_cast<double>(limit); });
  if (same_below_run_s != nullptr) {
    // The first run_s' at which per_s * run_s' reaches the next limit, found with the same
    // comparison as above (the quotient only starts the search: rounding may be off by one).
    int64_t until = std::numeric_limits<int64_t>::max();
    if (reached != limits.end()) {
      const double next = static_cast<double>(*reached);
      const double guess = std::ceil(next / per_s);
      until = guess >= 9.0e18 ? std::numeric_limits<int64_t>::max()
                              : std::max<int64_t>(run_s + 1, static_cast<int64_t>(guess));
      while (until > run_s + 1 && per_s * static_cast<double>(until - 1) >= next) --until;
      while (until != std::numeric_limits<int64_t>::max() && per_s * static_cast<double>(until) < next) ++until;
    }
    *same_below_run_s = until;
  }
  return static_cast<int64_t>(limits.end() - reached);
}

}  // namespace

std::unique_ptr<const JobOrderPolicy> NewLeastAttainedOrder() { return std::make_unique<LeastAttainedOrder>(); }

}  // namespace muster
