// DetectCgroup and the file helpers shared by the v1 and v2 implementations.
#include "agent/cgroup.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "agent/cgroup_internal.h"
#include "base/read_file.h"

namespace muster {
namespace cgroup_internal {
namespace {

constexpr int64_t kCgroup2Magic = 0x63677270;  // CGROUP2_SUPER_MAGIC

}  // namespace

Status WriteFile(const std::string& path, const std::string& content) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return Internal("cannot open '" + path + "' for writing: " + std::strerror(errno));
  ssize_t n;
  do {
    n = write(fd, content.data(), content.size());
  } while (n < 0 && errno == EINTR);
  int err = errno;
  close(fd);
  if (n < 0) return Internal("cannot write '" + content + "' to '" + path + "': " + std::strerror(err));
  if (static_cast<size_t>(n) != content.size()) return Internal("short write of '" + content + "' to '" + path + "'");
  return Status::Ok();
}

bool Exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

Status MakeDir(const std::string& path) {
  if (mkdir(path.c_str(), 0755) == 0 || errno == EEXIST) return Status::Ok();
  int err = errno;
  return Status(err == EACCES || err == EPERM || err == EROFS ? StatusCode::kPermissionDenied : StatusCode::kInternal,
                "cannot create cgroup directory '" + path + "': " + std::strerror(err));
}

std::vector<pid_t> ReadPids(const std::string& procs_file) {
  std::vector<pid_t> pids;
  StatusOr<std::string> text = ReadWholeFile(procs_file);
  if (!text.ok()) return pids;
  std::istringstream in(*text);
  long pid;
  while (in >> pid) pids.push_back(static_cast<pid_t>(pid));
  std::sort(pids.begin(), pids.end());
  pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
  return pids;
}

std::vector<std::string> ChildCgroups(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (e->d_type == DT_DIR && name != "." && name != "..") out.push_back(dir + "/" + name);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<pid_t> TreePids(const std::string& dir) {
  std::vector<pid_t> pids = ReadPids(dir + "/cgroup.procs");
  for (const std::string& child : ChildCgroups(dir)) {
    std::vector<pid_t> more = ReadPids(child + "/cgroup.procs");
    pids.insert(pids.end(), more.begin(), more.end());
  }
  std::sort(pids.begin(), pids.end());
  pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
  return pids;
}

Status RemoveDir(const std::string& dir, int64_t deadline_ms) {
  for (const std::string& child : ChildCgroups(dir)) RETURN_IF_ERROR(RemoveDir(child, deadline_ms));
  while (rmdir(dir.c_str()) != 0) {
    if (errno == ENOENT) break;
    if (errno != EBUSY || MonotonicMillis() > deadline_ms) {
      return Internal("cannot remove cgroup '" + dir + "': " + std::strerror(errno));
    }
    SleepMillis(5);
  }
  return Status::Ok();
}

std::string FormatCpuList(std::vector<int> cpus) {
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(cpus[i]);
    if (j > i) out += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

int64_t KeyedValue(const std::string& content, const std::string& key) {
  std::istringstream in(content);
  std::string line;
  while (std::getline(in, line)) {
    if (line.size() > key.size() && line.compare(0, key.size(), key) == 0 && line[key.size()] == ' ') {
      try {
        return std::stoll(line.substr(key.size() + 1));
      } catch (...) {
        return -1;
      }
    }
  }
  return -1;
}

std::string SelfCgroupPath(const std::string& controller) {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  while (std::getline(in, line)) {
    // "4:memory:/process_api/abc" (v1) or "0::/user.slice/x" (v2).
    size_t first = line.find(':');
    size_t second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    std::string controllers = line.substr(first + 1, second - first - 1);
    std::string path = line.substr(second + 1);
    if (path == "/") path = "";
    if (controller.empty()) {
      if (controllers.empty()) return path;
      continue;
    }
    std::istringstream list(controllers);
    std::string c;
    while (std::getline(list, c, ',')) {
      if (c == controller) return path;
    }
  }
  return "";
}

bool IsFsType(const std::string& path, int64_t magic) {
  struct statfs fs;
  if (statfs(path.c_str(), &fs) != 0) return false;
  return static_cast<int64_t>(fs.f_type) == magic;
}

Status ValidateName(const std::string& name) {
  if (name.empty() || name == "." || name == "..") return InvalidArgument("invalid cgroup name '" + name + "'");
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-';
    if (!ok) {
      return InvalidArgument("invalid cgroup name '" + name + "' (letters, digits, '.', '_' and '-' only)");
    }
  }
  return Status::Ok();
}

namespace {

// (major, minor) of each character device <prefix><N> in `dir`, sorted.
std::vector<std::pair<int, int>> NumberedCharDevices(const std::string& dir_path, const std::string& prefix) {
  std::vector<std::pair<int, int>> out;
  DIR* dir = opendir(dir_path.c_str());
  if (dir == nullptr) return out;
  while (dirent* e = readdir(dir)) {
    std::string name = e->d_name;
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    if (!std::all_of(name.begin() + static_cast<std::ptrdiff_t>(prefix.size()), name.end(),
                     [](char c) { return c >= '0' && c <= '9'; })) {
      continue;
    }
    struct stat st;
    if (stat((dir_path + "/" + name).c_str(), &st) != 0 || !S_ISCHR(st.st_mode)) continue;
    out.emplace_back(static_cast<int>(major(st.st_rdev)), static_cast<int>(minor(st.st_rdev)));
  }
  closedir(dir);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<int> NvidiaGpuMinors(const std::string& dev_dir) {
  std::vector<int> minors;
  for (const auto& [major, minor] : NumberedCharDevices(dev_dir, "nvidia")) {
    if (major == kNvidiaMajor) minors.push_back(minor);
  }
  return minors;
}

std::vector<std::pair<int, int>> NvidiaCapDevices(const std::string& dev_dir) {
  return NumberedCharDevices(dev_dir + "/nvidia-caps", "nvidia-cap");
}

int NvidiaCapsMajor(const std::string& dev_dir) {
  std::vector<std::pair<int, int>> caps = NvidiaCapDevices(dev_dir);
  if (!caps.empty()) return caps.front().first;
  if (dev_dir != "/dev") return -1;
  std::ifstream in("/proc/devices");
  std::string line;
  bool chars = false;
  while (std::getline(in, line)) {
    if (line == "Character devices:") chars = true;
    if (line == "Block devices:") chars = false;
    std::istringstream words(line);
    int major = -1;
    std::string name;
    if (chars && (words >> major >> name) && name == "nvidia-caps") return major;
  }
  return -1;
}

void SleepMillis(int ms) {
  timespec ts{ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

int64_t MonotonicMillis() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

}  // namespace cgroup_internal

StatusOr<std::unique_ptr<Cgroup>> DetectCgroup(const std::string& root, const std::string& base,
                                               const std::string& dev_dir) {
  using namespace cgroup_internal;
  if (IsFsType(root, kCgroup2Magic)) return OpenCgroupV2(root, base, /*require_cpu_memory=*/true, dev_dir);
  StatusOr<std::unique_ptr<Cgroup>> v1 = OpenCgroupV1(root, base, dev_dir);
  if (!v1.ok()) return v1.status().WithPrefix("no usable cgroup hierarchy at '" + root + "'");
  return v1;
}

std::string AgentCgroupBase(const std::string& node, const std::string& spool_dir) {
  uint32_t h = 2166136261u;  // FNV-1a
  for (unsigned char c : spool_dir) h = (h ^ c) * 16777619u;
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", h);
  return "muster-" + node + "-" + hex;
}

DeviceGrant GpuDeviceTable::Grant(const std::vector<int>& gpus) const {
  DeviceGrant g;
  for (int gpu : gpus) {
    if (gpu < 0 || gpu >= static_cast<int>(minors.size())) continue;
    g.gpu_minors.push_back(minors[gpu]);
    if (gpu < static_cast<int>(caps.size())) g.cap_minors.insert(g.cap_minors.end(), caps[gpu].begin(), caps[gpu].end());
  }
  for (std::vector<int>* v : {&g.gpu_minors, &g.cap_minors}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  return g;
}

DeviceGrant AllowedDevices(const GpuDeviceTable& table, const NodeAllocation& allocation) {
  return table.Grant(GpuIndexes(allocation));
}

}  // namespace muster
