#include "sched/pending_reason.h"

namespace muster {

const char* PendingReasonName(PendingReason r) {
  switch (r) {
    case PendingReason::kNone: return "None";
    case PendingReason::kPriority: return "Priority";
    case PendingReason::kResources: return "Resources";
    case PendingReason::kPartitionNodeLimit: return "PartitionNodeLimit";
    case PendingReason::kPartitionConfig: return "PartitionConfig";
    case PendingReason::kPartitionDown: return "PartitionDown";
    case PendingReason::kReqNodeNotAvail: return "ReqNodeNotAvail";
    case PendingReason::kBadConstraints: return "BadConstraints";
    case PendingReason::kAssocGrpGRES: return "AssocGrpGRES";
    case PendingReason::kAssocGrpCpuLimit: return "AssocGrpCpuLimit";
    case PendingReason::kAssocGrpMemLimit: return "AssocGrpMemLimit";
    case PendingReason::kAssocMaxJobsLimit: return "AssocMaxJobsLimit";
    case PendingReason::kAssocGrpJobsLimit: return "AssocGrpJobsLimit";
    case PendingReason::kAssocMaxWallDurationPerJobLimit: return "AssocMaxWallDurationPerJobLimit";
    case PendingReason::kQOSMaxGRESPerUser: return "QOSMaxGRESPerUser";
    case PendingReason::kQOSMaxGRESPerJob: return "QOSMaxGRESPerJob";
    case PendingReason::kQOSMaxJobsPerUserLimit: return "QOSMaxJobsPerUserLimit";
    case PendingReason::kQOSMaxWallDurationPerJobLimit: return "QOSMaxWallDurationPerJobLimit";
    case PendingReason::kQOSGrpGRES: return "QOSGrpGRES";
    case PendingReason::kBeginTime: return "BeginTime";
    case PendingReason::kDependency: return "Dependency";
    case PendingReason::kDependencyNeverSatisfied: return "DependencyNeverSatisfied";
    case PendingReason::kJobArrayTaskLimit: return "JobArrayTaskLimit";
    case PendingReason::kJobHeldUser: return "JobHeldUser";
    case PendingReason::kJobHeldAdmin: return "JobHeldAdmin";
    case PendingReason::kLaunchFailedRequeuedHeld: return "launch failed requeued held";
  }
  return "None";
}

}  // namespace muster
