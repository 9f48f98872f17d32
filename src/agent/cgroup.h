// Per-job resource isolation through cgroups: CPU set / CPU quota, memory limit (with OOM
// detection), device access and process tracking, behind one interface with a v2 implementation
// (unified hierarchy with controllers enabled) and a v1 one (separate cpu, cpuset, memory,
// devices, freezer hierarchies — what this machine and CI have). Detect() picks what the system has.
// Thread-compatible (one per agent, used under its lock).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/job_record.h"

namespace muster {

// The NVIDIA devices a job (or a step) may open. Where devices are restricted, of NVIDIA's devices
// it may open exactly: these GPUs (/dev/nvidia<minor>, major 195), nvidiactl and nvidia-modeset
// (195:255 and 195:254), nvidia-uvm and nvidia-uvm-tools (their own major), and these MIG
// capabilities (/dev/nvidia-caps/nvidia-cap<minor>, the nvidia-caps major). Every other device
// (InfiniBand, fuse, /dev/null, ...) stays open to it, as under Slurm's ConstrainDevices.
struct DeviceGrant {
  std::vector<int> gpu_minors;  // sorted, unique
  std::vector<int> cap_minors;  // sorted, unique
  friend bool operator==(const DeviceGrant&, const DeviceGrant&) = default;
};

// The node's NVIDIA devices, per GPU index (what CUDA_VISIBLE_DEVICES and allocations name):
// its /dev/nvidia<minor> (a MIG slice's parent GPU's) and, for a MIG slice, the minors of its GPU
// instance's and compute instance's capability devices.
struct GpuDeviceTable {
  std::vector<int> minors;
  std::vector<std::vector<int>> caps;  // empty, or the same size as `minors`
  bool empty() const { return minors.empty(); }
  // The grant for these GPU indexes (indexes the table does not have are ignored).
  DeviceGrant Grant(const std::vector<int>& gpus) const;
};

struct CgroupLimits {
  std::vector<int> cpus;          // CPU ids for cpuset ("" = all); also sets the CPU quota
  int64_t memory_bytes = 0;       // 0 = no limit
  // With restrict_devices, the job's NVIDIA devices are those of `devices` (where a devices
  // controller exists); without it the job's device access is left alone.
  DeviceGrant devices;
  bool restrict_devices = false;
};

// The devices a job may open on this node: those of its whole GPUs and of its shared
// (fractional) GPU.
DeviceGrant AllowedDevices(const GpuDeviceTable& table, const NodeAllocation& allocation);

// What a job's processes have used, as its cgroup counts it; a value the cgroup does not keep is
// absent.
struct CgroupUsage {
  std::optional<double> cpu_seconds;     // CPU time since the cgroup was made (user + system)
  std::optional<int64_t> memory_bytes;   // memory charged now (page cache included)
};

class Cgroup {
 public:
  virtual ~Cgroup() = default;
  // "v1" or "v2".
  virtual std::string version() const = 0;
  // Creates the job's cgroup under muster/<name> with the limits. Idempotent.
  virtual Status Create(const std::string& name, const CgroupLimits& limits) = 0;
  // The file a child writes its pid to before exec so it starts inside (for LaunchSpec); for v1
  // several files (one per hierarchy) joined by ':'.
  virtual std::string ProcsFile(const std::string& name) const = 0;
  // A step of job `name` that may open only the devices of `grant` (a subset of its job's), as Slurm's step cgroup under ConstrainDevices: cgroup `step` below the job's
  // where devices are controlled (v1: in the devices hierarchy only, the step stays in the job's
  // other cgroups; v2: a child of the job's cgroup with its own device program, under the job's
  // limits). Returns the procs file(s), in ProcsFile's form, a task of the step writes itself to.
  // FailedPrecondition where the job's devices are not restricted. Idempotent.
  virtual StatusOr<std::string> CreateStep(const std::string& name, const std::string& step,
                                           const DeviceGrant& grant) = 0;
  // Removes a step's cgroup, which must have no process left (an error otherwise); Destroy of
  // the job removes the step cgroups still there.
  virtual Status DestroyStep(const std::string& name, const std::string& step) = 0;
  virtual Status AddProcess(const std::string& name, pid_t pid) = 0;
  // The job's processes, its steps' included.
  virtual std::vector<pid_t> Pids(const std::string& name) const = 0;
  // What the job has used: v2 cpu.stat's usage_usec and memory.current; v1 cpuacct.usage (where
  // a cpuacct hierarchy is mounted) and memory.usage_in_bytes. Reads files only: safe outside the
  // agent's lock.
  virtual CgroupUsage Usage(const std::string& name) const = 0;
  // True when the memory controller recorded an OOM kill in this cgroup.
  virtual bool OomKilled(const std::string& name) const = 0;
  // Kills every process of the cgroup (SIGKILL, repeated until empty or timeout) and removes it.
  virtual Status Destroy(const std::string& name) = 0;
  // Stops (`frozen`) or lets run again every process of the job, forks in flight included, with
  // the freezer (v1 freezer.state, v2 cgroup.freeze); returns once the kernel says it is done.
  // FailedPrecondition where the job has no freezer (the caller signals the processes instead).
  virtual Status Freeze(const std::string& name, bool frozen) = 0;
  // Moves a job pinned at Create to `cpus` (a suspended job that resumes on other CPUs). A job
  // that was not pinned stays as it is.
  virtual Status SetCpus(const std::string& name, const std::vector<int>& cpus) = 0;
  // The job cgroups under the base now (names for Destroy): at an agent's start, those an earlier
  // run left, whose processes may be frozen (where SIGKILL alone does not end them).
  virtual std::vector<std::string> Jobs() const = 0;
  // Removes the agent's own base cgroup (AgentCgroupBase) when no job cgroup is left in it, so that
  // a stopped agent leaves nothing behind; a base that still holds jobs stays. Best effort.
  virtual void RemoveBaseIfEmpty() {}
};

// Picks v2 when /sys/fs/cgroup is cgroup2 with the cpu and memory controllers available, else v1
// when its memory and cpu hierarchies are mounted and writable (needs root), else an error saying
// why (the agent then runs jobs without cgroups and says so in its log and node record).
// `dev_dir` is where the node's /dev/nvidia<N> GPU devices are.
StatusOr<std::unique_ptr<Cgroup>> DetectCgroup(const std::string& root = "/sys/fs/cgroup",
                                               const std::string& base = "muster", const std::string& dev_dir = "/dev");

// The agent's base cgroup name: "muster-<node>-<8 hex digits of a hash of its spool directory>".
std::string AgentCgroupBase(const std::string& node, const std::string& spool_dir);

}  // namespace muster
