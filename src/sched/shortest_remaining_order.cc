// shortest-remaining: by time limit minus the time run so far, shortest first: SRTF when the
// limits are the exact durations (an oracle, for bounds); with preemption by priority, a job with
// less left preempts running jobs with more. A job without a limit goes after every limit.
#include <algorithm>

#include "model/limits.h"
#include "sched/job_order.h"

namespace muster {
namespace {

class ShortestRemainingOrder final : public JobOrderPolicy {
 public:
  std::string_view name() const override { return "shortest-remaining"; }
  std::string priority_type() const override { return "muster/shortest-remaining"; }
  bool ranks_by_multifactor() const override { return false; }
  int64_t Rank(const PrioritySettings&, const OrderedJob& job, int64_t* same_below_run_s) const override {
    if (same_below_run_s != nullptr) *same_below_run_s = job.run_s + 1;  // what is left moves every second
    if (job.time_limit_s == kUnlimited) return -(int64_t{1} << 50);
    return -std::max<int64_t>(0, job.time_limit_s - job.run_s);
  }
};

}  // namespace

std::unique_ptr<const JobOrderPolicy> NewShortestRemainingOrder() {
  return std::make_unique<ShortestRemainingOrder>();
}

}  // namespace muster
