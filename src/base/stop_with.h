// A daemon that ends with the process that started it: when MUSTER_STOP_WITH_PID names a process,
// a thread watches it and sends this process SIGTERM once it is gone, so the daemon stops as on
// `muster down`. The integration tests set it to their own pid: a test killed by its timeout
// leaves no cluster behind.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

namespace muster {

// The pid in the variable's value, or nothing when unset; an error text when it is not a pid.
struct StopWith {
  std::optional<pid_t> pid;
  std::string error;
};
StopWith ReadStopWithPid(const char* value);

// Starts the watcher when MUSTER_STOP_WITH_PID is set (call after SIGTERM is blocked for the
// sigwait thread); polls every `poll_ms`. Returns the error text of a bad value, else "".
std::string StopWhenStarterEnds(int poll_ms = 500);

}  // namespace muster
