// ClusterSnapshot: everything one scheduling cycle may look at, as plain values: nodes with their
// capacity and current usage, partitions, the switch tree, and the cycle's time (injected).
// The scheduler never reads anything else. Node order in `nodes` does not matter: the scheduler
// orders nodes canonically (by switch tree position, then by name, numbers compared numerically).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "model/cluster_spec.h"
#include "model/job_request.h"
#include "model/node.h"
#include "model/partition.h"
#include "model/topology.h"
#include "sched/decision.h"

namespace muster {

// A running job as backfill sees it: what it holds and until when at the latest.
struct RunningJob {
  int64_t id = 0;
  int64_t end_time = 0;  // start + time limit; kUnlimited (-1): no limit, held for good
  std::vector<NodeAllocation> allocation;
  // For limits and preemption:
  int64_t start_time = 0;
  std::string user;
  std::string account;
  std::string qos;
  std::string partition;
  int64_t priority = 0;      // as it ranks now (preemption by priority)
  bool terminating = false;  // being stopped (cancelled, timed out, preempted): soon free
  int64_t preempted_by = 0;  // being stopped for this waiting job: what it frees is that job's
  // Suspended by a preemption (mode SUSPEND; `preempted_by` names who suspended it): `allocation`
  // is what it still holds (memory and GPUs, no CPUs; `end_time` kUnlimited: its clock stands
  // still), and `suspended_cpu_milli` the CPUs it takes back when resumed, one per allocation
  // entry. It resumes once that job is gone and the CPUs are free again.
  bool suspended = false;
  std::vector<int64_t> suspended_cpu_milli;
  // Optional, a hint: the position in the snapshot's `nodes` of each allocation entry's node
  // (the controller keeps it with the entry between passes; the name decides).
  std::vector<int> node_pos;
  // Optional, a promise (the controller keeps entries between passes): an entry with the same id
  // and the same nonzero revision as one of an earlier snapshot given to the same Scheduler
  // holds the same allocation, node_pos, start_time, user, account, QOS, partition and
  // suspension as that one; its priority, end_time, terminating and preempted_by may differ.
  // 0 promises nothing.
  uint64_t revision = 0;
  // Optional, a memo filled with the allocation: its totals (what UseOf(allocation) sums), so
  // that a pass need not walk every running job's GPUs again. held_gpu_milli < 0: not filled.
  int64_t held_gpu_milli = -1;
  int64_t held_cpu_milli = 0;
  int64_t held_memory_mb = 0;
};

// The cluster as configured (nodes, partitions, topology: ClusterSpec) at a moment: what is in use
// and by which running jobs.
struct ClusterSnapshot : ClusterSpec {
  ClusterSnapshot() = default;
  explicit ClusterSnapshot(ClusterSpec spec) : ClusterSpec(std::move(spec)) {}

  std::vector<NodeUsage> usage;  // empty, or one per node (same order as `nodes`)
  // Optional, for backfill, limits and preemption: the running jobs behind `usage`, with their
  // ends. Usage no running job accounts for is taken as held for good (and never preempted).
  std::vector<RunningJob> running;
  int64_t now = 0;  // seconds since the epoch of the cycle; the scheduler never reads a clock

  // ClusterSpec::Validate, and the usage within capacity. Errors name the node or partition.
  Status Validate() const;
};

// A job waiting to be scheduled.
// A heterogeneous job's component after the first (its leader is the PendingJob holding it).
struct PendingComponent {
  int64_t id = 0;
  JobRequest request;
  std::string account;
  std::string qos;
  friend bool operator==(const PendingComponent&, const PendingComponent&) = default;
};

struct PendingJob {
  int64_t id = 0;
  JobRequest request;
  int64_t priority = 0;     // higher runs first
  int64_t submit_time = 0;  // ties broken by earlier submission, then lower id
  std::string user;
  std::string account;
  std::string qos;  // "" = "normal"
  // A heterogeneous job (the leader, its first component, is this entry): the other components.
  // All of them start in the same cycle or none does (one gang); RunCycle gives a decision for
  // each, right after the leader's. They do not preempt.
  std::vector<PendingComponent> het;
  // Optional, a promise (the controller keeps entries between passes): an entry with the same id
  // and the same nonzero revision as one of an earlier queue given to the same Scheduler holds
  // the same request, user, account and QOS; its priority and submit time may differ. 0
  // promises nothing.
  uint64_t revision = 0;
};

}  // namespace muster

namespace muster {

struct NodeAllocation;

// Adds a started job's allocation to the snapshot's usage (creating usage entries if empty).
// CHECK-fails on unknown nodes: callers pass allocations the scheduler made for this snapshot.
void ApplyAllocation(ClusterSnapshot& snapshot, const std::vector<NodeAllocation>& allocation);

}  // namespace muster
