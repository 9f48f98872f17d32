// The fair-share usage as the store keeps it (one row, written at each save):
//   {"charged_through":[[job,t],...],"usage":[{"account":a,"amount":x,"at":t,"user":u},...]}
// keys sorted, numbers as the earlier codec wrote them ("3600.0"), so that usage saved before the
// move to Boost.JSON loads, and a save of the same usage writes the same bytes. The scheduler core
// (sched/) keeps the usage as plain data (PriorityPolicy::Saved) and does no JSON.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "sched/priority_policy.h"

namespace muster {

std::string UsageJson(const PriorityPolicy::Saved& saved);
// InvalidArgument "stored usage is malformed: ..." naming what is wrong.
StatusOr<PriorityPolicy::Saved> ParseUsageJson(std::string_view text);

}  // namespace muster
