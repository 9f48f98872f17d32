// The `priority:` and `accounts:` sections of muster.yaml (docs/configuration.md):
//
//   priority:
//     weights: {age: 1000, fairshare: 10000, job_size: 0, partition: 1000, qos: 0}
//     max_age: 7-00:00:00          # PriorityMaxAge (Slurm time)
//     favor_small: false           # PriorityFavorSmall
//     decay_half_life: 7-00:00:00  # PriorityDecayHalfLife; 0 = usage never decays
//     calc_period: 5:00            # PriorityCalcPeriod; 0 (the default) = at every tick
//     billing: {gpu: 1.0, cpu: 0.0, mem_gb: 0.0}   # billing units per second of each
//   accounts:
//     - name: research
//       shares: 10                 # Fairshare= among its siblings
//       users: [alice, {name: bob, shares: 2}]
//     - {name: vision, parent: research, shares: 4, users: [carol]}
//
// Internal to src/config/scheduling (LoadSchedulingConfig calls it); errors name the file, line
// and field.
#pragma once

#include <string>

#include "base/status.h"
#include "config/yaml_reader.h"
#include "sched/priority_policy.h"

namespace muster::config_internal {

Status ReadPriority(const MapReader& root, PrioritySettings* out);

}  // namespace muster::config_internal
