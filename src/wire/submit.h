// A submission's wire form (POST /v1/jobs), shared by the commands that submit (sbatch, salloc,
// srun) and the controller's route: one struct for each side, one codec, every key named once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "wire/codec.h"

namespace muster {

// A heterogeneous job's component after the first (sbatch's `#SBATCH hetjob` / `:`): its own
// resource options, and the options Slurm lets each component set apart (an empty account or
// QOS: the first component's).
struct HetComponentRequest {
  using WireRecord = void;
  std::vector<std::string> resource_args;
  std::string account;
  std::string qos;
  template <class V, class Self>
  static void Fields(V& v, Self& r) {
    v("resource_args", r.resource_args);
    v("account", r.account);
    v("qos", r.qos);
  }
  friend bool operator==(const HetComponentRequest&, const HetComponentRequest&) = default;
};

// What a client submits. Who submits comes from the authenticated Caller, never from here.
struct SubmitRequest {
  using WireRecord = void;
  std::vector<std::string> resource_args;  // sbatch resource options, parsed by the controller (ParseJobRequest)
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
  std::string comment;     // --comment
  // A key the command chose for this submission (letters, digits, '-' and '_', at most 64): a
  // second submission of the caller with the same key, while the first one's job is held (MinJobAge
  // after its end), returns that job's id and makes none.
  std::string submit_key;
  bool interactive = false;  // salloc / srun outside an allocation: no batch script; ended by CompleteAllocation
  std::string array;       // --array (model/job_array.h): one job per task; a bad one: "Invalid job array specification"
  std::string dependency;  // --dependency (model/dependency.h); a syntax error: "Job dependency problem"
  int64_t begin_time = 0;  // --begin, seconds since the epoch (0 = now)
  int warn_signal = 0;     // --signal: 1..64 (0 = none)
  int warn_time_s = 0;     // 0..65535 seconds before the time limit
  bool warn_batch_only = false;
  // A heterogeneous job: the components after the first (this request is the first, the leader,
  // which runs the script). Empty: an ordinary job.
  std::vector<HetComponentRequest> het_components;
  // The keys ("stdout", "stderr" and "stdin" for the patterns and path).
  template <class V, class Self>
  static void Fields(V& v, Self& r) {
    v("resource_args", r.resource_args);
    v("name", r.name);
    v("script", r.script);
    v("script_args", r.script_args);
    v("workdir", r.workdir);
    v("environment", r.environment);
    v("stdout", r.stdout_pattern);
    v("stderr", r.stderr_pattern);
    v("stdin", r.stdin_path);
    v("account", r.account);
    v("hold", r.hold);
    v("qos", r.qos);
    v("nice", r.nice);
    v("requeue", r.requeue);
    v("submit_host", r.submit_host);
    v("submit_sid", r.submit_sid);
    v("dependency", r.dependency);
    v("comment", r.comment);
    v("array", r.array);
    v("submit_key", r.submit_key);
    v("interactive", r.interactive);
    v("begin_time", r.begin_time);
    v("warn_signal", r.warn_signal);
    v("warn_time_s", r.warn_time_s);
    v("warn_batch_only", r.warn_batch_only);
    v("het_components", r.het_components);
  }
  friend bool operator==(const SubmitRequest&, const SubmitRequest&) = default;
};

// The answer to a submission: the new job's id (an array's: its first task's).
struct SubmitAnswer {
  using WireRecord = void;
  int64_t job_id = 0;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("job_id", s.job_id);
  }
};

// sbatch --test-only's answer (POST /v1/jobs?test_only=1): when and where the job would start.
struct WillRun {
  using WireRecord = void;
  int64_t job_id = 0;
  int64_t start_time = 0;  // 0 = unknown (it waits for something other than resources)
  std::string nodes;       // hostlist; "" when unknown
  int cpus = 0;
  std::string partition;
  template <class V, class Self>
  static void Fields(V& v, Self& r) {
    v("job_id", r.job_id);
    v("start_time", r.start_time);
    v("nodes", r.nodes);
    v("cpus", r.cpus);
    v("partition", r.partition);
  }
  friend bool operator==(const WillRun&, const WillRun&) = default;
};

}  // namespace muster
