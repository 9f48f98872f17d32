// Slurm's words for the errors its commands retry or print verbatim, shared by the controller,
// which answers with them, and the commands, which act on them.
#pragma once

#include <string_view>

#include "base/status.h"

namespace muster {

// ESLURM_JOB_PENDING: a signal for a job that has not started.
inline constexpr std::string_view kJobPendingMessage = "Job is pending execution";
// ESLURM_TRANSITION_STATE_NO_UPDATE: a signal for a job whose launch is under way.
inline constexpr std::string_view kTransitionStateMessage = "Job can not be altered now, try again later";
// ESLURM_NOT_WHOLE_HET_JOB: a waiting heterogeneous job's component other than the first,
// cancelled or held alone.
inline constexpr std::string_view kNotWholeHetJobMessage =
    "Operation not permitted on individual component of heterogeneous job";

// ESLURM_DEPENDENCY, ESLURM_INVALID_ARRAY: a dependency or a job array that does not parse, where
// it is read (the commands, the API edge: model/job_spec.h's SetDependency and SetArray) or
// changed (scontrol update Dependency=).
inline constexpr std::string_view kDependencyProblem = "Job dependency problem";
inline constexpr std::string_view kArrayProblem = "Invalid job array specification";

// The answers Slurm's scancel retries (its MAX_CANCEL_RETRY loop): the job may be running soon.
inline bool IsTransitional(const Status& s) {
  return s.code() == StatusCode::kFailedPrecondition &&
         (s.message() == kJobPendingMessage || s.message() == kTransitionStateMessage);
}

}  // namespace muster
