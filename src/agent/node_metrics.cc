// The node's metrics: NVML readings and fake ones, dcgm-exporter's families, the jobs' cgroups.
#include "agent/node_metrics.h"

#include <algorithm>
#include <utility>

#include "agent/nvml_api.h"
#include "base/log.h"

namespace muster {
namespace {

using prom::Family;
using prom::MetricType;

// dcgm-exporter's names, types and help texts (its etc/default-counters.csv), in one table: the
// reading each comes from.
struct GpuField {
  const char* name;
  MetricType type;
  const char* help;
  std::optional<double> GpuReading::*reading;
};
constexpr GpuField kGpuFields[] = {
    {"DCGM_FI_DEV_SM_CLOCK", MetricType::kGauge, "SM clock frequency (in MHz).", &GpuReading::sm_clock_mhz},
    {"DCGM_FI_DEV_MEM_CLOCK", MetricType::kGauge, "Memory clock frequency (in MHz).", &GpuReading::mem_clock_mhz},
    {"DCGM_FI_DEV_GPU_TEMP", MetricType::kGauge, "GPU temperature (in C).", &GpuReading::gpu_temp_c},
    {"DCGM_FI_DEV_POWER_USAGE", MetricType::kGauge, "Power draw (in W).", &GpuReading::power_w},
    {"DCGM_FI_DEV_GPU_UTIL", MetricType::kGauge, "GPU utilization (in %).", &GpuReading::gpu_util},
    {"DCGM_FI_DEV_MEM_COPY_UTIL", MetricType::kGauge, "Memory utilization (in %).", &GpuReading::mem_copy_util},
    {"DCGM_FI_DEV_XID_ERRORS", MetricType::kGauge, "Value of the last XID error encountered.", &GpuReading::last_xid},
    {"DCGM_FI_DEV_FB_FREE", MetricType::kGauge, "Framebuffer memory free (in MiB).", &GpuReading::fb_free_mib},
    {"DCGM_FI_DEV_FB_USED", MetricType::kGauge, "Framebuffer memory used (in MiB).", &GpuReading::fb_used_mib},
    {"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", MetricType::kCounter, "Total number of double-bit volatile ECC errors.",
     &GpuReading::ecc_dbe_volatile},
};

// A reading, or nothing when the entry point is missing or does not answer.
template <class T>
std::optional<T> Call(nvml::Return (*fn)(nvml::Device, T*), nvml::Device d) {
  T value{};
  if (fn == nullptr || fn(d, &value) != nvml::kSuccess) return std::nullopt;
  return value;
}
template <class T, class A>
std::optional<T> Call(nvml::Return (*fn)(nvml::Device, A, T*), nvml::Device d, A a) {
  T value{};
  if (fn == nullptr || fn(d, a, &value) != nvml::kSuccess) return std::nullopt;
  return value;
}
template <class T, class A, class B>
std::optional<T> Call(nvml::Return (*fn)(nvml::Device, A, B, T*), nvml::Device d, A a, B b) {
  T value{};
  if (fn == nullptr || fn(d, a, b, &value) != nvml::kSuccess) return std::nullopt;
  return value;
}

bool Held(const std::vector<JobOnNode>& jobs, int gpu) {
  return std::any_of(jobs.begin(), jobs.end(), [&](const JobOnNode& j) {
    return std::find(j.gpus.begin(), j.gpus.end(), gpu) != j.gpus.end();
  });
}

prom::Labels JobLabels(const JobOnNode& j) {
  return {{"hpc_job", std::to_string(j.job_id)}, {"hpc_user", j.user}, {"hpc_account", j.account}};
}

}  // namespace

std::vector<GpuReading> ReadNvmlGpus(const nvml::NvmlApi& api, const std::vector<Gpu>& gpus,
                                     const std::vector<int>& nvml_index, const std::vector<int>& minors,
                                     const std::vector<int>& last_xid) {
  std::vector<GpuReading> out;
  for (size_t i = 0; i < gpus.size() && i < nvml_index.size(); ++i) {
    if (gpus[i].is_mig()) continue;  // MIG slices: not read (docs/metrics.md)
    nvml::Device d = nullptr;
    if (api.handle_by_index == nullptr ||
        api.handle_by_index(static_cast<unsigned>(nvml_index[i]), &d) != nvml::kSuccess) {
      continue;
    }
    GpuReading r;
    r.index = gpus[i].index;
    r.uuid = gpus[i].uuid;
    char text[nvml::kUuidBufferSize] = {};
    if (api.uuid != nullptr && api.uuid(d, text, sizeof text) == nvml::kSuccess) r.uuid = text;
    r.model_name = gpus[i].model;
    char name[nvml::kNameBufferSize] = {};
    if (api.name != nullptr && api.name(d, name, sizeof name) == nvml::kSuccess) r.model_name = name;
    if (std::optional<nvml::PciInfo> pci = Call(api.pci_info, d)) r.pci_bus_id = pci->bus_id;
    std::optional<unsigned> minor = Call(api.minor_number, d);
    r.device = "nvidia" + std::to_string(minor ? static_cast<int>(*minor) : i < minors.size() ? minors[i] : r.index);
    if (std::optional<nvml::Utilization> u = Call(api.utilization_rates, d)) {
      r.gpu_util = u->gpu;
      r.mem_copy_util = u->memory;
    }
    if (std::optional<nvml::Memory> m = Call(api.memory_info, d)) {
      r.fb_used_mib = static_cast<double>(m->used >> 20);
      r.fb_free_mib = static_cast<double>(m->free >> 20);
    }
    if (std::optional<unsigned> t = Call(api.temperature, d, nvml::kTemperatureGpu)) r.gpu_temp_c = *t;
    if (std::optional<unsigned> mw = Call(api.power_usage, d)) r.power_w = *mw / 1000.0;
    if (std::optional<unsigned> c = Call(api.clock_info, d, nvml::kClockSm)) r.sm_clock_mhz = *c;
    if (std::optional<unsigned> c = Call(api.clock_info, d, nvml::kClockMem)) r.mem_clock_mhz = *c;
    if (std::optional<unsigned long long> e =
            Call(api.total_ecc_errors, d, nvml::kMemoryErrorUncorrected, nvml::kVolatileEcc)) {
      r.ecc_dbe_volatile = static_cast<double>(*e);
    }
    if (i < last_xid.size()) r.last_xid = last_xid[i];
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<GpuReading> FakeGpuReadings(const std::vector<Gpu>& gpus, const std::vector<JobOnNode>& jobs) {
  std::vector<GpuReading> out;
  for (const Gpu& g : gpus) {
    const bool held = Held(jobs, g.index);
    GpuReading r;
    r.index = g.index;
    r.uuid = g.uuid;
    r.device = "nvidia" + std::to_string(g.index);
    r.model_name = g.model;
    r.gpu_util = g.index % 50 + (held ? 50 : 0);
    r.mem_copy_util = held ? 25 : 0;
    r.fb_used_mib = held ? static_cast<double>(g.memory_mb / 2) : 0;
    r.fb_free_mib = static_cast<double>(g.memory_mb) - *r.fb_used_mib;
    r.gpu_temp_c = 40 + g.index;
    r.power_w = 60 + g.index + (held ? 240 : 0);
    r.sm_clock_mhz = held ? 1980 : 345;
    r.mem_clock_mhz = 2619;
    r.ecc_dbe_volatile = 0;
    r.last_xid = 0;
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<Family> NodeMetricFamilies(const std::string& hostname, const std::vector<GpuReading>& gpus,
                                       const std::vector<JobOnNode>& jobs) {
  std::vector<Family> out;
  for (const GpuField& f : kGpuFields) {
    Family family{f.name, f.help, f.type, {}};
    for (const GpuReading& g : gpus) {
      const std::optional<double>& value = g.*(f.reading);
      if (!value) continue;
      // dcgm-exporter's labels, in its order.
      const prom::Labels labels = {{"gpu", std::to_string(g.index)}, {"UUID", g.uuid},
                                   {"pci_bus_id", g.pci_bus_id},     {"device", g.device},
                                   {"modelName", g.model_name},      {"Hostname", hostname}};
      bool any = false;
      for (const JobOnNode& j : jobs) {
        if (std::find(j.gpus.begin(), j.gpus.end(), g.index) == j.gpus.end()) continue;
        prom::Labels with_job = labels;
        for (auto& l : JobLabels(j)) with_job.push_back(std::move(l));
        family.series.push_back({std::move(with_job), *value});
        any = true;
      }
      if (!any) family.series.push_back({labels, *value});
    }
    out.push_back(std::move(family));
  }
  Family cpu{"muster_job_cpu_seconds_total", "CPU time the job's processes used on this node (in s), from its cgroup.",
             MetricType::kCounter, {}};
  Family memory{"muster_job_memory_bytes", "Memory the job's processes use on this node now (in bytes), from its cgroup.",
                MetricType::kGauge, {}};
  for (const JobOnNode& j : jobs) {
    prom::Labels labels = JobLabels(j);
    labels.emplace_back("Hostname", hostname);
    if (j.usage.cpu_seconds) cpu.series.push_back({labels, *j.usage.cpu_seconds});
    if (j.usage.memory_bytes) memory.series.push_back({labels, static_cast<double>(*j.usage.memory_bytes)});
  }
  out.push_back(std::move(cpu));
  out.push_back(std::move(memory));
  return out;
}

GpuReader::GpuReader(Options options) : opt_(std::move(options)) {}

GpuReader::~GpuReader() {
  if (initialized_ && library_->api().shutdown != nullptr) library_->api().shutdown();
}

void GpuReader::SetXidSource(std::function<std::vector<int>()> source) {
  MutexLock lock(mu_);
  xids_ = std::move(source);
}

const nvml::NvmlApi* GpuReader::Api() {
  if (opt_.api != nullptr) return opt_.api;
  if (!tried_) {
    tried_ = true;
    StatusOr<std::unique_ptr<nvml::NvmlLibrary>> lib = nvml::NvmlLibrary::Load(opt_.nvml_library);
    if (lib.ok() && (*lib)->api().init() == nvml::kSuccess) {
      library_ = std::move(*lib);
      initialized_ = true;
    } else {
      LogWarning("GPU metrics: " + (lib.ok() ? std::string("nvmlInit failed") : lib.status().message()) +
                 "; /metrics has no GPU series");
    }
  }
  return initialized_ ? &library_->api() : nullptr;
}

std::vector<GpuReading> GpuReader::Read(const std::vector<JobOnNode>& jobs, int64_t now_ms) {
  if (opt_.nvml_library.empty() && opt_.api == nullptr) return FakeGpuReadings(opt_.gpus, jobs);
  std::vector<int> last_xid;
  {
    MutexLock lock(mu_);
    if (read_at_ms_ >= 0 && now_ms - read_at_ms_ < opt_.cache_ms) return cached_;
    if (xids_) last_xid = xids_();
  }
  if (!read_mu_.TryLock()) {  // another scrape is reading the driver
    MutexLock lock(mu_);
    return cached_;
  }
  MutexLock reading(read_mu_, std::adopt_lock);
  std::vector<GpuReading> out;
  if (const nvml::NvmlApi* api = Api(); api != nullptr) {
    out = ReadNvmlGpus(*api, opt_.gpus, opt_.nvml_index, opt_.minors, last_xid);
  }
  MutexLock lock(mu_);
  cached_ = out;
  read_at_ms_ = now_ms;
  return out;
}

std::vector<GpuReading> GpuReader::Recent(const std::vector<JobOnNode>& jobs, int64_t now_ms, int64_t max_age_ms) {
  if (opt_.nvml_library.empty() && opt_.api == nullptr) return FakeGpuReadings(opt_.gpus, jobs);
  MutexLock lock(mu_);
  if (read_at_ms_ < 0 || now_ms - read_at_ms_ > max_age_ms) return {};
  return cached_;
}

}  // namespace muster
