#include "agent/gpu_inventory.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "agent/nvml_api.h"
#include "base/test_util.h"

namespace muster {
namespace {

using nvml::Device;
using nvml::NvmlApi;
using nvml::Return;

// ---- A fake NVML: a table of devices behind the real entry-point signatures. -------------------

struct FakeLink {
  std::string remote_bus;  // NVML form
  int type = nvml::kLinkGpu;
};

struct FakeDevice {
  std::string name;
  std::string uuid;
  std::string bus;  // NVML form "00000000:17:00.0"
  unsigned long long memory = 0;
  int numa = -1;    // -1: NVML does not know (the sysfs fallback applies)
  unsigned minor = 0;
  std::vector<FakeLink> links;
  bool mig = false;
  std::vector<FakeDevice> slices;  // MIG devices (slot i = slices[i]; empty name = empty slot)
  unsigned attr_slices = 0;
  unsigned long long attr_memory_mb = 0;
  unsigned gi = 0, ci = 0;  // a MIG device's GPU and compute instance ids
};

std::vector<FakeDevice>* g_devices = nullptr;
Return g_init_result = nvml::kSuccess;
int g_open = 0;  // init minus shutdown calls

FakeDevice* D(Device d) { return reinterpret_cast<FakeDevice*>(d); }

Return Init() {
  if (g_init_result == nvml::kSuccess) ++g_open;
  return g_init_result;
}
Return Shutdown() {
  --g_open;
  return nvml::kSuccess;
}
const char* ErrorString(Return r) { return r == 9 ? "Driver Not Loaded" : "Unknown Error"; }
Return Count(unsigned* n) {
  *n = static_cast<unsigned>(g_devices->size());
  return nvml::kSuccess;
}
Return ByIndex(unsigned i, Device* d) {
  if (i >= g_devices->size()) return nvml::kErrorInvalidArgument;
  *d = reinterpret_cast<Device>(&(*g_devices)[i]);
  return nvml::kSuccess;
}
Return Name(Device d, char* buf, unsigned len) {
  std::snprintf(buf, len, "%s", D(d)->name.c_str());
  return nvml::kSuccess;
}
Return Uuid(Device d, char* buf, unsigned len) {
  std::snprintf(buf, len, "%s", D(d)->uuid.c_str());
  return nvml::kSuccess;
}
Return Mem(Device d, nvml::Memory* m) {
  m->total = D(d)->memory;
  m->free = m->total;
  m->used = 0;
  return nvml::kSuccess;
}
Return Pci(Device d, nvml::PciInfo* p) {
  std::memset(p, 0, sizeof(*p));
  std::snprintf(p->bus_id, sizeof(p->bus_id), "%s", D(d)->bus.c_str());
  return nvml::kSuccess;
}
Return Minor(Device d, unsigned* m) {
  *m = D(d)->minor;
  return nvml::kSuccess;
}
Return Numa(Device d, unsigned* n) {
  if (D(d)->numa < 0) return nvml::kErrorNotSupported;
  *n = static_cast<unsigned>(D(d)->numa);
  return nvml::kSuccess;
}
Return LinkState(Device d, unsigned link, int* active) {
  if (D(d)->links.empty()) return nvml::kErrorNotSupported;
  if (link >= D(d)->links.size()) return nvml::kErrorInvalidArgument;
  *active = nvml::kFeatureEnabled;
  return nvml::kSuccess;
}
Return LinkRemote(Device d, unsigned link, nvml::PciInfo* p) {
  std::memset(p, 0, sizeof(*p));
  std::snprintf(p->bus_id, sizeof(p->bus_id), "%s", D(d)->links[link].remote_bus.c_str());
  return nvml::kSuccess;
}
Return LinkType(Device d, unsigned link, int* type) {
  *type = D(d)->links[link].type;
  return nvml::kSuccess;
}
Return MigMode(Device d, unsigned* current, unsigned* pending) {
  *current = *pending = D(d)->mig ? nvml::kMigEnabled : 0;
  return nvml::kSuccess;
}
Return MaxMig(Device d, unsigned* n) {
  *n = 7;
  return nvml::kSuccess;
}
Return MigByIndex(Device d, unsigned i, Device* out) {
  if (i >= D(d)->slices.size() || D(d)->slices[i].name.empty()) return nvml::kErrorNotFound;
  *out = reinterpret_cast<Device>(&D(d)->slices[i]);
  return nvml::kSuccess;
}
Return Attributes(Device d, nvml::DeviceAttributes* a) {
  std::memset(a, 0, sizeof(*a));
  a->gpu_instance_slice_count = a->compute_instance_slice_count = D(d)->attr_slices;
  a->memory_size_mb = D(d)->attr_memory_mb;
  return nvml::kSuccess;
}

std::string g_driver = "580.65.06";
Return DriverVersion(char* buf, unsigned len) {
  std::snprintf(buf, len, "%s", g_driver.c_str());
  return nvml::kSuccess;
}
Return CudaVersion(int* v) {
  *v = 13000;
  return nvml::kSuccess;
}
Return ComputeCapability(Device d, int* major, int* minor) {
  *major = 9;
  *minor = 0;
  return nvml::kSuccess;
}

Return GpuInstance(Device d, unsigned* id) {
  *id = D(d)->gi;
  return nvml::kSuccess;
}
Return ComputeInstance(Device d, unsigned* id) {
  *id = D(d)->ci;
  return nvml::kSuccess;
}

NvmlApi FakeApi() {
  NvmlApi a;
  a.init = Init;
  a.shutdown = Shutdown;
  a.error_string = ErrorString;
  a.device_count = Count;
  a.handle_by_index = ByIndex;
  a.name = Name;
  a.uuid = Uuid;
  a.memory_info = Mem;
  a.pci_info = Pci;
  a.minor_number = Minor;
  a.numa_node_id = Numa;
  a.nvlink_state = LinkState;
  a.nvlink_remote_pci = LinkRemote;
  a.nvlink_remote_type = LinkType;
  a.mig_mode = MigMode;
  a.max_mig_devices = MaxMig;
  a.mig_handle_by_index = MigByIndex;
  a.attributes = Attributes;
  a.gpu_instance_id = GpuInstance;
  a.compute_instance_id = ComputeInstance;
  a.driver_version = DriverVersion;
  a.cuda_driver_version = CudaVersion;
  a.compute_capability = ComputeCapability;
  return a;
}

// "GPU-" then hex groups of 8-4-4-4-12.
bool LooksLikeGpuUuid(const std::string& u) {
  if (u.size() != 40 || u.compare(0, 4, "GPU-") != 0) return false;
  for (size_t i = 4; i < u.size(); ++i) {
    bool dash = i == 12 || i == 17 || i == 22 || i == 27;
    if (dash ? u[i] != '-' : !std::isxdigit(static_cast<unsigned char>(u[i])) || std::isupper(u[i])) return false;
  }
  return true;
}

std::string Bus(int n) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "00000000:%02X:00.0", n);
  return buf;
}

