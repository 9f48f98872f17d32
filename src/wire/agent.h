// What the node agents and the controller say to each other (docs/api.md, "Agents"): the reports
// of a node (registration, heartbeat, a run's exit) and the controller's orders in answer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "model/job_record.h"
#include "model/node_report.h"
#include "wire/codec.h"
#include "wire/records.h"

namespace muster {

// The keys of the node reports and orders (model/node_report.h).
namespace json {

template <>
struct External<ExitReport> : std::true_type {
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("exit_code", s.exit_code);
    v("signal", s.signal);
    v("oom", s.oom);
    v("note", s.note);
    v("restart_count", s.restart_count);
    v("lease_expired", s.lease_expired);
  }
};

template <>
struct External<JobRun> : std::true_type {
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("job_id", s.job_id);
    v("restart_count", s.restart_count);
  }
};

template <>
struct External<RunExit> : std::true_type {
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("job_id", s.job_id);
    External<ExitReport>::Fields(v, s.report);
  }
};

template <>
struct External<NodeHealth> : std::true_type {
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("ok", s.ok);
    v("reason", s.reason);
  }
};

template <>
struct External<GpuUtilization> : std::true_type {
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("index", s.index);
    v("util_pct", s.util_pct);
    v("fb_used_mib", s.fb_used_mib);
  }
};

template <>
struct External<NodeReport> : std::true_type {
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("running", s.running);
    v("exits", s.exits);
    v("gpu_health", s.gpu_faults);
    v("node_health", s.node_health);
    v("gpu_usage", s.gpu_usage);
  }
};

template <>
struct External<PeerAgent> : std::true_type {
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("node", s.node);
    v("address", s.address);
  }
};

template <>
struct External<WitnessView> : std::true_type {
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("generation", s.generation);
    v("peers", s.peers);
    v("ask", s.ask);
    v("sampled", s.sampled);
    v("threshold_pct", s.threshold_pct);
    v("claim_ms", s.claim_ms);
  }
};

template <>
struct External<NodeOrders> : std::true_type {
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("lease_s", s.lease_s);
    v("stop", s.stop);
    v("resume_gpus", s.resume_gpus);
    v("cluster", s.cluster);
    v("leader_token", s.leader_token);
    v("config_hash", s.config_hash);
    v("witness", s.witness);
  }
};

}  // namespace json

// POST /v1/agent/heartbeat: the node's name and its report, and the generation of the peers'
// list it holds (WitnessView): an answer carries the list again when the controller's differs.
struct Heartbeat {
  using WireRecord = void;
  std::string node;
  NodeReport report;
  int64_t witness_generation = 0;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("node", s.node);
    json::External<NodeReport>::Fields(v, s.report);
    v("witness_generation", s.witness_generation);
  }
};

// POST /v1/agent/exit: the node's name and one run's end.
struct ExitNotice {
  using WireRecord = void;
  std::string node;
  RunExit exit;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("node", s.node);
    json::External<RunExit>::Fields(v, s.exit);
  }
};

// GET /v1/config/files (admins: the agents of configless nodes, musterd --conf-server): the text
// of muster.yaml as the controller loaded it and of its cluster file (with a slurm.conf, the
// topology.conf and gres.conf it reads beside it), and a hash over them all.
struct ConfigFile {
  using WireRecord = void;
  std::string name;  // a base name ("cluster.yaml", "slurm.conf", "gres.conf")
  std::string text;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("name", s.name);
    v("text", s.text);
  }
  friend bool operator==(const ConfigFile&, const ConfigFile&) = default;
};
struct ServedConfig {
  using WireRecord = void;
  std::string hash;                // SHA-256, hex, over muster.yaml's text and each file's name and text
  std::string muster_yaml;         // muster.yaml's text
  std::vector<ConfigFile> files;   // the cluster file first (muster.yaml's cluster_file), then its companions
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("hash", s.hash);
    v("muster_yaml", s.muster_yaml);
    v("files", s.files);
  }
  friend bool operator==(const ServedConfig&, const ServedConfig&) = default;
};

