// The node's metrics as GET /metrics serves them (Prometheus' text format, net/prometheus_text.h):
// each GPU's readings under dcgm-exporter's names, help texts, types and labels (so that Grafana
// dashboards made for dcgm-exporter work unchanged), each series of a GPU a job holds with
// dcgm-exporter's HPC job mapping label (hpc_job) and Muster's hpc_user and hpc_account, and each
// running job's CPU time and memory from its cgroup. docs/metrics.md lists every series.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/cgroup.h"
#include "base/mutex.h"
#include "model/gpu.h"
#include "net/prometheus_text.h"

namespace muster {

namespace nvml {
struct NvmlApi;
class NvmlLibrary;
}  // namespace nvml

// One GPU's readings. A reading that NVML does not give (entry point missing, NOT_SUPPORTED, an
// error) is absent, and its series is left out for that GPU rather than made up.
struct GpuReading {
  int index = 0;            // the node's GPU index (label gpu), as allocations name it
  std::string uuid;         // UUID
  std::string pci_bus_id;   // NVML's "00000000:17:00.0" ("" for fake GPUs)
  std::string device;       // "nvidia<minor>"
  std::string model_name;   // NVML's name, "NVIDIA H100 80GB HBM3" (fake GPUs: the cluster file's model)
  std::optional<double> gpu_util;          // DCGM_FI_DEV_GPU_UTIL, %
  std::optional<double> mem_copy_util;     // DCGM_FI_DEV_MEM_COPY_UTIL, %
  std::optional<double> fb_used_mib;       // DCGM_FI_DEV_FB_USED
  std::optional<double> fb_free_mib;       // DCGM_FI_DEV_FB_FREE
  std::optional<double> gpu_temp_c;        // DCGM_FI_DEV_GPU_TEMP
  std::optional<double> power_w;           // DCGM_FI_DEV_POWER_USAGE
  std::optional<double> sm_clock_mhz;      // DCGM_FI_DEV_SM_CLOCK
  std::optional<double> mem_clock_mhz;     // DCGM_FI_DEV_MEM_CLOCK
  std::optional<double> ecc_dbe_volatile;  // DCGM_FI_DEV_ECC_DBE_VOL_TOTAL
  std::optional<double> last_xid;          // DCGM_FI_DEV_XID_ERRORS (0: none since the agent started)
};

// A job running on this node, as the agent's own record of its runs says.
struct JobOnNode {
  int64_t job_id = 0;
  std::string user;
  std::string account;
  std::vector<int> gpus;  // the GPU indexes it holds here, whole or shared
  std::string cgroup;     // its cgroup ("" = none)
  CgroupUsage usage;      // read from that cgroup
};

// Reads the node's whole GPUs through NVML (initialized by the caller). `nvml_index[i]` is the
// NVML index of node GPU i; `minors[i]` its /dev/nvidia<minor>; `last_xid[i]` its last Xid from
// the health watcher (empty: not watched, the series is left out). MIG slices are not read.
std::vector<GpuReading> ReadNvmlGpus(const nvml::NvmlApi& api, const std::vector<Gpu>& gpus,
                                     const std::vector<int>& nvml_index, const std::vector<int>& minors,
                                     const std::vector<int>& last_xid);

// Fake GPUs' readings, a function of the GPU's index i and whether a job holds it (held):
//   GPU_UTIL = i % 50 + (held ? 50 : 0)      MEM_COPY_UTIL = held ? 25 : 0
//   FB_USED = held ? memory_mib / 2 : 0       FB_FREE = memory_mib - FB_USED
//   GPU_TEMP = 40 + i                         POWER_USAGE = 60 + i + (held ? 240 : 0)
//   SM_CLOCK = held ? 1980 : 345              MEM_CLOCK = 2619
//   ECC_DBE_VOL_TOTAL = 0                     XID_ERRORS = 0
// device "nvidia<i>", modelName the cluster file's model, pci_bus_id "".
std::vector<GpuReading> FakeGpuReadings(const std::vector<Gpu>& gpus, const std::vector<JobOnNode>& jobs);

// The metric families of the node `hostname` (label Hostname): every GPU reading, one series per
// job holding the GPU (with hpc_job, hpc_user, hpc_account; a GPU no job holds has one series
// without them), and each job's muster_job_cpu_seconds_total and muster_job_memory_bytes.
std::vector<prom::Family> NodeMetricFamilies(const std::string& hostname, const std::vector<GpuReading>& gpus,
                                             const std::vector<JobOnNode>& jobs);

// Where the agent's GPU readings come from, thread-safe. NVML readings are kept for `cache_ms`
// so that scrapes close together do not call the driver again; NVML is loaded at the first read.
// One scrape reads the driver at a time: another one meanwhile answers with the last readings
// rather than wait, so a driver call that hangs holds one HTTP server thread, not all of them.
class GpuReader {
 public:
  struct Options {
    std::vector<Gpu> gpus;
    std::string nvml_library;     // "" = fake GPUs
    std::vector<int> nvml_index;  // per node GPU
    std::vector<int> minors;      // per node GPU
    int64_t cache_ms = 1000;
    const nvml::NvmlApi* api = nullptr;  // a test's table instead of the library (no init, no shutdown)
  };
  explicit GpuReader(Options options);
  ~GpuReader();
  // The last Xid of each node GPU (the health watcher's); unset: XID_ERRORS is left out of NVML
  // readings.
  void SetXidSource(std::function<std::vector<int>()> source);
  std::vector<GpuReading> Read(const std::vector<JobOnNode>& jobs, int64_t now_ms);
  // The readings without calling the driver: the fake GPUs', or the last NVML read when it is
  // at most `max_age_ms` old (else none).
  std::vector<GpuReading> Recent(const std::vector<JobOnNode>& jobs, int64_t now_ms, int64_t max_age_ms);

 private:
  const nvml::NvmlApi* Api() REQUIRES(read_mu_);  // the table, loaded at the first call; null when none
  Options opt_;
  Mutex mu_{"GPU readings"};
  std::function<std::vector<int>()> xids_ GUARDED_BY(mu_);
  int64_t read_at_ms_ GUARDED_BY(mu_) = -1;
  std::vector<GpuReading> cached_ GUARDED_BY(mu_);
  Mutex read_mu_{"GPU driver read"};  // held while the driver is read
  std::unique_ptr<nvml::NvmlLibrary> library_ GUARDED_BY(read_mu_);
  bool tried_ GUARDED_BY(read_mu_) = false;  // the library was loaded (or failed to) once
  bool initialized_ GUARDED_BY(read_mu_) = false;
};

}  // namespace muster
