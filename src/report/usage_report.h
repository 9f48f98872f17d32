// sreport's figures, computed from the job and node records over a period (Slurm computes them in
// slurmdbd's hourly rollup, as_mysql_rollup.c; Muster from the records the controller keeps, when
// asked). Pure: the records, the period and the time now in, the figures out.
//
// Per TRES (cpu, gres/gpu), hour by hour from the period's start (the last hour cut at `end` and at
// `now`: nothing after `now` is counted, as Slurm's rollup has not reached it; nor anything before
// `since`, when the cluster's records begin, as Slurm counts no hour before its cluster registered):
//   Allocated   each job's run inside the hour x its allocated CPUs (GPUs); the CPUs of a suspended
//               job are not held (its GPUs are), as sacct's CPUTime leaves suspensions out;
//   Down        nodes that are DOWN, or drained with no job on them, now: from when that was set
//               (the node's reason time) to now; a node's earlier down spells are not recorded,
//               nor those of a node whose reason time is unknown;
//   PLND Down   nodes in the FUTURE state, the same way;
//   Planned     CPU only: eligible pending jobs' requested CPUs x their wait inside the hour,
//               no more than what is neither allocated nor down (the rest is Over Comm.);
//   Idle        the rest; Reported is their sum, count x the hour's measured seconds.
// Allocated, Down and PLND Down are capped at the hour's capacity as Slurm's rollup caps them.
// Per (user, account): the allocated seconds of the user's jobs charged to the account.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "model/job_record.h"

namespace muster {

// One TRES of the cluster over the period; seconds of TRES (CPU-seconds, GPU-seconds).
struct ClusterTresUsage {
  std::string tres;  // "cpu", "gres/gpu"
  int64_t count = 0;  // the nodes' CPUs (GPUs)
  int64_t alloc_s = 0, down_s = 0, pdown_s = 0, idle_s = 0, plan_s = 0, over_s = 0;
  int64_t reported_s() const { return alloc_s + down_s + pdown_s + idle_s + plan_s; }
  friend bool operator==(const ClusterTresUsage&, const ClusterTresUsage&) = default;
};

struct AssocUsage {
  std::string user;
  std::string account;  // "" = the root
  int64_t cpu_s = 0;
  int64_t gpu_s = 0;
  friend bool operator==(const AssocUsage&, const AssocUsage&) = default;
};

struct UsageReport {
  int64_t start = 0, end = 0;
  int64_t measured_start = 0;  // max(start, since): the figures begin here
  int64_t measured_end = 0;    // min(end, now): and stop here
  ClusterTresUsage cpu{"cpu"};
  ClusterTresUsage gpu{"gres/gpu"};
  std::vector<AssocUsage> assocs;  // sorted by (account, user); only those with usage
};

// The seconds of [a, b) inside [lo, hi) (0 when none).
int64_t Overlap(int64_t a, int64_t b, int64_t lo, int64_t hi);

UsageReport ComputeUsage(std::span<const JobRecord> jobs, std::span<const NodeRecord> nodes, int64_t start,
                         int64_t end, int64_t now, int64_t since = 0);

}  // namespace muster
