// reserve (sched/scheduling_action.h): the last stage; the job waits for resources. With backfill
// it gets a reservation at the earliest time its whole gang fits (Scheduler::Reserve), if any is
// left within the horizon.
#include "sched/scheduler.h"
#include "sched/scheduler_internal.h"
#include "sched/scheduling_action.h"

namespace muster {

namespace {

using scheduler_internal::Pending;

class ReserveAction final : public SchedulingAction {
 public:
  const char* name() const override { return "reserve"; }
  std::optional<Decision> Execute(PassContext& ctx, const JobStep& step) const override {
    return ctx.Reserve(Pending(step.job.id, PendingReason::kResources), step, *step.partition_name);
  }
};

}  // namespace

std::unique_ptr<const SchedulingAction> NewReserveAction() { return std::make_unique<ReserveAction>(); }

}  // namespace muster
