#include "agent/node_metrics.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "agent/nvml_api.h"
#include "net/prometheus_text.h"

namespace muster {
namespace {

using nvml::Device;
using nvml::Return;

// ---- A fake NVML table: two GPUs; the second answers NOT_SUPPORTED to the metric calls. --------

struct FakeGpu {
  unsigned util = 0, mem_util = 0, temp = 0, power_mw = 0, sm = 0, mem_clock = 0;
  unsigned long long used = 0, free = 0, ecc = 0;
  bool supported = true;
};
FakeGpu g_gpus[2];

FakeGpu* G(Device d) { return reinterpret_cast<FakeGpu*>(d); }
Return Handle(unsigned i, Device* d) {
  if (i >= 2) return nvml::kErrorInvalidArgument;
  *d = reinterpret_cast<Device>(&g_gpus[i]);
  return nvml::kSuccess;
}
Return Name(Device, char* buf, unsigned len) {
  std::snprintf(buf, len, "NVIDIA H100 80GB HBM3");
  return nvml::kSuccess;
}
Return Uuid(Device d, char* buf, unsigned len) {
  std::snprintf(buf, len, "GPU-%d", G(d) == &g_gpus[0] ? 0 : 1);
  return nvml::kSuccess;
}
Return Pci(Device d, nvml::PciInfo* p) {
  std::snprintf(p->bus_id, sizeof p->bus_id, "00000000:%02X:00.0", G(d) == &g_gpus[0] ? 0x17 : 0x2A);
  return nvml::kSuccess;
}
Return Minor(Device d, unsigned* m) {
  *m = G(d) == &g_gpus[0] ? 4 : 5;
  return nvml::kSuccess;
}
Return Util(Device d, nvml::Utilization* u) {
  if (!G(d)->supported) return nvml::kErrorNotSupported;
  *u = {G(d)->util, G(d)->mem_util};
  return nvml::kSuccess;
}
Return Mem(Device d, nvml::Memory* m) {
  *m = {G(d)->used + G(d)->free, G(d)->free, G(d)->used};
  return nvml::kSuccess;
}
Return Temp(Device d, int sensor, unsigned* t) {
  if (!G(d)->supported || sensor != nvml::kTemperatureGpu) return nvml::kErrorNotSupported;
  *t = G(d)->temp;
  return nvml::kSuccess;
}
Return Power(Device d, unsigned* mw) {
  if (!G(d)->supported) return nvml::kErrorNotSupported;
  *mw = G(d)->power_mw;
  return nvml::kSuccess;
}
Return Clock(Device d, int which, unsigned* mhz) {
  if (!G(d)->supported) return nvml::kErrorNotSupported;
  *mhz = which == nvml::kClockSm ? G(d)->sm : which == nvml::kClockMem ? G(d)->mem_clock : 0;
  return nvml::kSuccess;
}
Return Ecc(Device d, int type, int counter, unsigned long long* n) {
  if (!G(d)->supported || type != nvml::kMemoryErrorUncorrected || counter != nvml::kVolatileEcc) {
    return nvml::kErrorNotSupported;
  }
  *n = G(d)->ecc;
  return nvml::kSuccess;
}

nvml::NvmlApi Table() {
  nvml::NvmlApi a;
  a.handle_by_index = Handle;
  a.name = Name;
  a.uuid = Uuid;
  a.pci_info = Pci;
  a.minor_number = Minor;
  a.utilization_rates = Util;
  a.memory_info = Mem;
  a.temperature = Temp;
  a.power_usage = Power;
  a.clock_info = Clock;
  a.total_ecc_errors = Ecc;
  return a;
}

std::vector<Gpu> TwoGpus() {
  std::vector<Gpu> gpus(2);
  for (int i = 0; i < 2; ++i) {
    gpus[i].index = i;
    gpus[i].model = "h100";
    gpus[i].memory_mb = 81559;
    gpus[i].uuid = "GPU-" + std::to_string(i);
  }
  return gpus;
}

std::string Text(const std::vector<prom::Family>& families) {
  StatusOr<std::string> text = prom::WriteText(families);
  EXPECT_TRUE(text.ok()) << text.status().message();
  return text.ok() ? *text : "";
}

bool Has(const std::string& text, const std::string& line) { return text.find(line + "\n") != std::string::npos; }

TEST(NodeMetricsTest, NvmlReadingsBecomeDcgmSeriesAndUnsupportedOnesAreLeftOut) {
  g_gpus[0] = FakeGpu{87, 40, 61, 312500, 1980, 2619, 40960, 40599, 2, true};
  g_gpus[1] = FakeGpu{};
  g_gpus[1].supported = false;
  g_gpus[1].used = 1 << 20;
  g_gpus[1].free = 2u << 20;
  const nvml::NvmlApi api = Table();
  std::vector<GpuReading> r = ReadNvmlGpus(api, TwoGpus(), {0, 1}, {4, 5}, {79, 0});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].model_name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(r[0].pci_bus_id, "00000000:17:00.0");
  EXPECT_EQ(r[0].device, "nvidia4");
  EXPECT_EQ(r[0].power_w, 312.5);
  EXPECT_FALSE(r[1].gpu_util.has_value());
  EXPECT_FALSE(r[1].power_w.has_value());
  EXPECT_EQ(r[1].fb_used_mib, 1);
  const std::string text = Text(NodeMetricFamilies("node1", r, {}));
  const std::string l0 =
      R"({gpu="0",UUID="GPU-0",pci_bus_id="00000000:17:00.0",device="nvidia4",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"})";
  const std::string l1 =
      R"({gpu="1",UUID="GPU-1",pci_bus_id="00000000:2A:00.0",device="nvidia5",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"})";
  EXPECT_TRUE(Has(text, "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).")) << text;
  EXPECT_TRUE(Has(text, "# TYPE DCGM_FI_DEV_GPU_UTIL gauge")) << text;
  EXPECT_TRUE(Has(text, "# TYPE DCGM_FI_DEV_ECC_DBE_VOL_TOTAL counter")) << text;
  EXPECT_TRUE(Has(text, "DCGM_FI_DEV_GPU_UTIL" + l0 + " 87")) << text;
  EXPECT_TRUE(Has(text, "DCGM_FI_DEV_MEM_COPY_UTIL" + l0 + " 40")) << text;
  EXPECT_TRUE(Has(text, "DCGM_FI_DEV_FB_USED" + l0 + " 0")) << text;  // 40960 bytes: under a MiB
  EXPECT_TRUE(Has(text, "DCGM_FI_DEV_GPU_TEMP" + l0 + " 61")) << text;
  EXPECT_TRUE(Has(text, "DCGM_FI_DEV_POWER_USAGE" + l0 + " 312.5")) << text;
  EXPECT_TRUE(Has(text, "DCGM_FI_DEV_SM_CLOCK" + l0 + " 1980")) << text;
  EXPECT_TRUE(Has(text, "DCGM_FI_DEV_MEM_CLOCK" + l0 + " 2619")) << text;
  EXPECT_TRUE(Has(text, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL" + l0 + " 2")) << text;
  EXPECT_TRUE(Has(text, "DCGM_FI_DEV_XID_ERRORS" + l0 + " 79")) << text;
  // GPU 1: memory and its Xid (none) only; what NVML does not support is not there at all.
  EXPECT_TRUE(Has(text, "DCGM_FI_DEV_FB_USED" + l1 + " 1")) << text;
  EXPECT_TRUE(Has(text, "DCGM_FI_DEV_FB_FREE" + l1 + " 2")) << text;
  EXPECT_TRUE(Has(text, "DCGM_FI_DEV_XID_ERRORS" + l1 + " 0")) << text;
  for (const char* name : {"DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_MEM_COPY_UTIL", "DCGM_FI_DEV_GPU_TEMP",
                           "DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_MEM_CLOCK",
                           "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL"}) {
    EXPECT_EQ(text.find(name + l1), std::string::npos) << name << " of GPU 1 is not supported:\n" << text;
  }
}

TEST(NodeMetricsTest, MissingEntryPointsAndAnUnwatchedXidLeaveTheirSeriesOut) {
  g_gpus[0] = FakeGpu{87, 40, 61, 312500, 1980, 2619, 0, 0, 0, true};
  nvml::NvmlApi api = Table();
  api.utilization_rates = nullptr;  // an older driver
  api.power_usage = nullptr;
  std::vector<GpuReading> r = ReadNvmlGpus(api, TwoGpus(), {0}, {}, /*last_xid=*/{});
  ASSERT_EQ(r.size(), 1u) << "only GPU 0 has an NVML index";
  EXPECT_FALSE(r[0].gpu_util.has_value());
  EXPECT_FALSE(r[0].power_w.has_value());
  EXPECT_FALSE(r[0].last_xid.has_value()) << "no health watcher: the last Xid is unknown";
  EXPECT_EQ(r[0].gpu_temp_c, 61);
  const std::string text = Text(NodeMetricFamilies("n", r, {}));
  EXPECT_EQ(text.find("DCGM_FI_DEV_GPU_UTIL"), std::string::npos) << text;
  EXPECT_EQ(text.find("DCGM_FI_DEV_XID_ERRORS"), std::string::npos) << text;
  EXPECT_NE(text.find("DCGM_FI_DEV_GPU_TEMP{"), std::string::npos) << text;
}

TEST(NodeMetricsTest, MigSlicesAreNotRead) {
  std::vector<Gpu> gpus = TwoGpus();
  gpus[1].mig_profile = "1g.10gb";
  gpus[1].parent_index = 0;
  EXPECT_EQ(ReadNvmlGpus(Table(), gpus, {0, 0}, {}, {}).size(), 1u);
}

TEST(NodeMetricsTest, FakeGpusFollowTheDocumentedFormula) {
  std::vector<Gpu> gpus = TwoGpus();
  JobOnNode job{12, "alice", "physics", {1}, "", {}};
  std::vector<GpuReading> r = FakeGpuReadings(gpus, {job});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].gpu_util, 0);
  EXPECT_EQ(r[1].gpu_util, 51);  // 1 % 50 + 50, held
  EXPECT_EQ(r[0].mem_copy_util, 0);
  EXPECT_EQ(r[1].mem_copy_util, 25);
  EXPECT_EQ(r[0].fb_used_mib, 0);
  EXPECT_EQ(r[0].fb_free_mib, 81559);
  EXPECT_EQ(r[1].fb_used_mib, 40779);
  EXPECT_EQ(r[1].fb_free_mib, 40780);
  EXPECT_EQ(r[0].gpu_temp_c, 40);
  EXPECT_EQ(r[1].gpu_temp_c, 41);
  EXPECT_EQ(r[0].power_w, 60);
  EXPECT_EQ(r[1].power_w, 301);
  EXPECT_EQ(r[0].sm_clock_mhz, 345);
  EXPECT_EQ(r[1].sm_clock_mhz, 1980);
  EXPECT_EQ(r[1].mem_clock_mhz, 2619);
  EXPECT_EQ(r[1].ecc_dbe_volatile, 0);
  EXPECT_EQ(r[1].last_xid, 0);
  EXPECT_EQ(r[1].device, "nvidia1");
  EXPECT_EQ(r[1].model_name, "h100");
  EXPECT_EQ(r[1].pci_bus_id, "");
}

