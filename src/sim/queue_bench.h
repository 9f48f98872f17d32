// The queueing benchmark on the Philly trace: the cluster it runs on, the
// policies it compares, and how each is set up on the real controller (sim/replay.h).
//
//   fifo           strict first come first served: the first job that does not fit blocks the rest
//   fifo_backfill  the same with backfill; each job asks for its duration times an over-estimate
//                  factor as its time limit (users never know durations exactly)
//   sjf_oracle     shortest job first, knowing the exact durations (a bound); work-conserving: a
//                  job that does not fit lets the next try
//   srtf_oracle    shortest remaining time first with preemption, knowing the exact durations (a
//                  bound): a job with less left to run stops one with more
//   muster         Muster's policy for training clusters, knowing no durations: least attained
//                  service first (Tiresias' discretized 2D-LAS: queues by GPU-seconds received)
//                  with preemption by priority, so new and short jobs overtake long ones
// Preempted jobs are requeued and resume where they stopped (jobs checkpoint); the simulated
// agents charge `restart_penalty_s` of lost work per preemption. Time limits are whole minutes,
// as Slurm keeps them: the oracles know durations to the minute.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "sched/cluster_snapshot.h"
#include "sim/replay.h"
#include "sim/trace.h"

namespace muster {

enum class QueuePolicy { kFifo, kFifoBackfill, kSjfOracle, kSrtfOracle, kMuster };

const std::vector<QueuePolicy>& AllQueuePolicies();
const char* QueuePolicyKey(QueuePolicy p);  // "fifo", "fifo_backfill", "sjf_oracle", "srtf_oracle", "muster"
StatusOr<QueuePolicy> ParseQueuePolicy(const std::string& key);

struct QueueCluster {
  int nodes = 60;          // 480 GPUs: the full Philly trace offers a load of about 0.78
  int gpus_per_node = 8;
  int nodes_per_leaf = 6;  // leaf switches
};

// `nodes` nodes of `gpus_per_node` GPUs (64 CPUs, 512 GiB), named p001..., under leaf switches of
// `nodes_per_leaf`, in one partition "philly".
ClusterSnapshot QueueBenchCluster(const QueueCluster& c);

// The offered load of `jobs` on `gpus` GPUs: GPU-seconds asked / (GPUs x arrival span).
double OfferedLoad(const std::vector<PhillyJob>& jobs, int64_t gpus);

// The trace as `policy` submits it: durations as the work, the VC as the account, and the time
// limit the policy's users would ask for (`overestimate` x duration for fifo_backfill, rounded up
// to a minute; the exact duration for the oracles; none otherwise).
std::vector<ReplayJob> QueueJobs(const std::vector<PhillyJob>& trace, QueuePolicy policy, double overestimate);

// A CPU cluster for SWF logs: `nodes` nodes of `cpus_per_node` CPUs (no GPUs), named n001...,
// in one partition "swf". Memory is not what such logs count: 4 GiB a CPU.
ClusterSnapshot CpuBenchCluster(int nodes, int cpus_per_node);

// The offered load of an SWF log on `cpus` CPUs: CPU-seconds run / (CPUs x arrival span).
double SwfOfferedLoad(const std::vector<SwfJob>& jobs, int64_t cpus);

// An SWF log as `policy` submits it: each job's processors as tasks of one CPU, its run time as
// the work, its queue as the account, and as its time limit what its user asked for
// (fifo_backfill; the run time where the log has no request), the exact run time (the oracles)
// or none. Arrivals count from `epoch`. Jobs that never ran (run time or processors unknown or
// 0, as cancelled ones) and jobs larger than `max_cpus` are left out, counted in `*skipped`.
std::vector<ReplayJob> SwfQueueJobs(const std::vector<SwfJob>& trace, QueuePolicy policy, int64_t max_cpus,
                                    int64_t epoch, int64_t* skipped);

// The controller's settings for `policy` on `cluster`.
ReplayOptions QueueOptions(QueuePolicy policy, const ClusterSnapshot& cluster);

}  // namespace muster
