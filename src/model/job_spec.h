// JobSpec: what a job carries from its submission, typed. The commands that submit (sbatch, salloc,
// srun) fill it from their options, each parsed once, by the command (the option engine; the
// resource options by JobRequestBuilder); wire/submit.h carries it (POST /v1/jobs), and the
// controller checks it and makes the job of it (Controller::Submit, TestOnly, ctld/build_job.h)
// without parsing an option again. Also sbatch --test-only's answer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/dependency_spec.h"
#include "model/job_array.h"
#include "model/job_options.h"
#include "model/job_request.h"
#include "model/slurm_errors.h"

namespace muster {

// A heterogeneous job's component after the first (sbatch's `#SBATCH hetjob` / `:`): its own
// resources, and the options Slurm lets each component set apart (an empty account or QOS: the
// first component's).
struct HetComponentSpec {
  JobRequest resources;
  std::vector<std::string> submit_args;  // its resource options as given, for display only
  std::string account;
  std::string qos;
  friend bool operator==(const HetComponentSpec&, const HetComponentSpec&) = default;
};

// What a client submits. Who submits comes from the authenticated Caller, never from here.
struct JobSpec {
  JobRequest resources;                  // the resource options, parsed by the command
  std::vector<std::string> submit_args;  // the same options as given, kept for display only (never parsed again)
  std::string name;
  std::string script;
  std::vector<std::string> script_args;
  std::string workdir;
  std::vector<std::string> environment;
  std::string stdout_pattern;
  std::string stderr_pattern;
  std::string stdin_path;
  std::string account;
  std::string qos;     // "" = "normal"
  int64_t nice = 0;    // negative: admins only
  bool hold = false;
  bool requeue = true;
  std::string submit_host;
  int64_t submit_sid = 0;  // the submitting command's session id
  JobOptions options;      // --comment, ...: carried unchanged to the job record
  // A key the command chose for this submission (letters, digits, '-' and '_', at most 64): a
  // second submission of the caller with the same key, while the first one's job is held (MinJobAge
  // after its end), returns that job's id and makes none.
  std::string submit_key;
  bool interactive = false;  // salloc / srun outside an allocation: no batch script; ended by CompleteAllocation
  // --array, parsed by the command (model/job_array.h): one job per task; on the wire as its text
  // ("0-9%2"), read back at the API edge.
  ArraySpec array;
  // --dependency, parsed by the command (model/dependency_spec.h); on the wire as its text, read
  // back at the API edge (a syntax error there names the part, under the key "dependency").
  DependencySpec dependency;
  int64_t begin_time = 0;  // --begin, seconds since the epoch (0 = now)
  int warn_signal = 0;     // --signal: 1..64 (0 = none)
  int warn_time_s = 0;     // 0..65535 seconds before the time limit
  bool warn_batch_only = false;
  // A heterogeneous job: the components after the first (this request is the first, the leader,
  // which runs the script). Empty: an ordinary job.
  std::vector<HetComponentSpec> het_components;
  friend bool operator==(const JobSpec&, const JobSpec&) = default;
};

// For a client that has a job's resource options only as words ("-N", "2", "--gres=gpu:4"): the
// REST route's "resource_args" (a body without "resources"), Slurm's REST API, the simulator. Parses
// them (ParseJobRequest; an error names the option) into `resources` and keeps them as `submit_args`.
Status SetResourceOptions(JobSpec& spec, std::vector<std::string> args);
Status SetResourceOptions(HetComponentSpec& component, std::vector<std::string> args);

// --dependency's text parsed into `dependency` (model/dependency_spec.h); one that does not parse
// is refused as slurmctld refuses it: kDependencyProblem.
Status SetDependency(JobSpec& spec, std::string_view text);

// --array's text parsed into `array` ("" for none); one that does not parse is refused as
// slurmctld refuses it: kArrayProblem.
Status SetArray(JobSpec& spec, std::string_view text);

// sbatch --test-only's answer (POST /v1/jobs?test_only=1): when and where the job would start.
struct WillRun {
  int64_t job_id = 0;
  int64_t start_time = 0;  // 0 = unknown (it waits for something other than resources)
  std::string nodes;       // hostlist; "" when unknown
  int cpus = 0;
  std::string partition;
  friend bool operator==(const WillRun&, const WillRun&) = default;
};

}  // namespace muster
