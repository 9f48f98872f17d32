// Internal to the agent's cgroup code: the two implementations, constructible with explicit
// paths (tests use them on a hybrid host's unified mount, or with a fake /dev), and the small
// file helpers they share. Not for use outside src/agent.
#pragma once

#include <linux/bpf.h>
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "agent/cgroup.h"
#include "base/status.h"

namespace muster::cgroup_internal {

// cgroup v1 with its hierarchies mounted at <root>/<controller>; job cgroups go to
// <root>/<controller>/<base>/<name>, or under this process's own cgroup of that controller when
// the hierarchy's root is not writable. `dev_dir` is where /dev/nvidia<N> devices are listed.
StatusOr<std::unique_ptr<Cgroup>> OpenCgroupV1(const std::string& root, const std::string& base,
                                               const std::string& dev_dir = "/dev");

// cgroup v2 mounted at `mount`; job cgroups go to <mount>/<base>/<name> (or under this process's
// own cgroup when the root is not writable). With `require_cpu_memory` the cpu and memory
// controllers must be available; without, limits that need a missing controller fail in Create.
// Device restriction attaches an eBPF device program (BPF_CGROUP_DEVICE) to the job cgroup.
StatusOr<std::unique_ptr<Cgroup>> OpenCgroupV2(const std::string& mount, const std::string& base,
                                               bool require_cpu_memory = true, const std::string& dev_dir = "/dev");

// What a v2 device program lets through of NVIDIA's character devices; every other device passes.
struct DeviceFence {
  std::vector<int> nvidia_minors;  // of major 195: the GPUs, nvidia-modeset (254), nvidiactl (255)
  int caps_major = -1;             // the nvidia-caps major; -1 where the node has none
  std::vector<int> cap_minors;     // of caps_major
};
inline constexpr int kNvidiaModesetMinor = 254;
inline constexpr int kNvidiactlMinor = 255;

// The fence of a grant: its GPUs and capabilities, with nvidiactl and nvidia-modeset.
DeviceFence FenceFor(const DeviceGrant& grant, int caps_major);

// The device program (BPF_PROG_TYPE_CGROUP_DEVICE) for a fence, as instructions: for a character
// device of major 195 (or of caps_major) it allows the listed minors and denies the rest; anything
// else it allows. Every instruction is reachable whatever the fence (the kernel's verifier refuses
// unreachable code), and every jump goes forward (old verifiers refuse back edges).
std::vector<bpf_insn> DeviceProgram(const DeviceFence& fence);

// Loads (BPF_PROG_LOAD, through the kernel's verifier) the device program a v2 job cgroup would get
// for this fence, and unloads it. PermissionDenied without the right to.
Status VerifyDeviceProgram(const DeviceFence& fence);

// ---- Shared helpers ----------------------------------------------------------------------------

Status WriteFile(const std::string& path, const std::string& content);
bool Exists(const std::string& path);
// Creates a directory; an existing one is fine.
Status MakeDir(const std::string& path);
// The pids listed in a cgroup.procs file, sorted and unique (empty when unreadable).
std::vector<pid_t> ReadPids(const std::string& procs_file);
// The cgroups directly below `dir` (full paths, sorted): a job's step cgroups.
std::vector<std::string> ChildCgroups(const std::string& dir);
// The pids of cgroup `dir` and of the cgroups directly below it, sorted and unique.
std::vector<pid_t> TreePids(const std::string& dir);
// Removes cgroup `dir` and every cgroup below it, retrying while the kernel says EBUSY (processes
// just killed) until `deadline_ms` (MonotonicMillis); a missing one is fine.
Status RemoveDir(const std::string& dir, int64_t deadline_ms);
// "0-3,8,10-11" for {0,1,2,3,8,10,11}.
std::string FormatCpuList(std::vector<int> cpus);
// The value after `key` on the line starting with "key " in a flat-keyed file ("oom_kill 3").
// -1 when missing.
int64_t KeyedValue(const std::string& content, const std::string& key);
// This process's cgroup path for a v1 controller (or the v2 entry for ""), from /proc/self/cgroup.
std::string SelfCgroupPath(const std::string& controller);
// True when `path` is the root of a filesystem with that statfs magic.
bool IsFsType(const std::string& path, int64_t magic);
// Job names become directory names: letters, digits, '.', '_', '-'; not "." or "..".
Status ValidateName(const std::string& name);
// Minors of the /dev/nvidia<N> character devices (major 195) in `dev_dir`, sorted.
std::vector<int> NvidiaGpuMinors(const std::string& dev_dir);
// The MIG capability devices <dev_dir>/nvidia-caps/nvidia-cap<N>: (major, minor) of each, sorted;
// and their major (-1 when there are none; for "/dev", then the "nvidia-caps" line of /proc/devices).
std::vector<std::pair<int, int>> NvidiaCapDevices(const std::string& dev_dir);
int NvidiaCapsMajor(const std::string& dev_dir);
void SleepMillis(int ms);
int64_t MonotonicMillis();

inline constexpr int kNvidiaMajor = 195;
inline constexpr int64_t kCpuPeriodUs = 100000;
inline constexpr int64_t kDestroyTimeoutMs = 10000;

}  // namespace muster::cgroup_internal
