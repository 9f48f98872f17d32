// The node agent's CPU cost of watching its GPUs' health (issue 31: under 0.5% of one core for 8
// GPUs at the default interval). A GpuHealthWatcher runs over a table of 8 GPUs whose NVML calls
// answer at once and whose event wait blocks for its timeout, as the driver's does; the process's
// CPU time over the run, against the same run's wall time, is the cost of the watcher itself (what
// a real driver spends inside its calls is not in it). A baseline in the same process: the same
// wall time asleep. Prints JSON.
//   gpu_health_cost [SECONDS] [INTERVAL_MS]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "agent/gpu_health.h"
#include "agent/nvml_api.h"

namespace {

using namespace muster;

int g_dev[8];
double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

nvml::NvmlApi Table() {
  nvml::NvmlApi a;
  a.init = [] { return nvml::kSuccess; };
  a.shutdown = [] { return nvml::kSuccess; };
  a.handle_by_index = [](unsigned i, nvml::Device* d) {
    if (i >= 8) return nvml::kErrorInvalidArgument;
    *d = reinterpret_cast<nvml::Device>(&g_dev[i]);
    return nvml::kSuccess;
  };
  a.event_set_create = [](nvml::EventSet* s) {
    *s = reinterpret_cast<nvml::EventSet>(&g_dev[0]);
    return nvml::kSuccess;
  };
  a.register_events = [](nvml::Device, unsigned long long, nvml::EventSet) { return nvml::kSuccess; };
  a.event_set_free = [](nvml::EventSet) { return nvml::kSuccess; };
  a.event_set_wait = [](nvml::EventSet, nvml::EventData*, unsigned ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));  // no event: the driver blocks
    return nvml::kErrorTimeout;
  };
  a.total_ecc_errors = [](nvml::Device, int, int, unsigned long long* n) {
    *n = 0;
    return nvml::kSuccess;
  };
  a.remapped_rows = [](nvml::Device, unsigned* c, unsigned* u, unsigned* p, unsigned* f) {
    *c = *u = *p = *f = 0;
    return nvml::kSuccess;
  };
  a.throttle_reasons = [](nvml::Device, unsigned long long* r) {
    *r = 0;
    return nvml::kSuccess;
  };
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 30;
  GpuHealthConfig config;
  if (argc > 2) config.interval_ms = std::atoll(argv[2]);
  const auto wall = std::chrono::duration<double>(seconds);
  // Baseline: the process asleep as long.
  double c0 = CpuSeconds();
  std::this_thread::sleep_for(wall);
  const double idle = CpuSeconds() - c0;
  const nvml::NvmlApi api = Table();
  c0 = CpuSeconds();
  const auto t0 = std::chrono::steady_clock::now();
  uint64_t polls = 0;
  {
    StatusOr<std::unique_ptr<GpuHealthWatcher>> w =
        GpuHealthWatcher::StartWith(&api, {0, 1, 2, 3, 4, 5, 6, 7}, config, [] {});
    if (!w.ok()) {
      std::fprintf(stderr, "gpu_health_cost: %s\n", w.status().ToString().c_str());
      return 1;
    }
    std::this_thread::sleep_for(wall);
    polls = (*w)->polls();
  }
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = CpuSeconds() - c0;
  std::printf(
      "{\"gpus\": 8, \"interval_ms\": %lld, \"wall_s\": %.1f, \"polls\": %llu, \"cpu_s\": %.4f, "
      "\"cpu_percent_of_one_core\": %.4f, \"baseline_idle_cpu_s\": %.4f}\n",
      static_cast<long long>(config.interval_ms), took, static_cast<unsigned long long>(polls), cpu,
      100.0 * cpu / took, idle);
  return 0;
}
