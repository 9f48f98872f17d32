// The controller replayed over tiny traces whose schedules are worked out by hand, one per
// queueing policy (sim/queue_bench.h), and the replay's errors.
#include "sim/replay.h"

#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "sim/queue_bench.h"
#include "sim/trace.h"

#include <memory>

namespace muster {
namespace {

// One node with one GPU. a: arrives 0, runs 100 s; b: arrives 10, 10 s; c: arrives 20, 10 s.
std::vector<PhillyJob> Abc() {
  return {{1, 1000, 100, 1, "vc1"}, {2, 1010, 10, 1, "vc2"}, {3, 1020, 10, 1, "vc2"}};
}

ReplayResult Replayed(QueuePolicy policy, const std::vector<PhillyJob>& trace, std::vector<int64_t> las_limits = {},
                 int64_t penalty_s = 0) {
  ReplayOptions o = QueueOptions(policy, QueueBenchCluster({.nodes = 1, .gpus_per_node = 1, .nodes_per_leaf = 1}));
  if (!las_limits.empty()) {
    o.controller.priority.las_queue_limits_gpu_s = las_limits;
    // Seconds-long jobs: no minimum runtime before a preemption.
    SchedPolicy p = *o.controller.scheduler.policy;
    p.preemption.exempt_time_s = 0;
    o.controller.scheduler.policy = std::make_shared<SchedPolicy>(p);
  }
  o.restart_penalty_s = penalty_s;
  StatusOr<ReplayResult> r = Replay(QueueJobs(trace, policy, 2.0), o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : ReplayResult{};
}

// (first start, end, seconds run) of each job, relative to the first arrival.
std::vector<std::tuple<int64_t, int64_t, int64_t>> Times(const ReplayResult& r) {
  std::vector<std::tuple<int64_t, int64_t, int64_t>> out;
  for (const FinishedJob& j : r.jobs) out.emplace_back(j.start_s - 1000, j.end_s - 1000, j.run_s);
  return out;
}

using T = std::vector<std::tuple<int64_t, int64_t, int64_t>>;

TEST(Replay, FifoRunsInArrivalOrder) {
  ReplayResult r = Replayed(QueuePolicy::kFifo, Abc());
  EXPECT_EQ(Times(r), (T{{0, 100, 100}, {100, 110, 10}, {110, 120, 10}}));
  EXPECT_EQ(r.preemptions, 0);
  EXPECT_EQ(r.capacity_gpus, 1);
  StatusOr<QueueMetrics> m = ComputeQueueMetrics(r.jobs, r.capacity_gpus);
  ASSERT_TRUE(m.ok());
  EXPECT_DOUBLE_EQ(m->avg_jct_s, 100);  // 100, 100, 100
}

TEST(Replay, SrtfOracleStopsTheLongJobForEachShortOne) {
  // b (10 left) stops a (90 left) at 10 and runs 10-20; c runs 20-30 (b's end comes before c's
  // arrival at 20); a resumes where it stopped and runs its last 90 s, 30-120.
  ReplayResult r = Replayed(QueuePolicy::kSrtfOracle, Abc());
  EXPECT_EQ(Times(r), (T{{0, 120, 100}, {10, 20, 10}, {20, 30, 10}}));
  EXPECT_EQ(r.preemptions, 1);
  StatusOr<QueueMetrics> m = ComputeQueueMetrics(r.jobs, r.capacity_gpus);
  ASSERT_TRUE(m.ok());
  EXPECT_DOUBLE_EQ(m->avg_jct_s, (120.0 + 10 + 10) / 3);
}

TEST(Replay, APreemptedJobLosesTheRestartPenalty) {
  // As above, but a redoes 5 s of work after its preemption: it ends at 125 having run 105 s.
  ReplayResult r = Replayed(QueuePolicy::kSrtfOracle, Abc(), {}, 5);
  EXPECT_EQ(Times(r), (T{{0, 125, 105}, {10, 20, 10}, {20, 30, 10}}));
}

TEST(Replay, LeastAttainedServicePreemptsOnlyAcrossQueues) {
  // With the default queues (the first ends at 300 GPU-seconds), a (10 s run at b's arrival)
  // shares b's queue: first come first served, as FIFO.
  EXPECT_EQ(Times(Replayed(QueuePolicy::kMuster, Abc())), (T{{0, 100, 100}, {100, 110, 10}, {110, 120, 10}}));
  // With it ending at 5 GPU-seconds, a has left it when b comes: b and then c overtake a, without
  // durations being known.
  ReplayResult r = Replayed(QueuePolicy::kMuster, Abc(), {5});
  EXPECT_EQ(Times(r), (T{{0, 120, 100}, {10, 20, 10}, {20, 30, 10}}));
  EXPECT_EQ(r.preemptions, 1);
}

TEST(Replay, SjfOracleIsNotPreemptive) {
  // a holds the GPU to 100; then b (10 s, the earlier of the two shortest) and c.
  EXPECT_EQ(Times(Replayed(QueuePolicy::kSjfOracle, Abc())), (T{{0, 100, 100}, {100, 110, 10}, {110, 120, 10}}));
  // With b longer than c, c goes first once a is done. Limits are whole minutes, as Slurm keeps
  // them: b (70 s) asks for 2, c (10 s) for 1.
  std::vector<PhillyJob> t = Abc();
  t[1].duration_s = 70;
  EXPECT_EQ(Times(Replayed(QueuePolicy::kSjfOracle, t)), (T{{0, 100, 100}, {110, 180, 70}, {100, 110, 10}}));
}

TEST(Replay, BackfillStartsAShortJobBeforeTheReservation) {
  // Two GPUs on one node. a: 1 GPU for 100 s; b: 2 GPUs (waits for a, reserved at 100);
  // c: 1 GPU for 10 s fits beside a and ends (limit 2 x 10 = 60 s, rounded to a minute) before
  // b's reservation. Strict FIFO keeps c behind b.
  std::vector<PhillyJob> t = {{1, 1000, 100, 1, "v"}, {2, 1010, 50, 2, "v"}, {3, 1020, 10, 1, "v"}};
  auto run = [&](QueuePolicy p) {
    ReplayOptions o = QueueOptions(p, QueueBenchCluster({.nodes = 1, .gpus_per_node = 2, .nodes_per_leaf = 1}));
    StatusOr<ReplayResult> r = Replay(QueueJobs(t, p, 2.0), o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? Times(*r) : T{};
  };
  EXPECT_EQ(run(QueuePolicy::kFifo), (T{{0, 100, 100}, {100, 150, 50}, {150, 160, 10}}));
  EXPECT_EQ(run(QueuePolicy::kFifoBackfill), (T{{0, 100, 100}, {100, 150, 50}, {20, 30, 10}}));
}

TEST(Replay, AJobThatCanNeverRunIsAnError) {
  std::vector<PhillyJob> t = {{7, 1000, 10, 2, "v"}};
  ReplayOptions o = QueueOptions(QueuePolicy::kFifo, QueueBenchCluster({.nodes = 1, .gpus_per_node = 1, .nodes_per_leaf = 1}));
  StatusOr<ReplayResult> r = Replay(QueueJobs(t, QueuePolicy::kFifo, 2.0), o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("trace job 7: "), std::string::npos) << r.status().message();
}

TEST(Replay, SamplesTheClusterOverTime) {
  ReplayOptions o = QueueOptions(QueuePolicy::kFifo, QueueBenchCluster({.nodes = 1, .gpus_per_node = 1, .nodes_per_leaf = 1}));
  o.sample_every_s = 50;
  StatusOr<ReplayResult> r = Replay(QueueJobs(Abc(), QueuePolicy::kFifo, 2.0), o);
  ASSERT_TRUE(r.ok());
  // At 0 (a just arrived, not yet started: nothing happened before the first instant), 50 (a runs,
  // b and c wait: the GPU is busy, none idle), 100 (b runs, c waits), and the end (120).
  ASSERT_GE(r->series.size(), 3u);
  EXPECT_EQ(r->series[1].time_s, 1050);
  EXPECT_EQ(r->series[1].allocated_gpus, 1);
  EXPECT_EQ(r->series[1].pending_jobs, 2);
  EXPECT_EQ(r->series[1].idle_gpus_while_waiting, 0);
  EXPECT_EQ(r->series.back().allocated_gpus, 0);
  EXPECT_EQ(r->series.back().pending_jobs, 0);
}

TEST(QueueBench, LoadAndPolicyNames) {
  EXPECT_DOUBLE_EQ(OfferedLoad(Abc(), 1), 120.0 / 20);
  for (QueuePolicy p : AllQueuePolicies()) EXPECT_EQ(*ParseQueuePolicy(QueuePolicyKey(p)), p);
  EXPECT_EQ(ParseQueuePolicy("lifo").status().message(),
            "unknown policy 'lifo' (fifo, fifo_backfill, sjf_oracle, srtf_oracle, muster)");
  const ClusterSnapshot c = QueueBenchCluster({.nodes = 13, .gpus_per_node = 8, .nodes_per_leaf = 6});
  EXPECT_EQ(c.nodes.size(), 13u);
  EXPECT_EQ(c.nodes.front().name, "p001");
  EXPECT_EQ(c.nodes.back().name, "p013");
  EXPECT_EQ(c.topology.switches().size(), 3u);  // 6 + 6 + 1
  const std::vector<ReplayJob> jobs = QueueJobs({{1, 0, 61, 1, "v"}}, QueuePolicy::kFifoBackfill, 1.5);
  EXPECT_EQ(jobs[0].time_limit_s, 120);  // 91.5 s asked, rounded up to whole minutes
  EXPECT_EQ(QueueJobs({{1, 0, 61, 1, "v"}}, QueuePolicy::kSrtfOracle, 1.5)[0].time_limit_s, 61);
  EXPECT_EQ(QueueJobs({{1, 0, 61, 1, "v"}}, QueuePolicy::kMuster, 1.5)[0].time_limit_s, kUnlimited);
}

}  // namespace
}  // namespace muster

namespace muster {
namespace {

// Check mode on a real trace: the first Philly jobs (of tests/testdata) on a cluster small enough that they
// queue, every pass decided through the controller's and the scheduler's kept caches and again
// from nothing (sim/cache_check.h); not one pass may differ.
TEST(ReplayCacheCheck, APhillySliceDecidesEveryPassAsAFreshScheduler) {
  StatusOr<std::string> text = ReadTraceFile(std::string(MUSTER_SOURCE_DIR) + "/tests/testdata/philly/philly-first-1000.csv");
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  StatusOr<std::vector<PhillyJob>> trace = ParsePhilly(*text, "philly-first-1000.csv");
  ASSERT_TRUE(trace.ok()) << trace.status().ToString();
  // muster: least attained service with preemption; fifo_backfill: strict order with backfill
  // reservations (its passes are many: a virtual hour between ticks keeps the test short).
  for (const auto& [policy, jobs] : {std::pair{QueuePolicy::kMuster, 500}, std::pair{QueuePolicy::kFifoBackfill, 200}}) {
    SCOPED_TRACE(QueuePolicyKey(policy));
    std::vector<PhillyJob> slice(trace->begin(), trace->begin() + jobs);
    ReplayOptions o = QueueOptions(policy, QueueBenchCluster({.nodes = 6, .gpus_per_node = 8, .nodes_per_leaf = 3}));
    o.controller.check_caches = true;
    if (policy == QueuePolicy::kFifoBackfill) o.tick_every_s = 3600;
    StatusOr<ReplayResult> r = Replay(QueueJobs(slice, policy, 2.0), o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->cache_check_differences, 0) << r->cache_check_first;
    EXPECT_GT(r->cache_check_passes, 1000);  // (a pass with nobody waiting is no pass)
    // The slice queues (or the check would compare idle passes): jobs waited, and under the
    // muster policy some were preempted.
    int64_t waited = 0;
    for (const FinishedJob& j : r->jobs) waited += j.start_s > j.arrival_s ? 1 : 0;
    EXPECT_GT(waited, jobs / 5);
    if (policy == QueuePolicy::kMuster) {
      EXPECT_GT(r->preemptions, 100);
    }
  }
}

}  // namespace
}  // namespace muster