// POST /v1/agent/register: the node's record (its own codec, model/record_json.h) beside the
// report's keys, read in one decode.
struct Registration {
  using WireRecord = void;
  std::optional<NodeRecord> node;  // required: "missing 'node'"
  NodeReport report;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("node", s.node);
    json::External<NodeReport>::Fields(v, s.report);
  }
};

// POST /v1/launch (the controller to an agent): start this run of the job, given in full (its
// script and environment too). Past `not_after_ms` (ms since the epoch; 0: no limit) the
// controller has given up on the launch and requeued the job: the agent must not start it.
struct LaunchOrder {
  using WireRecord = void;
  std::optional<FullJob> job;  // required: "missing 'job'"
  int64_t not_after_ms = 0;
  int64_t leader_token = 0;  // the sending controller's lease token (controller.hosts; 0: none)
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("job", s.job);
    v("not_after_ms", s.not_after_ms);
    v("leader_token", s.leader_token);
  }
};

// An agent's refusal of a launch: whose fault it is, "job" (a path the job named: 422) or "node".
struct LaunchRefusal {
  using WireRecord = void;
  std::string error;
  std::string fault;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("error", s.error);
    v("fault", s.fault);
  }
};

// POST /v1/signal (the controller to an agent): signal a run's processes; `kill_after` > 0:
// SIGKILL follows after that many seconds. `why` ("cancel", "timeout", "preempt", "signal",
// "signal-batch", "signal-steps") decides Slurm's ending line and what is signalled. A
// restart_count of -1 is any run of the job.
struct SignalOrder {
  using WireRecord = void;
  int64_t job_id = 0;
  int restart_count = -1;
  int signal = 0;
  int64_t kill_after = 0;
  std::string why;
  int64_t leader_token = 0;  // the sending controller's lease token (controller.hosts; 0: none)
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("job_id", s.job_id);
    v("restart_count", s.restart_count);
    v("signal", s.signal);
    v("kill_after", s.kill_after);
    v("why", s.why);
    v("leader_token", s.leader_token);
  }
};

// POST /v1/signal-step (srun to the agents of its step): signal the step's tasks there.
struct StepSignal {
  using WireRecord = void;
  int64_t job_id = 0;
  int step_id = -1;
  int signal = 0;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("job_id", s.job_id);
    v("step_id", s.step_id);
    v("signal", s.signal);
  }
};

// One task of a step on a node.
struct StepTask {
  using WireRecord = void;
  int procid = 0;                 // SLURM_PROCID
  int localid = 0;                // SLURM_LOCALID
  std::vector<std::string> argv;  // its own command (srun --multi-prog); empty = the step's
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("procid", s.procid);
    v("localid", s.localid);
    v("argv", s.argv);
  }
  friend bool operator==(const StepTask&, const StepTask&) = default;
};

// srun --pty's terminal size.
struct StepPty {
  using WireRecord = void;
  int rows = 0, cols = 0;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("rows", s.rows);
    v("cols", s.cols);
  }
};

