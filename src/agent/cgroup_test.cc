// The cgroup implementations against the real kernel. They need root and a cgroup filesystem:
// each test skips (saying why) where those are missing. Every test uses its own base directory
// ("muster-test-<pid>-<n>") and removes it, and its job cgroup, even when an assertion fails.
#include "agent/cgroup.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "agent/cgroup_internal.h"
#include "base/read_file.h"
#include "base/test_util.h"
#include <rapidcheck.h>
#include "proc/launcher.h"

namespace muster {
namespace {

using cgroup_internal::OpenCgroupV1;
using cgroup_internal::OpenCgroupV2;

constexpr char kHelperVar[] = "MUSTER_AGENT_TEST_HELPER";

// The test binary doubles as the memory hog: re-executed with MUSTER_AGENT_TEST_HELPER=hog it
// touches 256 MiB and exits, before gtest's main runs.
int RunHelperIfAsked() {
  const char* mode = getenv(kHelperVar);
  if (mode == nullptr) return 0;
  if (std::strcmp(mode, "hog") == 0) {
    const size_t total = size_t{256} << 20;
    volatile char* p = static_cast<volatile char*>(malloc(total));
    if (p == nullptr) _exit(3);
    for (size_t i = 0; i < total; i += 4096) p[i] = 1;
    _exit(0);
  }
  _exit(2);
}
[[maybe_unused]] const int kHelper = RunHelperIfAsked();

std::string SelfExe() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, n) : "/proc/self/exe";
}

std::string UniqueSuffix() {
  static std::atomic<int> counter{0};
  return std::to_string(getpid()) + "-" + std::to_string(counter++);
}

std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// Which implementation a test runs against.
enum class Flavor { kV1, kV2 };

std::string FlavorName(const testing::TestParamInfo<Flavor>& info) {
  return info.param == Flavor::kV1 ? "V1" : "V2";
}

// A v2 mount to test on: /sys/fs/cgroup itself (full v2), else a hybrid host's unified mount,
// which has no cpu or memory controller (only process tracking, kill and device programs).
std::string V2Mount(bool* full) {
  *full = cgroup_internal::IsFsType("/sys/fs/cgroup", 0x63677270);
  if (*full) return "/sys/fs/cgroup";
  if (cgroup_internal::IsFsType("/sys/fs/cgroup/unified", 0x63677270)) return "/sys/fs/cgroup/unified";
  return "";
}

class CgroupTest : public testing::TestWithParam<Flavor> {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to create cgroups";
    base_ = "muster-test-" + UniqueSuffix();
    name_ = "job-" + UniqueSuffix();
    if (GetParam() == Flavor::kV1 && cgroup_internal::IsFsType("/sys/fs/cgroup", 0x63677270)) {
      GTEST_SKIP() << "the host has cgroup v2 only";
    }
    if (GetParam() == Flavor::kV2 && V2Mount(&full_).empty()) GTEST_SKIP() << "no cgroup2 mount on this host";
    StatusOr<std::unique_ptr<Cgroup>> cg = Open();
    if (!cg.ok()) GTEST_SKIP() << "cgroups unusable here: " << cg.status().ToString();
    cg_ = std::move(cg).value();
  }

  // A Cgroup on base_ (as a restarted agent opens its own base again).
  StatusOr<std::unique_ptr<Cgroup>> Open() {
    if (GetParam() == Flavor::kV1) {
      full_ = true;
      return OpenCgroupV1("/sys/fs/cgroup", base_, dev_.path());
    }
    return OpenCgroupV2(V2Mount(&full_), base_, /*require_cpu_memory=*/full_, dev_.path());
  }

  void TearDown() override {
    if (cg_ == nullptr) return;
    // Base directories: the grandparents of the procs files.
    std::string files = cg_->ProcsFile(name_);
    EXPECT_TRUE(cg_->Destroy(name_).ok());
    for (pid_t pid : launched_) Reap(pid);
    // Also the hierarchies this job did not join (v1 devices without restrictions) go.
    cg_->RemoveBaseIfEmpty();
    size_t start = 0;
    while (start <= files.size()) {
      size_t colon = files.find(':', start);
      std::string file = files.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
      std::string dir = file.substr(0, file.rfind('/'));
      std::string base_dir = dir.substr(0, dir.rfind('/'));
      struct stat st;
      EXPECT_NE(stat(base_dir.c_str(), &st), 0) << base_dir << " is left behind";
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
    if (GetParam() == Flavor::kV1) {
      struct stat st;
      EXPECT_NE(stat(("/sys/fs/cgroup/devices/" + base_).c_str(), &st), 0) << "devices base left behind";
    }
  }

  // Launches argv as root inside the job cgroup (or the procs file(s) given); output to <dev_.path()>/out.
  pid_t Start(const std::vector<std::string>& argv, const std::vector<std::string>& env = {},
              const std::string& procs_file = "") {
    LaunchSpec spec;
    spec.uid = 0;
    spec.gid = 0;
    spec.allow_root = true;
    spec.workdir = "/";
    spec.argv = argv;
    spec.env = env;
    spec.env.push_back("PATH=/usr/bin:/bin");
    spec.stdout_path = dev_.path() + "/out";
    spec.cgroup_procs_file = procs_file.empty() ? cg_->ProcsFile(name_) : procs_file;
    StatusOr<pid_t> pid = Launch(spec);
    EXPECT_TRUE(pid.ok()) << pid.status().ToString();
    if (!pid.ok()) return -1;
    launched_.push_back(*pid);
    return *pid;
  }

  ExitInfo Wait(pid_t pid) {
    ExitInfo info = Reap(pid);
    launched_.erase(std::remove(launched_.begin(), launched_.end(), pid), launched_.end());
    return info;
  }

  TempDir dev_{"muster-cgroup-test-"};
  std::string base_;
  std::string name_;
  bool full_ = false;
  std::unique_ptr<Cgroup> cg_;
  std::vector<pid_t> launched_;
};

