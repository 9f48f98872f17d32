// Controller: the cluster's state (jobs, nodes, steps) and its state machines, the scheduling
// loop's apply step, and the operations behind the API. Persists every change through the Store
// before it is acknowledged; talks to node agents only through AgentClient; reads time only from
// the injected Clock. Thread-safe, as owned parts with one lock each, always taken in this order
// (a part never calls into one before it): pass_.mu (one scheduling pass at a time, its kept
// state: SchedulingPass), mu_ (the jobs), nodes_ (NodeTable), steps_ (StepTable), policy_ (PolicyState); ids_
// (job id blocks) is taken alone. Store writes and agent calls happen outside mu_. docs/architecture.md has why.
// The compiler checks the locking (GUARDED_BY, REQUIRES: base/thread_annotations.h) and the tests
// the order (each lock's LockRank, base/mutex.h).
//
// Job states: PENDING -> RUNNING (allocation saved, then the batch host told to launch)
//   -> COMPLETED (exit 0) | FAILED (non-zero, or killed by a signal) | CANCELLED (scancel)
//    | TIMEOUT (time limit) | OUT_OF_MEMORY (cgroup OOM kill) | NODE_FAIL (node lost, not requeued)
//   -> PENDING again when its node is lost and the job may be requeued (restart_count + 1; and
//      lost_launches + 1 when its batch host never acknowledged the run: it never started).
// Node states: UNKNOWN until its agent registers; IDLE/MIXED/ALLOCATED from the running jobs;
//   DOWN after heartbeat_timeout_s of silence; its jobs are given up (requeued when they may be)
//   only once its lease has run out and its shepherds have ended them (kLeaseMarginS); DRAIN flag
//   by an admin (no new work; running jobs finish).
#pragma once

#include <boost/container/flat_map.hpp>
#include <boost/unordered/unordered_flat_map.hpp>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "model/node_report.h"
#include "base/caller.h"
#include "base/clock.h"
#include "base/mutex.h"
#include "base/name_index.h"
#include "ctld/build_job.h"
#include "ctld/controller_stats.h"
#include "ctld/gpu_usage_board.h"
#include "ctld/job_ids.h"
#include "ctld/job_table.h"
#include "ctld/kept_entries.h"
#include "ctld/node_table.h"
#include "ctld/node_usage_book.h"
#include "ctld/outage_guard.h"
#include "ctld/policy_state.h"
#include "ctld/scheduling_pass.h"
#include "ctld/step_table.h"
#include "model/dependency.h"
#include "model/job_record.h"
#include "model/step_layout.h"
#include "model/why.h"
#include "model/policy_ops.h"
#include "sched/admission.h"
#include "sched/cluster_snapshot.h"
#include "sched/priority_policy.h"
#include "sched/mix_learner.h"
#include "sched/scheduler.h"
#include "store/store.h"

