// Loading libnvidia-ml.so.1 at run time, and the name helpers of GPU discovery.
#include "agent/nvml_api.h"

#include <dlfcn.h>

#include <algorithm>

#include <cctype>
#include <sstream>
#include <vector>

#include "base/strings.h"

namespace muster::nvml {
namespace {

template <typename Fn>
void Bind(void* handle, const char* symbol, Fn* out) {
  *out = reinterpret_cast<Fn>(dlsym(handle, symbol));
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\n");
  return s.substr(b, e - b + 1);
}

}  // namespace

NvmlLibrary::~NvmlLibrary() {
  if (handle_ != nullptr) dlclose(handle_);
}

StatusOr<std::unique_ptr<NvmlLibrary>> NvmlLibrary::Load(const std::string& soname) {
  void* handle = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return NotFound("cannot load " + soname + " (no NVIDIA driver here?): " + (why != nullptr ? why : "unknown error"));
  }
  std::unique_ptr<NvmlLibrary> lib(new NvmlLibrary());
  lib->handle_ = handle;
  NvmlApi& a = lib->api_;
  Bind(handle, "nvmlInit_v2", &a.init);
  Bind(handle, "nvmlShutdown", &a.shutdown);
  Bind(handle, "nvmlErrorString", &a.error_string);
  Bind(handle, "nvmlDeviceGetCount_v2", &a.device_count);
  Bind(handle, "nvmlDeviceGetHandleByIndex_v2", &a.handle_by_index);
  Bind(handle, "nvmlDeviceGetName", &a.name);
  Bind(handle, "nvmlDeviceGetUUID", &a.uuid);
  Bind(handle, "nvmlDeviceGetMemoryInfo", &a.memory_info);
  Bind(handle, "nvmlDeviceGetPciInfo_v3", &a.pci_info);
  Bind(handle, "nvmlDeviceGetMinorNumber", &a.minor_number);
  Bind(handle, "nvmlDeviceGetNumaNodeId", &a.numa_node_id);
  Bind(handle, "nvmlDeviceGetNvLinkState", &a.nvlink_state);
  Bind(handle, "nvmlDeviceGetNvLinkRemotePciInfo_v2", &a.nvlink_remote_pci);
  Bind(handle, "nvmlDeviceGetNvLinkRemoteDeviceType", &a.nvlink_remote_type);
  Bind(handle, "nvmlDeviceGetMigMode", &a.mig_mode);
  Bind(handle, "nvmlDeviceGetMaxMigDeviceCount", &a.max_mig_devices);
  Bind(handle, "nvmlDeviceGetMigDeviceHandleByIndex", &a.mig_handle_by_index);
  Bind(handle, "nvmlDeviceGetAttributes_v2", &a.attributes);
  Bind(handle, "nvmlDeviceGetGpuInstanceId", &a.gpu_instance_id);
  Bind(handle, "nvmlDeviceGetComputeInstanceId", &a.compute_instance_id);
  Bind(handle, "nvmlSystemGetDriverVersion", &a.driver_version);
  Bind(handle, "nvmlSystemGetCudaDriverVersion_v2", &a.cuda_driver_version);
  if (a.cuda_driver_version == nullptr) Bind(handle, "nvmlSystemGetCudaDriverVersion", &a.cuda_driver_version);
  Bind(handle, "nvmlDeviceGetCudaComputeCapability", &a.compute_capability);
  Bind(handle, "nvmlEventSetCreate", &a.event_set_create);
  Bind(handle, "nvmlDeviceRegisterEvents", &a.register_events);
  Bind(handle, "nvmlEventSetWait_v2", &a.event_set_wait);
  Bind(handle, "nvmlEventSetFree", &a.event_set_free);
  Bind(handle, "nvmlDeviceGetTotalEccErrors", &a.total_ecc_errors);
  Bind(handle, "nvmlDeviceGetRemappedRows", &a.remapped_rows);
  Bind(handle, "nvmlDeviceGetCurrentClocksThrottleReasons", &a.throttle_reasons);
  Bind(handle, "nvmlDeviceGetRetiredPagesPendingStatus", &a.retired_pages_pending);
  Bind(handle, "nvmlDeviceGetUtilizationRates", &a.utilization_rates);
  Bind(handle, "nvmlDeviceGetTemperature", &a.temperature);
  Bind(handle, "nvmlDeviceGetPowerUsage", &a.power_usage);
  Bind(handle, "nvmlDeviceGetClockInfo", &a.clock_info);
  if (a.pci_info == nullptr) Bind(handle, "nvmlDeviceGetPciInfo_v2", &a.pci_info);  // drivers before R450
  struct Required {
    const char* symbol;
    bool present;
  };
  const Required required[] = {
      {"nvmlInit_v2", a.init != nullptr},
      {"nvmlShutdown", a.shutdown != nullptr},
      {"nvmlDeviceGetCount_v2", a.device_count != nullptr},
      {"nvmlDeviceGetHandleByIndex_v2", a.handle_by_index != nullptr},
      {"nvmlDeviceGetName", a.name != nullptr},
      {"nvmlDeviceGetUUID", a.uuid != nullptr},
      {"nvmlDeviceGetMemoryInfo", a.memory_info != nullptr},
      {"nvmlDeviceGetPciInfo_v3", a.pci_info != nullptr},
  };
  for (const Required& r : required) {
    if (!r.present) return Internal(soname + " lacks " + r.symbol + " (driver too old?)");
  }
  return lib;
}

