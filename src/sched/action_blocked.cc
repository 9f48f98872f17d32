// blocked (sched/scheduling_action.h): under strict priority, once a job of a partition waits for
// resources, the lower jobs of that partition wait too (Priority). One that does not fit what is
// free may still preempt for itself (what its victims free is claimed for it, so the jobs before
// it are no worse off); one that fits simply waits its turn.
#include "sched/scheduler.h"
#include "sched/scheduler_internal.h"
#include "sched/scheduling_action.h"

namespace muster {

namespace {

using scheduler_internal::Pending;

class BlockedAction final : public SchedulingAction {
 public:
  const char* name() const override { return "blocked"; }
  std::optional<Decision> Execute(PassContext& ctx, const JobStep& step) const override {
    if (!ctx.options().strict_priority || !ctx.Blocked(step.part)) return std::nullopt;
    if (ctx.preemptive() && !ctx.FitsNow(step)) {
      if (std::optional<Decision> p = ctx.Preempt(step)) return p;
    }
    return Pending(step.job.id, PendingReason::kPriority);
  }
};

}  // namespace

std::unique_ptr<const SchedulingAction> NewBlockedAction() { return std::make_unique<BlockedAction>(); }

}  // namespace muster