namespace muster {

// A job whose launch failed by its own doing ends FAILED with ExitCode 0:53, as under Slurm.
inline constexpr int kLaunchFailureSignal = 53;

struct ControllerConfig {
  std::string cluster_name = "muster";
  ClusterSnapshot cluster;          // configured nodes, partitions and topology (usage ignored)
  int64_t heartbeat_timeout_s = 30;
  int64_t kill_wait_s = 30;         // SIGTERM, then SIGKILL after this many seconds
  // The agents' heartbeat interval (agent.heartbeat_interval) and the share of the nodes that,
  // out of touch at once, the controller takes for its own fault (controller.outage_threshold):
  // model/outage.h's rule, which the agents are told.
  int64_t heartbeat_interval_s = 5;
  int outage_threshold_pct = 55;
  std::vector<uint32_t> admin_uids = {0};
  bool allow_root_jobs = false;     // uid 0 may submit jobs
  // Slurm's MinJobAge: a finished job stays in the controller's memory (squeue, scontrol show
  // job) this many seconds after it ended, then only in the store; 0 = keep every job.
  int64_t min_job_age_s = 300;
  int64_t first_job_id = 1;         // as configured (shown by scontrol show config)
  // The hash of the configuration files it runs with (api/config_files.h), told to every agent
  // in its registration's and heartbeats' answers (NodeOrders::config_hash); "" = none.
  std::string config_hash;
  // A job its node could not launch (the node's fault: it is drained) is requeued held, with
  // Slurm's reason "launch failed requeued held", until its user or an admin releases it; false:
  // requeued to run elsewhere.
  bool hold_on_launch_failure = true;
  // A log line for each job submitted, started, requeued and ended, and each node registered
  // (the simulator replays millions of jobs in virtual time: off).
  bool log_events = true;
  // Check mode (sched/cache_check.h): every pass is decided again from nothing (the snapshot and
  // waiting list built afresh from the records, a new Scheduler) and the decisions compared with
  // the kept pass's; a difference is logged and counted (cache_check()). About doubles a pass.
  bool check_caches = false;
  // Slurm's max_script_size: a longer batch script is refused ("Pathname of a file, directory or
  // other parameter too long", Slurm's words).
  int64_t max_script_bytes = 4 << 20;
  // Decayed usage (fair share) is saved to the store at most this often: at most this much is
  // lost to a crash. A simulation, whose store dies with it, saves it rarely.
  int64_t usage_save_s = 30;
  // With a placement scorer that places by the workload (scheduler.placement->learns_mix()), the
  // controller learns it from the jobs submitted (sched/mix_learner.h) and gives it to the passes.
  SchedulerOptions scheduler;
  PrioritySettings priority;        // multifactor weights, billing, usage half-life, accounts
};

// How long after a node's last word the controller gives up its jobs: its lease (what every answer
// grants it: heartbeat_timeout_s), the time its shepherds take to end them (kill_wait_s), and this
// margin for the answer's way and the Tick's period. By then nothing of them runs there.
inline constexpr int64_t kLeaseMarginS = 5;
// How long a launch may be on its way to a node (the agent client's timeout, and then some): a run
// started more recently that a node's report does not name is not taken for lost yet.
inline constexpr int64_t kLaunchGraceS = 15;

// srun's request for a job step inside a running allocation (POST /v1/jobs/{id}/steps).
struct StepRequest {
  std::string name;          // "" = "step"
  StepShapeRequest shape;    // -n, -N, --ntasks-per-node (0 = not given)
  // The CPUs the step holds on each node, as Slurm 22.05 gives them: by default all the job's
  // CPUs there; with `exact` (srun --exact, --exclusive, -c) its tasks times cpus_per_task (1 when
  // 0); with `overlap` none (it shares). A step that does not fit beside the running ones fails
  // with Unavailable "Requested nodes are busy" (srun retries); one that could never fit, with
  // InvalidArgument.
  bool overlap = false;
  bool exact = false;
  int cpus_per_task = 0;
  // Without it (srun -O/--overcommit) a step may not run more tasks times cpus_per_task on a node
  // than the job has CPUs there: "More processors requested than permitted", as in Slurm.
  bool overcommit = false;
  // Memory it holds on each node, of the job's there: --mem (0 = all of it), --mem-per-cpu times
  // its CPUs, --mem-per-gpu times its GPUs there; by default all of it when the job asked memory per node, else the job's memory per
  // CPU times the step's CPUs (its tasks' CPUs for an --overlap step), as in Slurm 22.05. More
  // than the job has there, or than its running steps leave: InvalidArgument "Memory required by
  // task is not available" (Slurm's words; srun does not retry).
  int64_t mem_mb = -1;
  int64_t mem_per_cpu_mb = -1;
  int64_t mem_per_gpu_mb = -1;
  // srun -C: only the job's nodes with these features (ParseConstraint); none of them: InvalidArgument.
  std::string constraint;
  // Its GPUs on each node (PlanStepGpus): by default all the job's there, held while it runs.
  StepGpuRequest gpus;
  int64_t time_limit_s = 0;  // srun -t (0 = none): the nodes end it then (kill_wait_s after SIGTERM)
};

// The step as created: its record, the job (for the agents' environment), where its tasks go
// (layout.nodes[i] runs tasks layout.first_task(i) ... + layout.tasks[i] - 1) and how to reach
// those nodes' agents (same order as layout.nodes).
struct StepCreated {
  StepRecord step;
  JobRecord job;
  StepLayout layout;
  std::vector<NodeRecord> nodes;
};

// How the controller reaches node agents (HTTP in production, a fake in tests).
class AgentClient {
 public:
  virtual ~AgentClient() = default;
  // Tells the node to run its part of `job` (the batch script on job.batch_host). InvalidArgument:
  // the job itself cannot start (a file it names cannot be opened: it fails, as Slurm's
  // JobLaunchFailure); Unavailable: no answer came, so whether it started is not known (the
  // node's next report settles it); any other error is the node's (it is drained, the job requeued).
  virtual Status LaunchJob(const NodeRecord& node, const JobRecord& job) = 0;
  // Signals the run's processes on the node (the agent ignores a signal for another run of the
  // job); with kill_after_s > 0, SIGKILL follows after that many seconds if anything is still
  // running. `why`: "cancel", "timeout", "requeue", "cleanup", ...
  virtual Status SignalJob(const NodeRecord& node, const JobRun& run, int signal, int64_t kill_after_s,
                           const std::string& why) = 0;
  // Whether LaunchJob may be called from several threads at once (for different batch hosts).
  // A simulated fleet says no: its order of events must not depend on threads.
  virtual bool ConcurrentLaunches() const { return false; }
};

// Which jobs Controller::ListJobs returns.
struct JobQuery {
  bool active_only = false;
  std::set<int64_t> ids;  // empty = any; a job array's id stands for all its tasks
};

// Which jobs Controller::Accounting returns (sacct's selection: -j, -u, -A, -r, -s, -S, -E).
using AccountingQuery = JobFilter;

class Controller {
 public:
  Controller(ControllerConfig config, Store* store, AgentClient* agents, const Clock* clock);
  ~Controller();

