// GPU discovery through NVML (loaded at run time) and the fake inventory for GPU-less machines.
#include "agent/gpu_inventory.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>

#include "agent/nvml_api.h"
#include "base/read_file.h"

namespace muster {
namespace nvml {
namespace {

constexpr int kMaxDevices = 64;  // a GpuLinkMatrix holds at most 64 GPUs

std::string ErrorText(const NvmlApi& api, Return r) {
  if (api.error_string != nullptr) {
    const char* s = api.error_string(r);
    if (s != nullptr) return s;
  }
  return "NVML error " + std::to_string(r);
}

Status CallFailed(const NvmlApi& api, const std::string& call, Return r) {
  return Internal(call + " failed: " + ErrorText(api, r));
}

// A physical GPU as NVML reports it.
struct Physical {
  unsigned int nvml_index = 0;
  Device handle = nullptr;
  std::string name;
  std::string bus_id;  // sysfs form
  int numa_node = 0;
  int minor = -1;
};

int NumaNode(const NvmlApi& api, Device d, const std::string& bus_id) {
  unsigned int node = 0;
  if (api.numa_node_id != nullptr && api.numa_node_id(d, &node) == kSuccess) return static_cast<int>(node);
  std::ifstream in(api.sysfs_pci + "/" + bus_id + "/numa_node");
  int value = -1;
  if (in >> value && value >= 0) return value;
  return 0;  // no NUMA information: a single-node machine
}

StatusOr<Gpu> DescribeDevice(const NvmlApi& api, Device d, const std::string& what) {
  Gpu gpu;
  char name[kNameBufferSize] = {0};
  Return r = api.name(d, name, sizeof(name));
  if (r != kSuccess) return CallFailed(api, "nvmlDeviceGetName(" + what + ")", r);
  char uuid[kUuidBufferSize] = {0};
  r = api.uuid(d, uuid, sizeof(uuid));
  if (r != kSuccess) return CallFailed(api, "nvmlDeviceGetUUID(" + what + ")", r);
  Memory mem{};
  r = api.memory_info(d, &mem);
  if (r != kSuccess) return CallFailed(api, "nvmlDeviceGetMemoryInfo(" + what + ")", r);
  gpu.model = ShortGpuModel(name);
  gpu.uuid = uuid;
  gpu.memory_mb = static_cast<int64_t>(mem.total / (1024 * 1024));
  return gpu;
}

// The capability device minors of a MIG device: its GPU instance's and its compute instance's
// (none where NVML or the driver's capability files do not say).
std::vector<int> MigCapMinors(const NvmlApi& api, Device mig, int gpu_minor) {
  std::vector<int> out;
  unsigned int gi = 0, ci = 0;
  if (api.gpu_instance_id == nullptr || api.compute_instance_id == nullptr) return out;
  if (api.gpu_instance_id(mig, &gi) != kSuccess || api.compute_instance_id(mig, &ci) != kSuccess) return out;
  const std::string dir = api.proc_caps + "/gpu" + std::to_string(gpu_minor) + "/mig/gi" + std::to_string(gi);
  for (const std::string& file : {dir + "/access", dir + "/ci" + std::to_string(ci) + "/access"}) {
    const int minor = CapabilityMinor(ReadFileOrEmpty(file));
    if (minor >= 0) out.push_back(minor);
  }
  return out;
}

// A MIG slice of a GPU in MIG mode, with its capability devices.
struct MigSlice {
  Gpu gpu;
  std::vector<int> cap_minors;
};

// The MIG devices of a GPU in MIG mode (none when it has no instances yet).
StatusOr<std::vector<MigSlice>> MigDevices(const NvmlApi& api, const Physical& p) {
  std::vector<MigSlice> out;
  unsigned int max = 0;
  if (api.max_mig_devices == nullptr || api.mig_handle_by_index == nullptr) return out;
  Return r = api.max_mig_devices(p.handle, &max);
  if (r != kSuccess) return CallFailed(api, "nvmlDeviceGetMaxMigDeviceCount(GPU " + std::to_string(p.nvml_index) + ")", r);
  for (unsigned int i = 0; i < max; ++i) {
    Device mig = nullptr;
    r = api.mig_handle_by_index(p.handle, i, &mig);
    if (r == kErrorNotFound || r == kErrorInvalidArgument) continue;  // an empty slot
    std::string what = "GPU " + std::to_string(p.nvml_index) + " MIG " + std::to_string(i);
    if (r != kSuccess) return CallFailed(api, "nvmlDeviceGetMigDeviceHandleByIndex(" + what + ")", r);
    ASSIGN_OR_RETURN(Gpu gpu, DescribeDevice(api, mig, what));
    char name[kNameBufferSize] = {0};
    api.name(mig, name, sizeof(name));
    DeviceAttributes attrs{};
    bool have_attrs = api.attributes != nullptr && api.attributes(mig, &attrs) == kSuccess;
    gpu.mig_profile = MigProfile(name, have_attrs ? &attrs : nullptr);
    gpu.model = ShortGpuModel(p.name);
    gpu.numa_node = p.numa_node;
    gpu.parent_index = static_cast<int>(p.nvml_index);
    out.push_back({std::move(gpu), MigCapMinors(api, mig, p.minor)});
  }
  return out;
}

// NVLink link counts between physical GPUs, by the remote end's PCI bus id. A link whose remote
// is not one of the GPUs goes to an NVSwitch (or, typed IBM NPU, to a CPU and is ignored).
struct LinkScan {
  std::map<std::pair<int, int>, int> pair_links;  // (a < b) -> links seen from a's side
  std::vector<int> switch_links;                  // per physical GPU
};

LinkScan ScanLinks(const NvmlApi& api, const std::vector<Physical>& gpus) {
  LinkScan scan;
  scan.switch_links.assign(gpus.size(), 0);
  if (api.nvlink_state == nullptr || api.nvlink_remote_pci == nullptr) return scan;
  std::map<std::string, int> by_bus;
  for (size_t i = 0; i < gpus.size(); ++i) by_bus[gpus[i].bus_id] = static_cast<int>(i);
  std::map<std::pair<int, int>, int> seen;  // (from, to) -> count
  for (size_t a = 0; a < gpus.size(); ++a) {
    for (unsigned int link = 0; link < kMaxNvLinks; ++link) {
      int active = 0;
      Return r = api.nvlink_state(gpus[a].handle, link, &active);
      // NOT_SUPPORTED (no NVLink, or not this link), INVALID_ARGUMENT (beyond the device's links).
      if (r != kSuccess || active != kFeatureEnabled) continue;
      PciInfo remote{};
      if (api.nvlink_remote_pci(gpus[a].handle, link, &remote) != kSuccess) continue;
      int type = kLinkUnknown;
      if (api.nvlink_remote_type != nullptr && api.nvlink_remote_type(gpus[a].handle, link, &type) != kSuccess) {
        type = kLinkUnknown;
      }
      auto it = by_bus.find(SysfsBusId(remote.bus_id));
      if (it != by_bus.end() && it->second != static_cast<int>(a)) {
        ++seen[{static_cast<int>(a), it->second}];
      } else if (type == kLinkSwitch || (type != kLinkIbmNpu && type != kLinkGpu)) {
        ++scan.switch_links[a];
      }
    }
  }
  // Both ends report a link; take the larger count in case one side's query failed.
  for (const auto& [key, count] : seen) {
    std::pair<int, int> pair = {std::min(key.first, key.second), std::max(key.first, key.second)};
    scan.pair_links[pair] = std::max(scan.pair_links[pair], count);
  }
  return scan;
}

}  // namespace

namespace {

// The facts of GpuFeatures that NVML's system and device calls give (links aside).
FeatureFacts SystemFacts(const NvmlApi& api, const std::vector<Device>& physical) {
  FeatureFacts f;
  char version[96] = {0};
  if (api.driver_version != nullptr && api.driver_version(version, sizeof(version)) == kSuccess) f.driver_version = version;
  int cuda = 0;
  if (api.cuda_driver_version != nullptr && api.cuda_driver_version(&cuda) == kSuccess) f.cuda_driver_version = cuda;
  for (Device d : physical) {
    char name[kNameBufferSize] = {0};
    if (api.name(d, name, sizeof(name)) == kSuccess) f.models.push_back(ShortGpuModel(name));
    Memory mem{};
    if (api.memory_info(d, &mem) == kSuccess) f.memory_mb.push_back(static_cast<int64_t>(mem.total / (1024 * 1024)));
    int major = 0, minor = 0;
    if (api.compute_capability != nullptr && api.compute_capability(d, &major, &minor) == kSuccess) {
      f.compute_capabilities.emplace_back(major, minor);
    }
    unsigned int current = 0, pending = 0;
    if (api.mig_mode != nullptr && api.mig_mode(d, &current, &pending) == kSuccess) {
      f.mig_capable = true;
      f.mig_enabled = f.mig_enabled || current == kMigEnabled;
    }
  }
  return f;
}

StatusOr<GpuInventory> DiscoverDevices(const NvmlApi& api, FeatureFacts* facts);

}  // namespace

StatusOr<GpuInventory> DiscoverWith(const NvmlApi& api) {
  FeatureFacts facts;
  ASSIGN_OR_RETURN(GpuInventory inv, DiscoverDevices(api, &facts));
  for (int a = 0; a < inv.links.size(); ++a) {
    for (int b = a + 1; b < inv.links.size(); ++b) facts.nvlink = facts.nvlink || inv.links.links(a, b) > 0;
  }
  facts.nvswitch = inv.links.nvswitch();
  inv.features = GpuFeatures(facts);
  return inv;
}

namespace {

StatusOr<GpuInventory> DiscoverDevices(const NvmlApi& api, FeatureFacts* facts) {
  Return r = api.init();
  if (r != kSuccess) return CallFailed(api, "nvmlInit_v2", r);
  struct Shutdown {
    const NvmlApi& api;
    ~Shutdown() { api.shutdown(); }
  } shutdown{api};

  unsigned int count = 0;
  r = api.device_count(&count);
  if (r != kSuccess) return CallFailed(api, "nvmlDeviceGetCount_v2", r);
  std::vector<Physical> physical;
  for (unsigned int i = 0; i < count; ++i) {
    Physical p;
    p.nvml_index = i;
    r = api.handle_by_index(i, &p.handle);
    if (r != kSuccess) return CallFailed(api, "nvmlDeviceGetHandleByIndex_v2(" + std::to_string(i) + ")", r);
    char name[kNameBufferSize] = {0};
    r = api.name(p.handle, name, sizeof(name));
    if (r != kSuccess) return CallFailed(api, "nvmlDeviceGetName(GPU " + std::to_string(i) + ")", r);
    p.name = name;
    PciInfo pci{};
    r = api.pci_info(p.handle, &pci);
    if (r != kSuccess) return CallFailed(api, "nvmlDeviceGetPciInfo_v3(GPU " + std::to_string(i) + ")", r);
    p.bus_id = SysfsBusId(pci.bus_id);
    p.numa_node = NumaNode(api, p.handle, p.bus_id);
    unsigned int minor = 0;
    p.minor = api.minor_number != nullptr && api.minor_number(p.handle, &minor) == kSuccess ? static_cast<int>(minor)
                                                                                            : static_cast<int>(i);
    physical.push_back(std::move(p));
  }

  GpuInventory inv;
  inv.source = "nvml";
  std::vector<int> whole_entry(physical.size(), -1);  // physical GPU -> its entry in inv.gpus
  bool any_mig = false;
  for (size_t i = 0; i < physical.size(); ++i) {
    const Physical& p = physical[i];
    unsigned int current = 0, pending = 0;
    bool mig = api.mig_mode != nullptr && api.mig_mode(p.handle, &current, &pending) == kSuccess &&
               current == kMigEnabled;
    if (mig) {
      any_mig = true;
      ASSIGN_OR_RETURN(std::vector<MigSlice> slices, MigDevices(api, p));
      for (MigSlice& s : slices) {
        inv.gpus.push_back(std::move(s.gpu));
        inv.minors.push_back(p.minor);
        inv.cap_minors.push_back(std::move(s.cap_minors));
        inv.nvml_index.push_back(static_cast<int>(p.nvml_index));
      }
      continue;
    }
    ASSIGN_OR_RETURN(Gpu g, DescribeDevice(api, p.handle, "GPU " + std::to_string(i)));
    g.numa_node = p.numa_node;
    whole_entry[i] = static_cast<int>(inv.gpus.size());
    inv.gpus.push_back(std::move(g));
    inv.minors.push_back(p.minor);
    inv.cap_minors.emplace_back();
    inv.nvml_index.push_back(static_cast<int>(p.nvml_index));
  }
  if (static_cast<int>(inv.gpus.size()) > kMaxDevices) {
    return OutOfRange("the node has " + std::to_string(inv.gpus.size()) + " GPU devices; at most " +
                      std::to_string(kMaxDevices) + " are supported");
  }
  for (size_t i = 0; i < inv.gpus.size(); ++i) inv.gpus[i].index = static_cast<int>(i);
  std::vector<Device> handles;
  for (const Physical& p : physical) handles.push_back(p.handle);
  *facts = SystemFacts(api, handles);

  const int n = static_cast<int>(inv.gpus.size());
  LinkScan scan = ScanLinks(api, physical);
  int switch_min = -1;
  for (size_t i = 0; i < physical.size(); ++i) {
    if (whole_entry[i] < 0) continue;
    switch_min = switch_min < 0 ? scan.switch_links[i] : std::min(switch_min, scan.switch_links[i]);
  }
  if (switch_min > 0 && !any_mig) {
    // Every GPU reaches the others through the switches with all its switch links.
    inv.links = GpuLinkMatrix::NvSwitch(n, switch_min);
    return inv;
  }
  inv.links = GpuLinkMatrix(n);
  if (switch_min > 0) {
    // MIG slices have no peer-to-peer; the whole GPUs still meet through the switches.
    for (size_t a = 0; a < physical.size(); ++a) {
      for (size_t b = a + 1; b < physical.size(); ++b) {
        if (whole_entry[a] >= 0 && whole_entry[b] >= 0) inv.links.set_links(whole_entry[a], whole_entry[b], switch_min);
      }
    }
    return inv;
  }
  for (const auto& [pair, links] : scan.pair_links) {
    int a = whole_entry[pair.first], b = whole_entry[pair.second];
    if (a >= 0 && b >= 0) inv.links.set_links(a, b, std::min(links, 255));
  }
  return inv;
}

}  // namespace

}  // namespace nvml

StatusOr<GpuInventory> DiscoverNvmlGpus(const std::string& library) {
  ASSIGN_OR_RETURN(std::unique_ptr<nvml::NvmlLibrary> lib, nvml::NvmlLibrary::Load(library));
  return nvml::DiscoverWith(lib->api());
}

namespace {

// FNV-1a, 64 bits: stable across platforms and runs, which is all a fake UUID needs.
uint64_t Fnv1a(const std::string& s, uint64_t seed) {
  uint64_t h = 1469598103934665603ULL ^ seed;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string FakeUuid(const std::string& node_name, int index) {
  std::string key = node_name + "/gpu/" + std::to_string(index);
  char hex[33];
  std::snprintf(hex, sizeof(hex), "%016llx%016llx", static_cast<unsigned long long>(Fnv1a(key, 0)),
                static_cast<unsigned long long>(Fnv1a(key, 0x9e3779b97f4a7c15ULL)));
  std::string h(hex);
  return "GPU-" + h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) + "-" +
         h.substr(20, 12);
}

}  // namespace

StatusOr<GpuInventory> FakeGpus(int count, const std::string& model, int64_t memory_mb, const std::string& links,
                                const std::string& node_name) {
  if (count < 0 || count > 64) {
    return InvalidArgument("fake GPU count " + std::to_string(count) + " for node '" + node_name +
                           "' must be in [0, 64]");
  }
  if (count > 0 && model.empty()) return InvalidArgument("fake GPUs of node '" + node_name + "' need a model");
  if (memory_mb < 0) return InvalidArgument("fake GPU memory of node '" + node_name + "' is negative");
  GpuInventory inv;
  inv.source = "fake";
  StatusOr<GpuLinkMatrix> matrix = GpuLinkMatrix::Parse(links.empty() ? "pcie" : links, count);
  if (!matrix.ok()) return matrix.status().WithPrefix("fake GPUs of node '" + node_name + "'");
  inv.links = std::move(matrix).value();
  std::string lower = model;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (int i = 0; i < count; ++i) {
    Gpu g;
    g.index = i;
    g.model = lower;
    g.memory_mb = memory_mb;
    g.uuid = FakeUuid(node_name, i);
    g.numa_node = count > 1 && i >= count / 2 ? 1 : 0;  // first half on NUMA node 0, second on 1
    inv.gpus.push_back(std::move(g));
    inv.minors.push_back(i);
    inv.cap_minors.emplace_back();
  }
  return inv;
}

}  // namespace muster
