// Admission: whether a waiting job is offered to this pass's scheduler, or why it waits before
// any placement is tried, with Slurm's reasons. The checks, in order:
//   1. --begin in the future: BeginTime;
//   2. --dependency not satisfied: Dependency, or DependencyNeverSatisfied when it cannot be;
//   3. an array's '%' limit reached by its running tasks: JobArrayTaskLimit;
//   4. preempted for a job that still waits (and does not itself wait so): Priority, so that the
//      two do not take turns preempting each other within one second.
// Pure: what it needs of other jobs (the dependency's state, the array's running tasks, the
// preemptor's wait) comes in the facts; the controller gathers them.
#pragma once

#include <cstdint>
#include <optional>

#include "model/dependency.h"
#include "sched/pending_reason.h"

namespace muster {

struct AdmissionFacts {
  int64_t now = 0;
  int64_t begin_time = 0;  // 0: none
  std::optional<DependencyState> dependency;  // none: no dependency (or not evaluated: begin first)
  int array_max_running = 0;  // the array's '%' limit, 0: none
  int array_running = 0;      // its tasks running (or offered earlier in this pass)
  bool preemptor_waits = false;
};

// nullopt: offered to the scheduler.
std::optional<PendingReason> AdmissionReason(const AdmissionFacts& facts);

// Whether the array check passed (the job counts against its array's limit from here on).
inline bool PassesArrayLimit(const AdmissionFacts& f) { return f.array_max_running == 0 || f.array_running < f.array_max_running; }

}  // namespace muster