  // Loads jobs, nodes and steps from the store (after a restart, including kill -9).
  Status Recover();
  // When the records begin (records_since): kept in the store's meta, set on the first start.
  Status LoadRecordsSince(int64_t now);

  // --- users ---
  // Errors carry Slurm's messages ("Invalid partition name specified", "Requested node
  // configuration is not available", ...): InvalidArgument for bad requests, PermissionDenied.
  // `user_msg`, when given, receives what Slurm tells the submitter before such an error
  // ("Memory specification can not be satisfied"), else "".
  StatusOr<int64_t> Submit(const JobSpec& request, const Caller& caller, std::string* user_msg = nullptr);
  // sbatch --test-only: checks the request as Submit does and says when and where it would start
  // if submitted now (a scheduling pass over the running jobs with it as the only waiting one);
  // stores nothing. The job id is taken, as Slurm takes one.

  StatusOr<WillRun> TestOnly(const JobSpec& request, const Caller& caller, std::string* user_msg = nullptr);
  // signal 0 = cancel (SIGTERM, SIGKILL after kill_wait_s); else deliver that signal only.
  // target: who gets a signal (not for cancel): "full" (the batch shell, its children and the
  // steps: scancel -f), "batch" (the batch shell alone: scancel -b) or "steps" (the steps only:
  // scancel -s without -b/-f, as in Slurm).
  Status Cancel(int64_t job_id, int signal, const Caller& caller, const std::string& target = "full");
  // scontrol hold/release: an admin's hold is JobHeldAdmin, which only an admin may release.
  Status Hold(int64_t job_id, bool hold, const Caller& caller);
  // scontrol update JobId=: `fields` in Slurm's names, case-insensitive: TimeLimit (its owner may
  // only lower it; pending or running), and for a pending job JobName/Name, Nice (only admins may
  // lower it), Dependency, StartTime/BeginTime. All or nothing; errors name the field.
  Status UpdateJob(int64_t job_id, const std::map<std::string, std::string>& fields, const Caller& caller);
  // The end of an interactive allocation (salloc's command exited): COMPLETED for exit code 0,
  // else FAILED; its nodes end what still runs of it. Its owner or an admin; interactive jobs only.
  Status CompleteAllocation(int64_t job_id, int exit_code, const Caller& caller);
  // scontrol requeue: a running or suspended job is stopped (SIGTERM, SIGKILL after kill_wait_s)
  // and waits again, its restart count one higher; refused for --no-requeue jobs.
  Status Requeue(int64_t job_id, const Caller& caller);
  StatusOr<JobRecord> GetJob(int64_t job_id) const;
  // muster why: why the job waits and when it will start, as the scheduler core answers over the
  // pass's own input (sched/why.h: its decision, the jobs ahead, what would start it sooner),
  // with its record's reason and squeue --start's figures. NotFound for an unknown id. The
  // input is copied under the locks (the pass's lock first); the core runs without them.
  StatusOr<WhyAnswer> Why(int64_t job_id);
  // A new step of a RUNNING job (the caller must own it or be an admin): the next step id of
  // the job (0, 1, ...), its layout on the allocation, saved (state RUNNING) before the answer.
  StatusOr<StepCreated> CreateStep(int64_t job_id, const StepRequest& request, const Caller& caller);
  // The step ended (srun reports the highest task exit code): COMPLETED for 0, else FAILED, or
  // TIMEOUT when it had a time limit and ran that long. Repeating it changes nothing.
  Status FinishStep(int64_t job_id, int step_id, int exit_code, const Caller& caller);
  // Jobs in id order: every job, or only those not finished (`active_only`), or only `ids`. Lists
  // leave out the script, its arguments and the environment (GetJob has them).
  std::vector<JobRecord> ListJobs(const JobQuery& query = JobQuery()) const;
  // Calls `fn` with the jobs ListJobs would return, in id order, under the controller's lock,
  // without copying them: for work as short as rendering a table (keep it short).
  void VisitJobs(const JobQuery& query, const std::function<void(const std::vector<const JobRecord*>&)>& fn) const;
  std::vector<NodeRecord> ListNodes() const;
  // How many nodes' agents were heard from (registration, heartbeat) in the last `seconds`: what
  // a leader compares with the standbys' views (ctld/agent_reach.h).
  int64_t NodesHeardWithin(int64_t seconds) const;
  // What the jobs holding resources have allocated, per node name (nodes with nothing: absent).
  std::map<std::string, NodeAllocated> AllocatedByNode() const;
  std::vector<Partition> ListPartitions() const;
  std::vector<StepRecord> ListSteps() const;
  // sacct: every job the store holds (finished ones past MinJobAge included; the controller's own
  // copy where it still has one) that `query` selects, in id order, listed as ListJobs lists them;
  // and the steps of those jobs.
  StatusOr<std::vector<JobRecord>> Accounting(const AccountingQuery& query) const;
  StatusOr<std::vector<StepRecord>> AccountingSteps(const std::set<int64_t>& job_ids) const;
  const std::string& cluster_name() const { return config_.cluster_name; }
  const std::string& config_hash() const { return config_.config_hash; }
  int64_t kill_wait_s() const { return config_.kill_wait_s; }
  // scontrol show config: the settings in Slurm's names and units ("MinJobAge" -> "300 sec"),
  // in name order.
  std::vector<std::pair<std::string, std::string>> SlurmConfig() const;
  int64_t NowSeconds() const { return clock_->NowSeconds(); }
  // Since when the store has kept this cluster's records (the first start on its state database,
  // or its oldest job's submission): sreport measures nothing before it. 0 before Recover.
  int64_t records_since() const { return records_since_; }

