// Agent: the node agent's logic (musterd). Registers its node with the controller and heartbeats;
// holds each run of a job here under a shepherd (agent/shepherd.h), which starts the batch script
// as the submitting user inside a cgroup with only the allocated GPUs visible and outlives the
// agent; runs the tasks of srun's steps (step_runner.h); delivers signals (cancel, time limit:
// SIGTERM then SIGKILL after the wait); reports exits (with every registration and heartbeat, and
// alone, until the controller acknowledges them, so none is lost while it restarts); mints tokens
// for local users.
//
// Runs and leases: every answer of the controller grants the node a lease (its length), written to
// <spool>/lease; the shepherds end their runs when it runs out, and the controller gives up a
// silent node's jobs only after the lease and a margin. While no controller answers, the lease is
// renewed on the peers' word when enough of them lost it too (a controller outage, not this node
// cut off: outage_witness.h, model/outage.h). An agent that restarts adopts the runs
// whose shepherds still hold them and reports the ends they recorded meanwhile; it kills only what
// no shepherd holds, and what the controller says it no longer runs here.
//
// Serves its own HTTP API on a Unix socket and, with a listen port, on TCP, where callers (the
// controller, srun) present tokens verified with the cluster key: launch, signal and step
// requests without a valid token get 401, those of a caller without the right 403. Thread-safe.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "agent/cgroup.h"
#include "agent/controller_link.h"
#include "agent/gpu_health.h"
#include "agent/health_check.h"
#include "agent/mps.h"
#include "agent/node_metrics.h"
#include "agent/outage_witness.h"
#include "agent/shepherd.h"
#include "agent/step_runner.h"
#include "base/clock.h"
#include "base/mutex.h"
#include "model/job_record.h"
#include "net/http.h"
#include "net/token.h"
#include "wire/agent.h"
#include "wire/jobs.h"

namespace muster {

// A run's record in its directory (run_dir/job.json), what a restarted agent needs to adopt it.
struct SavedRun {
  using WireRecord = void;
  std::optional<FullJob> job;  // none: a run whose start was cut short
  bool batch = false;
  std::string cgroup;
  std::string log_path;
  std::vector<int> cpus;
  int mps_gpu = -1;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("job", s.job);
    v("batch", s.batch);
    v("cgroup", s.cgroup);
    v("log_path", s.log_path);
    v("cpus", s.cpus);
    v("mps_gpu", s.mps_gpu);
  }
};

struct AgentOptions {
  Node node;                       // this node: name, CPUs, memory, features, GPUs and links
  std::string cluster_name;
  // The controllers, in order: "unix:/path/ctld.sock" or "host:port" each. With several
  // (controller.hosts), the agent follows the leader (agent/controller_link.h).
  std::vector<std::string> ctld_addresses;
  // How long a call to a controller may take before the link moves on to the next address. With
  // several controllers musterd sets it to the lease: a leader that cannot answer within its lease
  // is as good as gone, and the agent must reach the standby (ctld/agent_reach.h) before its node
  // is given up.
  int ctld_timeout_ms = 10000;
  std::string ctld_token;          // for a TCP controller address when `tokens` is nullptr
                                   // (with `tokens`, the agent mints its own, renewed in time)
  std::string socket_path;         // where this agent listens
  std::string listen_host = "127.0.0.1";  // TCP listener (agent.listen), with listen_port >= 0
  int listen_port = -1;            // -1: Unix socket only; 0: any free port
  std::string tls_cert_file, tls_key_file;  // both set: the TCP listener speaks TLS (muster.yaml's tls)
  std::string advertise_host;      // registered as <advertise_host>:<bound port> when on TCP
  std::string spool_dir;           // marks the jobs' processes (MUSTER_SPOOL), finds strays
  std::string script_dir;          // batch scripts of running jobs, in job<id>/ ("" = spool_dir)
  int64_t heartbeat_interval_s = 5;
  bool allow_root_jobs = false;
  const TokenAuthority* tokens = nullptr;  // mints tokens for local users (nullptr: no /v1/token) and
                                           // verifies TCP callers' (required with a listen port)
  std::unique_ptr<Cgroup> cgroup;  // nullptr: no cgroups (said in the log)
  // The /dev/nvidia<minor> (and MIG capability devices) of each GPU index of `node` (NVML's): a
  // job's cgroup then lets it open of the node's NVIDIA devices only its own (and the shared
  // control devices). Empty (fake GPUs): device access is left alone.
  GpuDeviceTable gpu_devices;
  // With NVML GPUs: the library, each GPU index's physical NVML index, and how to watch their
  // health (gpu_health.h); empty nvml_index: not watched.
  std::string nvml_library;
  std::vector<int> nvml_index;
  GpuHealthConfig gpu_health;
  // A site's health-check program (health_check.h), run every health_check_interval_s; "" = none.
  std::string health_check_program;
  std::string mps_control;  // nvidia-cuda-mps-control ("" = no MPS: GPU shares are counted only)
  int64_t health_check_interval_s = 60;
  std::vector<uint32_t> trusted_uids;  // who may call /v1/launch and /v1/signal (the controller's uid)
  bool end_jobs_on_stop = false;   // Stop() kills the jobs (a local cluster's `muster down`)
  std::string shepherd_exe;        // muster-shepherd (or musterd), run as `--spawner`: forks the runs' shepherds
  int64_t kill_wait_s = 30;        // a shepherd's SIGTERM-to-SIGKILL wait when its lease runs out
  // A configless agent (musterd --conf-server): the hash of the configuration it runs with, and
  // what its controller thread calls when an answer carries another (NodeOrders::config_hash).
  // "" (a local muster.yaml): the controller's hash is ignored.
  std::string config_hash;
  std::function<void(const std::string& controller_hash)> on_config_changed;
};

