#include "sched/scenario_harness.h"

#include <algorithm>
#include <unordered_map>

namespace muster {

std::vector<std::string> DecisionStrings(const std::vector<Decision>& ds) {
  std::vector<std::string> out;
  for (const Decision& d : ds) out.push_back(d.ToString());
  return out;
}

ClusterSnapshot ShuffleNodes(const ClusterSnapshot& c, std::mt19937_64& rng) {
  std::vector<size_t> perm(c.nodes.size());
  for (size_t i = 0; i < perm.size(); ++i) perm[i] = i;
  std::shuffle(perm.begin(), perm.end(), rng);
  ClusterSnapshot s = c;
  for (size_t i = 0; i < perm.size(); ++i) {
    s.nodes[i] = c.nodes[perm[i]];
    if (!c.usage.empty()) s.usage[i] = c.usage[perm[i]];
  }
  for (Partition& p : s.partitions) std::shuffle(p.nodes.begin(), p.nodes.end(), rng);
  std::shuffle(s.partitions.begin(), s.partitions.end(), rng);
  std::shuffle(s.running.begin(), s.running.end(), rng);
  return s;
}

std::vector<PendingJob> ApplyStarts(ClusterSnapshot& c, const std::vector<PendingJob>& jobs,
                                    const std::vector<Decision>& ds) {
  std::unordered_map<int64_t, const Decision*> by_id;
  for (const Decision& d : ds) by_id[d.job_id] = &d;
  std::vector<PendingJob> rest;
  for (const PendingJob& j : jobs) {
    const Decision* d = by_id.at(j.id);
    if (d->kind == DecisionKind::kStart) {
      ApplyAllocation(c, d->nodes);
    } else if (d->kind == DecisionKind::kPending) {
      rest.push_back(j);
    }
  }
  return rest;
}

}  // namespace muster