TEST_P(CgroupTest, MemoryHogIsOomKilled) {
  if (!full_) GTEST_SKIP() << "the v2 mount here has no memory controller";
  CgroupLimits limits;
  limits.memory_bytes = int64_t{64} << 20;
  ASSERT_TRUE(cg_->Create(name_, limits).ok());
  EXPECT_FALSE(cg_->OomKilled(name_));
  pid_t pid = Start({SelfExe()}, {std::string(kHelperVar) + "=hog"});
  ASSERT_GT(pid, 0);
  ExitInfo info = Wait(pid);
  EXPECT_FALSE(info.exited) << "exit code " << info.exit_code;
  EXPECT_EQ(info.signal, SIGKILL);
  EXPECT_TRUE(cg_->OomKilled(name_));
}

// The job's CPU time and memory, as /metrics reports them: a shell that counts (CPU) and then
// waits (its pages charged) shows both once the kernel has counted them.
TEST_P(CgroupTest, UsageReportsTheJobsCpuTimeAndMemory) {
  if (!full_) GTEST_SKIP() << "the v2 mount here has no cpu or memory controller";
  ASSERT_TRUE(cg_->Create(name_, CgroupLimits{}).ok());
  EXPECT_FALSE(cg_->Usage("../escape").memory_bytes.has_value()) << "names are checked";
  ASSERT_GT(Start({"/bin/sh", "-c", "i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done; exec sleep 60"}), 0);
  // v1 counts CPU time where a cpuacct hierarchy is mounted (apart from cpu, or with it).
  const bool has_cpu = GetParam() == Flavor::kV2 || cgroup_internal::IsFsType("/sys/fs/cgroup/cpuacct", 0x27e0eb);
  CgroupUsage u;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    u = cg_->Usage(name_);
    if (u.memory_bytes.value_or(0) > 0 && (!has_cpu || u.cpu_seconds.value_or(0) >= 0.01)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // polling the condition
  }
  ASSERT_TRUE(u.memory_bytes.has_value());
  EXPECT_GT(*u.memory_bytes, 0);
  EXPECT_EQ(u.cpu_seconds.has_value(), has_cpu);
  if (has_cpu) {
    EXPECT_GE(*u.cpu_seconds, 0.01) << "the shell's counting loop";
  }
}

