// musterd's GET /metrics on a real local cluster: a job holding a GPU appears on that GPU's series
// under dcgm-exporter's names and labels (fake GPUs by their documented formula, and GPUs read
// through the fake NVML library), its cgroup's memory and CPU time where the agent has cgroups,
// and the mapping follows the job's end. Label "integration" in CTest.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>

#include "fake_nvml_cluster_test_util.h"
#include "local_cluster_test_util.h"

namespace {

using namespace muster_test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

// GET `path` from the HTTP server on Unix socket `socket_path` (HTTP/1.1, Connection: close):
// the whole answer, head and body; "" when it cannot connect.
std::string HttpGet(const std::string& socket_path, const std::string& path) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return "";
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, socket_path.c_str(), sizeof(addr.sun_path) - 1);
  std::string answer;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    const std::string request = "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    if (write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      char buf[8192];
      ssize_t n;
      while ((n = read(fd, buf, sizeof buf)) > 0) answer.append(buf, static_cast<size_t>(n));
    }
  }
  close(fd);
  return answer;
}

// The line of `text` that starts with `prefix` ("" when none).
std::string LineStarting(const std::string& text, const std::string& prefix) {
  size_t at = text.find("\n" + prefix);
  if (at == std::string::npos) return "";
  ++at;
  return text.substr(at, text.find('\n', at) - at);
}

class Metrics : public LocalClusterTest {
 protected:
  void SetUp() override {
    nodes_ = 1;
    LocalClusterTest::SetUp();
  }
  std::string Scrape() { return HttpGet((dir_ / "c/run/musterd-node1.sock").string(), "/metrics"); }
  // Submits a job holding one GPU that records which (SLURM_JOB_GPUS) and then waits; returns its
  // id, and its GPU in `gpu`.
  int64_t SubmitHolder(std::string* gpu) {
    const int64_t id = Submit("--gres=gpu:1 -o /dev/null --wrap 'echo $SLURM_JOB_GPUS > " + (work_ / "gpu").string() +
                              "; exec sleep 300'");
    EXPECT_GT(id, 0);
    EXPECT_TRUE(WaitFor([&] { return !Trim(ReadFile((work_ / "gpu").string())).empty(); }, 20s)) << "the job started";
    *gpu = Trim(ReadFile((work_ / "gpu").string()));
    return id;
  }
  // The job's labels, as the held GPU's series and the job's own carry them.
  std::string JobLabels(int64_t id) {
    const std::string who = Trim(Run("squeue -h -j " + std::to_string(id) + " -o '%u|%a'").out);
    const std::string user = who.substr(0, who.find('|'));
    std::string account = who.substr(who.find('|') + 1);
    if (account == "(null)") account = "";  // squeue's word for a job without an account
    return "hpc_job=\"" + std::to_string(id) + "\",hpc_user=\"" + user + "\",hpc_account=\"" + account + "\"";
  }
};