FakeDevice H100(int i) {
  FakeDevice d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.uuid = "GPU-0000000" + std::to_string(i) + "-aaaa-bbbb-cccc-dddddddddddd";
  d.bus = Bus(0x10 + i);
  d.memory = 81559ULL << 20;
  d.numa = i < 4 ? 0 : 1;
  d.minor = static_cast<unsigned>(i);
  return d;
}

class NvmlDiscoveryTest : public testing::Test {
 protected:
  void SetUp() override {
    g_devices = &devices_;
    g_init_result = nvml::kSuccess;
    g_open = 0;
  }
  void TearDown() override {
    EXPECT_EQ(g_open, 0) << "every successful nvmlInit is matched by nvmlShutdown";
    g_devices = nullptr;
  }
  GpuInventory Discover(const NvmlApi& api) {
    StatusOr<GpuInventory> inv = nvml::DiscoverWith(api);
    EXPECT_TRUE(inv.ok()) << inv.status().ToString();
    return inv.ok() ? *inv : GpuInventory{};
  }
  std::vector<FakeDevice> devices_;
};

TEST_F(NvmlDiscoveryTest, EightGpusBehindNvSwitchesAreAllToAll) {
  for (int i = 0; i < 8; ++i) {
    FakeDevice d = H100(7 - i);  // NVML order is not minor order
    d.minor = static_cast<unsigned>(7 - i);
    for (int l = 0; l < 18; ++l) d.links.push_back({Bus(0xC0 + l % 4), nvml::kLinkSwitch});
    devices_.push_back(d);
  }
  GpuInventory inv = Discover(FakeApi());
  EXPECT_EQ(inv.source, "nvml");
  ASSERT_EQ(inv.gpus.size(), 8u);
  EXPECT_EQ(inv.links, GpuLinkMatrix::NvSwitch(8, 18));
  EXPECT_TRUE(inv.links.nvswitch());
  EXPECT_EQ(inv.gpus[0].model, "h100");
  EXPECT_EQ(inv.gpus[0].memory_mb, 81559);
  EXPECT_EQ(inv.gpus[0].uuid, devices_[0].uuid);
  EXPECT_EQ(inv.gpus[0].index, 0);
  EXPECT_EQ(inv.gpus[0].numa_node, 1);  // H100(7)
  EXPECT_EQ(inv.minors, (std::vector<int>{7, 6, 5, 4, 3, 2, 1, 0}));
  EXPECT_FALSE(inv.gpus[3].is_mig());
  // GPU feature discovery: the product, its memory class, compute capability, driver and CUDA
  // versions, MIG capability, and the NVSwitch fabric.
  EXPECT_EQ(inv.features, (std::vector<std::string>{"cc_9.0", "cuda_13.0", "driver_580", "gpumem_80g", "h100",
                                                    "mig_capable", "nvlink", "nvswitch"}));
}

