#include "proc/stray_processes.h"

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>

#include "base/read_file.h"

namespace muster {

namespace {

// Calls `fn(pidfd, environment)` for every process but this one, its environment's entries
// NUL-separated. The pidfd is opened before the environment is read: a signal sent through it
// reaches that process or none.
void ForEachProcess(const std::function<void(int pidfd, const std::string& env)>& fn) {
  const pid_t self = getpid();
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = std::atoi(name.c_str());
    if (pid == self) continue;
    const int fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
    if (fd < 0) continue;
    if (StatusOr<std::string> env = ReadWholeFile((e.path() / "environ").string()); env.ok()) fn(fd, *env);
    close(fd);
  }
}

// The first entry of `env` (NUL-separated) that starts with `prefix` ("NAME="), or "".
std::string EntryWith(const std::string& env, std::string_view prefix) {
  size_t pos = 0;
  while (pos < env.size()) {
    size_t end = env.find('\0', pos);
    if (end == std::string::npos) end = env.size();
    if (env.compare(pos, prefix.size(), prefix) == 0) return env.substr(pos, end - pos);
    pos = end + 1;
  }
  return "";
}

bool SendThrough(int pidfd, int sig) { return syscall(SYS_pidfd_send_signal, pidfd, sig, nullptr, 0) == 0; }

}  // namespace

int KillStrayProcesses(const std::string& spool_dir, const std::function<bool(const std::string&)>& keep) {
  const std::string marker = std::string(kSpoolMarker) + spool_dir;
  int killed = 0;
  ForEachProcess([&](int fd, const std::string& env) {
    if (EntryWith(env, kSpoolMarker) != marker) return;
    if (keep && keep(EntryWith(env, "MUSTER_RUN="))) return;
    if (SendThrough(fd, SIGKILL)) ++killed;
  });
  return killed;
}

int SignalMarkedProcesses(const std::vector<std::string>& markers, int sig) {
  if (markers.empty()) return 0;
  int signalled = 0;
  ForEachProcess([&](int fd, const std::string& env) {
    for (const std::string& m : markers) {
      if (EntryWith(env, m.substr(0, m.find('=') + 1)) != m) return;
    }
    if (SendThrough(fd, sig)) ++signalled;
  });
  return signalled;
}

std::string JobScriptDir(const std::string& script_dir, int64_t job_id) {
  return script_dir + "/job" + std::to_string(job_id);
}

void RemoveJobScriptDir(const std::string& script_dir, int64_t job_id) {
  const std::string dir = JobScriptDir(script_dir, job_id);
  unlink((dir + "/slurm_script").c_str());
  rmdir(dir.c_str());
}

void RemoveJobScriptDirs(const std::string& script_dir) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(script_dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() < 4 || name.rfind("job", 0) != 0 ||
        name.find_first_not_of("0123456789", 3) != std::string::npos) {
      continue;
    }
    RemoveJobScriptDir(script_dir, std::stoll(name.substr(3)));
  }
}

}  // namespace muster