// POST /v1/step (srun to each node of its step): what the node runs. The agent adds what it knows
// (agent/step_runner.h's StepLaunch) and checks the rest (StepLaunchFromJson).
struct StepLaunchRequest {
  using WireRecord = void;
  int64_t job_id = 0;
  int step_id = 0;
  int restart_count = 0;                // which run of the job srun belongs to
  std::vector<StepTask> tasks;          // the tasks this node runs
  int ntasks = 0;                       // of the whole step
  std::vector<std::string> step_nodes;  // every node of the step
  std::vector<std::string> argv;
  std::vector<std::string> env;  // srun's environment (--export=ALL); Slurm's variables replace its own
  std::string cwd;               // "" = the job's working directory
  std::string io_address;        // "unix:/path", "/path" or "host:port"
  std::string io_key;            // sent back in the HELLO frame (letters and digits)
  // srun -o/-e/-i: "" = the stream goes to/comes from srun (IN frames); "none"; a task id (only
  // that task's stream goes to srun, the others' to /dev/null); else a file pattern, expanded
  // per task (%t %n %N %j %J %s %u %x %A %a) and opened as the user, relative to cwd. A file
  // named per task or node is truncated by its first task on the node; one the whole step shares
  // is appended to (srun truncates it before the launch). error "" = as output.
  std::string output, error, input;
  std::string task_prolog, task_epilog;  // absolute paths; run before/after each task, as the user
  int cpus_per_task = 0;                 // srun -c (0: not given): the tasks' SLURM_CPUS_PER_TASK
  // srun --pty: task 0 runs on a new pseudo-terminal (its stdin, stdout and stderr, and its
  // controlling terminal), of this size when given; what it writes comes back as OUT frames.
  std::optional<StepPty> pty;
  // The step's GPUs on this node (node indexes, the controller's choice; the agent checks they
  // are the job's); nullopt = the job's. With gpu_bind_per_task > 0, task with local id L sees
  // only the L-th group of that many (srun --gpus-per-task, --gpu-bind=per_task:N).
  std::optional<std::vector<int>> gpus;
  int gpu_bind_per_task = 0;
  // srun --gpu-bind=map_gpu/mask_gpu, single:N (job_env.h).
  std::vector<std::vector<int>> gpu_bind_map;
  int gpu_bind_single = 0;
  // srun -Z/--no-allocate: no job of the controller's; job_id is srun's own (Slurm's range
  // 0xffff0000..0xfffffffd), the tasks run as the caller, who must be trusted (root or the
  // cluster's own user, as Slurm allows root and SlurmUser), without a cgroup.
  bool no_allocate = false;
  // srun -t: the step's time limit (0 = none). Past it its tasks get SIGTERM, SIGKILL
  // kill_wait_s later (the cluster's KillWait), and srun Slurm's "*** STEP ... CANCELLED AT ...
  // DUE TO TIME LIMIT ***" line.
  int64_t time_limit_s = 0;
  int64_t kill_wait_s = 30;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("job_id", s.job_id);
    v("step_id", s.step_id);
    v("restart_count", s.restart_count);
    v("tasks", s.tasks);
    v("ntasks", s.ntasks);
    v("step_nodes", s.step_nodes);
    v("argv", s.argv);
    v("env", s.env);
    v("cwd", s.cwd);
    v("io", s.io_address);
    v("io_key", s.io_key);
    v("output", s.output);
    v("error", s.error);
    v("input", s.input);
    v("task_prolog", s.task_prolog);
    v("task_epilog", s.task_epilog);
    v("cpus_per_task", s.cpus_per_task);
    v("pty", s.pty);
    v("gpus", s.gpus);
    v("gpu_bind_per_task", s.gpu_bind_per_task);
    v("gpu_bind_map", s.gpu_bind_map);
    v("gpu_bind_single", s.gpu_bind_single);
    v("no_allocate", s.no_allocate);
    v("time_limit_s", s.time_limit_s);
    v("kill_wait_s", s.kill_wait_s);
  }
};

// GET /v1/ping on an agent.
struct AgentPing {
  using WireRecord = void;
  std::string node;
  std::vector<int64_t> running;
  bool registered = false;
  // How long since a leading controller last answered this agent (-1: none since its spool was
  // made): its peers ask, to tell a controller outage from their own node cut off (model/outage.h).
  int64_t leader_heard_ms_ago = -1;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("node", s.node);
    v("running", s.running);
    v("registered", s.registered);
    v("leader_heard_ms_ago", s.leader_heard_ms_ago);
  }
};

// GET /v1/token on an agent (over its Unix socket): a token for the caller, and until when it holds.
struct TokenAnswer {
  using WireRecord = void;
  std::string token;
  int64_t expires = 0;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("token", s.token);
    v("expires", s.expires);
  }
};

namespace json {

// A GPU out of service, as a node reports it: {"index", "condition": "failed"|"needs_reset", "reason"}.
template <>
struct External<GpuFault> : std::true_type {
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("index", s.index);
    v("condition", Named{s.needs_reset, {{false, "failed"}, {true, "needs_reset"}}});
    v("reason", s.reason);
  }
};

}  // namespace json

namespace wire {

// A node report read and checked: GPU indexes within 0..4095, the faults sorted by index.
StatusOr<NodeReport> CheckedNodeReport(NodeReport report);

}  // namespace wire
}  // namespace muster
