// backfill (sched/scheduling_action.h): once a job has a reservation (or, under strict priority,
// its partition is blocked by a waiting job), a job starts now only where it fits around every
// reservation for its whole time limit, so it delays none; else it gets a reservation itself.
#include "sched/cluster_index.h"
#include "sched/plan.h"
#include "sched/scheduler.h"
#include "sched/scheduler_internal.h"
#include "sched/scheduling_action.h"

namespace muster {

namespace {

using scheduler_internal::End;
using scheduler_internal::Pending;
using scheduler_internal::WithOwner;

class BackfillAction final : public SchedulingAction {
 public:
  const char* name() const override { return "backfill"; }
  std::optional<Decision> Execute(PassContext& ctx, const JobStep& step) const override {
    const SchedulerOptions& options = ctx.options();
    if (!ctx.timeline() || !(ctx.reservations() > 0 || (options.strict_priority && ctx.Blocked(step.part)))) {
      return std::nullopt;
    }
    const PendingJob& job = step.job;
    const std::string& partition = step.part->name;
    const int64_t now = ctx.now();
    // Preemption does not depend on backfill's depth: a job that does not fit what is free may
    // preempt as it would without backfill. (What does not fit now fits in no window from now: a
    // window holds at least what is held now. The cheap test first, and once per shape.)
    const bool preemptive = ctx.preemptive();
    bool fits_now = true;
    if (preemptive) {
      fits_now = ctx.FitsNow(step);
      if (!fits_now) {
        if (std::optional<Decision> p = ctx.Preempt(step)) return p;
      }
    }
    if (ctx.backfill_tested() >= options.backfill_depth) return Pending(job.id, PendingReason::kPriority);
    ++ctx.backfill_tested();
    if (ctx.Unreserved(partition) && End(now, step.limit) > now + options.backfill_horizon_s) {
      return Pending(job.id, PendingReason::kPriority);
    }
    if (!preemptive) fits_now = ctx.FitsNow(step);
    if (!fits_now) return ctx.Reserve(Pending(job.id, PendingReason::kResources), step, partition);
    std::optional<std::vector<NodeAllocation>> alloc = ctx.PlaceDuring(step, now);
    // Only a reservation is in its way: Priority, as Slurm says.
    if (!alloc) return ctx.Reserve(Pending(job.id, PendingReason::kPriority), step, partition);
    // What is free throughout the window is free now (the timeline holds at least what the plan
    // does): the plan takes it as well. Checked all the same: a snapshot the two read differently
    // must cost a start, never the controller.
    Plan& plan = ctx.plan();
    const ClusterIndex& index = ctx.index();
    for (const NodeAllocation& a : *alloc) {
      if (!plan.Fits(index.Find(a.node), a)) return Pending(job.id, PendingReason::kPriority);
    }
    if (ctx.gate()) {
      const JobUse held = WithOwner(UseOf(*alloc), job.account, job.user, job.qos);
      if (PendingReason r = ctx.gate()->Check(held, step.limit); r != PendingReason::kNone) return Pending(job.id, r);
    }
    if (!ctx.Claimable(*alloc)) return Pending(job.id, PendingReason::kPriority);
    for (const NodeAllocation& a : *alloc) plan.Take(index.Find(a.node), a);
    return ctx.Start(step, std::move(*alloc));
  }
};

}  // namespace

std::unique_ptr<const SchedulingAction> NewBackfillAction() { return std::make_unique<BackfillAction>(); }

}  // namespace muster
