// The kept caches' proof. A Scheduler kept between cycles trusts what it built in earlier ones
// (the index and its GPU-pick memo, the empty cluster's capacity, node filters, shape keys and
// fits, each waiting job's resolved shape by PendingJob::revision, each running job's victim
// entry by RunningJob::revision, the held-resource memos of RunningJob), and the controller keeps
// the cycle's input itself between passes. Check mode runs the same cycle again from nothing: a
// new Scheduler with its own index, on a copy of the snapshot and the queue stripped of every
// hint and promise, and a workload mix made again from its shapes. The two must decide the same;
// where they do not, a cache trusted something stale.
#pragma once

#include <string>
#include <vector>

#include "sched/cluster_snapshot.h"
#include "sched/decision.h"
#include "sched/scheduler.h"

namespace muster {

// The cycle decided from nothing kept (the snapshot and queue are copied, not changed).
std::vector<Decision> FreshCycle(const ClusterSnapshot& snapshot, const std::vector<PendingJob>& queue,
                                 const SchedulerOptions& options);

// "" when `kept` and `fresh` hold the same decisions in the same order; else the first
// difference: "decision 3: kept 42 PENDING Resources, fresh 42 START n1{cpu=1 ...}" (or the counts).
std::string CompareDecisions(const std::vector<Decision>& kept, const std::vector<Decision>& fresh);

}  // namespace muster