TEST_P(CgroupTest, BaseIsRemovedOnlyWhenNoJobIsLeft) {
  ASSERT_TRUE(cg_->Create(name_, CgroupLimits()).ok());
  std::vector<std::string> bases;
  const std::string files = cg_->ProcsFile(name_);
  for (size_t start = 0; start <= files.size();) {
    size_t colon = files.find(':', start);
    std::string file = files.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    std::string dir = file.substr(0, file.rfind('/'));
    bases.push_back(dir.substr(0, dir.rfind('/')));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  ASSERT_FALSE(bases.empty());
  cg_->RemoveBaseIfEmpty();
  for (const std::string& b : bases) EXPECT_TRUE(cgroup_internal::Exists(b)) << b << " removed under a job";
  ASSERT_TRUE(cg_->Destroy(name_).ok());
  cg_->RemoveBaseIfEmpty();
  for (const std::string& b : bases) EXPECT_FALSE(cgroup_internal::Exists(b)) << b << " left behind";
  // TearDown removes a base directory itself: open a fresh one for it.
  SetUp();
}

TEST_P(CgroupTest, PidsListsChildAndGrandchildAndDestroyRemovesAll) {
  ASSERT_TRUE(cg_->Create(name_, CgroupLimits()).ok());
  // The shell prints the grandchild's pid once it has forked; a FIFO makes the wait exact.
  std::string fifo = dev_.path() + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  LaunchSpec spec;
  spec.allow_root = true;
  spec.workdir = "/";
  spec.argv = {"/bin/sh", "-c", "sleep 1000 & echo $!; wait"};
  spec.env = {"PATH=/usr/bin:/bin"};
  spec.stdout_path = fifo;
  spec.cgroup_procs_file = cg_->ProcsFile(name_);
  StatusOr<pid_t> pid = Launch(spec);
  ASSERT_TRUE(pid.ok()) << pid.status().ToString();
  launched_.push_back(*pid);
  fcntl(reader, F_SETFL, 0);  // blocking from here on
  std::string line;
  char c;
  while (read(reader, &c, 1) == 1 && c != '\n') line += c;
  close(reader);
  pid_t grandchild = std::atoi(line.c_str());
  ASSERT_GT(grandchild, 0) << "shell printed '" << line << "'";

  std::vector<pid_t> pids = cg_->Pids(name_);
  EXPECT_EQ(pids, (std::vector<pid_t>{std::min(*pid, grandchild), std::max(*pid, grandchild)}));

  ASSERT_TRUE(cg_->Destroy(name_).ok());
  EXPECT_TRUE(cg_->Pids(name_).empty());
  for (const std::string& file : {cg_->ProcsFile(name_)}) {
    std::string first = file.substr(0, file.find(':'));
    EXPECT_FALSE(cgroup_internal::Exists(first.substr(0, first.rfind('/')))) << "directory left behind";
  }
  ExitInfo info = Wait(*pid);
  EXPECT_EQ(info.signal, SIGKILL);
  // The grandchild is gone, or a zombie waiting for init to reap it.
  std::string stat = ReadFileOrEmpty("/proc/" + std::to_string(grandchild) + "/stat");
  size_t paren = stat.rfind(')');
  if (!stat.empty() && paren != std::string::npos && paren + 2 < stat.size()) {
    EXPECT_EQ(stat[paren + 2], 'Z') << stat;
  }
  EXPECT_TRUE(cg_->Destroy(name_).ok()) << "Destroy of a removed cgroup is a no-op";
}

TEST_P(CgroupTest, DeviceRestrictionDeniesOtherGpus) {
  // Fake /dev/nvidia0 and /dev/nvidia1 (no driver behind them): opening an allowed one fails
  // with ENXIO, a denied one with EPERM from the device controller.
  for (int minor : {0, 1}) {
    std::string node = dev_.path() + "/nvidia" + std::to_string(minor);
    if (mknod(node.c_str(), S_IFCHR | 0666, makedev(cgroup_internal::kNvidiaMajor, minor)) != 0) {
      GTEST_SKIP() << "cannot create device nodes here: " << std::strerror(errno);
    }
  }
  if (GetParam() == Flavor::kV1 && !cgroup_internal::IsFsType("/sys/fs/cgroup/devices", 0x27e0eb)) {
    GTEST_SKIP() << "no v1 devices hierarchy";
  }
  CgroupLimits limits;
  limits.restrict_devices = true;
  limits.devices.gpu_minors = {0};
  Status created = cg_->Create(name_, limits);
  ASSERT_TRUE(created.ok()) << created.ToString();
  EXPECT_TRUE(cg_->Create(name_, limits).ok()) << "Create is idempotent";
  // `true` rather than `:`: a redirection error on a special builtin would end the shell.
  std::string script = "true < " + dev_.path() + "/nvidia0; true < " + dev_.path() + "/nvidia1";
  pid_t pid = Start({"/bin/sh", "-c", script});
  ASSERT_GT(pid, 0);
  Wait(pid);
  std::string out = ReadFileOrEmpty(dev_.path() + "/out");
  size_t first = out.find("nvidia0");
  size_t second = out.find("nvidia1");
  ASSERT_NE(first, std::string::npos) << out;
  ASSERT_NE(second, std::string::npos) << out;
  std::string first_line = out.substr(first, out.find('\n', first) - first);
  std::string second_line = out.substr(second, out.find('\n', second) - second);
  EXPECT_NE(first_line.find(std::strerror(ENXIO)), std::string::npos) << out;
  EXPECT_NE(second_line.find(std::strerror(EPERM)), std::string::npos) << out;
}

// Fake /dev/nvidia0..n-1 (no driver behind them: an allowed one fails to open with ENXIO, a
// denied one with EPERM); false (and a skip) where device nodes cannot be made.
bool MakeFakeGpus(const std::string& dev_dir, int n) {
  for (int minor = 0; minor < n; ++minor) {
    std::string node = dev_dir + "/nvidia" + std::to_string(minor);
    if (mknod(node.c_str(), S_IFCHR | 0666, makedev(cgroup_internal::kNvidiaMajor, minor)) != 0) return false;
  }
  return true;
}

// What opening each of /dev/nvidia0..n-1 in `dev_dir` gives, per `out` (the shell's messages):
// "ok" (ENXIO: the device controller let it through) or "denied" (EPERM), in order.
std::string OpenResults(const std::string& out, const std::string& dev_dir, int n) {
  std::string results;
  for (int minor = 0; minor < n; ++minor) {
    const std::string path = dev_dir + "/nvidia" + std::to_string(minor);
    size_t at = out.find(path + ":");
    std::string line = at == std::string::npos ? "" : out.substr(at, out.find('\n', at) - at);
    if (!results.empty()) results += ' ';
    results += line.find(std::strerror(ENXIO)) != std::string::npos   ? "ok"
               : line.find(std::strerror(EPERM)) != std::string::npos ? "denied"
                                                                      : "?";
  }
  return results;
}

// Of NVIDIA's devices a job opens exactly its GPU, nvidiactl, nvidia-modeset, nvidia-uvm and its
// MIG slice's capabilities: not another GPU, not another slice's capabilities (nor MIG's config
// capability). Fake device nodes at the real majors (195; 237 for nvidia-caps, 511 for nvidia-uvm).
TEST_P(CgroupTest, ExactlyTheJobsNvidiaDevicesAndTheControlDevices) {
  if (GetParam() == Flavor::kV1 && !cgroup_internal::IsFsType("/sys/fs/cgroup/devices", 0x27e0eb)) {
    GTEST_SKIP() << "no v1 devices hierarchy";
  }
  if (!MakeFakeGpus(dev_.path(), 2)) GTEST_SKIP() << "cannot create device nodes here: " << std::strerror(errno);
  ASSERT_EQ(mkdir((dev_.path() + "/nvidia-caps").c_str(), 0755), 0);
  const std::vector<std::pair<std::string, dev_t>> nodes = {
      {"nvidiactl", makedev(195, 255)},          {"nvidia-modeset", makedev(195, 254)},
      {"nvidia-uvm", makedev(511, 0)},           {"nvidia-uvm-tools", makedev(511, 1)},
      {"nvidia-caps/nvidia-cap1", makedev(237, 1)},  // MIG config
      {"nvidia-caps/nvidia-cap21", makedev(237, 21)}, {"nvidia-caps/nvidia-cap22", makedev(237, 22)},
      {"nvidia-caps/nvidia-cap30", makedev(237, 30)}};
  for (const auto& [name, dev] : nodes) ASSERT_EQ(mknod(dev_.Path(name).c_str(), S_IFCHR | 0666, dev), 0) << name;
  EXPECT_EQ(cgroup_internal::NvidiaCapsMajor(dev_.path()), 237);
  EXPECT_EQ(cgroup_internal::NvidiaCapDevices(dev_.path()),
            (std::vector<std::pair<int, int>>{{237, 1}, {237, 21}, {237, 22}, {237, 30}}));
  CgroupLimits limits;
  limits.restrict_devices = true;
  limits.devices = {{1}, {21, 22}};  // a slice of GPU 1: its GPU instance and compute instance
  ASSERT_TRUE(cg_->Create(name_, limits).ok());
  std::vector<std::string> order = {"nvidia0", "nvidia1"};
  for (const auto& [name, dev] : nodes) order.push_back(name);
  std::string script;
  for (const std::string& name : order) script += "true < " + dev_.path() + "/" + name + "; ";
  pid_t pid = Start({"/bin/sh", "-c", script});
  ASSERT_GT(pid, 0);
  Wait(pid);
  const std::string out = ReadFileOrEmpty(dev_.path() + "/out");
  std::string results;
  for (const std::string& name : order) {
    const size_t at = out.find(dev_.path() + "/" + name + ":");
    const std::string line = at == std::string::npos ? "" : out.substr(at, out.find('\n', at) - at);
    results += name + "=" +
               (line.find(std::strerror(ENXIO)) != std::string::npos   ? "ok"
                : line.find(std::strerror(EPERM)) != std::string::npos ? "denied"
                                                                       : "?") +
               " ";
  }
  EXPECT_EQ(results,
            "nvidia0=denied nvidia1=ok nvidiactl=ok nvidia-modeset=ok nvidia-uvm=ok nvidia-uvm-tools=ok "
            "nvidia-caps/nvidia-cap1=denied nvidia-caps/nvidia-cap21=ok nvidia-caps/nvidia-cap22=ok "
            "nvidia-caps/nvidia-cap30=denied ")
      << out;
}

TEST_P(CgroupTest, StepCgroupShowsOnlyTheStepsGpus) {
  if (!MakeFakeGpus(dev_.path(), 3)) GTEST_SKIP() << "cannot create device nodes here: " << std::strerror(errno);
  if (GetParam() == Flavor::kV1 && !cgroup_internal::IsFsType("/sys/fs/cgroup/devices", 0x27e0eb)) {
    GTEST_SKIP() << "no v1 devices hierarchy";
  }
  EXPECT_EQ(cg_->CreateStep(name_, "step_0", {{1}}).status().code(), StatusCode::kFailedPrecondition)
      << "no job cgroup yet";
  CgroupLimits limits;
  limits.restrict_devices = true;
  limits.devices.gpu_minors = {0, 1};
  ASSERT_TRUE(cg_->Create(name_, limits).ok());
  StatusOr<std::string> step = cg_->CreateStep(name_, "step_0", {{1}});
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  EXPECT_NE(*step, cg_->ProcsFile(name_));
  EXPECT_NE(step->find("step_0"), std::string::npos) << *step;
  StatusOr<std::string> again = cg_->CreateStep(name_, "step_0", {{1}});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(*again, *step) << "CreateStep is idempotent";
  EXPECT_FALSE(cg_->CreateStep(name_, "../x", {{1}}).ok());

  // `true` rather than `:`: a redirection error on a special builtin would end the shell.
  std::string script;
  for (int minor = 0; minor < 3; ++minor) script += "true < " + dev_.path() + "/nvidia" + std::to_string(minor) + "; ";
  pid_t in_step = Start({"/bin/sh", "-c", script}, {}, *step);
  ASSERT_GT(in_step, 0);
  Wait(in_step);
  EXPECT_EQ(OpenResults(ReadFileOrEmpty(dev_.path() + "/out"), dev_.path(), 3), "denied ok denied")
      << ReadFileOrEmpty(dev_.path() + "/out");
  unlink((dev_.path() + "/out").c_str());  // Launch appends
  pid_t in_job = Start({"/bin/sh", "-c", script});
  ASSERT_GT(in_job, 0);
  Wait(in_job);
  EXPECT_EQ(OpenResults(ReadFileOrEmpty(dev_.path() + "/out"), dev_.path(), 3), "ok ok denied")
      << ReadFileOrEmpty(dev_.path() + "/out");

  // A step's processes are the job's: listed by Pids, and Destroy ends them with the step's cgroup.
  pid_t sleeper = Start({"/bin/sleep", "1000"}, {}, *step);
  ASSERT_GT(sleeper, 0);
  std::vector<pid_t> pids = cg_->Pids(name_);
  EXPECT_NE(std::find(pids.begin(), pids.end(), sleeper), pids.end());
  EXPECT_FALSE(cg_->DestroyStep(name_, "step_0").ok()) << "the step still has a process";
  ASSERT_TRUE(cg_->CreateStep(name_, "step_1", {{0}}).ok());
  EXPECT_TRUE(cg_->DestroyStep(name_, "step_1").ok()) << "an empty step cgroup goes";
  EXPECT_TRUE(cg_->DestroyStep(name_, "step_1").ok()) << "and a gone one is fine";
  ASSERT_TRUE(cg_->Destroy(name_).ok());
  EXPECT_EQ(Wait(sleeper).signal, SIGKILL);
  const std::string step_dir = step->substr(0, step->find("step_0") + 6);
  size_t colon = step_dir.rfind(':');
  EXPECT_FALSE(cgroup_internal::Exists(colon == std::string::npos ? step_dir : step_dir.substr(colon + 1)));
}

TEST_P(CgroupTest, JoinsTheDevicesHierarchyOnlyToRestrictDevices) {
  if (GetParam() != Flavor::kV1) GTEST_SKIP() << "v2 restricts devices with a program, not a hierarchy";
  if (!cgroup_internal::IsFsType("/sys/fs/cgroup/devices", 0x27e0eb)) GTEST_SKIP() << "no v1 devices hierarchy";
  ASSERT_TRUE(cg_->Create(name_, CgroupLimits{}).ok());
  EXPECT_EQ(cg_->ProcsFile(name_).find("/devices/"), std::string::npos) << cg_->ProcsFile(name_);
  EXPECT_EQ(cg_->ProcsFile(name_).find("/pids/"), std::string::npos) << "Muster sets no pids limit";
  EXPECT_NE(cg_->ProcsFile(name_).find("/memory/"), std::string::npos) << cg_->ProcsFile(name_);
  const std::string other = name_ + "-gpu";
  CgroupLimits fenced;
  fenced.restrict_devices = true;
  ASSERT_TRUE(cg_->Create(other, fenced).ok());
  EXPECT_NE(cg_->ProcsFile(other).find("/devices/"), std::string::npos) << cg_->ProcsFile(other);
  EXPECT_TRUE(cg_->Destroy(other).ok());
}

TEST_P(CgroupTest, JoinsTheCpusetHierarchyOnlyToPin) {
  if (GetParam() != Flavor::kV1) GTEST_SKIP() << "v2 has one hierarchy";
  if (!cgroup_internal::IsFsType("/sys/fs/cgroup/cpuset", 0x27e0eb)) GTEST_SKIP() << "no v1 cpuset hierarchy";
  ASSERT_TRUE(cg_->Create(name_, CgroupLimits{}).ok());
  EXPECT_EQ(cg_->ProcsFile(name_).find("/cpuset/"), std::string::npos) << cg_->ProcsFile(name_);
  EXPECT_NE(cg_->ProcsFile(name_).find("/freezer/"), std::string::npos) << cg_->ProcsFile(name_);
  const std::string other = name_ + "-pinned";
  CgroupLimits pinned;
  pinned.cpus = {0};
  ASSERT_TRUE(cg_->Create(other, pinned).ok());
  const std::string files = cg_->ProcsFile(other);
  const size_t at = files.find("/cpuset/");
  ASSERT_NE(at, std::string::npos) << files;
  const size_t begin = files.rfind(':', at) == std::string::npos ? 0 : files.rfind(':', at) + 1;
  const std::string dir = files.substr(begin, files.find("/cgroup.procs", at) - begin);
  struct stat st;
  EXPECT_EQ(stat(dir.c_str(), &st), 0) << dir;
  EXPECT_TRUE(cg_->Destroy(other).ok());
  EXPECT_NE(stat(dir.c_str(), &st), 0) << dir << " is left behind";
}

// An agent killed while a job was suspended leaves the job's processes frozen, where SIGKILL
// alone does not end them: the next run of the agent finds the job's cgroup (Jobs) and Destroy
// ends them.
TEST_P(CgroupTest, AFrozenJobLeftByAnEarlierRunIsFoundAndEnded) {
  ASSERT_TRUE(cg_->Create(name_, CgroupLimits()).ok());
  const pid_t pid = Start({"/bin/sleep", "1000"});
  ASSERT_GT(pid, 0);
  Status st = cg_->Freeze(name_, true);
  if (st.code() == StatusCode::kFailedPrecondition) GTEST_SKIP() << st.ToString();
  ASSERT_TRUE(st.ok()) << st.ToString();
  StatusOr<std::unique_ptr<Cgroup>> again = Open();
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ((*again)->Jobs(), std::vector<std::string>{name_});
  ASSERT_TRUE((*again)->Destroy(name_).ok());
  EXPECT_EQ(Wait(pid).signal, SIGKILL);
  EXPECT_TRUE((*again)->Jobs().empty());
}

// SUSPEND preemption: the freezer stops every process of the job (a shell forking a child every
// 10 ms) and the thaw lets it go on; a job left frozen is still destroyed (TearDown).
TEST_P(CgroupTest, FreezeStopsTheJobAndThawLetsItGoOn) {
  ASSERT_TRUE(cg_->Create(name_, CgroupLimits()).ok());
  const std::string ticks = dev_.path() + "/ticks";
  ASSERT_GT(Start({"/bin/sh", "-c", "while :; do echo . >> " + ticks + "; sleep 0.01; done"}), 0);
  auto size = [&]() -> off_t {
    struct stat st;
    return stat(ticks.c_str(), &st) == 0 ? st.st_size : 0;
  };
  for (int i = 0; i < 1000 && size() == 0; ++i) usleep(2000);
  ASSERT_GT(size(), 0) << "the job never ticked";
  Status st = cg_->Freeze(name_, true);
  if (st.code() == StatusCode::kFailedPrecondition) GTEST_SKIP() << st.ToString();
  ASSERT_TRUE(st.ok()) << st.ToString();
  const off_t frozen = size();
  usleep(200 * 1000);
  EXPECT_EQ(size(), frozen) << "the job ran on while frozen";
  ASSERT_TRUE(cg_->Freeze(name_, false).ok());
  for (int i = 0; i < 1000 && size() == frozen; ++i) usleep(2000);
  EXPECT_GT(size(), frozen) << "the job did not go on after the thaw";
  ASSERT_TRUE(cg_->Freeze(name_, true).ok());
  EXPECT_TRUE(cg_->SetCpus(name_, {0}).ok());  // not pinned at Create: stays as it is
}

TEST(AllowedDevices, WholeAndSharedGpusThroughTheDeviceTable) {
  NodeAllocation a;
  a.gpus = FromStoredGpus({{0, 2}, 3, 250});
  GpuDeviceTable t{{4, 5, 6, 7}, {}};
  EXPECT_EQ(AllowedDevices(t, a), (DeviceGrant{{4, 6, 7}, {}}));
  a.gpus = FromStoredGpus({{0, 9}});  // an index the table does not have is ignored
  EXPECT_EQ(AllowedDevices(GpuDeviceTable{{4, 5}, {}}, a), (DeviceGrant{{4}, {}}));
  EXPECT_EQ(AllowedDevices(GpuDeviceTable{}, a), DeviceGrant{});
  // MIG slices: indexes 0-2 are slices of the GPU of minor 0, each with its GI and CI capabilities.
  GpuDeviceTable mig{{0, 0, 0, 1}, {{12, 13}, {21, 22}, {30, 31}, {}}};
  a.gpus = FromStoredGpus({{1, 3}});
  EXPECT_EQ(AllowedDevices(mig, a), (DeviceGrant{{0, 1}, {21, 22}}));
  EXPECT_EQ(mig.Grant({2, 0}), (DeviceGrant{{0}, {12, 13, 30, 31}}));
}

TEST_P(CgroupTest, WritesCpuAndMemoryLimits) {
  if (!full_) GTEST_SKIP() << "the v2 mount here has no cpu or memory controller";
  CgroupLimits limits;
  limits.cpus = {0};
  limits.memory_bytes = int64_t{96} << 20;
  ASSERT_TRUE(cg_->Create(name_, limits).ok());
  std::string files = cg_->ProcsFile(name_);
  auto dir_of = [&](const std::string& controller) -> std::string {
    size_t start = 0;
    while (start <= files.size()) {
      size_t colon = files.find(':', start);
      std::string f = files.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
      std::string dir = f.substr(0, f.rfind('/'));
      if (GetParam() == Flavor::kV2 || dir.find("/" + controller + "/") != std::string::npos) return dir;
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
    return "";
  };
  if (GetParam() == Flavor::kV1) {
    EXPECT_EQ(Trimmed(ReadFileOrEmpty(dir_of("memory") + "/memory.limit_in_bytes")), std::to_string(96 << 20));
    EXPECT_EQ(Trimmed(ReadFileOrEmpty(dir_of("cpu") + "/cpu.cfs_quota_us")), "100000");
    if (!dir_of("cpuset").empty()) {
      EXPECT_EQ(Trimmed(ReadFileOrEmpty(dir_of("cpuset") + "/cpuset.cpus")), "0");
    }
    // Raising the limit afterwards works too (memsw must move first).
    limits.memory_bytes = int64_t{128} << 20;
    ASSERT_TRUE(cg_->Create(name_, limits).ok());
    EXPECT_EQ(Trimmed(ReadFileOrEmpty(dir_of("memory") + "/memory.limit_in_bytes")), std::to_string(128 << 20));
    limits.memory_bytes = 0;
    ASSERT_TRUE(cg_->Create(name_, limits).ok());
  } else {
    EXPECT_EQ(Trimmed(ReadFileOrEmpty(dir_of("") + "/memory.max")), std::to_string(96 << 20));
    EXPECT_EQ(Trimmed(ReadFileOrEmpty(dir_of("") + "/cpu.max")), "100000 100000");
  }
}

TEST_P(CgroupTest, RejectsBadNames) {
  EXPECT_EQ(cg_->Create("../escape", CgroupLimits()).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(cg_->Create("", CgroupLimits()).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(cg_->Pids("a/b").empty());
}

INSTANTIATE_TEST_SUITE_P(Versions, CgroupTest, testing::Values(Flavor::kV1, Flavor::kV2), FlavorName);

TEST(DetectCgroupTest, PicksWhatTheHostHas) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  std::string base = "muster-test-" + UniqueSuffix();
  StatusOr<std::unique_ptr<Cgroup>> cg = DetectCgroup("/sys/fs/cgroup", base);
  if (!cg.ok()) GTEST_SKIP() << cg.status().ToString();
  bool v2 = cgroup_internal::IsFsType("/sys/fs/cgroup", 0x63677270);
  EXPECT_EQ((*cg)->version(), v2 ? "v2" : "v1");
  // The base directories Detect created go, in every hierarchy (also those a job joins only when
  // it needs them, such as v1 devices).
  (*cg)->RemoveBaseIfEmpty();
  for (const char* h : {"", "/memory", "/cpu", "/cpuset", "/devices", "/freezer", "/pids"}) {
    struct stat st;
    const std::string dir = std::string("/sys/fs/cgroup") + h + "/" + base;
    EXPECT_NE(stat(dir.c_str(), &st), 0) << dir << " is left behind";
  }
}

TEST(DetectCgroupTest, MissingRootIsAnError) {
  StatusOr<std::unique_ptr<Cgroup>> cg = DetectCgroup("/nonexistent-cgroup-root", "muster");
  ASSERT_FALSE(cg.ok());
  EXPECT_NE(cg.status().message().find("/nonexistent-cgroup-root"), std::string::npos) << cg.status().ToString();
}

TEST(CgroupHelpersTest, AgentBaseNamesTheNodeAndItsSpool) {
  const std::string a = AgentCgroupBase("n1", "/tmp/c1/spool/n1");
  EXPECT_EQ(a.rfind("muster-n1-", 0), 0u) << a;
  EXPECT_EQ(a.size(), std::string("muster-n1-").size() + 8) << a;
  EXPECT_EQ(a, AgentCgroupBase("n1", "/tmp/c1/spool/n1")) << "the same agent finds its cgroups again";
  EXPECT_NE(a, AgentCgroupBase("n1", "/tmp/c2/spool/n1")) << "another cluster's n1 keeps apart";
  EXPECT_TRUE(cgroup_internal::ValidateName(a).ok());
}

TEST(CgroupHelpersTest, FormatCpuList) {
  EXPECT_EQ(cgroup_internal::FormatCpuList({3, 0, 1, 2, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(cgroup_internal::FormatCpuList({5}), "5");
  EXPECT_EQ(cgroup_internal::FormatCpuList({}), "");
}

TEST(CgroupHelpersTest, KeyedValue) {
  EXPECT_EQ(cgroup_internal::KeyedValue("oom_kill_disable 0\nunder_oom 0\noom_kill 2\n", "oom_kill"), 2);
  EXPECT_EQ(cgroup_internal::KeyedValue("low 0\nhigh 0\n", "oom_kill"), -1);
}

// ---- The v2 device program --------------------------------------------------------------------

// What the kernel does with a device program, for the instructions DeviceProgram emits: its
// answer for one device, or -1 for an instruction it does not know or a jump out of the program.
int RunDeviceProgram(const std::vector<bpf_insn>& p, uint32_t type, uint32_t major, uint32_t minor) {
  uint64_t r[11] = {0};
  for (size_t pc = 0; pc < p.size(); ++pc) {
    const bpf_insn& i = p[pc];
    auto jump = [&](bool taken) {
      if (taken) pc += i.off;
    };
    switch (i.code) {
      case BPF_LDX | BPF_MEM | BPF_W:
        r[i.dst_reg] = i.off == offsetof(bpf_cgroup_dev_ctx, access_type) ? (type | (BPF_DEVCG_ACC_READ << 16))
                       : i.off == offsetof(bpf_cgroup_dev_ctx, major)     ? major
                                                                          : minor;
        break;
      case BPF_ALU | BPF_AND | BPF_K: r[i.dst_reg] = static_cast<uint32_t>(r[i.dst_reg] & static_cast<uint32_t>(i.imm)); break;
      case BPF_ALU64 | BPF_MOV | BPF_K: r[i.dst_reg] = static_cast<uint64_t>(i.imm); break;
      case BPF_JMP | BPF_JNE | BPF_K: jump(r[i.dst_reg] != static_cast<uint64_t>(i.imm)); break;
      case BPF_JMP | BPF_JEQ | BPF_K: jump(r[i.dst_reg] == static_cast<uint64_t>(i.imm)); break;
      case BPF_JMP | BPF_JA: jump(true); break;
      case BPF_JMP | BPF_EXIT: return static_cast<int>(r[0]);
      default: return -1;
    }
  }
  return -1;
}

// Every jump goes forward and lands inside, every instruction is reachable from the first, and the
// program ends in exit: what the verifier demands (and old kernels' verifiers refuse back edges).
std::string ShapeProblem(const std::vector<bpf_insn>& p) {
  std::vector<bool> reached(p.size(), false);
  if (p.empty()) return "empty";
  reached[0] = true;
  for (size_t pc = 0; pc < p.size(); ++pc) {
    if (!reached[pc]) return "unreachable insn " + std::to_string(pc);
    const bpf_insn& i = p[pc];
    const bool exit = i.code == (BPF_JMP | BPF_EXIT);
    const bool always = i.code == (BPF_JMP | BPF_JA);
    const bool cond = (i.code & 0x07) == BPF_JMP && !exit && !always;
    if (always || cond) {
      if (i.off < 0) return "back edge at " + std::to_string(pc);
      const size_t target = pc + 1 + i.off;
      if (target >= p.size()) return "jump out at " + std::to_string(pc);
      reached[target] = true;
    }
    if (!exit && !always) {
      if (pc + 1 >= p.size()) return "falls off the end";
      reached[pc + 1] = true;
    }
  }
  return "";
}

// The fence's answer as the issue states it: of major 195 and of the caps major, exactly the listed
// minors; every other device, and every block device.
bool Expected(const cgroup_internal::DeviceFence& f, uint32_t type, uint32_t major, uint32_t minor) {
  auto has = [](const std::vector<int>& v, uint32_t m) { return std::find(v.begin(), v.end(), static_cast<int>(m)) != v.end(); };
  if (type != BPF_DEVCG_DEV_CHAR) return true;
  if (major == cgroup_internal::kNvidiaMajor) return has(f.nvidia_minors, minor);
  if (f.caps_major >= 0 && major == static_cast<uint32_t>(f.caps_major)) return has(f.cap_minors, minor);
  return true;
}

constexpr int kCapsMajor = 237;  // where nvidia-caps usually lands

// The fences of a job holding GPUs 0..n-1 of a 64-GPU node (n = 0: a job with no GPU), with and
// without MIG capability devices on the node.
std::vector<cgroup_internal::DeviceFence> EveryShape() {
  std::vector<cgroup_internal::DeviceFence> out;
  for (int n = 0; n <= 64; ++n) {
    DeviceGrant g;
    for (int i = 0; i < n; ++i) g.gpu_minors.push_back(i);
    out.push_back(cgroup_internal::FenceFor(g, -1));
    out.push_back(cgroup_internal::FenceFor(g, kCapsMajor));
    g.cap_minors = {2 * n + 3, 2 * n + 4};  // a MIG slice's GI and CI
    out.push_back(cgroup_internal::FenceFor(g, kCapsMajor));
    g.gpu_minors = {n};  // one GPU, or a slice of it, of a big node
    out.push_back(cgroup_internal::FenceFor(g, kCapsMajor));
  }
  return out;
}

// Without root: each shape is well formed, and lets through exactly what it should (GPU minors
// 0-255, nvidiactl, nvidia-modeset, the caps, nvidia-uvm at another major, /dev/null, a block device).
TEST(DeviceProgramTest, EveryShapeIsWellFormedAndAllowsExactlyItsDevices) {
  for (const cgroup_internal::DeviceFence& f : EveryShape()) {
    const std::vector<bpf_insn> p = cgroup_internal::DeviceProgram(f);
    const std::string what = std::to_string(f.nvidia_minors.size()) + " minors, caps major " +
                             std::to_string(f.caps_major) + " with " + std::to_string(f.cap_minors.size());
    EXPECT_EQ(ShapeProblem(p), "") << what;
    for (uint32_t major : {195u, 237u, 510u, 1u}) {
      for (uint32_t minor = 0; minor < 256; ++minor) {
        for (uint32_t type : {BPF_DEVCG_DEV_CHAR, BPF_DEVCG_DEV_BLOCK}) {
          ASSERT_EQ(RunDeviceProgram(p, type, major, minor), Expected(f, type, major, minor) ? 1 : 0)
              << what << ": " << (type == BPF_DEVCG_DEV_CHAR ? "c " : "b ") << major << ":" << minor;
        }
      }
    }
  }
  const cgroup_internal::DeviceFence none = cgroup_internal::FenceFor({}, kCapsMajor);
  EXPECT_EQ(none.nvidia_minors, (std::vector<int>{254, 255})) << "a GPU-less job still opens nvidiactl and nvidia-modeset";
  EXPECT_TRUE(cgroup_internal::FenceFor(DeviceGrant{{}, {5}}, -1).cap_minors.empty()) << "no caps major, no caps";
}

// Random grants (any GPU and capability minors, up to 64 of each) behave, through the interpreter.
TEST(DeviceProgramTest, RandomFencesAllowExactlyTheirDevices) {
  const bool ok = rc::check("every fence", [](const std::vector<uint8_t>& gpus, const std::vector<uint8_t>& caps,
                                              bool have_caps, uint8_t probe_minor) {
    DeviceGrant g;
    for (uint8_t m : gpus) {
      if (g.gpu_minors.size() < 64) g.gpu_minors.push_back(m);
    }
    for (uint8_t m : caps) {
      if (g.cap_minors.size() < 64) g.cap_minors.push_back(m);
    }
    const cgroup_internal::DeviceFence f = cgroup_internal::FenceFor(g, have_caps ? kCapsMajor : -1);
    const std::vector<bpf_insn> p = cgroup_internal::DeviceProgram(f);
    RC_ASSERT(ShapeProblem(p) == "");
    for (uint32_t major : {195u, 237u, 13u}) {
      RC_ASSERT(RunDeviceProgram(p, BPF_DEVCG_DEV_CHAR, major, probe_minor) ==
                (Expected(f, BPF_DEVCG_DEV_CHAR, major, probe_minor) ? 1 : 0));
    }
  });
  EXPECT_TRUE(ok);
}

// As root, each shape goes through the kernel's verifier (BPF_PROG_LOAD: the same check whether or
// not cgroup v2 is mounted), a job holding every GPU of its node among them.
TEST(DeviceProgramTest, EveryShapeLoadsThroughTheVerifier) {
  Status probe = cgroup_internal::VerifyDeviceProgram(cgroup_internal::FenceFor({}, -1));
  if (probe.code() == StatusCode::kPermissionDenied) GTEST_SKIP() << "loading BPF programs needs root: " << probe.message();
  ASSERT_TRUE(probe.ok()) << probe.ToString();
  for (const cgroup_internal::DeviceFence& f : EveryShape()) {
    Status st = cgroup_internal::VerifyDeviceProgram(f);
    EXPECT_TRUE(st.ok()) << f.nvidia_minors.size() << " minors, caps major " << f.caps_major << " with "
                         << f.cap_minors.size() << ": " << st.ToString();
  }
}

// Random fences all load.
TEST(DeviceProgramTest, RandomFencesLoad) {
  if (cgroup_internal::VerifyDeviceProgram(cgroup_internal::FenceFor({}, -1)).code() == StatusCode::kPermissionDenied) {
    GTEST_SKIP() << "loading BPF programs needs root";
  }
  const bool ok = rc::check("every fence loads", [](const std::vector<uint8_t>& gpus, const std::vector<uint8_t>& caps,
                                                    bool have_caps) {
    DeviceGrant g;
    for (uint8_t m : gpus) {
      if (g.gpu_minors.size() < 64) g.gpu_minors.push_back(m);
    }
    for (uint8_t m : caps) {
      if (g.cap_minors.size() < 64) g.cap_minors.push_back(m);
    }
    Status st = cgroup_internal::VerifyDeviceProgram(cgroup_internal::FenceFor(g, have_caps ? kCapsMajor : -1));
    RC_ASSERT(st.ok());
  });
  EXPECT_TRUE(ok);
}

}  // namespace
}  // namespace muster