  // --- admins ---
  Status UpdateNode(const std::string& name, const std::string& state, const std::string& reason,
                    const Caller& caller);  // state: DRAIN, RESUME, DOWN

  // --- agents (caller must be an admin uid: agents run as root or as the cluster's owner) ---
  // Registration (an agent that started, or that lost the controller): the node's record, and
  // what it runs and saw end. Runs the controller has on the node as batch host that the node
  // neither runs nor reports ended were lost with it (requeued, or NODE_FAIL).
  StatusOr<NodeOrders> RegisterNode(const NodeRecord& node, const NodeReport& report, const Caller& caller);
  // Every heartbeat_interval: the same report; renews the node's lease. The answer carries the
  // peers' list (NodeOrders::witness) when `witness_generation` is not the current one.
  StatusOr<NodeOrders> Heartbeat(const std::string& node, const NodeReport& report, const Caller& caller,
                                 int64_t witness_generation = 0);
  // The outage rule's state (ctld/outage_guard.h), copied under the jobs' lock.
  struct OutageView {
    bool own_fault = false;
    int64_t out = 0, peers = 0, outages = 0;
  };
  OutageView outage() const;
  Status JobExited(int64_t job_id, const std::string& node, const ExitReport& report, const Caller& caller);

  // Check mode's tally (ControllerConfig::check_caches).
  using CacheCheck = SchedulingPass::CacheCheck;
  CacheCheck cache_check() const { return pass_.cache_check(); }

  // --- loop ---
  // One scheduling cycle: snapshot under the lock, RunCycle without it, then re-check every start
  // against the current state, persist, and launch. Returns the number of jobs started.
  int ScheduleOnce() EXCLUDES(pass_.mu, mu_);
  // Periodic work: silent nodes -> DOWN (+ requeue), time limits, kill escalation.
  void Tick();
  // Runs the scheduler until Stop(): on Wake() (submit, job end, node change) and every `period_ms`.
  void RunLoop(int period_ms);
  void Wake();
  void Stop();

  bool IsAdmin(const Caller& caller) const;

  // --- figures (ctld/controller_stats.h: its own lock, taken alone) ---
  // Counted as jobs are submitted, started, ended and preempted and passes run; the API's
  // router adds its requests (musterctld_main.cc).
  ControllerStats& stats() const { return stats_; }
  // The GPUs' utilization the heartbeats last carried (the dashboard's cluster view).
  const GpuUsageBoard& gpu_usage() const { return gpu_usage_; }
  bool backfill_enabled() const { return config_.scheduler.backfill; }
  // How long a node may stay silent before it is DOWN.
  int64_t heartbeat_timeout_s() const { return config_.heartbeat_timeout_s; }

  // --- priority ---
  // `sshare`: the fair-share rows as of the last refresh (every Tick under the multifactor
  // order; under a service order, here when a Tick left them stale).
  std::vector<FairShareRow> Shares();
  // `sprio`: the pending jobs' priority factors as last computed (at submit, and as for Shares).
  struct JobPriority {
    int64_t job_id = 0;
    std::string partition, user, account;
    int64_t priority = 0;
    PriorityFactors factors;
  };
  std::vector<JobPriority> PendingPriorities();
  const PriorityWeights& priority_weights() const { return config_.priority.weights; }
  // Charges the running jobs up to now and saves the usage (Tick saves at most every 30 s; a
  // controller stopping calls this so that no usage is lost).
  Status SaveUsage();

