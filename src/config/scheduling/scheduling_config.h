// The scheduling sections of muster.yaml, read by the controller (and the tools that run the
// scheduler) only: `scheduler:`, `priority:`, `accounts:`, `queues:`, `qos:` and `preemption:`
// (docs/configuration.md). musterd and the commands read muster.yaml with LoadMusterConfig
// (config/muster_config.h), which accepts these sections without reading them, so neither links
// the scheduler.
//
//   scheduler:
//     backfill: true                    # reservations for waiting jobs, lower jobs fill the holes
//     backfill_depth: 64                # jobs tested (and reserved for) a cycle
//     backfill_horizon: 7-00:00:00      # how far ahead reservations are planned
//     placement: learned                # learned (the workload mix of the jobs submitted) | bestfit
//     check_caches: false               # every pass decided twice, fresh and kept (ControllerConfig)
//   priority: {...}                     # multifactor priority and fair share (priority_config.h)
//   accounts: [...]                     # the account tree fair share divides the cluster along
//   queues, qos, preemption             # policy_config.h
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "config/muster_config.h"
#include "model/qos.h"
#include "sched/preemption.h"
#include "sched/priority_policy.h"
#include "sched/scheduler.h"

namespace muster {

struct SchedulingConfig {
  PrioritySettings priority;  // with the accounts (queues are merged into them)
  std::vector<Qos> qos;
  PreemptionSettings preemption;
  // Backfill (on unless turned off), its depth and horizon, the placement scorer
  // (scheduler.placement); `policy` is built from the accounts, QOS and preemption above.
  SchedulerOptions scheduler = DefaultSchedulerOptions();
  bool check_caches = false;       // scheduler.check_caches
  // Where the cluster file's settings (a slurm.conf's PriorityWeightAge=, ...) gave way to
  // muster.yaml's: reported once at start, with the cluster file's warnings.
  std::vector<std::string> warnings;
  static SchedulerOptions DefaultSchedulerOptions() {
    SchedulerOptions o;
    o.backfill = true;
    return o;
  }
};

// Reads the scheduling sections of `conf`'s file (conf.path, as LoadMusterConfig read it, whose
// directory relative paths such as `queues: FILE` are taken from). Errors name the file, line
// and field. The scheduling keys a slurm.conf sets apply where muster.yaml does not set them
// (config/cluster_settings.h).
StatusOr<SchedulingConfig> LoadSchedulingConfig(const MusterConfig& conf);

}  // namespace muster
