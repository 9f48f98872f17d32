// Scheduler core benchmarks: a full cycle over a deep queue, and placing one newly arrived job,
// on synthetic clusters of 1,000 and 10,000 8-GPU nodes half full. bench/core.sh runs this and
// prints one JSON object per configuration.
#include <benchmark/benchmark.h>

#include <map>
#include <memory>

#include "sched/scheduler.h"
#include "synthetic_cluster.h"

namespace muster::bench {
namespace {

const ClusterSnapshot& LoadedCluster(int nodes) {
  static std::map<int, std::unique_ptr<ClusterSnapshot>> cache;
  auto& c = cache[nodes];
  if (!c) {
    c = std::make_unique<ClusterSnapshot>(SyntheticCluster(nodes));
    Preload(*c, 0.5, 7);
  }
  return *c;
}

const std::vector<PendingJob>& Queue(int jobs) {
  static std::map<int, std::vector<PendingJob>> cache;
  auto& q = cache[jobs];
  if (q.empty()) q = SyntheticQueue(jobs, 11);
  return q;
}

// A whole cycle as the controller runs it: index the snapshot, decide every pending job.
void BM_Cycle(benchmark::State& state) {
  const ClusterSnapshot& c = LoadedCluster(static_cast<int>(state.range(0)));
  const std::vector<PendingJob>& q = Queue(static_cast<int>(state.range(1)));
  SchedulerOptions opt{.strict_priority = state.range(2) != 0};
  int started = 0;
  for (auto _ : state) {
    std::vector<Decision> ds = RunCycle(c, q, opt);
    started = 0;
    for (const Decision& d : ds) started += d.kind == DecisionKind::kStart;
    benchmark::DoNotOptimize(ds);
  }
  state.counters["started"] = started;
}

// One newly arrived job on a standing Scheduler (the event-driven path).
void BM_PlaceOne(benchmark::State& state) {
  const ClusterSnapshot& c = LoadedCluster(static_cast<int>(state.range(0)));
  Scheduler s(c, SchedulerOptions{.strict_priority = false});
  const std::vector<PendingJob>& q = Queue(10000);
  size_t k = 0;
  for (auto _ : state) {
    std::vector<PendingJob> one = {q[k++ % q.size()]};
    benchmark::DoNotOptimize(s.RunCycle(one));
  }
}

BENCHMARK(BM_Cycle)
    ->ArgNames({"nodes", "jobs", "strict"})
    ->ArgsProduct({{1000, 10000}, {10000, 100000}, {1, 0}})
    ->Unit(benchmark::kMillisecond)
    ->MinTime(1.0);
BENCHMARK(BM_PlaceOne)->ArgNames({"nodes"})->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace muster::bench

BENCHMARK_MAIN();
