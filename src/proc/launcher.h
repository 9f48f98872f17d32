// Starting and stopping job processes on a node: fork/exec as the job's user (uid, gid and
// supplementary groups), in its working directory, with exactly the environment given, stdout and
// stderr to files opened as that user, in a new session (so the whole tree can be signalled), and
// optionally inside a cgroup. Used by musterd for batch scripts and step tasks.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace muster {

struct LaunchSpec {
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string user;                 // for initgroups(); "" = only gid
  // The supplementary groups (gid among them), when the caller resolved them: the job's shepherd,
  // a fresh process, would otherwise load the NSS modules (nss_systemd, sssd) at every launch.
  // Empty: getgrouplist(user, gid) here.
  std::vector<uint32_t> groups;
  // chdir here (as the user). When that fails the job starts in /tmp instead and its stderr gets
  // Slurm's line "<log_name>: error: couldn't chdir to `<dir>': <why>: going to /tmp instead".
  std::string workdir;
  std::string log_name = "musterd";  // who speaks in the lines written into the job's output
  std::vector<std::string> argv;    // argv[0] is the program (absolute, or searched in PATH of env)
  std::vector<std::string> env;     // KEY=VALUE, the whole environment
  std::string stdin_path = "/dev/null";
  std::string stdout_path;          // opened O_APPEND|O_CREAT as the user, mode 0644 (umask applies)
  std::string stderr_path;          // "" = same file as stdout
  int stdin_fd = -1;                // >= 0: the child's stdin is this descriptor (a pipe or terminal), not stdin_path
  bool controlling_tty = false;     // stdin_fd is a terminal: make it the task's controlling terminal
  int stdout_fd = -1;               // >= 0: the child's stdout is this descriptor (a pipe), not stdout_path
  int stderr_fd = -1;               // >= 0: the child's stderr is this descriptor, not stderr_path
  std::string cgroup_procs_file;    // "" = none; else the child writes its pid here before exec
  mode_t umask = 022;
  bool allow_root = false;          // refuse uid 0 unless set
  bool truncate_stdout = false;     // open stdout_path with O_TRUNC (else it is appended to)
  bool truncate_stderr = false;     // the same for stderr_path
  bool task_pid_env = false;        // add SLURM_TASK_PID=<the task's own pid> (a step's task, as slurmstepd)
  // Soft limits (RLIMIT_*, value) set as the user, after the privilege drop: never above the hard
  // limit the task inherits (a soft limit above it is lowered to it).
  std::vector<std::pair<int, uint64_t>> soft_limits;
};

// The limits the submitting command propagates (Slurm's PropagateResourceLimits=ALL): sbatch and
// srun put SLURM_UMASK (octal) and SLURM_RLIMIT_<NAME> (the soft limit, or "unlimited") for CPU
// FSIZE DATA STACK CORE RSS NPROC NOFILE MEMLOCK AS into the job's environment; the agent takes
// them out again here (SLURM_UMASK stays, as in Slurm) and sets spec.umask and spec.soft_limits.
// Unparsable values are ignored.
void TakePropagatedLimits(LaunchSpec* spec);
// What the submitting command adds, from its own umask and soft limits.
std::vector<std::string> PropagatedLimitsEnvironment();

// Forks and execs; returns the child's pid (also its process group and session id). Failures in
// the child after fork (open, exec, credentials) are reported back through a pipe and returned
// here as an error naming what failed, in Slurm's words where Slurm has them ("Could not open
// stdout file /x/slurm-7.out: Permission denied"). A file the job names that it may not open is
// the job's fault (IsJobFault); the line then also goes to its stdout when that is open.
StatusOr<pid_t> Launch(const LaunchSpec& spec);
// getgrouplist(user, gid): what a LaunchSpec's `groups` holds ({gid} for user "").
StatusOr<std::vector<uint32_t>> SupplementaryGroups(const std::string& user, uint32_t gid);

// The spec of a program the agent runs as itself (a run's shepherd, a site's health check, MPS's
// control program): the agent's uid and gid, `env` and then PATH=/usr/sbin:/usr/bin:/sbin:/bin.
LaunchSpec AgentProgram(std::vector<std::string> argv, std::vector<std::string> env = {});

// Whether a launch error is the job's own (a path it gave that cannot be opened: the job fails,
// as Slurm's JobLaunchFailure) rather than the node's (it cannot fork, set the user's identity,
// join a cgroup, or its disk is full: the node is at fault). Job faults are InvalidArgument.
inline bool IsJobFault(const Status& launch_error) { return launch_error.code() == StatusCode::kInvalidArgument; }

struct ExitInfo {
  bool exited = false;    // true: exit_code valid; false: killed by signal
  int exit_code = 0;
  int signal = 0;
  bool core_dumped = false;
};

// Non-blocking reap: std::nullopt-like false if `pid` is still running.
bool TryReap(pid_t pid, ExitInfo* out);
// Whether our child `pid` has ended (its status in `out`), without reaping it: until Reap, its
// pid (and so its process group's id) cannot be taken by another process, and signalling the
// group stays safe.
bool TryWaitExited(pid_t pid, ExitInfo* out);
// Blocking reap.
ExitInfo Reap(pid_t pid);

// Sends `sig` to the process group `pgid` (the job's session). Missing group is not an error.
Status SignalGroup(pid_t pgid, int sig);

}  // namespace muster
