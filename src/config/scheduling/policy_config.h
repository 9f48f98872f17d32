// The scheduling-policy sections of muster.yaml beyond priority (docs/configuration.md):
//
//   accounts:                        # (also read by priority_config.h: name, parent, shares, users)
//     - name: vision
//       quota: {gpu: 16, cpu: 256, memory: 2T}   # guaranteed; reclaimed from borrowers
//       over_quota_weight: 2                      # share of what quotas leave idle
//       limit: {gpu: 32}                          # hard cap (GrpTRES)
//       max_jobs: 10                              # running jobs per user (MaxJobs)
//       grp_jobs: 100                             # running jobs of the subtree (GrpJobs)
//       qos: [normal, high]                       # QOS its users may use (none: not enforced)
//       max_wall: 3-00:00:00                      # per job (MaxWall)
//       max_gpus_per_user: 8
//   queues: queues.yaml              # or a list: KAI-shaped Queue objects (below), merged in as accounts
//   qos:
//     - {name: high, priority: 100, preempt: [normal], max_gpus_per_user: 16}
//     - {name: normal, priority: 10, preempt_mode: requeue, grace_time: 60, preempt_exempt_time: 10:00}
//   preemption:
//     by_qos: true                   # a QOS's preempt list (Slurm's preempt/qos)
//     by_partition_tier: false       # Slurm's preempt/partition_prio
//     reclaim_quota: true            # a queue within its quota reclaims from borrowers
//     mode: requeue                  # off | cancel | requeue | suspend (a QOS may set its own)
//     grace_time: 30                 # seconds from SIGTERM to SIGKILL (GraceTime)
//     exempt_time: 0                 # minimum runtime before preemption (Slurm time: 10 = 10 min)
//
// A queue (KAI's Queue; one per YAML document in a file, or list items):
//   apiVersion: scheduling.run.ai/v2
//   kind: Queue
//   metadata: {name: team-a}
//   spec:
//     parentQueue: department-1
//     resources:
//       gpu: {quota: 4, overQuotaWeight: 1, limit: 8}    # -1 = unlimited / none
//       cpu: {quota: 64, limit: -1}                     # cores
//       memory: {quota: 262144}                         # MiB
//
// Internal to src/config/scheduling (LoadSchedulingConfig calls it); errors name the file, line
// and field.
#pragma once

#include <vector>

#include "base/status.h"
#include "config/yaml_reader.h"
#include "sched/preemption.h"

namespace muster::config_internal {

// The queue fields of an `accounts:` item: quota, over_quota_weight, limit, max_jobs, grp_jobs,
// max_wall, max_gpus_per_user, qos.
Status ReadAccountQueue(const MapReader& m, Account* out);

// `qos:`, `preemption:` and `queues:` (queues append to `accounts`; `dir` resolves a file name).
Status ReadPolicy(const MapReader& root, const std::string& dir, std::vector<Qos>* qos,
                  PreemptionSettings* preemption, AccountTree* accounts);

}  // namespace muster::config_internal
