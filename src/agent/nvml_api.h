// Internal to the agent: the slice of NVML's C ABI that GPU discovery uses, declared here so that
// no CUDA or NVML header is needed to build. Types and values follow nvml.h (the stable ABI the
// driver's libnvidia-ml.so.1 exports); only what discovery reads is declared. NvmlApi is a table
// of entry points: LoadNvml() fills it with dlsym, tests fill it with fakes.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <memory>

#include "agent/gpu_inventory.h"
#include "base/status.h"

namespace muster::nvml {

using Return = int;  // nvmlReturn_t
inline constexpr Return kSuccess = 0;
inline constexpr Return kErrorInvalidArgument = 2;
inline constexpr Return kErrorNotSupported = 3;
inline constexpr Return kErrorNotFound = 6;
inline constexpr Return kErrorTimeout = 10;
inline constexpr Return kErrorGpuIsLost = 15;

struct DeviceSt;
using Device = DeviceSt*;  // nvmlDevice_t (opaque)
struct EventSetSt;
using EventSet = EventSetSt*;  // nvmlEventSet_t (opaque)

// nvmlEventData_t.
struct EventData {
  Device device;
  unsigned long long event_type;
  unsigned long long event_data;  // the Xid, for an Xid event
  unsigned int gpu_instance_id;
  unsigned int compute_instance_id;
};
inline constexpr unsigned long long kEventXidCriticalError = 0x8;  // nvmlEventTypeXidCriticalError
inline constexpr int kMemoryErrorUncorrected = 1;                  // NVML_MEMORY_ERROR_TYPE_UNCORRECTED
inline constexpr int kVolatileEcc = 0;                             // NVML_VOLATILE_ECC
// nvmlClocksThrottleReasons: the slowdowns the hardware imposes.
inline constexpr unsigned long long kThrottleHwSlowdown = 0x8;
inline constexpr unsigned long long kThrottleSwThermal = 0x20;
inline constexpr unsigned long long kThrottleHwThermal = 0x40;
inline constexpr unsigned long long kThrottleHwPowerBrake = 0x80;

inline constexpr unsigned kNameBufferSize = 96;  // NVML_DEVICE_NAME_V2_BUFFER_SIZE
inline constexpr unsigned kUuidBufferSize = 96;  // NVML_DEVICE_UUID_V2_BUFFER_SIZE
inline constexpr unsigned kMaxNvLinks = 18;      // NVML_NVLINK_MAX_LINKS (Hopper and later)
inline constexpr unsigned kMigEnabled = 1;       // NVML_DEVICE_MIG_ENABLE
inline constexpr int kFeatureEnabled = 1;        // NVML_FEATURE_ENABLED

// nvmlPciInfo_t (the layout of the _v2/_v3 calls).
struct PciInfo {
  char bus_id_legacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pci_device_id;
  unsigned int pci_subsystem_id;
  char bus_id[32];  // "00000000:17:00.0"
};

// nvmlMemory_t.
struct Memory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

// nvmlUtilization_t: percent of the last sample period the GPU's kernels ran, and its memory was
// read or written.
struct Utilization {
  unsigned int gpu;
  unsigned int memory;
};
inline constexpr int kTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU
inline constexpr int kClockSm = 1;         // NVML_CLOCK_SM
inline constexpr int kClockMem = 2;        // NVML_CLOCK_MEM

// nvmlDeviceAttributes_t (what nvmlDeviceGetAttributes_v2 fills).
struct DeviceAttributes {
  unsigned int multiprocessor_count;
  unsigned int shared_copy_engine_count;
  unsigned int shared_decoder_count;
  unsigned int shared_encoder_count;
  unsigned int shared_jpeg_count;
  unsigned int shared_ofa_count;
  unsigned int gpu_instance_slice_count;
  unsigned int compute_instance_slice_count;
  unsigned long long memory_size_mb;
};

// nvmlIntNvLinkDeviceType_t.
enum LinkDeviceType : int { kLinkGpu = 0, kLinkIbmNpu = 1, kLinkSwitch = 2, kLinkUnknown = 0xFF };

// Entry points. Required ones are non-null after a successful LoadNvml; optional ones (marked)
// may be null on older drivers and are then worked around.
struct NvmlApi {
  Return (*init)() = nullptr;                                           // nvmlInit_v2
  Return (*shutdown)() = nullptr;                                       // nvmlShutdown
  const char* (*error_string)(Return) = nullptr;                        // nvmlErrorString (optional)
  Return (*device_count)(unsigned int*) = nullptr;                      // nvmlDeviceGetCount_v2
  Return (*handle_by_index)(unsigned int, Device*) = nullptr;           // nvmlDeviceGetHandleByIndex_v2
  Return (*name)(Device, char*, unsigned int) = nullptr;                // nvmlDeviceGetName
  Return (*uuid)(Device, char*, unsigned int) = nullptr;                // nvmlDeviceGetUUID
  Return (*memory_info)(Device, Memory*) = nullptr;                     // nvmlDeviceGetMemoryInfo
  Return (*pci_info)(Device, PciInfo*) = nullptr;                       // nvmlDeviceGetPciInfo_v3
  Return (*minor_number)(Device, unsigned int*) = nullptr;              // optional
  Return (*numa_node_id)(Device, unsigned int*) = nullptr;              // optional (R535+)
  Return (*nvlink_state)(Device, unsigned int, int*) = nullptr;         // optional
  Return (*nvlink_remote_pci)(Device, unsigned int, PciInfo*) = nullptr;  // optional (_v2)
  Return (*nvlink_remote_type)(Device, unsigned int, int*) = nullptr;   // optional
  Return (*mig_mode)(Device, unsigned int*, unsigned int*) = nullptr;   // optional
  Return (*max_mig_devices)(Device, unsigned int*) = nullptr;           // optional
  Return (*mig_handle_by_index)(Device, unsigned int, Device*) = nullptr;  // optional
  Return (*attributes)(Device, DeviceAttributes*) = nullptr;            // optional (_v2)
  Return (*gpu_instance_id)(Device, unsigned int*) = nullptr;           // optional (MIG device)
  Return (*compute_instance_id)(Device, unsigned int*) = nullptr;       // optional (MIG device)
  Return (*driver_version)(char*, unsigned int) = nullptr;              // optional: nvmlSystemGetDriverVersion
  Return (*cuda_driver_version)(int*) = nullptr;                        // optional: nvmlSystemGetCudaDriverVersion_v2
  Return (*compute_capability)(Device, int*, int*) = nullptr;           // optional: nvmlDeviceGetCudaComputeCapability
  // Health (all optional: a check whose call is missing is skipped).
  Return (*event_set_create)(EventSet*) = nullptr;                      // nvmlEventSetCreate
  Return (*register_events)(Device, unsigned long long, EventSet) = nullptr;  // nvmlDeviceRegisterEvents
  Return (*event_set_wait)(EventSet, EventData*, unsigned int) = nullptr;     // nvmlEventSetWait_v2
  Return (*event_set_free)(EventSet) = nullptr;                         // nvmlEventSetFree
  Return (*total_ecc_errors)(Device, int, int, unsigned long long*) = nullptr;  // nvmlDeviceGetTotalEccErrors
  Return (*remapped_rows)(Device, unsigned int*, unsigned int*, unsigned int*, unsigned int*) = nullptr;
                                                                        // nvmlDeviceGetRemappedRows
  Return (*throttle_reasons)(Device, unsigned long long*) = nullptr;    // nvmlDeviceGetCurrentClocksThrottleReasons
  Return (*retired_pages_pending)(Device, int*) = nullptr;              // nvmlDeviceGetRetiredPagesPendingStatus
  // Metrics (all optional: a series whose call is missing or not supported is left out).
  Return (*utilization_rates)(Device, Utilization*) = nullptr;          // nvmlDeviceGetUtilizationRates
  Return (*temperature)(Device, int, unsigned int*) = nullptr;          // nvmlDeviceGetTemperature
  Return (*power_usage)(Device, unsigned int*) = nullptr;               // nvmlDeviceGetPowerUsage (mW)
  Return (*clock_info)(Device, int, unsigned int*) = nullptr;           // nvmlDeviceGetClockInfo (MHz)
  // Where a device's NUMA node is read when NVML does not say: <sysfs_pci>/<bus id>/numa_node.
  std::string sysfs_pci = "/sys/bus/pci/devices";
  // The driver's capability files: <proc_caps>/gpu<minor>/mig/gi<G>[/ci<C>]/access say which
  // /dev/nvidia-caps/nvidia-cap<minor> a MIG slice's GPU and compute instances are.
  std::string proc_caps = "/proc/driver/nvidia/capabilities";
};

// An open libnvidia-ml.so.1: the table plus the dlopen handle (closed on destruction).
class NvmlLibrary {
 public:
  NvmlLibrary() = default;
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;
  ~NvmlLibrary();
  const NvmlApi& api() const { return api_; }