// The held GPU's series carry the job, the others none; names, help, types and labels are
// dcgm-exporter's; values follow the fake GPUs' formula (agent/node_metrics.h).
TEST_F(Metrics, HeldGpuSeriesCarryTheJobUnderDcgmNames) {
  std::string gpu;
  const int64_t id = SubmitHolder(&gpu);
  ASSERT_TRUE(gpu == "0" || gpu == "1" || gpu == "2" || gpu == "3") << gpu;
  const std::string other = gpu == "0" ? "1" : "0";
  const std::string answer = Scrape();
  ASSERT_NE(answer.find("HTTP/1.1 200"), std::string::npos) << answer;
  EXPECT_NE(answer.find("Content-Type: text/plain; version=0.0.4"), std::string::npos) << answer;
  for (const char* line : {"# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).", "# TYPE DCGM_FI_DEV_GPU_UTIL gauge",
                           "# HELP DCGM_FI_DEV_FB_USED Framebuffer memory used (in MiB).",
                           "# HELP DCGM_FI_DEV_XID_ERRORS Value of the last XID error encountered.",
                           "# TYPE DCGM_FI_DEV_ECC_DBE_VOL_TOTAL counter", "# TYPE DCGM_FI_DEV_POWER_USAGE gauge"}) {
    EXPECT_NE(answer.find(std::string("\n") + line + "\n"), std::string::npos) << line << "\n" << answer;
  }
  const std::string held = LineStarting(answer, "DCGM_FI_DEV_GPU_UTIL{gpu=\"" + gpu + "\",UUID=\"");
  EXPECT_NE(held.find("\",pci_bus_id=\"\",device=\"nvidia" + gpu + "\",modelName=\""), std::string::npos) << held;
  EXPECT_NE(held.find(",Hostname=\"node1\"," + JobLabels(id) + "} " + std::to_string(std::stoi(gpu) % 50 + 50)),
            std::string::npos)
      << held << "\n" << answer;
  const std::string idle = LineStarting(answer, "DCGM_FI_DEV_GPU_UTIL{gpu=\"" + other + "\",");
  EXPECT_NE(idle.find(",Hostname=\"node1\"} " + other), std::string::npos) << idle;
  EXPECT_EQ(idle.find("hpc_job"), std::string::npos) << idle;
  EXPECT_NE(LineStarting(answer, "DCGM_FI_DEV_GPU_TEMP{gpu=\"" + gpu + "\",").find("} " + std::to_string(40 + std::stoi(gpu))),
            std::string::npos)
      << answer;

  // The job ends: its GPU's series lose it.
  ASSERT_EQ(Run("scancel " + std::to_string(id)).rc, 0);
  EXPECT_TRUE(WaitFor([&] { return Scrape().find("hpc_job=\"" + std::to_string(id) + "\"") == std::string::npos; }, 20s))
      << Scrape();
  EXPECT_NE(LineStarting(Scrape(), "DCGM_FI_DEV_GPU_UTIL{gpu=\"" + gpu + "\",").find(",Hostname=\"node1\"} " + gpu),
            std::string::npos)
      << Scrape();
}

// The job's cgroup: its memory now and (where the cgroup counts it) its CPU time.
TEST_F(Metrics, JobsCgroupUseIsReported) {
  if (getuid() != 0) GTEST_SKIP() << "the agent makes cgroups only as root";
  const std::string log = ReadFile((dir_ / "c/log/musterd-node1.log").string());
  if (log.find("running jobs without cgroups") != std::string::npos) GTEST_SKIP() << "no usable cgroups here";
  std::string gpu;
  const int64_t id = SubmitHolder(&gpu);
  const std::string labels = "{" + JobLabels(id) + ",Hostname=\"node1\"} ";
  std::string text;
  EXPECT_TRUE(WaitFor([&] { return !LineStarting(text = Scrape(), "muster_job_memory_bytes" + labels).empty(); }, 10s))
      << text;
  const std::string memory = LineStarting(text, "muster_job_memory_bytes" + labels);
  EXPECT_GT(std::stoll(memory.substr(memory.rfind(' ') + 1)), 0) << memory;
  EXPECT_NE(text.find("# TYPE muster_job_memory_bytes gauge\n"), std::string::npos) << text;
  // cgroup v2 counts CPU time in cpu.stat; v1 where a cpuacct hierarchy is mounted.
  const bool v1 = fs::exists("/sys/fs/cgroup/memory/memory.usage_in_bytes");
  const bool counts_cpu = !v1 || fs::exists("/sys/fs/cgroup/cpuacct/cpuacct.usage");
  EXPECT_EQ(!LineStarting(text, "muster_job_cpu_seconds_total" + labels).empty(), counts_cpu) << text;
  if (counts_cpu) {
    EXPECT_NE(text.find("# TYPE muster_job_cpu_seconds_total counter\n"), std::string::npos) << text;
  }
}