TEST(NodeMetricsTest, HeldGpusCarryTheirJobsAndEachJobItsCgroupUse) {
  std::vector<Gpu> gpus = TwoGpus();
  // Two jobs share GPU 1 (fractional GPUs); job 12 also holds GPU 0; job 14 holds none and has no
  // CPU figure (a v1 cgroup without cpuacct); job 15 has no cgroup at all.
  JobOnNode a{12, "alice", "physics", {0, 1}, "c12", {}};
  a.usage.cpu_seconds = 12.5;
  a.usage.memory_bytes = 1073741824;
  JobOnNode b{13, "bob \"the\" builder", "chem", {1}, "c13", {}};
  b.usage.cpu_seconds = 0.25;
  b.usage.memory_bytes = 4096;
  JobOnNode c{14, "carol", "bio", {}, "c14", {}};
  c.usage.memory_bytes = 8192;
  JobOnNode d{15, "dave", "bio", {}, "", {}};
  const std::vector<JobOnNode> jobs = {a, b, c, d};
  const std::string text = Text(NodeMetricFamilies("node2", FakeGpuReadings(gpus, jobs), jobs));
  const std::string g0 = R"({gpu="0",UUID="GPU-0",pci_bus_id="",device="nvidia0",modelName="h100",Hostname="node2")";
  const std::string g1 = R"({gpu="1",UUID="GPU-1",pci_bus_id="",device="nvidia1",modelName="h100",Hostname="node2")";
  EXPECT_TRUE(Has(text, "DCGM_FI_DEV_GPU_UTIL" + g0 + R"(,hpc_job="12",hpc_user="alice",hpc_account="physics"} 50)"))
      << text;
  EXPECT_TRUE(Has(text, "DCGM_FI_DEV_GPU_UTIL" + g1 + R"(,hpc_job="12",hpc_user="alice",hpc_account="physics"} 51)"))
      << text;
  EXPECT_TRUE(Has(text, "DCGM_FI_DEV_GPU_UTIL" + g1 +
                            R"(,hpc_job="13",hpc_user="bob \"the\" builder",hpc_account="chem"} 51)"))
      << text;
  EXPECT_EQ(text.find("DCGM_FI_DEV_GPU_UTIL" + g1 + "}"), std::string::npos) << "a held GPU has no job-less series";
  EXPECT_TRUE(Has(text, "# TYPE muster_job_cpu_seconds_total counter")) << text;
  EXPECT_TRUE(Has(text, "# TYPE muster_job_memory_bytes gauge")) << text;
  EXPECT_TRUE(Has(text, R"(muster_job_cpu_seconds_total{hpc_job="12",hpc_user="alice",hpc_account="physics",Hostname="node2"} 12.5)"))
      << text;
  EXPECT_TRUE(Has(text, R"(muster_job_memory_bytes{hpc_job="12",hpc_user="alice",hpc_account="physics",Hostname="node2"} 1073741824)"))
      << text;
  EXPECT_TRUE(Has(text, R"(muster_job_memory_bytes{hpc_job="14",hpc_user="carol",hpc_account="bio",Hostname="node2"} 8192)"))
      << text;
  EXPECT_EQ(text.find(R"(muster_job_cpu_seconds_total{hpc_job="14")"), std::string::npos) << text;
  EXPECT_EQ(text.find(R"(hpc_job="15")"), std::string::npos) << "no cgroup, no series:\n" << text;
}