TEST_F(NvmlDiscoveryTest, BridgedPairsBecomeIslandsAndCpuLinksAreIgnored) {
  for (int i = 0; i < 4; ++i) devices_.push_back(H100(i));
  auto bridge = [&](int a, int b, int count) {
    for (int k = 0; k < count; ++k) {
      devices_[a].links.push_back({devices_[b].bus, nvml::kLinkGpu});
      devices_[b].links.push_back({devices_[a].bus, nvml::kLinkGpu});
    }
  };
  bridge(0, 1, 4);
  bridge(2, 3, 2);
  devices_[0].links.push_back({Bus(0x00), nvml::kLinkIbmNpu});  // a CPU link: not a switch
  GpuInventory inv = Discover(FakeApi());
  GpuLinkMatrix want(4);
  want.set_links(0, 1, 4);
  want.set_links(2, 3, 2);
  EXPECT_EQ(inv.links, want);
  EXPECT_FALSE(inv.links.nvswitch());
}

TEST_F(NvmlDiscoveryTest, MigSlicesReplaceTheirGpuAndNumaFallsBackToSysfs) {
  devices_.push_back(H100(0));
  devices_.push_back(H100(1));
  devices_[0].mig = true;
  devices_[0].numa = -1;  // only sysfs knows
  FakeDevice s1;
  s1.name = "NVIDIA H100 80GB HBM3 MIG 1g.10gb";
  s1.uuid = "MIG-11111111-2222-3333-4444-555555555555";
  s1.memory = 9984ULL << 20;
  FakeDevice s2;
  s2.name = "NVIDIA H100 80GB HBM3 MIG";  // no profile in the name: from the attributes
  s2.uuid = "MIG-66666666-2222-3333-4444-555555555555";
  s2.memory = 40192ULL << 20;
  s2.attr_slices = 3;
  s2.attr_memory_mb = 40192;
  s1.gi = 7;
  s1.ci = 0;
  s2.gi = 2;
  s2.ci = 0;
  devices_[0].slices = {s1, FakeDevice(), s2};  // slot 1 empty
  devices_[1].minor = 5;

  TempDir tmp("muster-sysfs-");
  const std::string sysfs = tmp.path();
  std::string dev_dir = sysfs + "/0000:10:00.0";
  ASSERT_EQ(mkdir(dev_dir.c_str(), 0755), 0);
  std::ofstream(dev_dir + "/numa_node") << "1\n";
  // The driver's capability files, as /proc/driver/nvidia/capabilities has them: slice 1's GPU
  // instance 7 and its compute instance 0; slice 2's instance files are missing.
  const std::string caps = sysfs + "/caps";
  ASSERT_EQ(system(("mkdir -p " + caps + "/gpu0/mig/gi7/ci0").c_str()), 0);
  std::ofstream(caps + "/gpu0/mig/gi7/access") << "DeviceFileMinor: 66\nDeviceFileMode: 292\nDeviceFileModify: 1\n";
  std::ofstream(caps + "/gpu0/mig/gi7/ci0/access") << "DeviceFileMinor: 67\nDeviceFileMode: 292\nDeviceFileModify: 1\n";
  NvmlApi api = FakeApi();
  api.sysfs_pci = sysfs;
  api.proc_caps = caps;
  GpuInventory inv = Discover(api);
  ASSERT_EQ(inv.gpus.size(), 3u);
  EXPECT_EQ(inv.gpus[0].mig_profile, "1g.10gb");
  EXPECT_EQ(inv.gpus[0].uuid, s1.uuid);
  EXPECT_EQ(inv.gpus[0].memory_mb, 9984);
  EXPECT_EQ(inv.gpus[0].parent_index, 0);
  EXPECT_EQ(inv.gpus[0].model, "h100");
  EXPECT_EQ(inv.gpus[0].numa_node, 1);
  EXPECT_EQ(inv.gpus[0].type(), "1g.10gb");
  EXPECT_EQ(inv.gpus[1].mig_profile, "3g.39gb");
  EXPECT_EQ(inv.gpus[1].index, 1);
  EXPECT_FALSE(inv.gpus[2].is_mig());
  EXPECT_EQ(inv.gpus[2].index, 2);
  EXPECT_EQ(inv.gpus[2].parent_index, -1);
  EXPECT_EQ(inv.minors, (std::vector<int>{0, 0, 5}));
  EXPECT_EQ(inv.cap_minors, (std::vector<std::vector<int>>{{66, 67}, {}, {}}));
  EXPECT_EQ(inv.features, (std::vector<std::string>{"cc_9.0", "cuda_13.0", "driver_580", "gpumem_80g", "h100",
                                                    "mig_capable", "mig_on"}))
      << "no NVLink here";
  EXPECT_EQ(inv.links, GpuLinkMatrix(3));
}

