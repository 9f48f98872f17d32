// cgroup v1: one directory per hierarchy (memory, cpu, freezer; cpuset for jobs pinned to CPUs,
// devices for jobs whose GPU devices are restricted), each job cgroup created in every one of them
// and a launched process written into all of them. Every hierarchy costs each job a mkdir, a move
// of its first process (~20-50 us of CPU each here) and an rmdir, so none is joined for nothing:
// no pids hierarchy (Muster sets no pids.max), no cpuset cgroup for a job not pinned (a node whose
// configured CPUs this machine does not have), no devices cgroup for a job with nothing to deny.
// cpuacct, where it is mounted apart from cpu, is joined for the job's CPU time (/metrics).
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "agent/cgroup_internal.h"
#include "base/read_file.h"

namespace muster::cgroup_internal {
namespace {

constexpr int64_t kCgroupV1Magic = 0x27e0eb;  // CGROUP_SUPER_MAGIC

struct Hierarchy {
  std::string base_dir;                 // <mount>/<base> or <mount>/<own cgroup>/<base>
  std::set<std::string> controllers;    // the roles this hierarchy serves
  bool has(const std::string& c) const { return controllers.count(c) > 0; }
};

int64_t ParseInt64(const std::string& text, int64_t fallback) {
  try {
    return std::stoll(text);
  } catch (...) {
    return fallback;
  }
}

// A cpuset cgroup starts with empty cpus and mems (unless clone_children is set) and refuses
// tasks until both are written: copy them from the parent when empty.
Status InheritCpuset(const std::string& dir) {
  std::string parent = dir.substr(0, dir.rfind('/'));
  for (const char* file : {"cpuset.cpus", "cpuset.mems"}) {
    StatusOr<std::string> mine = ReadWholeFile(dir + "/" + file);
    if (!mine.ok()) return mine.status();
    if (mine->find_first_not_of(" \n") != std::string::npos) continue;
    ASSIGN_OR_RETURN(std::string value, ReadWholeFile(parent + "/" + file));
    if (value.find_first_not_of(" \n") == std::string::npos) continue;  // nothing to copy
    RETURN_IF_ERROR(WriteFile(dir + "/" + file, value));
  }
  return Status::Ok();
}

class CgroupV1 : public Cgroup {
 public:
  CgroupV1(std::vector<Hierarchy> hierarchies, std::string dev_dir)
      : hierarchies_(std::move(hierarchies)), dev_dir_(std::move(dev_dir)) {}

  std::string version() const override { return "v1"; }

  Status Create(const std::string& name, const CgroupLimits& limits) override {
    RETURN_IF_ERROR(ValidateName(name));
    for (const Hierarchy& h : hierarchies_) {
      if (DevicesOnly(h) && !limits.restrict_devices) continue;
      if (CpusetOnly(h) && limits.cpus.empty()) continue;
      std::string dir = h.base_dir + "/" + name;
      RETURN_IF_ERROR(MakeDir(dir));
      if (h.has("cpuset")) RETURN_IF_ERROR(SetCpuset(h, dir, limits));
      if (h.has("cpu")) RETURN_IF_ERROR(SetCpuQuota(dir, limits));
      if (h.has("memory")) RETURN_IF_ERROR(SetMemory(dir, limits.memory_bytes));
      if (h.has("devices") && limits.restrict_devices) RETURN_IF_ERROR(SetDevices(dir, limits.devices));
    }
    return Status::Ok();
  }

  std::string ProcsFile(const std::string& name) const override {
    std::string out;
    for (const Hierarchy* h : Joined(name)) {
      if (!out.empty()) out += ':';
      out += h->base_dir + "/" + name + "/cgroup.procs";
    }
    return out;
  }