TEST(NodeMetricsTest, AnIdleNodeWithoutGpusOrJobsHasNoSeries) {
  EXPECT_EQ(Text(NodeMetricFamilies("n", {}, {})), "");
}

TEST(NodeMetricsTest, ReaderOfFakeGpusNeedsNoLibrary) {
  GpuReader reader(GpuReader::Options{TwoGpus(), "", {}, {}, 1000});
  std::vector<GpuReading> r = reader.Read({JobOnNode{3, "u", "a", {0}, "", {}}}, 0);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].gpu_util, 50);
  EXPECT_EQ(reader.Read({}, 10)[0].gpu_util, 0) << "fake readings follow the jobs at once";
}

TEST(NodeMetricsTest, ReaderWithoutItsLibraryHasNoGpuSeries) {
  GpuReader reader(GpuReader::Options{TwoGpus(), "/nonexistent/libnvidia-ml.so.1", {0, 1}, {0, 1}, 1000});
  EXPECT_TRUE(reader.Read({}, 0).empty());
  EXPECT_TRUE(reader.Read({}, 5000).empty()) << "tried once, not at every scrape";
}

// A driver call that hangs: the utilization call waits until the test lets it go.
struct Gate {
  std::mutex mu;
  std::condition_variable cv;
  bool entered = false;
  bool open = false;
  int calls = 0;
};
Gate* g_gate = nullptr;
Return HangingUtil(Device d, nvml::Utilization* u) {
  std::unique_lock<std::mutex> lock(g_gate->mu);
  ++g_gate->calls;
  g_gate->entered = true;
  g_gate->cv.notify_all();
  g_gate->cv.wait(lock, [] { return g_gate->open; });
  return Util(d, u);
}

