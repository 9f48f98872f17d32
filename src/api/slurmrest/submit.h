// The bodies slurmrestd v0.0.38 takes for jobs, read into Muster's requests. Pure (no controller,
// no I/O), so that they can be fuzzed alone (fuzz/fuzz_api_decode.cc).
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "base/status.h"
#include "wire/submit.h"

namespace muster::slurmrest {

// POST /slurm/v0.0.38/job/submit: {"script": "#!/bin/sh ...", "job": {job_properties}} as a
// submission. The properties are slurmrestd 22.05's (sbatch's options under underscore names):
// name, partition, time_limit (minutes), nodes (N or "min-max"), tasks, tasks_per_node,
// cpus_per_task, memory_per_node, memory_per_cpu, memory_per_gpu, gres, gpus, gpus_per_node,
// gpus_per_task, cpus_per_gpu, constraints, exclusive, account, qos, comment, nice, hold,
// requeue, dependency, begin_time, array, argv, current_working_directory, standard_output,
// standard_error, standard_input, and environment (an object, as 22.05 requires). Errors name the
// key: 'Unknown key "x"' for one slurmrestd does not know either, 'Muster does not take key "x"'
// for one it knows that Muster has no counterpart for, "environment must be set". `bad_key`, when
// given, receives the known key whose value was refused ("" for other errors).
// A dependency (or an array) that does not parse is refused as the commands refuse it
// (SetDependency, SetArray: kDependencyProblem, kArrayProblem, slurmctld's words); the route
// answers it as a refused job, not as a body it cannot read.
StatusOr<JobSpec> ReadSubmission(std::string_view body, std::string* bad_key = nullptr);

// POST /slurm/v0.0.38/job/{id}: the job_properties to change as scontrol's fields
// (Controller::UpdateJob): time_limit -> TimeLimit, name -> JobName, comment -> Comment,
// nice -> Nice, dependency -> Dependency, begin_time -> StartTime; "hold": true/false separately
// in `hold` (0 = not given, 1 hold, -1 release).
struct RestUpdate {
  std::map<std::string, std::string> fields;
  int hold = 0;
};
StatusOr<RestUpdate> ReadUpdate(std::string_view body);

}  // namespace muster::slurmrest