  StatusOr<std::string> CreateStep(const std::string& name, const std::string& step,
                                   const DeviceGrant& grant) override {
    RETURN_IF_ERROR(ValidateName(name));
    RETURN_IF_ERROR(ValidateName(step));
    const Hierarchy* devices = Find("devices");
    if (devices == nullptr || !Exists(devices->base_dir + "/" + name)) {
      return FailedPrecondition("job cgroup '" + name + "' does not restrict devices");
    }
    // A new devices cgroup starts with its parent's rules: the job's GPUs are all it can allow.
    const std::string dir = devices->base_dir + "/" + name + "/" + step;
    RETURN_IF_ERROR(MakeDir(dir));
    Status set = SetDevices(dir, grant);
    if (!set.ok()) {
      rmdir(dir.c_str());
      return set;
    }
    std::string out;
    for (const Hierarchy* h : Joined(name)) {
      if (!out.empty()) out += ':';
      out += h->base_dir + "/" + name + (h == devices ? "/" + step : "") + "/cgroup.procs";
    }
    return out;
  }

  Status DestroyStep(const std::string& name, const std::string& step) override {
    RETURN_IF_ERROR(ValidateName(name));
    RETURN_IF_ERROR(ValidateName(step));
    const Hierarchy* devices = Find("devices");
    if (devices == nullptr) return Status::Ok();
    const std::string dir = devices->base_dir + "/" + name + "/" + step;
    if (rmdir(dir.c_str()) != 0 && errno != ENOENT) {
      return Internal("cannot remove cgroup '" + dir + "': " + std::strerror(errno));
    }
    return Status::Ok();
  }

  Status AddProcess(const std::string& name, pid_t pid) override {
    RETURN_IF_ERROR(ValidateName(name));
    for (const Hierarchy* h : Joined(name)) {
      RETURN_IF_ERROR(WriteFile(h->base_dir + "/" + name + "/cgroup.procs", std::to_string(pid)));
    }
    return Status::Ok();
  }

  std::vector<pid_t> Pids(const std::string& name) const override {
    if (!ValidateName(name).ok()) return {};
    std::vector<pid_t> all;
    for (const Hierarchy& h : hierarchies_) {
      std::vector<pid_t> some = TreePids(h.base_dir + "/" + name);
      all.insert(all.end(), some.begin(), some.end());
    }
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    return all;
  }

  CgroupUsage Usage(const std::string& name) const override {
    CgroupUsage u;
    if (!ValidateName(name).ok()) return u;
    if (const Hierarchy* mem = Find("memory"); mem != nullptr) {
      StatusOr<std::string> bytes = ReadWholeFile(mem->base_dir + "/" + name + "/memory.usage_in_bytes");
      if (bytes.ok() && ParseInt64(*bytes, -1) >= 0) u.memory_bytes = ParseInt64(*bytes, -1);
    }
    if (const Hierarchy* cpu = Find("cpuacct"); cpu != nullptr) {
      StatusOr<std::string> ns = ReadWholeFile(cpu->base_dir + "/" + name + "/cpuacct.usage");
      if (ns.ok() && ParseInt64(*ns, -1) >= 0) u.cpu_seconds = static_cast<double>(ParseInt64(*ns, -1)) / 1e9;
    }
    return u;
  }

  bool OomKilled(const std::string& name) const override {
    if (!ValidateName(name).ok()) return false;
    const Hierarchy* mem = Find("memory");
    if (mem == nullptr) return false;
    std::string dir = mem->base_dir + "/" + name;
    StatusOr<std::string> oom = ReadWholeFile(dir + "/memory.oom_control");
    if (!oom.ok()) return false;
    int64_t kills = KeyedValue(*oom, "oom_kill");  // kernels >= 4.13
    if (kills >= 0) return kills > 0;
    // Older kernels: the limit was hit and the group is (or was) under OOM.
    StatusOr<std::string> failcnt = ReadWholeFile(dir + "/memory.failcnt");
    return failcnt.ok() && ParseInt64(*failcnt, 0) > 0;
  }