TEST(NodeMetricsTest, AScrapeWhileTheDriverHangsAnswersWithTheLastReadingsAtOnce) {
  g_gpus[0] = FakeGpu{87, 40, 61, 312500, 1980, 2619, 0, 0, 0, true};
  Gate gate;
  g_gate = &gate;
  nvml::NvmlApi api = Table();
  api.utilization_rates = HangingUtil;
  GpuReader reader(GpuReader::Options{TwoGpus(), "", {0}, {0}, 1000, &api});
  std::vector<GpuReading> first;
  std::thread scrape([&] { first = reader.Read({}, 0); });
  {
    std::unique_lock<std::mutex> lock(gate.mu);
    gate.cv.wait(lock, [&] { return gate.entered; });
  }
  EXPECT_TRUE(reader.Read({}, 0).empty()) << "no readings yet, and no waiting for the hung call";
  {
    std::lock_guard<std::mutex> lock(gate.mu);
    gate.open = true;
  }
  gate.cv.notify_all();
  scrape.join();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].gpu_util, 87);
  std::vector<GpuReading> cached = reader.Read({}, 999);
  ASSERT_EQ(cached.size(), 1u);
  EXPECT_EQ(cached[0].gpu_util, 87);
  EXPECT_EQ(gate.calls, 1) << "within a second of the last read the driver is not called";
  EXPECT_EQ(reader.Read({}, 1000).size(), 1u);
  EXPECT_EQ(gate.calls, 2) << "a second later it is";
  g_gate = nullptr;
}

