#include "agent/health_check.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

#include "proc/launcher.h"

namespace muster {

HealthCheckResult RunHealthCheck(const std::string& program, int64_t timeout_ms) {
  HealthCheckResult r;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return {false, std::string("health check: pipe: ") + std::strerror(errno)};
  LaunchSpec spec = AgentProgram({program});
  spec.workdir = "/";
  spec.stdin_path = "/dev/null";
  spec.stdout_fd = fds[1];
  spec.stderr_fd = fds[1];
  StatusOr<pid_t> pid = Launch(spec);
  close(fds[1]);
  if (!pid.ok()) {
    close(fds[0]);
    return {false, "health check program " + program + " did not start: " + pid.status().message()};
  }
  std::string out;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  bool timed_out = false;
  while (true) {
    const int64_t left =
        std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(std::min<int64_t>(left, 1000))) <= 0) continue;
    char buf[4096];
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n <= 0) break;  // the program (and what it started) closed its output
    if (out.size() < 65536) out.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  if (timed_out) (void)SignalGroup(*pid, SIGKILL);
  const ExitInfo info = Reap(*pid);
  std::string first = out.substr(0, out.find('\n'));
  while (!first.empty() && (first.back() == '\r' || first.back() == ' ')) first.pop_back();
  if (first.size() > 256) first.resize(256);
  if (timed_out) return {false, "health check program " + program + " timed out after " + std::to_string(timeout_ms / 1000) + " s"};
  if (info.exited && info.exit_code == 0) return {true, ""};
  if (!first.empty()) return {false, first};
  return {false, "health check program " + program +
                     (info.exited ? " exited " + std::to_string(info.exit_code) : " killed by signal " + std::to_string(info.signal))};
}

}  // namespace muster
