#include "agent/mps.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "proc/launcher.h"

namespace muster {

namespace {

std::vector<std::string> DaemonEnv(const std::string& dir, int gpu) {
  return {"CUDA_MPS_PIPE_DIRECTORY=" + dir + "/" + std::to_string(gpu) + "/pipe",
          "CUDA_MPS_LOG_DIRECTORY=" + dir + "/" + std::to_string(gpu) + "/log"};
}

}  // namespace

MpsManager::MpsManager(std::string control, std::string dir, std::string node)
    : control_(std::move(control)), dir_(std::move(dir)), node_(std::move(node)) {}

int MpsManager::sharers(int gpu) const {
  auto it = sharers_.find(gpu);
  return it == sharers_.end() ? 0 : it->second;
}

Status MpsManager::Control(int gpu, const std::string& device, const std::vector<std::string>& args,
                           const std::string& input) {
  int in[2];
  if (pipe2(in, O_CLOEXEC) != 0) return Internal(std::string("pipe: ") + std::strerror(errno));
  std::vector<std::string> argv = {control_};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> env = DaemonEnv(dir_, gpu);
  env.push_back("CUDA_VISIBLE_DEVICES=" + device);
  LaunchSpec spec = AgentProgram(std::move(argv), std::move(env));
  spec.workdir = "/";
  spec.stdin_fd = in[0];
  spec.stdout_path = dir_ + "/" + std::to_string(gpu) + "/control.out";
  spec.stderr_path = spec.stdout_path;
  StatusOr<pid_t> pid = Launch(spec);
  close(in[0]);
  if (pid.ok() && !input.empty()) (void)!write(in[1], input.data(), input.size());
  close(in[1]);
  if (!pid.ok()) return pid.status().WithPrefix("cannot run " + control_);
  // -d daemonizes and returns at once; "quit" returns once the daemon is gone. Bounded either way.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  ExitInfo info;
  while (!TryReap(*pid, &info)) {
    if (std::chrono::steady_clock::now() > until) {
      (void)SignalGroup(*pid, SIGKILL);
      Reap(*pid);
      return Internal(control_ + " did not return within 10 s");
    }
    usleep(5000);
  }
  if (!info.exited || info.exit_code != 0) {
    return Internal(control_ + " " + (args.empty() ? "quit" : args[0]) + " failed (exit " +
                    std::to_string(info.exited ? info.exit_code : 128 + info.signal) + ")");
  }
  return Status::Ok();
}

StatusOr<std::vector<std::string>> MpsManager::Acquire(const MpsShare& s) {
  const int pct = std::max(1, (s.milli + 9) / 10);
  const std::string what = std::to_string(s.milli) + "/1000 of GPU " + std::to_string(s.gpu) + " on " + node_ +
                           (s.memory_mb > 0 ? " (" + std::to_string(s.memory_mb) + " MiB)" : "");
  if (!available()) {
    return std::vector<std::string>{"MUSTER_GPU_SHARE=" + what + ", not enforced: no MPS (nvidia-cuda-mps-control) on " +
                                    node_ + ", the job may use the whole GPU"};
  }
  if (sharers(s.gpu) == 0) {
    for (const char* sub : {"pipe", "log"}) {
      std::error_code ec;
      const std::string d = dir_ + "/" + std::to_string(s.gpu) + "/" + sub;
      std::filesystem::create_directories(d, ec);
      if (ec) return Internal("cannot create " + d + ": " + ec.message());
      chmod(d.c_str(), 0755);  // the sharers' clients reach the daemon's pipes
    }
    RETURN_IF_ERROR(Control(s.gpu, s.device, {"-d"}, ""));
    device_[s.gpu] = s.device;
  }
  ++sharers_[s.gpu];
  std::vector<std::string> env = DaemonEnv(dir_, s.gpu);
  env.push_back("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=" + std::to_string(std::min(pct, 100)));
  if (s.memory_mb > 0) {
    env.push_back("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=" + std::to_string(s.visible_index) + "=" + std::to_string(s.memory_mb) + "M");
  }
  env.push_back("MUSTER_GPU_SHARE=" + what + ", enforced by MPS");
  return env;
}

void MpsManager::Release(int gpu) {
  auto it = sharers_.find(gpu);
  if (it == sharers_.end()) return;
  if (--it->second > 0) return;
  sharers_.erase(it);
  auto dev = device_.find(gpu);
  const std::string device = dev == device_.end() ? std::to_string(gpu) : dev->second;
  (void)Control(gpu, device, {}, "quit\n");
  device_.erase(gpu);
}

std::string FindMpsControl() {
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::istringstream in(path);
    for (std::string d; std::getline(in, d, ':');) {
      if (!d.empty()) dirs.push_back(d);
    }
  }
  for (const char* d : {"/usr/bin", "/usr/local/bin", "/usr/local/cuda/bin"}) dirs.push_back(d);
  for (const std::string& d : dirs) {
    const std::string p = d + "/nvidia-cuda-mps-control";
    if (access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

}  // namespace muster