  // --- accounts, queues and QOS (sacctmgr) ---
  // Applies a change (admins only) on top of what muster.yaml defines, stores it, and applies it
  // from the next scheduling pass on. Stored changes are replayed by Recover(); one that no
  // longer applies (the file changed under it) is dropped and reported in `policy_warnings()`.
  Status ChangePolicy(const PolicyOp& op, const Caller& caller);
  // What is in force now.
  SchedPolicy Policy() const;
  std::vector<std::string> policy_warnings() const;
  // The user name of `uid` (the system's user database), or the uid as text.
  static std::string UserNameOf(uint32_t uid);

 private:
  // The scheduler's view of now: the nodes, what the jobs use, the running jobs, the partitions
  // and the topology.
  ClusterSnapshot SnapshotLocked(NodeTable::Access& nodes) const REQUIRES(mu_);
  // Every group of a user (primary and supplementary), as AllowGroups= is checked (cached a minute).
  std::vector<std::string> GroupsOf(const std::string& user, uint32_t uid, uint32_t gid) const;
  // The partitions a job's owner may use with its account and QOS, as BuildJob checks them at
  // submission (muster why explains the job over these).
  std::vector<std::string> UsablePartitions(const std::string& user, uint32_t uid, uint32_t gid,
                                            const std::string& account, const std::string& qos) const;
  // Counts a submitted (or recovered) job's shape in mix_learner_.
  void LearnShapeLocked(const JobRecord& job) REQUIRES(mu_);
  // Submit, or with will_run set TestOnly.
  StatusOr<int64_t> SubmitOrTest(const JobSpec& request, const Caller& caller, WillRun* will_run,
                                 std::string* user_msg);
  // SubmitOrTest's steps. A submission built and checked, not numbered nor stored: its job (an
  // array's tasks are copies of it) and a heterogeneous job's further components.
  struct BuiltSubmission {
    JobRecord job;
    ArraySpec array;
    std::vector<JobRecord> het;
  };
  // The request checked and built (BuildJob, for the job and each further component), outside mu_.
  StatusOr<BuiltSubmission> BuildSubmission(const JobSpec& request, const Caller& caller,
                                            std::string* user_msg);
  // --test-only: where and when the job would start, and the id it would get (none taken).
  StatusOr<int64_t> AnswerTestOnly(const JobRecord& job, WillRun& will_run, std::string* user_msg);
  // The records to store: one per array task or heterogeneous component (else the job alone),
  // each with its new id.
  StatusOr<std::vector<JobRecord>> NumberedJobs(JobRecord job, std::vector<JobRecord> het, const ArraySpec& array);
  // The pass's waiting list, in pass_.pending_kept's entries (each tagged with its record).
  // True when a job is suspended (it may resume).
  bool FillPendingLocked(std::vector<PendingJob>& pending) REQUIRES(mu_, pass_.mu);
  // Check mode: the pass's waiting list as the records hold it now (every field from the record,
  // no revision), in the same order.
  std::vector<PendingJob> FreshPendingLocked(const std::vector<PendingJob>& pending) const REQUIRES(mu_);
  // --begin and --dependency: whether a waiting job may be scheduled now. If not, its reason says
  // why (BeginTime, Dependency, DependencyNeverSatisfied) and dependency_left what it waits for;
  // a dependency found satisfied is dropped, as Slurm does, and the job is eligible from then.
  bool EligibleLocked(JobRecord& job) REQUIRES(mu_);
  // The state of the job's --dependency (none when it has none); a satisfied one is dropped from
  // the job (Slurm's Dependency=(null)) and the job is eligible from `now`; else what is left of
  // it is recorded (dependency_left).
  std::optional<DependencyState> DependencyLocked(JobRecord& job, int64_t now) REQUIRES(mu_);
  // Admission's facts about the job itself: its --begin and, once that has come, its
  // --dependency (DependencyLocked); the array's and the preemptor's are the pass's to add.
  AdmissionFacts OwnAdmissionFactsLocked(JobRecord& job, int64_t now) REQUIRES(mu_);
  // The job `job_id`, if `caller` owns it or is an admin: NotFound ("Invalid job id specified")
  // or PermissionDenied ("Access/permission denied") otherwise.
  StatusOr<JobRecord*> OwnedJobLocked(int64_t job_id, const Caller& caller) REQUIRES(mu_);
  // The time, usage and running jobs of `s`, whose nodes must be there already
  // (SyncSnapshotNodesLocked). With `kept` (the pass's), `s` was kept from an earlier pass and
  // its buffers are reused.
  void FillSnapshotLocked(NodeTable::Access& nodes, ClusterSnapshot& s,
                          SchedulingPass::KeptRunning* kept = nullptr) const REQUIRES(mu_);
  // Brings `s`'s nodes (and partitions and topology) up to date. True when an index built from
  // `s` still holds: no node changed but in state, and none in whether it takes work.
  // `epoch`: the nodes' epoch when `s` was last synced (updated).
  bool SyncSnapshotNodesLocked(NodeTable::Access& nodes, ClusterSnapshot& s, uint64_t& epoch) const REQUIRES(mu_);
  // Sets the nodes' states (IDLE, MIXED, ALLOCATED) from what the jobs hold now.
  void RefreshNodeStatesLocked(NodeTable::Access& nodes) REQUIRES(mu_);
  // (under mu_) What jobs hold changed since the node states were set: JobsLock sets them again
  // when it is released (or an operation that saves a node record does, before it copies it).
  bool node_states_stale_ GUARDED_BY(mu_) = false;
  // (under mu_) Jobs a pass started whose launch has not returned yet: a signal for one of them
  // could reach its nodes before the job does, so it is refused as Slurm's "transitional state"
  // (scancel retries).
  std::set<int64_t> launching_ GUARDED_BY(mu_);
  // (under mu_) Runs a pass started that their batch host has not acknowledged: no answer to
  // their launch yet (or none came: the agent did not answer), and no report naming them,
  // running or ended. Requeued from here, a run never started on its node: a lost launch
  // (JobRecord::lost_launches), not a restart. In memory only: the runs a restarted controller
  // loads are taken for started (it cannot know what the one before it heard).
  std::set<JobRun> unacknowledged_runs_ GUARDED_BY(mu_);
  void FinishJobLocked(JobRecord& job, JobState state, int exit_code, int signal) REQUIRES(mu_);
  // Settles the ends a node reported (JobExited for each; ones the controller no longer knows are
  // dropped).
  void SettleExitsLocked(const std::string& node, const std::vector<RunExit>& exits, std::vector<JobRecord>* changed,
                         std::vector<JobRecord>* cleanup) REQUIRES(mu_);
  // Runs `node` should hold as their batch host that it neither runs nor reported ended, and that
  // started more than kLaunchGraceS ago: lost with it (requeued, or NODE_FAIL).
  void LoseMissingRunsLocked(const std::string& node, const NodeReport& report, std::vector<JobRecord>* kill,
                             std::vector<JobRecord>* changed) REQUIRES(mu_);
  // The runs `report` names that the controller does not have running on `node`: the node must
  // stop them.
  // The node's GPU health as its agent reports it: GPUs newly out end their jobs (requeued, or
  // NODE_FAIL when they may not be; a gang whole, on every node), GPUs no longer listed return.
  // The node's reason names its failed GPUs while no other reason holds it. True when its failed
  // GPUs changed.
  bool ApplyGpuHealthLocked(NodeTable::Access& nodes, NodeRecord& n, const NodeReport& report,
                            std::vector<JobRecord>* kill, std::vector<JobRecord>* changed) REQUIRES(mu_);
  // The health-check verdict of the report (NodeReport::node_health); true when the node changed.
  bool ApplyNodeHealthLocked(NodeRecord& n, const NodeReport& report) REQUIRES(mu_);
  std::vector<JobRun> StrayRunsLocked(const std::string& node, const NodeReport& report) const REQUIRES(mu_);
  // The scheduling pass's stages (controller_schedule.cc), under pass_.mu: the input, beside
  // what pass_ keeps between passes (ctld/scheduling_pass.h).
  using CycleInput = SchedulingPass::Input;
  // What applying the decisions did, for the stages after it (outside the lock).
  struct CycleOutcome {
    std::vector<JobRecord> started;
    std::vector<JobRecord> preempted;  // victims, being stopped or suspended
    std::vector<JobRecord> resumed;
  };
  // 1. The waiting list and the snapshot (pass_.pending, pass_.snapshot) brought up to date;
  //    false when there is nothing to decide. 2 is the scheduler core over them
  //    (SchedulingPass::Run).
  bool BuildCycleInput(CycleInput& in) REQUIRES(pass_.mu);
  // 3. Each decision re-checked against the state now and applied: starts, pending reasons and
  //    reservations, victims to stop, suspended jobs to resume.
  CycleOutcome ApplyDecisions(const std::vector<Decision>& decisions, uint64_t erased_at) REQUIRES(pass_.mu);
  bool StillFitsLocked(NodeTable::Access& nodes, const Decision& start, const std::vector<NodeUsage>& now) const
      REQUIRES(mu_);
  // 4. Victims persisted and signalled, resumed jobs continued.
  void StopAndResume(const CycleOutcome& out);
  // 5. Starts persisted, then launched; returns how many launched. A launch that fails: the
  //    job's fault fails it, no answer leaves it to the node's next report, the node's fault
  //    drains the node and requeues the job (LaunchFailed).
  int PersistAndLaunch(const std::vector<JobRecord>& started);
  void LaunchFailed(const JobRecord& job, const Status& launch);
  // Tells the agents to run `started` (controller_launch.cc); the batch host's answer per job.
  std::vector<Status> LaunchStarted(const std::vector<JobRecord>& started);
  // Puts a running job back to PENDING; its old allocation is added to `kill` so the caller can
  // end what still runs of it on nodes that are up. It keeps the service it attained, and under
  // a service order ranks by it from then on (not recomputed every pass). The run number moves
  // on (restart_count + 1); a run that never started on its node (`lost_launch`; by default:
  // its batch host never acknowledged it, unacknowledged_runs_) is also counted a lost launch,
  // which users do not see as a restart (Restarts()).
  void RequeueLocked(JobRecord& job, const std::string& why, std::vector<JobRecord>* kill,
                     std::optional<bool> lost_launch = std::nullopt) REQUIRES(mu_);
  // A job lost with a node: requeued when it may be (unless it was being ended, other than by a
  // preemption that requeues it), else ended as it was being ended (or NODE_FAIL).
  void LoseJobLocked(JobRecord& job, const std::string& why, std::vector<JobRecord>* kill) REQUIRES(mu_);
  // Starts stopping a running job: COMPLETING, with why and when SIGKILL is due.
  void EndingLocked(JobRecord& job, const std::string& ending, int64_t grace_s) REQUIRES(mu_);
  // Starts stopping a victim the scheduler named for `by` (REQUEUE or CANCEL, SIGTERM now and
  // SIGKILL after the grace; SUSPEND: SUSPENDED now, SIGSTOP; the signals are sent by the caller
  // outside the lock), and records who and why.
  void PreemptLocked(const JobRecord& by, const Preemption& p, std::vector<JobRecord>* out) REQUIRES(mu_);
  // A suspended job takes its CPUs (`cpus`, from the scheduler's kResume) back if they are still
  // free in `now` (the state at apply time; updated), and runs again.
  bool ResumeLocked(NodeTable::Access& nodes, JobRecord& job, std::vector<NodeUsage>& now,
                    const std::vector<NodeAllocation>& cpus) REQUIRES(mu_);
  Status Persist(std::span<const JobRecord> jobs);
  Status Persist(const JobRecord& job) { return Persist(std::span(&job, 1)); }
  // A heterogeneous job's leader: its further components, as the scheduler takes them; empty
  // for another job.
  std::vector<PendingComponent> HetComponentsLocked(const JobRecord& leader) const REQUIRES(mu_);
  void SignalAll(const JobRecord& job, int signal, int64_t kill_after, const std::string& why);

