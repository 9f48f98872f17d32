// multifactor: Slurm's priority/multifactor. A job's rank is its multifactor priority
// (sched/multifactor_priority.h: age, fair share, job size, partition, QOS, nice), which the
// controller recomputes every PriorityCalcPeriod; a running job keeps the priority it started with.
#include "sched/job_order.h"

namespace muster {
namespace {

class MultifactorOrder final : public JobOrderPolicy {
 public:
  std::string_view name() const override { return "multifactor"; }
  std::string priority_type() const override { return "priority/multifactor"; }
  bool ranks_by_multifactor() const override { return true; }
  int64_t Rank(const PrioritySettings&, const OrderedJob& job, int64_t* same_below_run_s) const override {
    // The priority moves with what the job does not show here (age, fair share): no run second
    // tells when it changes.
    if (same_below_run_s != nullptr) *same_below_run_s = job.run_s;
    return job.priority;
  }
};

}  // namespace

std::unique_ptr<const JobOrderPolicy> NewMultifactorOrder() { return std::make_unique<MultifactorOrder>(); }

}  // namespace muster