// What the heartbeat carries: never a driver call, only the last read while it is fresh enough.
TEST(NodeMetricsTest, RecentReadingsNeverCallTheDriver) {
  g_gpus[0] = FakeGpu{64, 40, 61, 312500, 1980, 2619, 0, 0, 0, true};
  Gate gate;
  gate.open = true;  // counts the calls, never waits
  g_gate = &gate;
  nvml::NvmlApi api = Table();
  api.utilization_rates = HangingUtil;
  GpuReader reader(GpuReader::Options{TwoGpus(), "", {0}, {0}, 1000, &api});
  EXPECT_TRUE(reader.Recent({}, 0, 15000).empty()) << "nothing read yet";
  EXPECT_EQ(gate.calls, 0);
  ASSERT_EQ(reader.Read({}, 1000).size(), 1u);  // a scrape
  EXPECT_EQ(gate.calls, 1);
  std::vector<GpuReading> recent = reader.Recent({}, 16000, 15000);
  ASSERT_EQ(recent.size(), 1u);
  EXPECT_EQ(recent[0].gpu_util, 64);
  EXPECT_TRUE(reader.Recent({}, 16001, 15000).empty()) << "too old";
  EXPECT_EQ(gate.calls, 1);
  g_gate = nullptr;
  // Fake GPUs: their formula, from the jobs given.
  GpuReader fake(GpuReader::Options{TwoGpus(), "", {}, {}, 1000});
  std::vector<GpuReading> f = fake.Recent({JobOnNode{3, "u", "a", {1}, "", {}}}, 0, 0);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[1].gpu_util, 51);
}

}  // namespace
}  // namespace muster
