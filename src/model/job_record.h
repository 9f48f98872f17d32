// Records the controller keeps and stores: jobs, nodes, steps. Plain value types; JSON codec in
// model/record_json.h (the persisted and the wire form share it).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/shared_text.h"
#include "model/dependency_spec.h"
#include "model/job_options.h"
#include "model/job_request.h"
#include "model/node.h"

namespace muster {

// Slurm's job states.
enum class JobState {
  kPending,
  kRunning,
  kSuspended,
  kCompleting,
  kCompleted,
  kCancelled,
  kFailed,
  kTimeout,
  kNodeFail,
  kPreempted,
  kOutOfMemory,
  kBootFail,
  kDeadline,
};
const char* JobStateName(JobState s);     // "PENDING", "RUNNING", ... as squeue -l / scontrol print
const char* JobStateCompact(JobState s);  // "PD", "R", "S", "CG", "CD", "CA", "F", "TO", "NF", "PR", "OOM", "BF", "DL"
StatusOr<JobState> ParseJobState(const std::string& name);  // either form, case-insensitive
bool IsFinished(JobState s);  // COMPLETED, CANCELLED, FAILED, TIMEOUT, NODE_FAIL, PREEMPTED, OOM, BOOT_FAIL, DEADLINE

// One preemption of a job: by which job, when, how (REQUEUE or CANCEL) and the rule that allowed it.
struct PreemptionEvent {
  int64_t by = 0;
  int64_t time = 0;
  std::string mode;
  std::string reason;
  friend bool operator==(const PreemptionEvent&, const PreemptionEvent&) = default;
};

// What the jobs holding resources (running, suspended, completing) have allocated on one node:
// Slurm's CPUAlloc, AllocMem and allocated GPUs (a shared GPU counts once).
struct NodeAllocated {
  int cpus = 0;
  int gpus = 0;
  int64_t memory_mb = 0;
  friend bool operator==(const NodeAllocated&, const NodeAllocated&) = default;
};

inline constexpr size_t kPreemptionHistory = 16;

// Set at submission and never changed after: the owner (uid, gid, user, group), account, qos,
// partition and request. The controller's scheduling passes copy them once per job into the
// entries they keep (ctld/kept_entries.h); an operation that changes one must also clear the
// lists kept (Controller::cycle_pending_ and cycle_snapshot_.running), so that they are rebuilt.
struct JobRecord {
  int64_t id = 0;
  // First what every scheduling pass reads of every active job (the waiting list, the snapshot
  // of running jobs): together in a few cache lines, not spread over the record's 1.4 KiB.
  JobState state = JobState::kPending;
  bool held = false;
  int restart_count = 0;
  int array_max_running = 0;
  int64_t priority = 0;
  int64_t time_limit_s = kUnlimited;  // resolved: request, else partition default
  int64_t start_time = 0;           // 0 = not started
  int64_t end_time = 0;             // 0 = not ended
  int64_t eligible_time = 0;
  int64_t begin_time = 0;           // --begin: not eligible before (0 = at once)
  // The last preemption of this job: by which job, when, and the rule that allowed it.
  int64_t preempted_by = 0;
  int64_t preempt_time = 0;
  std::string preempt_reason;
  // Preempted with SUSPEND: when the current suspension began (0 = not suspended; it stays set
  // while a suspended job is being cancelled) and the seconds spent suspended before it. A
  // suspended job holds its memory and GPUs but not its CPUs, and its clock stands still: its
  // elapsed time and time limit leave the suspensions out.
  int64_t suspend_time = 0;
  int64_t suspended_s = 0;
  // Seconds the job ran in its earlier runs, before it was requeued (suspensions left out): the
  // service it has attained so far, for the least-attained-service and shortest-remaining orders.
  int64_t run_before_s = 0;
  // --dependency, parsed at submission (model/dependency_spec.h; stored and shown as its text,
  // "afterok:12,afterany:13"), and what is still unsatisfied, as squeue %E and scontrol
  // Dependency= show it ("" once satisfied; both are dropped then).
  DependencySpec dependency;
  std::string dependency_left;
  // While the controller stops it (COMPLETING): why ("cancel", "timeout", "preempt" or
  // "preempt-requeue"; it decides the final state) and when SIGKILL is due (seconds; 0 = none).
  std::string ending;
  int64_t kill_at = 0;
  // The rest.
  std::string name;
  // Who: from the authenticated caller, never from the request body.
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string user;
  std::string group;
  std::string account;
  std::string qos;                  // -q; "" = "normal"
  int64_t nice = 0;                 // --nice: subtracted from the priority
  std::string partition;            // resolved (the default partition filled in)
  JobRequest request;
  std::vector<std::string> submit_args;  // the resource options as given (for scontrol/sacct)
  // The batch script ("" for an interactive allocation); a job array's tasks share one copy, and
  // the store keeps it once, with the array's first task.
  SharedText script;
  bool interactive = false;         // an allocation without a batch script (salloc, srun outside one)
  std::vector<std::string> script_args;
  std::string workdir;              // submit directory; the batch script runs here
  std::string submit_host;          // where sbatch/salloc ran (SLURM_SUBMIT_HOST)
  int64_t submit_sid = 0;           // the session of the submitting command (scontrol's AllocNode:Sid)
  JobOptions options;               // --comment, ...: as submitted (scontrol update Comment= changes it)
  // The submitting command's key for this submission: its retry (after a lost answer) gets this
  // job back instead of making another. Unique per user among the jobs the controller holds.
  std::string submit_key;
  // A task of a job array (--array): the array's id (its first task's job id), the task's id,
  // every task of the array ("1-3", "0,2,4,6") and the '%' limit (0 = none). array_job_id 0: no array.
  int64_t array_job_id = 0;
  int array_task_id = -1;
  std::string array_tasks;
  // A component of a heterogeneous job (sbatch's `#SBATCH hetjob` / `:`): the job's id (its first
  // component's, the leader, which runs the batch script), this component's offset (0 for the
  // leader) and how many components there are (ids het_job_id .. het_job_id + het_job_size - 1).
  // het_job_id 0: not heterogeneous. The components start together, as one gang.
  int64_t het_job_id = 0;
  int het_job_offset = 0;
  int het_job_size = 0;
  // The leader's, while it runs: every component's variables (HetJobEnvironment in proc/job_env.h),
  // KEY=VALUE, set by the controller as the components start.
  std::vector<std::string> het_environment;
  std::vector<std::string> environment;  // KEY=VALUE exported to the job (sbatch --export=ALL)
  std::string stdout_pattern;       // "" = slurm-%j.out in workdir
  std::string stderr_pattern;       // "" = same as stdout
  std::string stdin_path;           // "" = /dev/null
  bool requeue = true;
  // sbatch --signal=[B:]SIG[@TIME]: SIG goes to the job (only its batch shell with B:) TIME seconds
  // before its time limit, once per run.
  int warn_signal = 0;              // 0 = none
  int warn_time_s = 0;
  bool warn_batch_only = false;
  bool warn_sent = false;           // this run's signal went out

