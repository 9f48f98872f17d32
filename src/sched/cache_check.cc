#include "sched/cache_check.h"

#include <memory>

#include "sched/workload_mix.h"

namespace muster {

std::vector<Decision> FreshCycle(const ClusterSnapshot& snapshot, const std::vector<PendingJob>& queue,
                                 const SchedulerOptions& options) {
  ClusterSnapshot bare = snapshot;
  for (RunningJob& r : bare.running) {
    r.revision = 0;
    r.node_pos.clear();
    r.held_gpu_milli = -1;
    r.held_cpu_milli = 0;
    r.held_memory_mb = 0;
  }
  std::vector<PendingJob> jobs = queue;
  for (PendingJob& j : jobs) j.revision = 0;
  SchedulerOptions fresh = options;
  if (options.mix != nullptr) fresh.mix = std::make_shared<const WorkloadMix>(options.mix->shapes(), options.mix->step_milli());
  Scheduler scheduler(bare, fresh);
  return scheduler.RunCycle(jobs);
}

std::string CompareDecisions(const std::vector<Decision>& kept, const std::vector<Decision>& fresh) {
  if (kept.size() != fresh.size()) {
    return std::to_string(kept.size()) + " decisions kept, " + std::to_string(fresh.size()) + " fresh";
  }
  for (size_t i = 0; i < kept.size(); ++i) {
    if (kept[i] == fresh[i]) continue;
    return "decision " + std::to_string(i) + ": kept " + kept[i].ToString() + ", fresh " + fresh[i].ToString();
  }
  return "";
}

}  // namespace muster
