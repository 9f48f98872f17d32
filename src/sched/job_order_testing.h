// For the job orders' tests: the order a policy gives a few jobs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "sched/job_order.h"
#include "sched/priority_policy.h"

namespace muster {

// The jobs' ids, highest rank first; equal ranks in the order given (first come, first served,
// as the scheduler breaks ties).
inline std::vector<int> OrderOf(const JobOrderPolicy& order, const PrioritySettings& s,
                                const std::vector<std::pair<int, OrderedJob>>& jobs) {
  std::vector<std::pair<int64_t, int>> ranked;
  for (const auto& [id, job] : jobs) ranked.emplace_back(order.Rank(s, job, nullptr), id);
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<int> ids;
  for (const auto& [rank, id] : ranked) ids.push_back(id);
  return ids;
}

}  // namespace muster
