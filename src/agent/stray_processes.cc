#include "agent/stray_processes.h"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace muster {

int KillStrayProcesses(const std::string& spool_dir) {
  const std::string marker = std::string(kSpoolMarker) + spool_dir;
  const pid_t self = getpid();
  int killed = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = std::atoi(name.c_str());
    if (pid == self) continue;
    std::ifstream in(e.path() / "environ", std::ios::binary);
    if (!in) continue;  // gone, or not ours to read
    std::string env((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // Entries are NUL-separated; match a whole entry.
    size_t pos = 0;
    bool hit = false;
    while (pos < env.size()) {
      size_t end = env.find('\0', pos);
      if (end == std::string::npos) end = env.size();
      if (env.compare(pos, end - pos, marker) == 0) {
        hit = true;
        break;
      }
      pos = end + 1;
    }
    if (hit && kill(pid, SIGKILL) == 0) ++killed;
  }
  return killed;
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