std::string ShortGpuModel(const std::string& nvml_name) {
  std::string name = Lower(nvml_name);
  size_t mig = name.find(" mig ");
  if (mig != std::string::npos) name.resize(mig);
  for (char& c : name) {
    if (c == '-' || c == '_') c = ' ';
  }
  std::istringstream in(name);
  std::vector<std::string> words;
  std::string w;
  while (in >> w) words.push_back(w);
  size_t i = 0;
  while (i < words.size() &&
         (words[i] == "nvidia" || words[i] == "tesla" || words[i] == "geforce" || words[i] == "quadro")) {
    ++i;
  }
  if (i >= words.size()) return "gpu";
  // Product lines whose first word alone says little: "rtx 4090" -> "rtx_4090", "titan v" -> "titan_v".
  if ((words[i] == "rtx" || words[i] == "titan") && i + 1 < words.size()) return words[i] + "_" + words[i + 1];
  return words[i];
}

std::vector<std::string> GpuFeatures(const FeatureFacts& f) {
  std::vector<std::string> out;
  for (const std::string& m : f.models) {
    if (!m.empty()) out.push_back(m);
  }
  for (int64_t mb : f.memory_mb) {
    if (mb > 0) out.push_back("gpumem_" + std::to_string((mb + 512) / 1024) + "g");
  }
  for (const auto& [major, minor] : f.compute_capabilities) {
    if (major > 0) out.push_back("cc_" + std::to_string(major) + "." + std::to_string(minor));
  }
  const std::string driver_major = f.driver_version.substr(0, f.driver_version.find('.'));
  if (!driver_major.empty() && driver_major.find_first_not_of("0123456789") == std::string::npos) {
    out.push_back("driver_" + driver_major);
  }
  if (f.cuda_driver_version > 0) {
    out.push_back("cuda_" + std::to_string(f.cuda_driver_version / 1000) + "." +
                  std::to_string(f.cuda_driver_version % 1000 / 10));
  }
  if (f.mig_capable) out.push_back("mig_capable");
  if (f.mig_enabled) out.push_back("mig_on");
  if (f.nvlink) out.push_back("nvlink");
  if (f.nvswitch) out.push_back("nvswitch");
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

int CapabilityMinor(const std::string& text) {
  static const std::string kKey = "DeviceFileMinor:";
  size_t at = text.find(kKey);
  if (at == std::string::npos) return -1;
  at += kKey.size();
  while (at < text.size() && text[at] == ' ') ++at;
  int value = 0, digits = 0;
  while (at < text.size() && text[at] >= '0' && text[at] <= '9' && digits < 9) {
    value = value * 10 + (text[at++] - '0');
    ++digits;
  }
  return digits == 0 ? -1 : value;
}

std::string MigProfile(const std::string& mig_name, const DeviceAttributes* attributes) {
  std::string lower = Lower(mig_name);
  size_t mig = lower.find(" mig ");
  if (mig != std::string::npos) {
    std::string profile = Trim(lower.substr(mig + 5));
    if (!profile.empty()) return profile;
  }
  if (attributes == nullptr || attributes->gpu_instance_slice_count == 0) return "mig";
  std::string gb = std::to_string((attributes->memory_size_mb + 512) / 1024) + "gb";
  std::string g = std::to_string(attributes->gpu_instance_slice_count) + "g.";
  if (attributes->compute_instance_slice_count != 0 &&
      attributes->compute_instance_slice_count != attributes->gpu_instance_slice_count) {
    return std::to_string(attributes->compute_instance_slice_count) + "c." + g + gb;
  }
  return g + gb;
}

std::string SysfsBusId(const std::string& nvml_bus_id) {
  std::string id = Lower(Trim(nvml_bus_id));
  // NVML pads the domain to 8 hex digits, sysfs to 4.
  size_t colon = id.find(':');
  if (colon == 8 && id.compare(0, 4, "0000") == 0) id = id.substr(4);
  return id;
}

}  // namespace muster::nvml