  Status Destroy(const std::string& name) override {
    RETURN_IF_ERROR(ValidateName(name));
    const Hierarchy* freezer = Find("freezer");
    std::string freezer_dir = freezer != nullptr ? freezer->base_dir + "/" + name : "";
    int64_t deadline = MonotonicMillis() + kDestroyTimeoutMs;
    int pause_ms = 1;
    // Every process of the job is in every hierarchy (the child joins them all before exec, and
    // children inherit), so one hierarchy's list tells whether any is left: the common case, a
    // job whose processes are all gone, costs one read instead of one per hierarchy (and of the
    // step cgroups below, for a hierarchy that holds them).
    const std::vector<const Hierarchy*> joined = Joined(name);
    if (freezer == nullptr && joined.empty()) return Status::Ok();  // never created
    const std::string probe = freezer != nullptr ? freezer_dir : joined.front()->base_dir + "/" + name;
    bool can_freeze = false, checked_freezer = false;
    while (true) {
      if (TreePids(probe).empty()) break;
      std::vector<pid_t> pids = Pids(name);
      if (!checked_freezer) {
        can_freeze = freezer != nullptr && Exists(freezer_dir + "/freezer.state");
        checked_freezer = true;
      }
      if (MonotonicMillis() > deadline) {
        return Internal("cgroup '" + name + "' still has " + std::to_string(pids.size()) +
                        " processes after SIGKILL (first: " + std::to_string(pids[0]) + ")");
      }
      // Frozen tasks cannot fork or exit, so the list read after freezing is complete and no
      // pid in it can be reused before the kill.
      if (can_freeze) {
        (void)FreezeDir(freezer_dir);
        pids = Pids(name);
      }
      for (pid_t pid : pids) {
        if (pid > 1) kill(pid, SIGKILL);
      }
      if (can_freeze) (void)WriteFile(freezer_dir + "/freezer.state", "THAWED");
      SleepMillis(pause_ms);
      pause_ms = std::min(pause_ms * 2, 50);
    }
    for (const Hierarchy& h : hierarchies_) RETURN_IF_ERROR(RemoveDir(h.base_dir + "/" + name, deadline));
    return Status::Ok();
  }

  Status Freeze(const std::string& name, bool frozen) override {
    RETURN_IF_ERROR(ValidateName(name));
    const Hierarchy* freezer = Find("freezer");
    const std::string dir = freezer != nullptr ? freezer->base_dir + "/" + name : "";
    if (dir.empty() || !Exists(dir + "/freezer.state")) {
      return FailedPrecondition("job cgroup '" + name + "' has no freezer");
    }
    if (!frozen) return WriteFile(dir + "/freezer.state", "THAWED");
    // A job forking fast on a loaded machine can take the kernel over a second to freeze (seen in
    // CI: FREEZING after 1 s). Given up, it is thawed again: never left half frozen.
    if (FreezeDir(dir, kFreezeTimeoutMs)) return Status::Ok();
    (void)WriteFile(dir + "/freezer.state", "THAWED");
    return Internal("cgroup '" + dir + "' did not freeze within " + std::to_string(kFreezeTimeoutMs / 1000) + " s");
  }

  Status SetCpus(const std::string& name, const std::vector<int>& cpus) override {
    RETURN_IF_ERROR(ValidateName(name));
    if (cpus.empty()) return Status::Ok();
    const Hierarchy* cpuset = Find("cpuset");
    if (cpuset == nullptr || !Exists(cpuset->base_dir + "/" + name)) return Status::Ok();  // not pinned
    RETURN_IF_ERROR(WriteFile(cpuset->base_dir + "/" + name + "/cpuset.cpus", FormatCpuList(cpus)));
    CgroupLimits limits;
    limits.cpus = cpus;
    const Hierarchy* cpu = Find("cpu");
    if (cpu != nullptr && Exists(cpu->base_dir + "/" + name)) RETURN_IF_ERROR(SetCpuQuota(cpu->base_dir + "/" + name, limits));
    return Status::Ok();
  }

 private:
  static bool DevicesOnly(const Hierarchy& h) { return h.controllers.size() == 1 && h.has("devices"); }
  static bool CpusetOnly(const Hierarchy& h) { return h.controllers.size() == 1 && h.has("cpuset"); }
  static bool CpuacctOnly(const Hierarchy& h) { return h.controllers.size() == 1 && h.has("cpuacct"); }

