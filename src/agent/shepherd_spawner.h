// Where the runs' shepherds (agent/shepherd.h) come from: one small process per agent, the
// spawner (`muster-shepherd --spawner`), that forks a shepherd for each run on the agent's word.
// A fork of a small single-threaded process that has already started costs a fraction of a fresh
// exec: no execve, no dynamic loader, no CPU feature probes (a trapped CPUID each, under a
// hypervisor), no page faults to bring the program in (bench/launch_budget.sh: the shepherd's
// start, issue 48). The multi-threaded agent itself may not fork without exec.
//
// The agent starts the spawner with one end of a socket pair as its stdin. For each run it sends
// the run directory with two descriptors (SCM_RIGHTS): the run's locked lock file, which becomes
// the shepherd's stdin (it holds the lock from the fork on), and the pipe the shepherd answers
// on, its stdout. The spawner forks; the child starts a session of its own and runs
// ShepherdMain; the parent answers with the child's pid and a pidfd of it, opened before it could
// be reaped, so that it names that process for good. It reaps its children as they end. When
// the agent goes (its end of the socket closes), the spawner exits; the shepherds go on,
// reparented, as they did under an agent that died.
//
// Thread-safety: ShepherdSpawner's methods may be called from any thread (one spawn at a time).
#pragma once

#include <sys/types.h>

#include <string>

#include "base/mutex.h"
#include "base/status.h"

namespace muster {

// The spawner process: serves the agent on stdin until it closes. Returns the exit status.
// Each shepherd writes its own name for ps over the command line `argv` (none when argc is 0).
int SpawnerMain(int argc, char** argv);

// A new shepherd: its pid and a pidfd of it (the caller's to close).
struct SpawnedShepherd {
  pid_t pid = -1;
  int pidfd = -1;
};

// One order to the spawner serving `sock`: what ShepherdSpawner::Spawn sends and reads back.
// kUnavailable when the order could not be sent (nothing was started).
StatusOr<SpawnedShepherd> AskSpawner(int sock, const std::string& run_dir, int lock_fd, int out_fd);

// The agent's side of its spawner.
class ShepherdSpawner {
 public:
  // `exe`: the program that runs as `exe --spawner` (muster-shepherd, or musterd).
  explicit ShepherdSpawner(std::string exe) : exe_(std::move(exe)) {}
  ~ShepherdSpawner();
  ShepherdSpawner(const ShepherdSpawner&) = delete;
  ShepherdSpawner& operator=(const ShepherdSpawner&) = delete;

  // A shepherd for `run_dir`, with `lock_fd` as its stdin and `out_fd` as its stdout (both stay
  // the caller's). Starts the spawner first when it is not running (at the first run, or after a
  // failure); a spawner found gone before it took the order is replaced and asked once more.
  StatusOr<SpawnedShepherd> Spawn(const std::string& run_dir, int lock_fd, int out_fd);

 private:
  Status StartLocked() REQUIRES(mu_);
  void StopLocked() REQUIRES(mu_);

  const std::string exe_;
  Mutex mu_{"shepherd spawner"};
  int sock_ GUARDED_BY(mu_) = -1;  // our end of the spawner's stdin
  pid_t pid_ GUARDED_BY(mu_) = -1;
};

}  // namespace muster