class Agent {
 public:
  Agent(AgentOptions options, const Clock* clock);
  ~Agent();

  // Starts the HTTP server and the background threads; registration is retried until it works.
  Status Start();
  void Stop();

  HttpResponse Handle(const HttpRequest& request);
  std::vector<int64_t> RunningJobs() const;
  // "unix:<socket_path>", or "<advertise_host>:<port>" when listening on TCP (after Start()).
  std::string Address() const;

 private:
  struct Running {
    JobRecord job;
    bool batch = false;            // the batch script runs here (its shepherd's child)
    std::optional<ShepherdHandle> shepherd;  // holds the run here (always, once launched)
    std::string run_dir;           // <spool>/runs/<job>.<restart count>
    std::vector<int> cpus;         // pinned to these (AssignCpus), kept across the agent's restarts
    std::string cgroup;            // "" = none
    int64_t kill_at_ms = 0;        // SIGKILL escalation deadline
    bool suspended = false;        // preempted with SUSPEND: stopped, its CPUs given back
    bool pinned = false;           // (while suspended) it was pinned to CPUs before
    std::string log_path;          // where the script's stderr goes (Slurm's "*** JOB ... ***" line)
    bool ending_logged = false;
    // Step cgroups made below the job's (srun with a part of the job's GPUs), by step id: true
    // once the step was started (or failed to), so that a step that no longer runs can lose it.
    std::map<int, bool> step_cgroups;
    int mps_gpu = -1;              // the shared GPU whose MPS daemon this run holds (mps.h)
  };
  // The routes of the agent's HTTP API, with the largest body each takes (the server's limits).
  void AddRoutes();
  HttpResponse Launch(const HttpRequest& request);
  HttpResponse Signal(const HttpRequest& request);
  HttpResponse Token(const HttpRequest& request);
  HttpResponse Step(const HttpRequest& request);        // srun: run a step's tasks here
  HttpResponse SignalStep(const HttpRequest& request);  // srun: signal them
  // GET /metrics: the node's GPUs under dcgm-exporter's names with the jobs holding them, and the
  // jobs' cgroup use (node_metrics.h). Reads the runs under mu_, everything else outside it.
  HttpResponse Metrics(const HttpRequest& request);
  // The runs here as /metrics labels them (takes mu_).
  std::vector<JobOnNode> JobsOnNode() const;
  // What the heartbeat says of the GPUs' utilization (takes mu_); none when nothing was read.
  std::optional<std::vector<GpuUtilization>> GpuUsageNow() const;
  // Starts the run's shepherd (with the batch script when `r.batch`), under mu_.
  // `order_us`: when the launch order came (WallMicros), for the log line that says how long it took.
  Status StartRun(Running& r, int64_t order_us) REQUIRES(mu_);
  // StartRun's batch part, under mu_: the script (WriteBatchScript), how the shepherd starts it
  // (BatchLaunch, into spec.launch), the shares of shared GPUs (AcquireGpuShares), the cgroup.
  Status PrepareBatch(Running& r, ShepherdSpec& spec) REQUIRES(mu_);
  Status WriteBatchScript(const JobRecord& job, const std::string& dir, const std::string& script) const;
  LaunchSpec BatchLaunch(const JobRecord& job, const std::string& script, bool devices_constrained,
                         const std::string& marker) const;
  Status AcquireGpuShares(Running& r, bool devices_constrained, LaunchSpec& launch) REQUIRES(mu_);
  std::string RunDir(int64_t job_id, int restart_count) const;
  // Records what a restarted agent needs to adopt the run (run_dir/job.json).
  void SaveRunLocked(const Running& r) const REQUIRES(mu_);
  // Start's phases: the spool (made when missing) and what it keeps (the leader token, the outage
  // witness); the runs of an earlier incarnation (ReclaimEarlierRuns); the HTTP server and the
  // link to the controller; the GPU health watcher and the health-check program's thread.
  Status LoadSpool();
  Status ReclaimEarlierRuns();
  Status StartServing();
  void WatchHealth();
  // At start: adopts the runs whose shepherds still hold them, queues the ends recorded while the
  // agent was away, and cleans up after runs nobody holds. Returns the runs kept (their markers).
  std::set<std::string> AdoptRuns();
  // Ends the run's processes here and forgets it (its shepherd goes on the list to reap).
  void DropRunLocked(std::map<int64_t, Running>::iterator it) REQUIRES(mu_);
  // What a finished run leaves: its cgroup, CPUs, script and (unless kept for its unacknowledged
  // exit report) its run directory.
  void CleanUpRunLocked(Running& r, bool keep_run_dir = false) REQUIRES(mu_);
  // The exit report (POST /v1/agent/exit) of a run that ended so (oom read from its cgroup).
  ExitNotice ExitReportOf(const Running& r, const ShepherdExit& end) const;
  std::string ScriptDir() const { return opt_.script_dir.empty() ? opt_.spool_dir : opt_.script_dir; }
  // The runs' directories (RunDir), beside the batch scripts: what they record dies with the
  // machine's processes, so a tmpfs script_dir spares the disk their files, fsyncs and inodes.
  std::string RunsDir() const { return ScriptDir() + "/runs"; }
  Status EnsureCgroup(Running& r) REQUIRES(mu_);  // the job's cgroup on this node
  // Under mu_: the cgroup step `launch` runs in (its procs file(s) in `launch`): the job's, or one
  // of its own below it that shows only its GPUs, when the step has some of the job's GPUs here.
  Status PlaceStep(Running& r, StepLaunch& launch) REQUIRES(mu_);
  // Under mu_: stops (`stop`) or continues every process of the job here (freezer, else
  // SIGSTOP/SIGCONT), giving back its CPUs while stopped and taking some again after.
  void SuspendLocked(Running& r, bool stop) REQUIRES(mu_);
  bool Trusted(const Caller& caller) const;
  // Slurm's line at the end of a cancelled, timed-out or preempted job's output: "musterd: error:
  // *** JOB 7 ON n1 CANCELLED AT 2026-12-03T11:04:24 DUE TO TIME LIMIT ***". Appended only to a
  // regular file the job's user owns, opened as that user without following any symlink.
  // " CANCELLED AT <now>[ DUE TO TIME LIMIT|PREEMPTION] ***\n" for why = cancel, timeout, preempt.
  std::string EndingText(const std::string& why) const;
  // Slurm's last line of a cancelled job's output: "musterd: error: *** JOB N ON node" + ending.
  void LogEnding(const Running& r, const std::string& ending) const;
  std::vector<int> AssignCpus(int64_t job_id, int count) REQUIRES(mu_);
  void ReleaseCpus(int64_t job_id) REQUIRES(mu_);
  void ReaperLoop();
  void WakeReaper();                                       // a job to watch, or a deadline, changed
  void ControllerLoop();
  // POSTs to the controller; its answer's body, or why not.
  StatusOr<std::string> CallController(const std::string& target, const std::string& body);
  Status Register();
  // Under mu_: what this node runs ({"job_id", "restart_count"}) and the exits not yet
  // acknowledged (their bodies also into `exits`), as registration and heartbeats carry them.
  NodeReport NodeReportLocked(std::vector<std::string>* exits) const REQUIRES(mu_);
  // Sends a registration or heartbeat; on success the exits it carried leave the outbox, and the
  // runs the controller says to stop are stopped.
  Status ReportToController(const std::string& target, const std::string& body, const std::vector<std::string>& exits);
  // Logs the GPU health when it changed since last logged (controller thread).
  void LogGpuHealth();
  // Under mu_: a signal for the run at `it` (see POST /v1/signal); may erase it.
  void SignalRunLocked(std::map<int64_t, Running>::iterator it, int sig, int64_t kill_after, const std::string& why)
      REQUIRES(mu_);

