// Job dependencies (sbatch --dependency, Slurm's syntax): parse, evaluate against the jobs they
// name, and print as squeue %E and scontrol's Dependency= show them.
//
//   afterok:12:13,afterany:14     every item must be satisfied (',')
//   afterok:12?afternotok:13      any one item will do ('?'; ',' and '?' cannot be mixed)
//   after:12        12 has started (or ended: cancelled while pending counts too)
//   afterany:12     12 has ended, however
//   afterok:12      12 completed with exit code 0
//   afternotok:12   12 ended otherwise (failed, cancelled, timeout, node failure, OOM, ...)
//   aftercorr:12    as afterok (Muster has no job arrays yet, so no task-to-task pairing)
//   singleton       no other job of the same name and user is running, suspended or waiting
//                   ahead of it (submitted earlier)
// A named job the controller no longer knows counts as satisfied, as in Slurm (its record is gone
// with MinJobAge). Pure functions of their arguments.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/dependency_spec.h"
#include "model/job_record.h"

namespace muster {

enum class DependencyState { kSatisfied, kWaiting, kNever };

// The state of one item: `find` returns the named job (nullptr when unknown); `singleton_blocked`
// says whether another job of the same name and user runs or waits ahead of this one.
DependencyState ItemState(const DependencyItem& item, const std::function<const JobRecord*(int64_t)>& find,
                          bool singleton_blocked);

// The whole spec: satisfied when every item is (any one, with '?'); never when it cannot be any
// more (an afterok on a failed job; with '?', when every item can never be).
DependencyState EvaluateDependency(const DependencySpec& spec, const std::function<const JobRecord*(int64_t)>& find,
                                   bool singleton_blocked);

// squeue %E / scontrol Dependency=: "afterok:12(unfulfilled),afterany:14(unfulfilled)",
// "singleton(unfulfilled)", "afterok:12(failed)"; satisfied items are left out; "" when none is
// left. `states` holds each item's state (same order as spec.items).
std::string FormatDependency(const DependencySpec& spec, const std::vector<DependencyState>& states);

}  // namespace muster
