// allocate (sched/scheduling_action.h): gang, topology- and link-aware placement on what is free
// (sched/placer.h), all or nothing, and the start. When the placement is refused after all (what
// it really holds breaks a limit, or a preemptor has claimed part of it) the Statement gives
// everything back. When nothing fits, the job's shape is marked for the cycle, its partition
// blocked, and the stages after (preempt, reserve) go on.
#include "sched/scheduler.h"
#include "sched/scheduler_internal.h"
#include "sched/scheduling_action.h"

namespace muster {

namespace {

using scheduler_internal::Pending;
using scheduler_internal::WithOwner;

class AllocateAction final : public SchedulingAction {
 public:
  const char* name() const override { return "allocate"; }
  std::optional<Decision> Execute(PassContext& ctx, const JobStep& step) const override {
    const PendingJob& job = step.job;
    std::optional<std::vector<NodeAllocation>> alloc;
    Statement statement = ctx.Checkpoint();
    if (!ctx.Failed(step.key)) alloc = ctx.Place(step);
    if (!alloc) {
      ctx.Fail(step.key);
      ctx.Block(step.part);
      return std::nullopt;
    }
    // The estimate passed; what the placement really holds (memory, CPUs per GPU) is checked too.
    if (ctx.gate()) {
      const JobUse held = WithOwner(UseOf(*alloc), job.account, job.user, job.qos);
      if (PendingReason r = ctx.gate()->Check(held, step.limit); r != PendingReason::kNone) {
        statement.Rollback();
        return Pending(job.id, r);
      }
    }
    // Free now, but claimed by a preemptor waiting for its victims: not for this job.
    if (!ctx.Claimable(*alloc)) {
      statement.Rollback();
      return Pending(job.id, PendingReason::kPriority);
    }
    return ctx.Start(step, std::move(*alloc));
  }
};

}  // namespace

std::unique_ptr<const SchedulingAction> NewAllocateAction() { return std::make_unique<AllocateAction>(); }

}  // namespace muster