  // The hierarchies job cgroup `name` was created in: all of them, but the devices and cpuset
  // hierarchies only where Create made the job a cgroup there.
  std::vector<const Hierarchy*> Joined(const std::string& name) const {
    std::vector<const Hierarchy*> out;
    for (const Hierarchy& h : hierarchies_) {
      // A job an agent before cpuacct was joined made has no cgroup there.
      if ((DevicesOnly(h) || CpusetOnly(h) || CpuacctOnly(h)) && !Exists(h.base_dir + "/" + name)) continue;
      out.push_back(&h);
    }
    return out;
  }

  const Hierarchy* Find(const std::string& controller) const {
    for (const Hierarchy& h : hierarchies_) {
      if (h.has(controller)) return &h;
    }
    return nullptr;
  }

  static constexpr int kFreezeTimeoutMs = 5000;
  // True once the kernel says FROZEN (within `timeout_ms`). A v1 freezer can stay FREEZING for
  // good when it races a fork (seen here: 2 runs in 30 of a shell forking every 10 ms, stuck past
  // 5 s): as runc does, FROZEN is written again on every poll, and every 50 ms the group is
  // thawed for a moment and frozen afresh.
  static bool FreezeDir(const std::string& dir, int timeout_ms = 1000) {
    const int64_t start = MonotonicMillis();
    for (int round = 0; MonotonicMillis() < start + timeout_ms; ++round) {
      if (round % 50 == 49) {
        (void)WriteFile(dir + "/freezer.state", "THAWED");
        SleepMillis(1);
      }
      if (!WriteFile(dir + "/freezer.state", "FROZEN").ok()) return false;
      StatusOr<std::string> state = ReadWholeFile(dir + "/freezer.state");
      if (!state.ok()) return false;
      if (state->rfind("FROZEN", 0) == 0) return true;
      SleepMillis(1);
    }
    return false;
  }

  Status SetCpuset(const Hierarchy& h, const std::string& dir, const CgroupLimits& limits) {
    RETURN_IF_ERROR(InheritCpuset(h.base_dir));
    // mems always from the parent; cpus from the limits, else from the parent.
    ASSIGN_OR_RETURN(std::string mems, ReadWholeFile(h.base_dir + "/cpuset.mems"));
    RETURN_IF_ERROR(WriteFile(dir + "/cpuset.mems", mems));
    std::string cpus;
    if (limits.cpus.empty()) {
      ASSIGN_OR_RETURN(cpus, ReadWholeFile(h.base_dir + "/cpuset.cpus"));
    } else {
      cpus = FormatCpuList(limits.cpus);
    }
    return WriteFile(dir + "/cpuset.cpus", cpus);
  }

  static Status SetCpuQuota(const std::string& dir, const CgroupLimits& limits) {
    if (!Exists(dir + "/cpu.cfs_quota_us")) return Status::Ok();  // kernel without CFS bandwidth control
    if (limits.cpus.empty()) return WriteFile(dir + "/cpu.cfs_quota_us", "-1");
    std::set<int> distinct(limits.cpus.begin(), limits.cpus.end());
    RETURN_IF_ERROR(WriteFile(dir + "/cpu.cfs_period_us", std::to_string(kCpuPeriodUs)));
    return WriteFile(dir + "/cpu.cfs_quota_us", std::to_string(kCpuPeriodUs * static_cast<int64_t>(distinct.size())));
  }

  // memory.memsw.limit_in_bytes (memory + swap) must stay >= memory.limit_in_bytes at every
  // moment, so the order of the two writes depends on the direction of the change. Setting both
  // to the same value means the job cannot swap.
  static Status SetMemory(const std::string& dir, int64_t bytes) {
    std::string limit = dir + "/memory.limit_in_bytes";
    std::string memsw = dir + "/memory.memsw.limit_in_bytes";
    std::string value = bytes > 0 ? std::to_string(bytes) : "-1";
    if (!Exists(memsw)) return WriteFile(limit, value);
    StatusOr<std::string> current = ReadWholeFile(memsw);
    int64_t current_memsw = current.ok() ? ParseInt64(*current, INT64_MAX) : INT64_MAX;
    int64_t wanted = bytes > 0 ? bytes : INT64_MAX;
    if (wanted > current_memsw) {
      RETURN_IF_ERROR(WriteFile(memsw, value));
      return WriteFile(limit, value);
    }
    RETURN_IF_ERROR(WriteFile(limit, value));
    return WriteFile(memsw, value);
  }