  // NotFound when the library cannot be loaded; Internal naming a missing required entry point.
  static StatusOr<std::unique_ptr<NvmlLibrary>> Load(const std::string& soname = "libnvidia-ml.so.1");

 private:
  void* handle_ = nullptr;
  NvmlApi api_;
};

// Discovery over any table (calls init and shutdown).
StatusOr<GpuInventory> DiscoverWith(const NvmlApi& api);

// Pure helpers, exposed for tests.
// "NVIDIA H100 80GB HBM3" -> "h100", "Tesla V100-SXM2-32GB" -> "v100", "NVIDIA GeForce RTX 4090" -> "rtx_4090".
std::string ShortGpuModel(const std::string& nvml_name);
// The MIG profile of a MIG device: from its name ("NVIDIA H100 80GB HBM3 MIG 1g.10gb" -> "1g.10gb"),
// else from its attributes ("<slices>g.<GB>gb", "<c>c.<g>g.<GB>gb" for a compute-instance subset).
std::string MigProfile(const std::string& mig_name, const DeviceAttributes* attributes);
// What NVML says of a node's GPUs and driver, for its features (GpuFeatures).
struct FeatureFacts {
  std::vector<std::string> models;   // short model names (ShortGpuModel)
  std::vector<int64_t> memory_mb;    // each physical GPU's memory
  std::vector<std::pair<int, int>> compute_capabilities;
  std::string driver_version;        // "580.65.06"
  int cuda_driver_version = 0;       // 13000 for CUDA 13.0; 0 unknown
  bool mig_capable = false;
  bool mig_enabled = false;
  bool nvlink = false;               // some GPUs share NVLinks
  bool nvswitch = false;
};
// The node features GPU feature discovery publishes: the product ("h200"), its memory class
// ("gpumem_140g": GiB, rounded), compute capability ("cc_9.0"), driver major ("driver_580"), CUDA
// driver version ("cuda_13.0"), "mig_capable", "mig_on", "nvlink", "nvswitch"; sorted, unique.
std::vector<std::string> GpuFeatures(const FeatureFacts& facts);
// The "DeviceFileMinor: N" of a capability's access file; -1 when it has none.
int CapabilityMinor(const std::string& access_file_text);
// NVML's "00000000:17:00.0" -> sysfs's "0000:17:00.0" (lower case).
std::string SysfsBusId(const std::string& nvml_bus_id);

}  // namespace muster::nvml
