// cgroup v2: one unified tree. Controllers are enabled top-down through cgroup.subtree_control;
// the job cgroup is a leaf under <base>. Device access has no interface file in v2: it is an
// eBPF program of type BPF_PROG_TYPE_CGROUP_DEVICE attached to the job cgroup.
#include <fcntl.h>
#include <linux/bpf.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <sstream>

#include "agent/cgroup_internal.h"
#include "base/read_file.h"

namespace muster::cgroup_internal {
namespace {

constexpr int64_t kCgroup2Magic = 0x63677270;  // CGROUP2_SUPER_MAGIC

std::set<std::string> Words(const std::string& path) {
  std::set<std::string> out;
  StatusOr<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return out;
  std::istringstream in(*text);
  std::string w;
  while (in >> w) out.insert(w);
  return out;
}

std::string Parent(const std::string& dir) { return dir.substr(0, dir.rfind('/')); }

// ---- The device program ------------------------------------------------------------------------

bpf_insn Insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm) {
  bpf_insn i;
  std::memset(&i, 0, sizeof(i));
  i.code = code;
  i.dst_reg = dst;
  i.src_reg = src;
  i.off = off;
  i.imm = imm;
  return i;
}

// Loads the device program through the kernel's verifier: its descriptor, or the error with the
// verifier's log.
StatusOr<int> LoadDeviceProgram(const DeviceFence& fence, const std::string& what) {
  std::vector<bpf_insn> insns = DeviceProgram(fence);
  static const char kLicense[] = "GPL";
  // Without a log first: with one, a log that does not fit its buffer fails the load (ENOSPC),
  // whatever the program. Only a refused program is loaded again, with a log large enough to say why.
  std::vector<char> log;
  for (int attempt = 0; attempt < 2; ++attempt) {
    union bpf_attr load;
    std::memset(&load, 0, sizeof(load));
    load.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
    load.insns = reinterpret_cast<uint64_t>(insns.data());
    load.insn_cnt = static_cast<uint32_t>(insns.size());
    load.license = reinterpret_cast<uint64_t>(kLicense);
    if (attempt == 1) {
      log.assign(1 << 20, '\0');
      load.log_buf = reinterpret_cast<uint64_t>(log.data());
      load.log_size = static_cast<uint32_t>(log.size());
      load.log_level = 1;
    }
    const int prog = static_cast<int>(syscall(SYS_bpf, BPF_PROG_LOAD, &load, sizeof(load)));
    if (prog >= 0) return prog;
    const int err = errno;
    if (attempt == 1 || err == EPERM) {
      std::string why = log.empty() ? "" : std::string(log.data());
      while (!why.empty() && why.back() == '\n') why.pop_back();
      return Status(err == EPERM ? StatusCode::kPermissionDenied : StatusCode::kInternal,
                    "cannot load the device filter for '" + what + "': " + std::strerror(err) +
                        (why.empty() ? std::string() : " (" + why + ")"));
    }
  }
  return Internal("cannot load the device filter for '" + what + "'");
}

// Loads the program and attaches it in the override mode (BPF_F_ALLOW_OVERRIDE): a second attach
// replaces the first, so Create stays idempotent, and a step's cgroup below may attach its own,
// narrower one, which then rules the step's processes. The attachment keeps the program alive.
Status AttachDeviceProgram(const std::string& dir, const DeviceFence& fence) {
  ASSIGN_OR_RETURN(const int prog, LoadDeviceProgram(fence, dir));
  int cg = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (cg < 0) {
    int err = errno;
    close(prog);
    return Internal("cannot open cgroup '" + dir + "': " + std::strerror(err));
  }
  union bpf_attr attach;
  std::memset(&attach, 0, sizeof(attach));
  attach.target_fd = static_cast<uint32_t>(cg);
  attach.attach_bpf_fd = static_cast<uint32_t>(prog);
  attach.attach_type = BPF_CGROUP_DEVICE;
  attach.attach_flags = BPF_F_ALLOW_OVERRIDE;
  int rc = static_cast<int>(syscall(SYS_bpf, BPF_PROG_ATTACH, &attach, sizeof(attach)));
  int err = errno;
  close(cg);
  close(prog);
  if (rc != 0) return Internal("cannot attach the device filter to '" + dir + "': " + std::strerror(err));
  return Status::Ok();
}

}  // namespace