  // The hierarchy stays allow-all (other devices such as /dev/infiniband keep working). Of the
  // NVIDIA devices the node has, those the job did not get become exceptions: its other GPUs and
  // MIG capabilities (nvidiactl, nvidia-modeset and nvidia-uvm stay open, as in the v2 program).
  // v1 exceptions name devices one by one, so the ones the node has now are what is fenced.
  // Writing "allow" for a granted device removes a deny left by an earlier Create of the same name.
  Status SetDevices(const std::string& dir, const DeviceGrant& grant) {
    auto set = [&](int major, int minor, const std::vector<int>& granted) {
      const std::string rule = "c " + std::to_string(major) + ":" + std::to_string(minor) + " rwm";
      const bool allow = std::find(granted.begin(), granted.end(), minor) != granted.end();
      return WriteFile(dir + (allow ? "/devices.allow" : "/devices.deny"), rule);
    };
    for (int minor : NvidiaGpuMinors(dev_dir_)) RETURN_IF_ERROR(set(kNvidiaMajor, minor, grant.gpu_minors));
    for (const auto& [major, minor] : NvidiaCapDevices(dev_dir_)) RETURN_IF_ERROR(set(major, minor, grant.cap_minors));
    return Status::Ok();
  }


  std::vector<std::string> Jobs() const override {
    std::set<std::string> names;
    for (const Hierarchy& h : hierarchies_) {
      for (const std::string& dir : ChildCgroups(h.base_dir)) names.insert(dir.substr(dir.rfind('/') + 1));
    }
    return {names.begin(), names.end()};
  }

  void RemoveBaseIfEmpty() override {
    for (const Hierarchy& h : hierarchies_) rmdir(h.base_dir.c_str());  // EBUSY while jobs remain
  }

  std::vector<Hierarchy> hierarchies_;
  std::string dev_dir_;
};

}  // namespace

StatusOr<std::unique_ptr<Cgroup>> OpenCgroupV1(const std::string& root, const std::string& base,
                                               const std::string& dev_dir) {
  RETURN_IF_ERROR(ValidateName(base));
  struct Role {
    const char* name;
    bool required;
  };
  const Role roles[] = {{"memory", true}, {"cpu", true}, {"cpuset", false}, {"devices", false}, {"freezer", false},
                        {"cpuacct", false}};
  std::vector<Hierarchy> hierarchies;
  std::vector<std::string> mounts;  // real path of each hierarchy, to merge co-mounted ones
  for (const Role& role : roles) {
    std::string mount = root + "/" + role.name;
    if (!IsFsType(mount, kCgroupV1Magic)) {
      if (role.required) {
        return FailedPrecondition("cgroup v1 controller '" + std::string(role.name) + "' is not mounted at '" +
                                  mount + "'");
      }
      continue;
    }
    char real[PATH_MAX];
    std::string real_mount = realpath(mount.c_str(), real) != nullptr ? real : mount;
    auto seen = std::find(mounts.begin(), mounts.end(), real_mount);
    if (seen != mounts.end()) {
      hierarchies[seen - mounts.begin()].controllers.insert(role.name);
      continue;
    }
    // The hierarchy's root, else (a read-only or delegated mount) below our own cgroup there.
    std::string dir = mount + "/" + base;
    Status made = MakeDir(dir);
    if (!made.ok() && made.code() == StatusCode::kPermissionDenied) {
      std::string self = SelfCgroupPath(role.name);
      if (!self.empty()) {
        dir = mount + self + "/" + base;
        made = MakeDir(dir);
      }
    }
    if (!made.ok()) {
      if (role.required) return made;
      continue;  // an optional controller we cannot use
    }
    if (std::string(role.name) == "cpuset") RETURN_IF_ERROR(InheritCpuset(dir));
    Hierarchy h;
    h.base_dir = dir;
    h.controllers.insert(role.name);
    hierarchies.push_back(std::move(h));
    mounts.push_back(real_mount);
  }
  return std::unique_ptr<Cgroup>(new CgroupV1(std::move(hierarchies), dev_dir));
}

}  // namespace muster::cgroup_internal