TEST_F(NvmlDiscoveryTest, OptionalEntryPointsMayBeMissing) {
  devices_.push_back(H100(0));
  devices_.push_back(H100(1));
  NvmlApi api = FakeApi();
  api.minor_number = nullptr;
  api.numa_node_id = nullptr;
  api.nvlink_state = nullptr;
  api.mig_mode = nullptr;
  api.attributes = nullptr;
  api.sysfs_pci = "/nonexistent";
  GpuInventory inv = Discover(api);
  ASSERT_EQ(inv.gpus.size(), 2u);
  EXPECT_EQ(inv.minors, (std::vector<int>{0, 1}));
  EXPECT_EQ(inv.gpus[1].numa_node, 0);
  EXPECT_EQ(inv.links, GpuLinkMatrix::PcieOnly(2));
}

TEST_F(NvmlDiscoveryTest, ErrorsNameTheCall) {
  g_init_result = 9;
  StatusOr<GpuInventory> inv = nvml::DiscoverWith(FakeApi());
  ASSERT_FALSE(inv.ok());
  EXPECT_EQ(inv.status().message(), "nvmlInit_v2 failed: Driver Not Loaded");
}

TEST(NvmlLibraryTest, MissingLibraryIsNotFound) {
  void* present = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (present == nullptr) present = dlopen("libnvidia-ml.so.1", RTLD_NOW);
  if (present != nullptr) {
    dlclose(present);
    GTEST_SKIP() << "this machine has libnvidia-ml.so.1";
  }
  StatusOr<GpuInventory> inv = DiscoverNvmlGpus();
  ASSERT_FALSE(inv.ok());
  EXPECT_EQ(inv.status().code(), StatusCode::kNotFound);
  EXPECT_NE(inv.status().message().find("libnvidia-ml.so.1"), std::string::npos);
}

TEST(NvmlNamesTest, ShortModelNames) {
  const std::pair<const char*, const char*> cases[] = {
      {"NVIDIA H100 80GB HBM3", "h100"},  {"NVIDIA H200", "h200"},
      {"NVIDIA A100-SXM4-80GB", "a100"},  {"Tesla V100-SXM2-32GB", "v100"},
      {"NVIDIA GeForce RTX 4090", "rtx_4090"}, {"NVIDIA RTX A6000", "rtx_a6000"},
      {"Quadro RTX 8000", "rtx_8000"},    {"NVIDIA L40S", "l40s"},
      {"NVIDIA GH200 480GB", "gh200"},    {"NVIDIA H100 80GB HBM3 MIG 1g.10gb", "h100"},
      {"NVIDIA", "gpu"},
  };
  for (const auto& [name, want] : cases) EXPECT_EQ(nvml::ShortGpuModel(name), want) << name;
}