  std::string reason;               // pending reason ("Resources", "JobHeldUser", ...) or "None"
  std::string reason_detail;        // e.g. "UnavailableNodes:n[3-4]"
  int64_t submit_time = 0;          // seconds since the epoch
  int64_t expected_start = 0;       // pending: when backfill's reservation starts it (0 = unknown)
  std::string sched_nodes;          // pending: the nodes of that reservation (hostlist)
  int exit_code = 0;                // of the batch script
  int exit_signal = 0;
  std::vector<NodeAllocation> allocation;  // while running (kept after the end for accounting)
  std::string batch_host;           // first node of the allocation
  int64_t cancelled_by = -1;        // the uid whose scancel ended it (sacct's "CANCELLED by 0"); -1 = none
  // Its last kPreemptionHistory preemptions, oldest first. Bounded: under least-attained service
  // a long job is preempted hundreds of times, and the record is copied at every start, stop and
  // save.
  std::vector<PreemptionEvent> preemptions;
  // Of its requeues (restart_count), those of a run that never started on its node: a launch
  // its node refused or never acknowledged (ctld's RequeueLocked decides). restart_count still
  // numbers the runs (every order to an agent names one); users see Restarts() (below).
  int lost_launches = 0;

  friend bool operator==(const JobRecord&, const JobRecord&) = default;
};

// The restarts users see (scontrol's Restarts=, SLURM_RESTART_COUNT, sacct's Restarts, the REST
// API's restart_cnt, the dashboard): the requeues of runs that had started, lost launches left
// out. (Slurm counts those too; Muster does not.)
inline int Restarts(const JobRecord& job) { return std::max(0, job.restart_count - job.lost_launches); }

// RUNNING, SUSPENDED, COMPLETING. (These four are inline: every scheduling pass asks them of
// every active job.)
inline bool HoldsResources(JobState s) {
  return s == JobState::kRunning || s == JobState::kSuspended || s == JobState::kCompleting;
}
// Whether the job holds its CPUs too (it holds resources and is not suspended).
inline bool HoldsCpus(const JobRecord& job) { return HoldsResources(job.state) && job.suspend_time == 0; }
// Seconds the job has spent suspended up to `now` (the current suspension included).
inline int64_t SuspendedSeconds(const JobRecord& job, int64_t now) {
  return job.suspended_s + (job.suspend_time > 0 ? std::max<int64_t>(0, now - job.suspend_time) : 0);
}
// Seconds the job has run up to `now`, in every run so far (suspensions left out).
inline int64_t RunSeconds(const JobRecord& job, int64_t now) {
  int64_t current = 0;
  if (job.start_time > 0) {
    const int64_t until = job.end_time > 0 ? job.end_time : now;
    current = std::max<int64_t>(0, until - job.start_time - SuspendedSeconds(job, until));
  }
  return job.run_before_s + current;
}
// Adds `job`'s allocation to `by_node` when it holds resources (its CPUs when it holds them).
void SumAllocation(const JobRecord& job, std::map<std::string, NodeAllocated>& by_node);

// Slurm's base node states plus the DRAIN flag, as the controller tracks them.
// A GPU of a node that its agent's health watch took out (gpu_health.h): the scheduler gives it
// to no job until it is healthy again or an admin resumes the node.
struct GpuFault {
  int index = 0;                    // the node's GPU index
  bool needs_reset = false;         // it comes back only after a GPU reset (a pending row remap)
  std::string reason;               // "Xid 79 (GPU has fallen off the bus)"
  friend bool operator==(const GpuFault&, const GpuFault&) = default;
};
// "GPU 1 failed: Xid 79 (GPU has fallen off the bus); GPU 3 needs a reset: ...", "" for none.
std::string DescribeGpuFaults(const std::vector<GpuFault>& faults);

struct NodeRecord {
  Node node;                        // capacity (name, CPUs, memory, GPUs, links, features) and state
  std::vector<GpuFault> failed_gpus;  // sorted by index
  std::string agent_address;        // where its musterd listens ("127.0.0.1:7001" or "unix:/path")
  int64_t last_heartbeat = 0;       // seconds since the epoch; 0 = never registered
  int64_t boot_time = 0;            // when the machine booted (scontrol's BootTime)
  int64_t start_time = 0;           // when its musterd started (SlurmdStartTime)
  std::string version;
  std::string arch;                 // uname's machine: "x86_64"
  std::string os;                   // uname's sysname, release and version: "Linux 6.1.0-13-amd64 #1 SMP ..."
  std::string hostname;             // uname's nodename: the machine musterd runs on (NodeHostName)
  friend bool operator==(const NodeRecord&, const NodeRecord&) = default;
};

struct StepRecord {
  int64_t job_id = 0;
  int step_id = 0;                  // 0, 1, ...; batch = -5 ("batch"), extern = -4 in Slurm's numbering
  std::string name;
  std::vector<std::string> nodes;
  int ntasks = 0;
  JobState state = JobState::kRunning;
  int64_t start_time = 0;
  int64_t end_time = 0;
  int exit_code = 0;
  // CPUs the step holds on each of its nodes while it runs (same order as nodes); empty for a
  // step that shares the job's CPUs (srun --overlap).
  std::vector<int> node_cpus;
  std::vector<int64_t> node_mem_mb;  // memory it holds on each node while it runs (empty: none)
  // The GPUs (node indexes) it has on each node (same order as nodes; empty: none). They are
  // its own while it runs, unless it shares the job's CPUs (--overlap: empty node_cpus).
  std::vector<std::vector<int>> node_gpus;
  int64_t time_limit_s = 0;  // srun -t (0 = none): its nodes end it then; it ends TIMEOUT
  friend bool operator==(const StepRecord&, const StepRecord&) = default;
};

}  // namespace muster
