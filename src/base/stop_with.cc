#include "base/stop_with.h"

#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

namespace muster {

StopWith ReadStopWithPid(const char* value) {
  StopWith w;
  if (value == nullptr || *value == '\0') return w;
  char* rest = nullptr;
  errno = 0;
  const long v = std::strtol(value, &rest, 10);
  if (*rest != '\0' || v <= 1 || errno == ERANGE || v != static_cast<pid_t>(v)) {
    w.error = std::string("MUSTER_STOP_WITH_PID: expected a process id, got '") + value + "'";
    return w;
  }
  w.pid = static_cast<pid_t>(v);
  return w;
}

std::string StopWhenStarterEnds(int poll_ms) {
  StopWith w = ReadStopWithPid(std::getenv("MUSTER_STOP_WITH_PID"));
  if (!w.pid) return w.error;
  const pid_t watched = *w.pid;
  std::thread([watched, poll_ms] {
    // kill(pid, 0) fails with ESRCH once the process is gone (EPERM: alive, another user's).
    while (kill(watched, 0) == 0 || errno != ESRCH) {
      std::this_thread::sleep_for(std::chrono::milliseconds(poll_ms));
    }
    kill(getpid(), SIGTERM);
  }).detach();
  return "";
}

}  // namespace muster
