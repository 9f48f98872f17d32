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

// The strict cycle again (mode 0), with backfill (1), and with backfill under team quotas (four
// teams, a quarter of the GPUs each: the queue order by fair share) plus QOS preemption (every
// tenth job "high", which preempts "normal") (2). bench/core.sh reports 1 and 2 as ratios of 0.
void BM_CyclePolicy(benchmark::State& state) {
  const ClusterSnapshot& c = LoadedCluster(static_cast<int>(state.range(0)));
  static std::map<int, std::vector<PendingJob>> cache;
  std::vector<PendingJob>& q = cache[static_cast<int>(state.range(1))];
  if (q.empty()) {
    q = Queue(static_cast<int>(state.range(1)));
    for (PendingJob& j : q) {
      j.account = "team" + std::to_string(j.id % 4);
      j.user = "user" + std::to_string(j.id % 64);
      j.qos = j.id % 10 == 0 ? "high" : "";
    }
  }
  SchedulerOptions opt;
  opt.backfill = state.range(2) >= 1;
  if (state.range(2) == 2) {
    auto policy = std::make_shared<SchedPolicy>();
    const int64_t quarter = static_cast<int64_t>(state.range(0)) * 8 / 4;
    for (int t = 0; t < 4; ++t) {
      Account a{.name = "team" + std::to_string(t)};
      a.quota.gpus = quarter;
      policy->accounts.accounts.push_back(a);
    }
    policy->qos = {Qos{.name = "high", .priority = 100, .preempt = {"normal"}}, Qos{.name = "normal"}};
    opt.policy = policy;
  }
  int started = 0, preempted = 0;
  for (auto _ : state) {
    std::vector<Decision> ds = RunCycle(c, q, opt);
    started = preempted = 0;
    for (const Decision& d : ds) {
      started += d.kind == DecisionKind::kStart;
      preempted += static_cast<int>(d.preempt.size());
    }
    benchmark::DoNotOptimize(ds);
  }
  state.counters["started"] = started;
  state.counters["preempted"] = preempted;
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
BENCHMARK(BM_CyclePolicy)
    ->ArgNames({"nodes", "jobs", "mode"})
    ->ArgsProduct({{1000, 10000}, {10000}, {0, 1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->MinTime(1.0);
BENCHMARK(BM_PlaceOne)->ArgNames({"nodes"})->Arg(1000)->Arg(10000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace muster::bench

BENCHMARK_MAIN();
