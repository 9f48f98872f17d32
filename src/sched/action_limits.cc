// limits (sched/scheduling_action.h): a job over an account or QOS limit waits with Slurm's
// reason and holds back nobody (as Slurm). An account's GPU limit counts its whole subtree: a
// sub-account within its quota may reclaim from a sibling over its own, which makes room under
// the limit too.
#include "sched/scheduler.h"
#include "sched/scheduler_internal.h"
#include "sched/scheduling_action.h"

namespace muster {

namespace {

using scheduler_internal::Pending;

class LimitsAction final : public SchedulingAction {
 public:
  const char* name() const override { return "limits"; }
  std::optional<Decision> Execute(PassContext& ctx, const JobStep& step) const override {
    if (!ctx.gate()) return std::nullopt;
    const PendingJob& job = step.job;
    // (The estimate's owner is the job's: Preempt adds it.)
    const PendingReason r = ctx.gate()->CheckAs(*step.use, job.account, job.user, job.qos, step.limit);
    if (r == PendingReason::kNone) return std::nullopt;
    if (r == PendingReason::kAssocGrpGRES) {
      if (std::optional<Decision> p = ctx.Preempt(step, /*need_limits=*/true)) return p;
    }
    return Pending(job.id, r);
  }
};

}  // namespace

std::unique_ptr<const SchedulingAction> NewLimitsAction() { return std::make_unique<LimitsAction>(); }

}  // namespace muster