DeviceFence FenceFor(const DeviceGrant& grant, int caps_major) {
  DeviceFence f;
  f.nvidia_minors = grant.gpu_minors;
  f.nvidia_minors.push_back(kNvidiaModesetMinor);
  f.nvidia_minors.push_back(kNvidiactlMinor);
  std::sort(f.nvidia_minors.begin(), f.nvidia_minors.end());
  f.nvidia_minors.erase(std::unique(f.nvidia_minors.begin(), f.nvidia_minors.end()), f.nvidia_minors.end());
  f.caps_major = caps_major;
  if (caps_major >= 0) f.cap_minors = grant.cap_minors;
  std::sort(f.cap_minors.begin(), f.cap_minors.end());
  f.cap_minors.erase(std::unique(f.cap_minors.begin(), f.cap_minors.end()), f.cap_minors.end());
  return f;
}

// The layout, with every jump forward and every instruction reachable:
//   0-3   r2 = device type, r3 = major, r4 = minor
//   4     type != char          -> ALLOW
//   5     major != 195          -> CAPS (or ALLOW where the node has no caps major)
//   ...   minor == m            -> ALLOW, for each allowed minor of 195
//         ja DENY                  (only with a CAPS block)
//   CAPS  major != caps_major   -> ALLOW
//   ...   minor == c            -> ALLOW, for each allowed capability
//   DENY  r0 = 0; exit
//   ALLOW r0 = 1; exit
// DENY is reached by a 195 minor no test matches, ALLOW by any other device: both for every fence.
std::vector<bpf_insn> DeviceProgram(const DeviceFence& fence) {
  const bool caps = fence.caps_major >= 0;
  const int n = static_cast<int>(fence.nvidia_minors.size());
  const int c = caps ? static_cast<int>(fence.cap_minors.size()) : 0;
  const int caps_at = 6 + n + (caps ? 1 : 0);
  const int deny = caps ? caps_at + 1 + c : 6 + n;
  const int allow = deny + 2;
  std::vector<bpf_insn> p;
  auto jump = [&](uint8_t op, uint8_t reg, int target, int32_t imm) {
    const int pc = static_cast<int>(p.size());
    p.push_back(Insn(BPF_JMP | op | BPF_K, reg, 0, static_cast<int16_t>(target - (pc + 1)), imm));
  };
  p.push_back(Insn(BPF_LDX | BPF_MEM | BPF_W, 2, 1, offsetof(bpf_cgroup_dev_ctx, access_type), 0));
  p.push_back(Insn(BPF_ALU | BPF_AND | BPF_K, 2, 0, 0, 0xFFFF));  // the device type
  p.push_back(Insn(BPF_LDX | BPF_MEM | BPF_W, 3, 1, offsetof(bpf_cgroup_dev_ctx, major), 0));
  p.push_back(Insn(BPF_LDX | BPF_MEM | BPF_W, 4, 1, offsetof(bpf_cgroup_dev_ctx, minor), 0));
  jump(BPF_JNE, 2, allow, BPF_DEVCG_DEV_CHAR);
  jump(BPF_JNE, 3, caps ? caps_at : allow, kNvidiaMajor);
  for (int m : fence.nvidia_minors) jump(BPF_JEQ, 4, allow, m);
  if (caps) {
    jump(BPF_JA, 0, deny, 0);
    jump(BPF_JNE, 3, allow, fence.caps_major);
    for (int m : fence.cap_minors) jump(BPF_JEQ, 4, allow, m);
  }
  p.push_back(Insn(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0));
  p.push_back(Insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
  p.push_back(Insn(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 1));
  p.push_back(Insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
  return p;
}

Status VerifyDeviceProgram(const DeviceFence& fence) {
  ASSIGN_OR_RETURN(const int prog, LoadDeviceProgram(fence, "a test"));
  close(prog);
  return Status::Ok();
}

namespace {

// ---- The implementation ------------------------------------------------------------------------

class CgroupV2 : public Cgroup {
 public:
  CgroupV2(std::string base_dir, std::string dev_dir) : base_(std::move(base_dir)), dev_dir_(std::move(dev_dir)) {}

  std::string version() const override { return "v2"; }

  Status Create(const std::string& name, const CgroupLimits& limits) override {
    RETURN_IF_ERROR(ValidateName(name));
    std::string dir = Dir(name);
    RETURN_IF_ERROR(MakeDir(dir));
    if (!limits.cpus.empty()) {
      bool has_cpuset = Exists(dir + "/cpuset.cpus");
      bool has_cpu = Exists(dir + "/cpu.max");
      if (!has_cpuset && !has_cpu) {
        return FailedPrecondition("cgroup '" + dir + "' has neither the cpuset nor the cpu controller");
      }
      if (has_cpuset) RETURN_IF_ERROR(WriteFile(dir + "/cpuset.cpus", FormatCpuList(limits.cpus)));
      std::set<int> distinct(limits.cpus.begin(), limits.cpus.end());
      if (has_cpu) {
        RETURN_IF_ERROR(WriteFile(dir + "/cpu.max", std::to_string(kCpuPeriodUs * static_cast<int64_t>(distinct.size())) +
                                                        " " + std::to_string(kCpuPeriodUs)));
      }
    } else if (Exists(dir + "/cpu.max")) {
      RETURN_IF_ERROR(WriteFile(dir + "/cpu.max", "max " + std::to_string(kCpuPeriodUs)));
    }
    if (limits.memory_bytes > 0) {
      if (!Exists(dir + "/memory.max")) {
        return FailedPrecondition("cgroup '" + dir + "' has no memory controller: cannot limit memory");
      }
      RETURN_IF_ERROR(WriteFile(dir + "/memory.max", std::to_string(limits.memory_bytes)));
      // No swap, as in v1 (memsw = limit): the limit is what the job gets.
      if (Exists(dir + "/memory.swap.max")) RETURN_IF_ERROR(WriteFile(dir + "/memory.swap.max", "0"));
    } else if (Exists(dir + "/memory.max")) {
      RETURN_IF_ERROR(WriteFile(dir + "/memory.max", "max"));
      if (Exists(dir + "/memory.swap.max")) RETURN_IF_ERROR(WriteFile(dir + "/memory.swap.max", "max"));
    }
    if (limits.restrict_devices) {
      RETURN_IF_ERROR(AttachDeviceProgram(dir, FenceFor(limits.devices, NvidiaCapsMajor(dev_dir_))));
      restricted_.insert(name);
    }
    return Status::Ok();
  }

  // The job's cgroup enables no controller for its children, so a step's cgroup below it may hold
  // processes while the job's does too, and is charged to the job's limits.
  StatusOr<std::string> CreateStep(const std::string& name, const std::string& step,
                                   const DeviceGrant& grant) override {
    RETURN_IF_ERROR(ValidateName(name));
    RETURN_IF_ERROR(ValidateName(step));
    if (!restricted_.count(name) || !Exists(Dir(name))) {
      return FailedPrecondition("job cgroup '" + name + "' does not restrict devices");
    }
    const std::string dir = Dir(name) + "/" + step;
    RETURN_IF_ERROR(MakeDir(dir));
    Status attached = AttachDeviceProgram(dir, FenceFor(grant, NvidiaCapsMajor(dev_dir_)));
    if (!attached.ok()) {
      rmdir(dir.c_str());
      return attached;
    }
    return dir + "/cgroup.procs";
  }

  Status DestroyStep(const std::string& name, const std::string& step) override {
    RETURN_IF_ERROR(ValidateName(name));
    RETURN_IF_ERROR(ValidateName(step));
    const std::string dir = Dir(name) + "/" + step;
    if (rmdir(dir.c_str()) != 0 && errno != ENOENT) {
      return Internal("cannot remove cgroup '" + dir + "': " + std::strerror(errno));
    }
    return Status::Ok();
  }

  std::string ProcsFile(const std::string& name) const override { return Dir(name) + "/cgroup.procs"; }

  Status AddProcess(const std::string& name, pid_t pid) override {
    RETURN_IF_ERROR(ValidateName(name));
    return WriteFile(ProcsFile(name), std::to_string(pid));
  }

  std::vector<pid_t> Pids(const std::string& name) const override {
    if (!ValidateName(name).ok()) return {};
    return TreePids(Dir(name));
  }

  CgroupUsage Usage(const std::string& name) const override {
    CgroupUsage u;
    if (!ValidateName(name).ok()) return u;
    if (StatusOr<std::string> stat = ReadWholeFile(Dir(name) + "/cpu.stat"); stat.ok()) {
      const int64_t usec = KeyedValue(*stat, "usage_usec");
      if (usec >= 0) u.cpu_seconds = static_cast<double>(usec) / 1e6;
    }
    if (StatusOr<std::string> current = ReadWholeFile(Dir(name) + "/memory.current"); current.ok()) {
      try {
        u.memory_bytes = std::stoll(*current);
      } catch (...) {
      }
    }
    return u;
  }

  bool OomKilled(const std::string& name) const override {
    if (!ValidateName(name).ok()) return false;
    StatusOr<std::string> events = ReadWholeFile(Dir(name) + "/memory.events");
    return events.ok() && KeyedValue(*events, "oom_kill") > 0;
  }

  Status Freeze(const std::string& name, bool frozen) override {
    RETURN_IF_ERROR(ValidateName(name));
    const std::string dir = Dir(name);
    if (!Exists(dir + "/cgroup.freeze")) return FailedPrecondition("job cgroup '" + name + "' has no cgroup.freeze");
    RETURN_IF_ERROR(WriteFile(dir + "/cgroup.freeze", frozen ? "1" : "0"));
    if (!frozen) return Status::Ok();
    // As v1: up to 5 s (a fast-forking job on a loaded machine), then thawed again, never left
    // half frozen.
    const int64_t until = MonotonicMillis() + 5000;
    while (MonotonicMillis() < until) {
      ASSIGN_OR_RETURN(std::string events, ReadWholeFile(dir + "/cgroup.events"));
      if (KeyedValue(events, "frozen") == 1) return Status::Ok();
      SleepMillis(1);
    }
    (void)WriteFile(dir + "/cgroup.freeze", "0");
    return Internal("cgroup '" + dir + "' did not freeze within 5 s");
  }

  Status SetCpus(const std::string& name, const std::vector<int>& cpus) override {
    RETURN_IF_ERROR(ValidateName(name));
    const std::string dir = Dir(name);
    if (cpus.empty() || !Exists(dir + "/cpuset.cpus")) return Status::Ok();
    StatusOr<std::string> now = ReadWholeFile(dir + "/cpuset.cpus");
    if (!now.ok() || now->find_first_not_of(" \n") == std::string::npos) return Status::Ok();  // not pinned
    RETURN_IF_ERROR(WriteFile(dir + "/cpuset.cpus", FormatCpuList(cpus)));
    std::set<int> distinct(cpus.begin(), cpus.end());
    if (!Exists(dir + "/cpu.max")) return Status::Ok();
    return WriteFile(dir + "/cpu.max", std::to_string(kCpuPeriodUs * static_cast<int64_t>(distinct.size())) + " " +
                                           std::to_string(kCpuPeriodUs));
  }

  Status Destroy(const std::string& name) override {
    RETURN_IF_ERROR(ValidateName(name));
    std::string dir = Dir(name);
    if (!Exists(dir)) return Status::Ok();
    bool can_kill = Exists(dir + "/cgroup.kill");      // Linux 5.14
    bool can_freeze = Exists(dir + "/cgroup.freeze");  // Linux 5.2
    int64_t deadline = MonotonicMillis() + kDestroyTimeoutMs;
    int pause_ms = 1;
    while (true) {
      std::vector<pid_t> pids = Pids(name);
      if (pids.empty()) break;
      if (MonotonicMillis() > deadline) {
        return Internal("cgroup '" + dir + "' still has " + std::to_string(pids.size()) +
                        " processes after SIGKILL (first: " + std::to_string(pids[0]) + ")");
      }
      if (can_kill) {
        // The kernel kills the whole subtree at once, racing no fork.
        RETURN_IF_ERROR(WriteFile(dir + "/cgroup.kill", "1"));
      } else {
        if (can_freeze) (void)WriteFile(dir + "/cgroup.freeze", "1");
        for (pid_t pid : Pids(name)) {
          if (pid > 1) kill(pid, SIGKILL);
        }
        if (can_freeze) (void)WriteFile(dir + "/cgroup.freeze", "0");
      }
      SleepMillis(pause_ms);
      pause_ms = std::min(pause_ms * 2, 50);
    }
    restricted_.erase(name);
    return RemoveDir(dir, deadline);
  }

 private:
  void RemoveBaseIfEmpty() override { rmdir(base_.c_str()); }  // EBUSY while jobs remain

  std::vector<std::string> Jobs() const override {
    std::vector<std::string> names;
    for (const std::string& dir : ChildCgroups(base_)) names.push_back(dir.substr(dir.rfind('/') + 1));
    return names;
  }

  std::string Dir(const std::string& name) const { return base_ + "/" + name; }

  std::string base_;
  std::string dev_dir_;  // where the node's NVIDIA devices are (their caps major is read at each fence)
  std::set<std::string> restricted_;  // job cgroups with a device program
};

// Enables `wanted` controllers for the children of `dir` (those that `dir` itself has).
// Returns the controllers that could not be enabled.
std::set<std::string> EnableControllers(const std::string& dir, const std::vector<std::string>& wanted) {
  std::set<std::string> have = Words(dir + "/cgroup.controllers");
  std::set<std::string> on = Words(dir + "/cgroup.subtree_control");
  std::set<std::string> missing;
  for (const std::string& c : wanted) {
    if (on.count(c)) continue;
    if (!have.count(c) || !WriteFile(dir + "/cgroup.subtree_control", "+" + c).ok()) missing.insert(c);
  }
  return missing;
}

}  // namespace

StatusOr<std::unique_ptr<Cgroup>> OpenCgroupV2(const std::string& mount, const std::string& base,
                                               bool require_cpu_memory, const std::string& dev_dir) {
  RETURN_IF_ERROR(ValidateName(base));
  if (!IsFsType(mount, kCgroup2Magic)) return FailedPrecondition("'" + mount + "' is not a cgroup2 mount");
  std::set<std::string> available = Words(mount + "/cgroup.controllers");
  if (require_cpu_memory) {
    for (const char* c : {"cpu", "memory"}) {
      if (!available.count(c)) {
        return FailedPrecondition("cgroup v2 at '" + mount + "' does not offer the " + std::string(c) + " controller");
      }
    }
  }
  std::string dir = mount + "/" + base;
  Status made = MakeDir(dir);
  if (!made.ok() && made.code() == StatusCode::kPermissionDenied) {
    std::string self = SelfCgroupPath("");
    if (!self.empty()) {
      dir = mount + self + "/" + base;
      made = MakeDir(dir);
    }
  }
  RETURN_IF_ERROR(made);
  const std::vector<std::string> wanted = {"cpuset", "cpu", "memory", "pids"};
  std::set<std::string> missing = EnableControllers(Parent(dir), wanted);
  std::set<std::string> missing_below = EnableControllers(dir, wanted);
  missing.insert(missing_below.begin(), missing_below.end());
  if (require_cpu_memory) {
    for (const char* c : {"cpu", "memory"}) {
      if (missing.count(c)) {
        // Typically the parent holds processes itself (v2's "no internal processes" rule).
        return FailedPrecondition("cannot enable the " + std::string(c) + " controller for '" + dir +
                                  "' (is the agent inside the cgroup it delegates from?)");
      }
    }
  }
  return std::unique_ptr<Cgroup>(new CgroupV2(dir, dev_dir));
}

}  // namespace muster::cgroup_internal