// GPUs read through NVML (the fake library's formula: tests/fake_nvml): NVML's name, PCI bus id
// and minor in the labels, its readings as values, the health watcher's last Xid (none yet: 0).
TEST_F(FakeNvmlCluster, MetricsComeFromNvml) {
  Result up = Sh(env_ + "muster up --gpus nvml --nvml-library " + Library() + " --nodes 1 --dir " + (dir_ / "c").string());
  ASSERT_EQ(up.rc, 0) << up.out;
  Result sub = Sh("export " + env_ + "; cd " + dir_.string() + " && sbatch --parsable --gres=gpu:1 -o /dev/null --wrap " +
                  "'echo $SLURM_JOB_GPUS > " + (dir_ / "gpu").string() + "; exec sleep 300'");
  ASSERT_EQ(sub.rc, 0) << sub.out;
  const std::string id = Trim(sub.out);
  ASSERT_TRUE(WaitFor([&] { return !Trim(ReadFile((dir_ / "gpu").string())).empty(); }, 20s));
  const int gpu = std::stoi(Trim(ReadFile((dir_ / "gpu").string())));
  const std::string answer = HttpGet((dir_ / "c/run/musterd-node1.sock").string(), "/metrics");
  const std::string util = LineStarting(answer, "DCGM_FI_DEV_GPU_UTIL{gpu=\"" + std::to_string(gpu) + "\",UUID=\"GPU-");
  char bus[32];
  std::snprintf(bus, sizeof bus, "00000000:%02X:00.0", 0x10 + gpu);
  EXPECT_NE(util.find(std::string("\",pci_bus_id=\"") + bus + "\",device=\"nvidia" + std::to_string(gpu) +
                      "\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"node1\",hpc_job=\"" + id + "\","),
            std::string::npos)
      << util << "\n" << answer;
  EXPECT_NE(util.find("} " + std::to_string(10 * gpu % 100)), std::string::npos) << util;
  const std::string prefix = "{gpu=\"" + std::to_string(gpu) + "\",";
  EXPECT_NE(LineStarting(answer, "DCGM_FI_DEV_POWER_USAGE" + prefix).find("} " + std::to_string(100 + gpu)),
            std::string::npos)
      << answer;
  EXPECT_NE(LineStarting(answer, "DCGM_FI_DEV_SM_CLOCK" + prefix).find("} 1980"), std::string::npos) << answer;
  EXPECT_NE(LineStarting(answer, "DCGM_FI_DEV_FB_FREE" + prefix).find("} 81559"), std::string::npos) << answer;
  EXPECT_NE(LineStarting(answer, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL" + prefix).find("} 0"), std::string::npos) << answer;
  EXPECT_NE(LineStarting(answer, "DCGM_FI_DEV_XID_ERRORS" + prefix).find("} 0"), std::string::npos) << answer;
}

// DCGM_FI_DEV_XID_ERRORS is the GPU's last Xid, an application's (13, which takes nothing out) too.
TEST_F(FakeNvmlCluster, XidErrorsIsTheLastXid) {
  Result up = Sh(env_ + "muster up --gpus nvml --nvml-library " + Library() + " --nodes 1 --dir " + (dir_ / "c").string());
  ASSERT_EQ(up.rc, 0) << up.out;
  const std::string socket = (dir_ / "c/run/musterd-node1.sock").string();
  const std::string gpu2 = "DCGM_FI_DEV_XID_ERRORS{gpu=\"2\",";
  EXPECT_NE(LineStarting(HttpGet(socket, "/metrics"), gpu2).find("} 0"), std::string::npos);
  std::ofstream(dir_ / "nvml.json") << R"({"gpus": 4, "name": "NVIDIA H100 80GB HBM3", "memory_mb": 81559,
                                           "faults": {"node1": {"2": {"xid": [13]}}}})";
  std::string text;
  EXPECT_TRUE(WaitFor([&] { return LineStarting(text = HttpGet(socket, "/metrics"), gpu2).ends_with("} 13"); }, 20s))
      << text;
  EXPECT_TRUE(LineStarting(text, "DCGM_FI_DEV_XID_ERRORS{gpu=\"1\",").ends_with("} 0")) << text;
}

}  // namespace
