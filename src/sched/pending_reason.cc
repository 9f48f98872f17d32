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
  }
  return "None";
}

}  // namespace muster