  AgentOptions opt_;
  const Clock* clock_;
  Router router_;  // built once, in the constructor (AddRoutes)
  std::unique_ptr<HttpServer> server_;
  std::unique_ptr<ControllerLink> ctld_;  // used by the controller thread only
  int64_t ctld_switches_ = 0;             // ctld_->switches() when last looked (controller thread)
  std::unique_ptr<OwnToken> own_token_;  // our credential for a TCP controller
  mutable Mutex mu_{"agent"};
  std::condition_variable cv_;
  std::map<int64_t, Running> jobs_ GUARDED_BY(mu_);
  std::map<int64_t, uint32_t> no_allocation_ GUARDED_BY(mu_);  // srun -Z steps' job ids here, and whose they are
  std::unique_ptr<ShepherdSpawner> spawner_;  // forks the runs' shepherds (made in Start)
  std::vector<ShepherdHandle> ending_ GUARDED_BY(mu_);  // shepherds told to end, reaped by the reaper once gone
  std::vector<int64_t> cpu_owner_ GUARDED_BY(mu_);      // job id per CPU (0 = free), when pinning
  // Reports not yet acknowledged: job exits (/v1/agent/exit) and the ends of steps whose srun is
  // gone (/v1/jobs/{id}/steps/{step}/done). An exit's run directory (holding it as report.json)
  // stays until the controller has it, so that an agent killed meanwhile sends it again.
  struct Report {
    std::string path;
    std::string body;
    std::string run_dir;  // "" for a step's end
  };
  std::deque<Report> outbox_ GUARDED_BY(mu_);
  // Under mu_: a run's exit, kept in its run directory until acknowledged (Acknowledged).
  void QueueExitLocked(const std::string& run_dir, const std::string& body) REQUIRES(mu_);
  void AcknowledgedLocked(const Report& r) REQUIRES(mu_);
  std::atomic<bool> registered_{false};  // with the controller now (GET /v1/ping says)
  // The highest lease token of a controller seen in orders and answers (controller.hosts; kept in
  // the spool's leader_token across restarts): an order carrying a lower one comes from a deposed
  // leader and is refused.
  std::atomic<int64_t> leader_token_{0};
  // True when `token` is not below the highest seen (which it then raises, and keeps); else
  // false with *why saying so.
  bool FromTheLeader(int64_t token, std::string* why);
  // The controller did not answer: registered_ is cleared, and the first time a warning is logged.
  void LostController(const Status& why);
  int64_t start_time_ = 0;  // when this agent first registered (SlurmdStartTime)
  std::atomic<bool> stop_{false};
  int reaper_wake_fd_ = -1;             // eventfd: WakeReaper() -> ReaperLoop()
  std::thread reaper_;
  std::thread controller_thread_;
  std::unique_ptr<GpuHealthWatcher> gpu_health_;  // nullptr: GPUs not watched
  std::unique_ptr<GpuReader> gpu_reader_;         // the GPUs' readings for /metrics (its own lock)
  std::unique_ptr<MpsManager> mps_ PT_GUARDED_BY(mu_);  // shared GPUs' MPS daemons
  std::atomic<bool> beat_now_{false};             // a heartbeat is due at once (GPU health changed)
  std::string reported_health_;                   // the GPU health last logged (controller thread)
  std::thread health_check_thread_;               // runs the health-check program
  // The lease and the peers' word on a controller outage (outage_witness.h): renewed by the
  // controller's answers, and by the peers while no controller answers any of them.
  std::unique_ptr<OutageWitness> witness_;
  std::thread witness_thread_;
  // GET /v1/ping of a peer's agent: how long since a controller answered it.
  static StatusOr<int64_t> AskPeer(const PeerAgent& peer);
  std::optional<HealthCheckResult> node_health_ GUARDED_BY(mu_);  // its last verdict; none before the first
  StepRunner steps_;                   // tasks of srun's steps (its own lock; called under mu_)
};

}  // namespace muster
