#include "ctld/scheduling_pass.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "base/log.h"
#include "sched/cache_check.h"

namespace muster {

void SchedulingPass::DropIndex() {
  scheduler_.reset();  // before the index it refers to
  index_.reset();
  snapshot.running.clear();
}

bool SchedulingPass::MixDue(int64_t seen) {
  const int64_t every = std::clamp<int64_t>(mix_at_ / 10, 1, 1000);
  if (index_ && mix_ && seen - mix_at_ < every) return false;
  mix_at_ = seen;
  return true;
}

std::vector<Decision> SchedulingPass::Run(Input& in, bool check) {
  if (!index_) index_ = std::make_unique<ClusterIndex>(snapshot);  // its scheduler went with it
  if (in.remake_mix) mix_ = std::make_shared<const WorkloadMix>(std::move(in.mix_shapes));
  in.options.mix = mix_;
  // The scheduler too is kept with the index: its empty-cluster capacity and its buffers.
  if (!scheduler_) {
    scheduler_ = std::make_unique<Scheduler>(snapshot, *index_, in.options);
  } else {
    scheduler_->Reload(in.options);
  }
  std::vector<Decision> decisions = scheduler_->RunCycle(pending);
  if (check) {
    ++cache_check_.passes;
    const std::string diff = CompareDecisions(decisions, FreshCycle(in.fresh_snapshot, in.fresh_pending, in.options));
    if (!diff.empty()) {
      if (cache_check_.differences++ == 0) cache_check_.first = diff;
      LogError("scheduler cache check: the kept pass and a fresh one differ: " + diff);
    }
  }
  return decisions;
}

SchedulingPass::Backfilled SchedulingPass::CountBackfilled(const std::vector<Decision>& decisions,
                                                           const std::vector<JobRecord>& started) const {
  Backfilled b;
  std::unordered_set<int64_t> started_ids;
  for (const JobRecord& j : started) started_ids.insert(j.id);
  std::unordered_map<int64_t, const PendingJob*> by_id;
  for (const PendingJob& p : pending) by_id.emplace(p.id, &p);
  std::unordered_set<std::string> reserved;  // partitions (as asked) with a reservation so far
  for (const Decision& d : decisions) {
    const auto it = by_id.find(d.job_id);
    if (it == by_id.end()) continue;  // a heterogeneous job's further components: with their leader
    const std::string& partition = it->second->request.partition;
    if (d.kind == DecisionKind::kPending && d.start_time > 0) {
      reserved.insert(partition);
    } else if (d.kind == DecisionKind::kStart && started_ids.count(d.job_id) && reserved.count(partition)) {
      ++b.jobs;
      b.het_components += it->second->het.size();
    }
  }
  return b;
}

SchedulingPass::CacheCheck SchedulingPass::cache_check() const {
  MutexLock lock(mu);
  return cache_check_;
}

}  // namespace muster
