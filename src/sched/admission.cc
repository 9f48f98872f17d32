#include "sched/admission.h"

namespace muster {

std::optional<PendingReason> AdmissionReason(const AdmissionFacts& f) {
  if (f.begin_time > f.now) return PendingReason::kBeginTime;
  if (f.dependency == DependencyState::kNever) return PendingReason::kDependencyNeverSatisfied;
  if (f.dependency == DependencyState::kWaiting) return PendingReason::kDependency;
  if (!PassesArrayLimit(f)) return PendingReason::kJobArrayTaskLimit;
  if (f.preemptor_waits) return PendingReason::kPriority;
  return std::nullopt;
}

}  // namespace muster
