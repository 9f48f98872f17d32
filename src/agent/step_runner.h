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
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"
#include "wire/agent.h"
#include "model/job_record.h"
#include "net/step_io.h"

namespace muster {

// What srun sends to each node of the step (wire/agent.h's StepLaunchRequest), plus what the agent
// fills in.
struct StepLaunch : StepLaunchRequest {
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
  // What a step's pump keeps from one round to the next.
  struct PumpState {
    StepIoDecoder from_srun;
    std::vector<char> buf = std::vector<char>(64 * 1024);
    bool io_ok = true;            // srun's stream still works
    bool killed = false;          // the tasks were sent SIGKILL
    int64_t timeout_kill_ms = 0;  // srun -t ran out: SIGKILL at this time
  };
  // The step's thread: reaches srun, starts the tasks, then pumps (Pump) until they are reported.
  void Run(Step* step, const StepLaunch& launch);
  // Starts the step's tasks; one that cannot be started is reported to srun (*io_ok: whether
  // srun's stream still works).
  std::vector<Task> LaunchTasks(Step* step, const StepLaunch& launch, bool* io_ok);
  void Pump(Step* step);
  // Pump's rounds. MoveIo waits (at most 20 ms) for the tasks' output, their stdin and srun's
  // frames, and moves what is ready: srun's input to the tasks that take it (MoveInput, by task
  // index), their output to srun (MoveOutput, by task index and whether stderr).
  void MoveIo(Step* step, PumpState* p);
  void MoveInput(Step* step, const std::vector<size_t>& ready);
  void MoveOutput(Step* step, const std::vector<std::pair<size_t, bool>>& ready, PumpState* p);
  // Takes mu_ for srun -t's deadline (SIGTERM, SIGKILL after KillWait), the tasks that ended, SIGKILL
  // when srun is gone. Returns the notice for srun, a copy (s->notice empties once it is written:
  // NotifyEnding waits for that), which SendNotice writes.
  std::string Supervise(Step* step, int64_t now, PumpState* p);
  void SendNotice(Step* step, const std::string& notice, PumpState* p);
  // Reports the exits of the tasks reaped (after kOutputGraceMs with their output still open);
  // true once every task is reported.
  bool ReportExits(Step* step, int64_t now, PumpState* p);
  // Ends what the tasks left behind, closes srun's stream; tells of a step whose srun went away.
  void EndStep(Step* step, bool io_ok);
  // Takes srun's frames (stdin bytes, EOF, terminal size) off the I/O stream; false when srun
  // closed it or sent something malformed.
  bool ReadFromSrun(Step* step, StepIoDecoder* decoder);
  void JoinFinished();  // joins and forgets the steps whose pump ended

  mutable Mutex mu_{"step runner"};
  std::condition_variable notice_cv_;  // a pump wrote its notice
  std::map<std::pair<int64_t, int>, std::unique_ptr<Step>> steps_ GUARDED_BY(mu_);
  bool shutdown_ GUARDED_BY(mu_) = false;
  std::function<void(int64_t, int)> orphan_handler_;
};

}  // namespace muster
