// admit (sched/scheduling_action.h): the job's partition is up and its limits allow the job,
// and the job fits the nodes up now (else it waits for the ones down or drained).
#include "model/hostlist.h"
#include "sched/cluster_index.h"
#include "sched/scheduler.h"
#include "sched/scheduler_internal.h"
#include "sched/scheduling_action.h"

namespace muster {

namespace {

using scheduler_internal::Pending;

class AdmitAction final : public SchedulingAction {
 public:
  const char* name() const override { return "admit"; }
  std::optional<Decision> Execute(PassContext& ctx, const JobStep& step) const override {
    const JobRequest& req = step.job.request;
    const Partition& part = *step.part;
    const RequestShape& shape = *step.shape;
    const int64_t id = step.job.id;
    if (!part.up) return Pending(id, PendingReason::kPartitionDown);
    if (part.max_time_s != kUnlimited && (req.time_limit_s == kUnlimited || req.time_limit_s > part.max_time_s)) {
      return Pending(id, PendingReason::kPartitionConfig);
    }
    if ((part.max_nodes != kUnlimited && shape.min_nodes > part.max_nodes) ||
        (shape.max_nodes > 0 && shape.max_nodes < part.min_nodes)) {
      return Pending(id, PendingReason::kPartitionNodeLimit);
    }
    if (step.fit != 1) return std::nullopt;
    if (!req.constraint.empty()) return Pending(id, PendingReason::kBadConstraints);
    // As Slurm: "ReqNodeNotAvail, UnavailableNodes:gpu[03-04]".
    std::optional<std::string>& unavailable = *step.unavailable;
    if (!unavailable) {
      const ClusterIndex& index = ctx.index();
      std::vector<std::string> down;
      step.nodes->ForEach([&](int i) {
        if (!index.schedulable().test(i)) down.push_back(index.node(i).node->name);
        return true;
      });
      unavailable = "UnavailableNodes:" + CompressHostlist(down);
    }
    return Pending(id, PendingReason::kReqNodeNotAvail, *unavailable);
  }
};

}  // namespace

std::unique_ptr<const SchedulingAction> NewAdmitAction() { return std::make_unique<AdmitAction>(); }

}  // namespace muster