  // As configured, but for scheduler.policy and priority.accounts: emptied at construction,
  // policy_ holds those (with the sacctmgr changes in force).
  ControllerConfig config_;
  Store* store_;
  AgentClient* agents_;
  const Clock* clock_;

  // Guards the jobs (jobs_: their records, the active list, the submission keys; the waiting
  // list's flags), what they use of each node, and the workload mix learnt; cv_ and keys_cv_ wait
  // on it.
  mutable Mutex mu_{"jobs", LockRank::kJobs};
  // mu_ held for the scope, as a lock_guard. When it is released, the node states are set again
  // if what the jobs hold changed (node_states_stale_), and the job events logged meanwhile
  // (job_events_) are written, after mu_ is unlocked. A NodeTable::Access taken in its scope must
  // be declared after it (released before it).
  class SCOPED_CAPABILITY JobsLock {
   public:
    explicit JobsLock(const Controller* c) ACQUIRE(c->mu_) : c_(c), lock_(c->mu_) {}
    // (Not analysed: it releases the lock part way, where the analysis cannot follow a member lock.)
    ~JobsLock() RELEASE() NO_THREAD_SAFETY_ANALYSIS;
    JobsLock(const JobsLock&) = delete;
    JobsLock& operator=(const JobsLock&) = delete;

