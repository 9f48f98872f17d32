// preempt (sched/scheduling_action.h): a job that did not fit names the running jobs to stop for
// it (Scheduler::Preempt, scheduler_preempt.cc: the fewest GPUs, then jobs, youngest first, each
// gang whole, among those the rules allow: QOS, partition tier, priority, and quota reclaim across
// accounts). What they free is claimed for it.
#include "sched/scheduler.h"
#include "sched/scheduling_action.h"

namespace muster {

namespace {

class PreemptAction final : public SchedulingAction {
 public:
  const char* name() const override { return "preempt"; }
  std::optional<Decision> Execute(PassContext& ctx, const JobStep& step) const override { return ctx.Preempt(step); }
};

}  // namespace

std::unique_ptr<const SchedulingAction> NewPreemptAction() { return std::make_unique<PreemptAction>(); }

}  // namespace muster