TEST(NvmlNamesTest, GpuFeaturesFromFacts) {
  nvml::FeatureFacts f;
  f.models = {"h200", "h200"};
  f.memory_mb = {143771, 143771};
  f.compute_capabilities = {{9, 0}};
  f.driver_version = "580.95.05";
  f.cuda_driver_version = 12080;
  EXPECT_EQ(nvml::GpuFeatures(f),
            (std::vector<std::string>{"cc_9.0", "cuda_12.8", "driver_580", "gpumem_140g", "h200"}));
  EXPECT_TRUE(nvml::GpuFeatures(nvml::FeatureFacts{}).empty()) << "nothing known, nothing said";
  f = {};
  f.driver_version = "garbage";
  EXPECT_TRUE(nvml::GpuFeatures(f).empty());
}

TEST(NvmlNamesTest, CapabilityMinors) {
  EXPECT_EQ(nvml::CapabilityMinor("DeviceFileMinor: 66\nDeviceFileMode: 292\n"), 66);
  EXPECT_EQ(nvml::CapabilityMinor("DeviceFileMode: 292\nDeviceFileMinor:3"), 3);
  EXPECT_EQ(nvml::CapabilityMinor("DeviceFileMinor: x"), -1);
  EXPECT_EQ(nvml::CapabilityMinor(""), -1);
}

TEST(NvmlNamesTest, MigProfilesAndBusIds) {
  EXPECT_EQ(nvml::MigProfile("NVIDIA H200 MIG 1g.18gb", nullptr), "1g.18gb");
  nvml::DeviceAttributes a{};
  a.gpu_instance_slice_count = 4;
  a.compute_instance_slice_count = 2;
  a.memory_size_mb = 40320;
  EXPECT_EQ(nvml::MigProfile("", &a), "2c.4g.39gb");
  EXPECT_EQ(nvml::SysfsBusId("00000000:1A:00.0"), "0000:1a:00.0");
  EXPECT_EQ(nvml::SysfsBusId("0001:1A:00.0"), "0001:1a:00.0");
}

TEST(FakeGpusTest, DeterministicInventory) {
  StatusOr<GpuInventory> inv = FakeGpus(4, "A100", 40960, "islands:2", "gpu-017");
  ASSERT_TRUE(inv.ok()) << inv.status().ToString();
  EXPECT_EQ(inv->source, "fake");
  ASSERT_EQ(inv->gpus.size(), 4u);
  EXPECT_EQ(inv->links, GpuLinkMatrix::Islands(4, 2));
  EXPECT_EQ(inv->minors, (std::vector<int>{0, 1, 2, 3}));
  for (int i = 0; i < 4; ++i) {
    const Gpu& g = inv->gpus[i];
    EXPECT_EQ(g.index, i);
    EXPECT_EQ(g.model, "a100");
    EXPECT_EQ(g.memory_mb, 40960);
    EXPECT_EQ(g.numa_node, i < 2 ? 0 : 1);
    EXPECT_TRUE(LooksLikeGpuUuid(g.uuid)) << g.uuid;
  }
  EXPECT_NE(inv->gpus[0].uuid, inv->gpus[1].uuid);
  StatusOr<GpuInventory> again = FakeGpus(4, "A100", 40960, "islands:2", "gpu-017");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->gpus, inv->gpus);
  StatusOr<GpuInventory> other = FakeGpus(4, "A100", 40960, "islands:2", "gpu-018");
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->gpus[0].uuid, inv->gpus[0].uuid);
}

TEST(FakeGpusTest, BadInputsAreErrors) {
  EXPECT_EQ(FakeGpus(65, "a100", 1, "pcie", "n1").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(FakeGpus(2, "", 1, "pcie", "n1").status().code(), StatusCode::kInvalidArgument);
  StatusOr<GpuInventory> bad = FakeGpus(3, "a100", 1, "islands:2", "n1");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'n1'"), std::string::npos) << bad.status().ToString();
  StatusOr<GpuInventory> none = FakeGpus(0, "", 0, "nvswitch", "cpu1");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->gpus.empty());
}

}  // namespace
}  // namespace muster