   private:
    const Controller* c_;
    MutexLock lock_;
  };
  // (under mu_) Log lines of jobs that ended or were requeued, by job id, for JobsLock to write.
  mutable std::vector<std::pair<int64_t, std::string>> job_events_ GUARDED_BY(mu_);
  // (under mu_) A heterogeneous job's components that ended or were requeued with their leader
  // (FollowLeaderLocked): JobsLock stores them and stops them on their nodes once mu_ is unlocked.
  struct HetFollower {
    JobRecord record;   // as it is now
    JobRecord cleanup;  // as it ran (its allocation empty: nothing to stop)
  };
  mutable std::vector<HetFollower> het_followers_ GUARDED_BY(mu_);
  // The leader of a heterogeneous job ended (requeued: was requeued): its other components follow
  // (a requeue of a leader that never started, `lost_launch`, is a lost launch of theirs too).
  void FollowLeaderLocked(const JobRecord& leader, bool requeued, bool lost_launch = false) REQUIRES(mu_);
  std::condition_variable cv_;
  bool wake_ GUARDED_BY(mu_) = false;
  bool stop_ GUARDED_BY(mu_) = false;
  // The job records and the indexes kept with them (ctld/job_table.h): the active list every
  // cycle walks, its by-id index, the erased count and the submission keys.
  JobTable jobs_ GUARDED_BY(mu_);
  int64_t last_purge_ GUARDED_BY(mu_) = 0;
  // Whether a silent node's jobs may be given up (model/outage.h); Tick updates it, under mu_.
  OutageGuard outage_ GUARDED_BY(mu_);
  // What Tick's phases found under mu_, for Tick to store and signal once it is released.
  struct TickWork {
    std::vector<JobRecord> changed;     // to store (the time-outs and those signalled again last)
    std::vector<JobRecord> kill;        // given up with their silent node: SIGKILL (requeue)
    std::vector<JobRecord> to_timeout;  // at their time limit: SIGTERM, then SIGKILL after KillWait
    std::vector<JobRecord> resignal;    // still stopping well after their SIGKILL: SIGKILL again
    std::vector<JobRecord> ended;       // interactive, ended with their grace: SIGKILL (cleanup)
    std::vector<JobRecord> warned;      // near their time limit: sbatch --signal's signal
    std::vector<NodeRecord> down_nodes;  // set DOWN for their silence: to store
    std::string usage;                   // the decayed usage to save (empty: not due)
  };
  // Tick's first phase: the outage rule updated, silent nodes set DOWN, and their jobs given up
  // once they may be.
  void TickNodesLocked(NodeTable::Access& nodes, int64_t now, TickWork& w) REQUIRES(mu_);
  // Tick's second phase: running jobs warned (--signal) or timed out, interactive ones ended with
  // their grace, stopping ones signalled again.
  void TickJobsLocked(int64_t now, TickWork& w) REQUIRES(mu_);
  bool Expired(const JobRecord& job, int64_t now) const;  // finished more than MinJobAge ago
  void PurgeExpiredLocked(int64_t now) REQUIRES(mu_);
  void EndStepsLocked(const JobRecord& job) REQUIRES(mu_);
  // The nodes: after mu_ in the lock order (taken with it held or not).
  NodeTable nodes_;
  // What the jobs holding resources use of each node, kept as they start, stop, suspend and
  // resume (ctld/node_usage_book.h): each change of what a job holds is bracketed by
  // usage_.Count(job, -1) and (job, +1).
  mutable NodeUsageBook usage_ GUARDED_BY(mu_);
  // The last RunningJob::revision or PendingJob::revision given (FillSnapshotLocked and
  // FillPendingLocked, under mu_): one per copy of an allocation or a request into an entry,
  // never twice the same.
  mutable uint64_t run_revisions_ GUARDED_BY(mu_) = 0;
  // The steps of the jobs held: after mu_ in the lock order (called with it held or not).
  StepTable steps_;
  // The scheduling pass's own state, kept between passes (ctld/scheduling_pass.h): its lock,
  // pass_.mu, is first in the lock order.
  SchedulingPass pass_;
  bool pending_stale_ GUARDED_BY(mu_) = false;     // a job's request changed: pass_.pending is rebuilt
  bool throttled_arrays_ GUARDED_BY(mu_) = false;  // an array with a '%' limit was ever submitted
  // The workload mix learnt from the jobs submitted; the passes place with one made from it
  // (SchedulingPass::MixDue).
  MixLearner mix_learner_ GUARDED_BY(mu_);

