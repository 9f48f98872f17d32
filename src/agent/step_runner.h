// The tasks of job steps on one node (srun's steps, POST /v1/step on the agent): launches each
// task as the job's user, inside the job's cgroup when there is one, with its stdout and stderr
// on pipes; streams that output to srun's I/O address and reports every task's exit there
// (net/step_io.h); reaps the tasks; ends what a task left behind when the step ends. One pump
// thread per running step. Thread-safe; the agent calls it under its own lock (the runner calls
// back into the agent only through OnEndedWithoutSrun, from a pump thread holding no lock).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/status.h"
#include "model/job_record.h"
#include "net/step_io.h"

namespace muster {

struct StepTask {
  int procid = 0;                 // SLURM_PROCID
  int localid = 0;                // SLURM_LOCALID
  std::vector<std::string> argv;  // its own command (srun --multi-prog); empty = the step's
};

// What srun sends to each node of the step, plus what the agent fills in.
struct StepLaunch {
  // From srun.
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
  // srun --pty: task 0 runs on a new pseudo-terminal (its stdin, stdout and stderr, and its
  // controlling terminal), of this size when given; what it writes comes back as OUT frames.
  bool pty = false;
  int pty_rows = 0, pty_cols = 0;
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
  // From the agent.
  JobRecord job;  // the agent's record of the job (never srun's word)
  std::string node_name;
  std::string cluster_name;
  std::string cgroup_procs_file;  // "" = no cgroup
  bool allow_root = false;
  bool devices_constrained = false;  // the job's cgroup hides the node's other GPUs (job_env.h)
  bool step_cgroup = false;          // cgroup_procs_file is the step's own, showing only `gpus`
  std::vector<std::string> mig_uuids;  // per GPU index of the node (job_env.h), empty without MIG
  std::string spool_marker;       // "MUSTER_SPOOL=<dir>" added to every task's environment
  std::string run_marker;         // "MUSTER_RUN=<job>.<run>" too (shepherd.h), "" for srun -Z
};

// Parses and checks the body of POST /v1/step (the "from srun" fields).
StatusOr<StepLaunch> StepLaunchFromJson(const std::string& body);

// The end of Slurm's ending lines, at `now_s` (seconds since the epoch, local time) for `why`
// ("cancel", "timeout", "preempt"): " CANCELLED AT 2026-12-03T10:00:00[ DUE TO ...] ***\n".
std::string EndingLine(int64_t now_s, const std::string& why);

class StepRunner {
 public:
  StepRunner() = default;
  ~StepRunner();
  StepRunner(const StepRunner&) = delete;
  StepRunner& operator=(const StepRunner&) = delete;

  // Starts the step's thread, which connects to srun's I/O address as the job's user (at most
  // 5 s), launches the tasks and pumps their I/O; returns at once. A task that cannot be launched
  // is reported to srun (an ERR line, then EXIT with code 2 for a missing program, 13 for a
  // permission error, else 1); an srun that cannot be reached is told of nothing, and the step
  // ends as one whose srun went away (OnEndedWithoutSrun). Fails only when the step already runs
  // here or the runner is shutting down.
  Status Start(const StepLaunch& launch);
  // Sends `sig` to every task (process group) of the step; step_id < 0: of every step of the job.
  void Signal(int64_t job_id, int step_id, int sig);
  // Tells srun of every step of the job running here (a NOTE frame, before the exits) that it
  // ends: "musterd: error: *** STEP <job>.<step> ON <node><ending>", `ending` being
  // " CANCELLED AT <time>[ DUE TO ...] ***\n". Returns once srun has acknowledged printing it
  // (an ACK frame; at most 2 s, or at once when srun is gone): the caller is about to end the
  // job's processes, srun among them.
  void NotifyEnding(int64_t job_id, const std::string& node, const std::string& ending);
  // How many steps of the job still run here.
  int Running(int64_t job_id) const;
  // Whether that step of the job still runs here.
  bool Runs(int64_t job_id, int step_id) const;
  // Kills every task, waits for the pump threads. Start fails afterwards.
  void Shutdown();
  // Called (from the step's pump thread, no lock held) when a step ended after its srun went away:
  // nobody else will tell the controller. Set before the first Start.
  void OnEndedWithoutSrun(std::function<void(int64_t job_id, int step_id)> handler) { orphan_handler_ = std::move(handler); }

 private:
  struct Task {
    StepTask id;
    pid_t pid = -1;          // -1: never started
    int out = -1, err = -1;  // read ends of its pipes (out: the terminal's master with --pty), -1 once closed
    int in = -1;             // write end of its stdin (a pipe, or the terminal), -1 when not from srun or closed
    std::string in_buf;      // from srun, not yet taken by the task
    bool in_eof = false;     // srun's stdin ended: close `in` once in_buf is written
    bool pty = false;
    bool reaped = false;
    int64_t reaped_ms = 0;
    bool reported = false;  // EXIT sent
    int exit_code = 0, signal = 0;
    bool core = false;
  };
  struct Step {
    int64_t job_id = 0;
    int step_id = 0;
    int io = -1;              // (under mu_ until the tasks are launched) srun's I/O stream
    bool launched = false;    // (under mu_) its tasks were started
    std::vector<int> pending_signals;  // (under mu_) signals that came before they were
    std::vector<Task> tasks;  // pids are read by Signal under mu_; the rest belongs to the pump
    std::string notice;       // (under mu_) for srun (NotifyEnding); emptied once the pump has written it
    int notes_unacked = 0;    // (under mu_) NOTE frames written that srun has not acknowledged yet
    std::string node_name;
    int64_t deadline_ms = 0;  // srun -t: when its time is up (steady clock), 0 = never
    int64_t kill_wait_ms = 30000;
    std::thread thread;
    std::atomic<bool> done{false};
  };
  // The step's thread: reaches srun, starts the tasks, then pumps (Pump) until they are reported.
  void Run(Step* step, const StepLaunch& launch);
  void Pump(Step* step);
  // Takes srun's frames (stdin bytes, EOF, terminal size) off the I/O stream; false when srun
  // closed it or sent something malformed.
  bool ReadFromSrun(Step* step, StepIoDecoder* decoder);
  void JoinFinished();  // joins and forgets the steps whose pump ended

  mutable std::mutex mu_;
  std::condition_variable notice_cv_;  // a pump wrote its notice
  std::map<std::pair<int64_t, int>, std::unique_ptr<Step>> steps_;
  bool shutdown_ = false;
  std::function<void(int64_t, int)> orphan_handler_;
};

}  // namespace muster
