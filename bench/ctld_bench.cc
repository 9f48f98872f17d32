// Controller benchmarks: what one scheduling pass (Controller::ScheduleOnce) costs the controller
// with a deep queue that cannot start (a full cluster, and a drained one), beside the pass with no
// pending job as the baseline, so the figure that matters is the cost per pending job. Every job
// end and every submission triggers such a pass, so with N pending jobs a drain of the queue costs
// O(N) passes of O(N). The store is SQLite on /dev/shm (or $TMPDIR): the pass itself writes nothing.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <filesystem>
#include <memory>

#include "ctld/controller.h"
#include "sched/cluster_builder.h"
#include "store/sqlite_store.h"

namespace muster::bench {
namespace {

class NoAgents : public AgentClient {
 public:
  Status LaunchJob(const NodeRecord&, const JobRecord&) override { return Status::Ok(); }
  Status SignalJob(const NodeRecord&, const JobRun&, int, int64_t, const std::string&) override { return Status::Ok(); }
};

struct Fixture {
  std::filesystem::path dir;
  ManualClock clock;
  NoAgents agents;
  std::unique_ptr<Store> store;
  std::unique_ptr<Controller> ctld;

  // 4 nodes x 16 CPUs x 8 GPUs (the local cluster of bench/e2e.sh), 64 one-CPU jobs running when
  // `full`, then `pending` more one-CPU jobs; `drained`: every node drained instead.
  Fixture(int pending, bool full, bool drained) {
    const char* shm = std::filesystem::exists("/dev/shm") ? "/dev/shm" : std::filesystem::temp_directory_path().c_str();
    dir = std::filesystem::path(shm) / ("muster-ctld-bench-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    ControllerConfig config;
    config.cluster_name = "bench";
    config.log_events = false;
    NodeTemplate t;
    t.cpus = 16;
    t.memory_mb = 64000;
    t.gpus = 8;
    config.cluster = ClusterBuilder().Nodes("node[1-4]", t).Leaf("leaf1", "node[1-4]").Partition("gpu", "node[1-4]", true).Build();
    store = OpenSqliteStore((dir / "state.db").string()).value();
    ctld = std::make_unique<Controller>(config, store.get(), &agents, &clock);
    MUSTER_CHECK(ctld->Recover().ok()) << "recover";
    const Caller admin{true, 0, 0, "unix", ""};
    for (const Node& n : config.cluster.nodes) {
      NodeRecord r;
      r.node = n;
      r.agent_address = "unix:/nowhere";
      MUSTER_CHECK(ctld->RegisterNode(r, {}, admin).ok()) << "register";
    }
    const Caller user{true, 1000, 1000, "unix", ""};
    auto submit = [&] {
      JobSpec s;
      MUSTER_CHECK(SetResourceOptions(s, {"-n1"}).ok()) << "options";
      s.script = "#!/bin/sh\ntrue\n";
      s.workdir = "/tmp";
      MUSTER_CHECK(ctld->Submit(s, user).ok()) << "submit";
    };
    if (full) {
      for (int i = 0; i < 64; ++i) submit();
      ctld->ScheduleOnce();
    }
    if (drained) {
      for (const Node& n : config.cluster.nodes) MUSTER_CHECK(ctld->UpdateNode(n.name, "DRAIN", "bench", admin).ok()) << "drain";
    }
    for (int i = 0; i < pending; ++i) submit();
    ctld->ScheduleOnce();
  }
  ~Fixture() {
    ctld.reset();
    store.reset();
    std::filesystem::remove_all(dir);
  }
};

// range(0): pending jobs; range(1): 0 = cluster full of running jobs, 1 = every node drained.
void BM_ScheduleOnce(benchmark::State& state) {
  const int pending = static_cast<int>(state.range(0));
  const bool drained = state.range(1) != 0;
  Fixture f(pending, !drained, drained);
  for (auto _ : state) benchmark::DoNotOptimize(f.ctld->ScheduleOnce());
  state.counters["pending"] = pending;
}
BENCHMARK(BM_ScheduleOnce)
    ->ArgNames({"pending", "drained"})
    ->Args({0, 0})
    ->Args({1000, 0})
    ->Args({0, 1})
    ->Args({1000, 1})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace muster::bench

BENCHMARK_MAIN();