  // The store's meta keys: the usage (PriorityPolicy::Save) and the sacctmgr changes in force
  // (PolicyOpsToJson).
  static constexpr char kUsageKey[] = "priority_usage";
  static constexpr char kPolicyKey[] = "policy_ops";
  static constexpr char kRecordsSinceKey[] = "records_since";
  int64_t records_since_ = 0;  // set by Recover, then constant

  // Accounts, QOS, usage, fair share and priorities: the last part in the lock order, called
  // with mu_ held or not (never the other way round). Its usage is saved to the store's meta
  // 'priority_usage' at most every config.usage_save_s seconds (and restored by Recover).
  PolicyState policy_;

  // Wakes a submission retry waiting for its key's first attempt (JobTable::KeyInFlight).
  std::condition_variable keys_cv_;

  // Counters and histograms (ctld/controller_stats.h): a lock of its own, taken alone (under any
  // of the above, never the other way round).
  mutable ControllerStats stats_;
  GpuUsageBoard gpu_usage_;  // its own lock

  // Job ids, reserved from the store in blocks (ctld/job_ids.h: a lock of its own, taken alone).
  // An id is shown to no one before its job is stored (the submission's answer follows the
  // save), so that Recover's restart of the numbering reuses none.
  JobIds ids_;
};

}  // namespace muster
