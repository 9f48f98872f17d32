// The job shepherd: one process for each run of a job on a node, which outlives the agent, as
// Slurm's slurmstepd does. On the batch host it starts the batch script and is its parent; on
// every node it holds the run's lease: when the lease file the agent renews after each exchange
// with the controller runs out (the agent is dead, or cut off from the controller), it ends every
// process of the run (SIGTERM, SIGKILL kill_wait later), so that by the time the controller gives
// the job up and requeues it (its lease plus a margin later), nothing of it runs here any more.
// An agent that restarts finds its shepherds in its runs' directory (runs/<job>.<run>/ beside the
// batch scripts; an earlier version's in the spool), adopts the runs
// they hold and reads the ends they recorded while it was away.
//
// Files of a run directory (root's, 0700): spec.json (what to run, from the agent), shepherd
// ("<pid> <start time>", to tell it from a process that took its pid later), ctl (a FIFO the
// agent writes orders to: "signal <sig> group|leader|all", "end"), exit.json (the run's end,
// written last, atomically).
//
// The shepherd is a fork of the agent's spawner (agent/shepherd_spawner.h) running ShepherdMain.
// Thread-safety: the functions
// are independent; a ShepherdHandle belongs to one thread at a time.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "agent/shepherd_spawner.h"
#include "proc/launcher.h"
#include "base/status.h"

namespace muster {

// What a shepherd holds.
struct ShepherdSpec {
  int64_t job_id = 0;
  int restart_count = 0;
  bool batch = false;   // start `launch` (the batch script) and end with it
  LaunchSpec launch;
  std::string lease_file;  // "<epoch ms>\n": the run may go on until then; missing = no lease yet
  int64_t kill_wait_s = 30;
  // Where every process of the run is found when it must end: cgroup.procs files (':'-joined, as
  // Cgroup::ProcsFile), or without cgroups the environment entry every process of it carries.
  std::string procs_files;
  std::string marker;        // "MUSTER_RUN=<job>.<run>"
  std::string spool_marker;  // "MUSTER_SPOOL=<the agent's spool>": with `marker`, this agent's run alone
};

// How a run ended, as its shepherd recorded it.
struct ShepherdExit {
  bool exited = false;  // the batch script's exit (exit_code) or signal
  int exit_code = 0;
  int signal = 0;
  bool core_dumped = false;
  bool lease_expired = false;  // ended because the lease ran out
  bool ended = false;          // ended by the agent's "end" order (a run without a batch script)
};

// When a run's start went through its steps (wall clock, microseconds since the epoch), for the
// agent's log and bench/launch_budget.sh: the agent spawned the shepherd (its files written), the
// shepherd's main began, the shepherd began to start the batch script (Launch). 0: not known.
struct ShepherdTimes {
  int64_t spawn_us = 0;
  int64_t main_us = 0;
  int64_t fork_us = 0;
};

// The wall clock in microseconds since the epoch.
int64_t WallMicros();
// "launch order at 13:02:11.123456, then agent 0.41 ms, shepherd start 1.20 ms, shepherd 0.63 ms
// to the script's fork" (UTC; "?" for a step not known), from the order's arrival (`order_us`) and
// the start's times.
std::string StartTimesText(int64_t order_us, const ShepherdTimes& t);

// The entry "MUSTER_RUN=<job>.<run>" every process of a run carries.
std::string RunMarker(int64_t job_id, int restart_count);

// The shepherd process: runs the spec in `run_dir` until the run ends, then records its end.
// Returns the process's exit status.
int ShepherdMain(const std::string& run_dir);

// The agent's side of one shepherd.
class ShepherdHandle {
 public:
  // Makes `run_dir`, writes the spec and has `spawner` start the run's shepherd, in a session of
  // its own; for a batch run, returns once the script started, or with the launch's error (a job
  // fault is InvalidArgument, as Launch's).
  static StatusOr<ShepherdHandle> Start(ShepherdSpawner& spawner, const std::string& run_dir, const ShepherdSpec& spec);
  // The shepherd of `run_dir`, if it still runs (its recorded pid and start time match a live
  // process); NotFound otherwise.
  static StatusOr<ShepherdHandle> Adopt(const std::string& run_dir);

  ShepherdHandle(ShepherdHandle&& o) noexcept;
  ShepherdHandle& operator=(ShepherdHandle&& o) noexcept;
  ShepherdHandle(const ShepherdHandle&) = delete;
  ShepherdHandle& operator=(const ShepherdHandle&) = delete;
  ~ShepherdHandle();

  // Readable once the shepherd has exited (a pidfd).
  int fd() const { return pidfd_; }
  pid_t pid() const { return pid_; }
  pid_t script_pid() const { return script_pid_; }
  // How its start went (Start's handles; zeros for an adopted one).
  const ShepherdTimes& times() const { return times_; }
  // Orders; false when the shepherd is gone (the caller falls back on the cgroup).
  bool Signal(int sig, const std::string& target);  // target: "group", "leader" or "all"
  bool End();
  // After fd() became readable: its record (nullopt when it died without one). (Its spawner, or
  // for an adopted one whoever inherited it, reaps it.)
  std::optional<ShepherdExit> Finish();

 private:
  ShepherdHandle() = default;
  bool Order(const std::string& line);
  std::string dir_;
  pid_t pid_ = -1;
  pid_t script_pid_ = -1;
  ShepherdTimes times_;
  int pidfd_ = -1;
};

// Writes the run directory's spec.json, which its shepherd reads.
Status WriteShepherdSpec(const std::string& run_dir, const ShepherdSpec& spec);
// What the run directory's exit record says, if it has one.
std::optional<ShepherdExit> ReadShepherdExit(const std::string& run_dir);
// Writes `text` to `path` (fsynced) so that readers see all of it or nothing: a temporary file
// renamed over it.
Status WriteAtomically(const std::string& path, const std::string& text, mode_t mode);
// The lease file's "until" (epoch ms), 0 when it has none (its first line; agent/outage_witness.h
// writes when a controller last answered and the lease's length on the next two).
int64_t ReadLease(const std::string& lease_file);
// Writes "until" atomically.
Status WriteLease(const std::string& lease_file, int64_t until_ms);

}  // namespace muster
