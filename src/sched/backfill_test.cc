// Backfill planned per GPU: reservations over the running jobs' ends, and lower jobs started only
// where they fit around every reservation for their whole time limit.
#include <gtest/gtest.h>

#include <random>

#include "sched/cluster_builder.h"
#include "sched/cluster_index.h"
#include "sched/plan.h"
#include "sched/scenario_harness.h"
#include "sched/scheduler.h"

namespace muster {
namespace {

constexpr int64_t kNow = 1'000'000;

NodeAllocation OnNode(const std::string& node, int cpus, std::vector<int> gpus) {
  NodeAllocation a;
  a.node = node;
  a.cpu_milli = cpus * 1000;
  a.tasks = 1;
  for (int g : gpus) a.gpus.push_back({g, 1000});
  return a;
}

void AddRunning(ClusterSnapshot& c, int64_t id, int64_t end, std::vector<NodeAllocation> alloc) {
  ApplyAllocation(c, alloc);
  c.running.push_back({id, end, std::move(alloc)});
}

// n1 busy for an hour, n2 half busy for ten minutes.
ClusterSnapshot TwoNodes() {
  ClusterSnapshot c = ClusterBuilder().Nodes("n[1-2]", DgxNode()).Partition("p", "n[1-2]", true).Build();
  c.now = kNow;
  AddRunning(c, 101, kNow + 3600, {OnNode("n1", 8, {0, 1, 2, 3, 4, 5, 6, 7})});
  AddRunning(c, 102, kNow + 600, {OnNode("n2", 4, {0, 1, 2, 3})});
  return c;
}

std::vector<PendingJob> Queue() {
  return {MakeJob(1, "-N 2 --gres=gpu:8 -t 120", 100),  // both nodes whole, for two hours
          MakeJob(2, "--gres=gpu:2 -t 30", 50),         // done before the gang can start
          MakeJob(3, "--gres=gpu:2 -t 120", 40),        // would still run when the gang starts
          MakeJob(4, "--gres=gpu:2 -t 10", 30)};
}

TEST(BackfillTest, ReservesForTheGangAndFillsTheHoleBeforeIt) {
  SchedulerOptions o;
  o.backfill = true;
  ClusterSnapshot c = TwoNodes();
  EXPECT_EQ(DecisionStrings(RunCycle(c, Queue(), o)),
            (std::vector<std::string>{
                "1 PENDING Resources start=1003600",  // when job 101 ends, n1 and n2 are free
                "2 START n2{cpu=1 mem=0 tasks=1 gpus=4,5}",
                // It fits now but would hold n2 into the gang's reservation: it waits, and gets the
                // first time after the gang (3600 + 2 h).
                "3 PENDING Priority start=1010800",
                "4 START n2{cpu=1 mem=0 tasks=1 gpus=6,7}",
            }));
  // The same, shuffled: the same decisions.
  std::mt19937_64 rng(7);
  for (int k = 0; k < 5; ++k) {
    ClusterSnapshot shuffled = ShuffleNodes(c, rng);
    std::vector<PendingJob> q = Queue();
    std::shuffle(q.begin(), q.end(), rng);
    EXPECT_EQ(DecisionStrings(RunCycle(shuffled, q, o)), DecisionStrings(RunCycle(c, Queue(), o)));
  }
}

TEST(BackfillTest, WithoutBackfillStrictPriorityHoldsEveryLowerJob) {
  EXPECT_EQ(DecisionStrings(RunCycle(TwoNodes(), Queue(), SchedulerOptions{})),
            (std::vector<std::string>{"1 PENDING Resources", "2 PENDING Priority", "3 PENDING Priority",
                                      "4 PENDING Priority"}));
}

TEST(BackfillTest, JobsWithoutATimeLimitHoldForGood) {
  SchedulerOptions o;
  o.backfill = true;
  ClusterSnapshot c = ClusterBuilder().Nodes("n1", DgxNode()).Partition("p", "n1", true).Build();
  c.now = kNow;
  AddRunning(c, 101, kUnlimited, {OnNode("n1", 8, {0, 1, 2, 3})});  // no time limit: held for good
  AddRunning(c, 102, kNow + 600, {OnNode("n1", 8, {4, 5})});
  // The 8-GPU job can never have a reservation (101 never ends), so a later job may start only if
  // it ends within the horizon (else it could starve the 8-GPU job for good, which Slurm's
  // backfill allows): the 4-GPU one is reserved GPUs 4-7 when 102 ends; the 2-GPU job without a
  // time limit waits; the one with 10 minutes starts now.
  EXPECT_EQ(DecisionStrings(RunCycle(c,
                                     {MakeJob(1, "--gres=gpu:8 -t 60", 100), MakeJob(2, "--gres=gpu:4 -t 60", 90),
                                      MakeJob(3, "--gres=gpu:2", 80), MakeJob(4, "--gres=gpu:2 -t 10", 70)},
                                     o)),
            (std::vector<std::string>{"1 PENDING Resources", "2 PENDING Resources start=1000600",
                                      "3 PENDING Priority", "4 START n1{cpu=1 mem=0 tasks=1 gpus=6,7}"}));
}

TEST(BackfillTest, AJobPastItsTimeLimitStillHoldsItsGpus) {
  SchedulerOptions o;
  o.backfill = true;
  ClusterSnapshot c = ClusterBuilder().Nodes("n1", DgxNode()).Partition("p", "n1", true).Build();
  c.now = kNow;
  AddRunning(c, 101, kNow - 30, {OnNode("n1", 8, {0, 1, 2, 3, 4, 5})});  // overdue, being killed
  // Its GPUs are not free: the gang of 8 is reserved for a second ahead, and the others after the
  // gang's hour, since 6 and 7, free now, are the gang's from then.
  EXPECT_EQ(DecisionStrings(RunCycle(c, {MakeJob(1, "--gres=gpu:8 -t 60", 100), MakeJob(2, "--gres=gpu:4 -t 10", 50),
                                         MakeJob(3, "--gres=gpu:2 -t 10", 40)},
                                     o)),
            (std::vector<std::string>{"1 PENDING Resources start=1000001", "2 PENDING Resources start=1003601",
                                      "3 PENDING Priority start=1003601"}));
}

// A running exclusive job holds its node until its end, not beyond: the node is free for a
// reservation then (the exclusive mark leaves with the job).
TEST(BackfillTest, ReservesOnANodeAnExclusiveJobHoldsUntilItEnds) {
  SchedulerOptions o;
  o.backfill = true;
  ClusterSnapshot c = ClusterBuilder().Nodes("n1", DgxNode()).Partition("p", "n1", true).Build();
  c.now = kNow;
  NodeAllocation whole = OnNode("n1", 1, {});
  whole.exclusive = true;
  AddRunning(c, 101, kNow + 300, {whole});
  ClusterIndex index(c);
  Scheduler s(c, index, o);
  std::vector<Decision> d = s.RunCycle({MakeJob(1, "-c 2 -t 10", 100)});
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].kind, DecisionKind::kPending);
  EXPECT_EQ(d[0].start_time, kNow + 300);
}

TEST(BackfillTest, PlanFitsSaysWhatTakeWouldAccept) {
  ClusterSnapshot c = ClusterBuilder().Nodes("n1", DgxNode()).Partition("p", "n1", true).Build();
  AddRunning(c, 101, kNow + 60, {OnNode("n1", 60, {0, 1})});
  ClusterIndex index(c);
  Plan plan(index, c);
  const int n1 = index.Find("n1");
  EXPECT_TRUE(plan.Fits(n1, OnNode("n1", 4, {2, 3})));
  EXPECT_FALSE(plan.Fits(n1, OnNode("n1", 1, {1})));       // GPU 1 is in use
  EXPECT_FALSE(plan.Fits(n1, OnNode("n1", 5, {})));        // 4 CPUs left
  EXPECT_FALSE(plan.Fits(n1, OnNode("n1", 1, {8})));       // no GPU 8
  EXPECT_FALSE(plan.Fits(-1, OnNode("n1", 1, {})));
  NodeAllocation whole = OnNode("n1", 1, {});
  whole.exclusive = true;
  EXPECT_FALSE(plan.Fits(n1, whole));  // a job is there
  plan.Take(n1, OnNode("n1", 4, {2, 3}));
  EXPECT_FALSE(plan.Fits(n1, OnNode("n1", 1, {3})));
}

// Starvation freedom: a 32-GPU gang behind a full cluster and a continuous stream of 1-GPU jobs
// (two a minute, 30-minute limits, 20-30 minutes actual). Each minute: jobs end, the scheduler
// runs, starts are applied; the work done is counted by the minute (every job holds one GPU). With backfill the gang starts no later than the reservation the first
// cycle gave it, and no later cycle moves that reservation back; the GPUs do more work meanwhile
// than with strict priority alone, which also starts the gang in time.
struct SimResult {
  int64_t promise = 0;          // the gang's first reservation (0 without backfill)
  int64_t latest_promise = 0;   // the latest reservation any cycle gave it
  int64_t gang_start = 0;
  double gpu_seconds_before = 0;  // work done before the gang started
};

SimResult Simulate(bool backfill) {
  ClusterSnapshot base = ClusterBuilder()
                             .Nodes("n[1-4]", DgxNode())
                             .Leaf("leaf", "n[1-4]")
                             .Partition("p", "n[1-4]", true)
                             .Build();
  std::mt19937_64 rng(42);
  struct Run {
    RunningJob job;
    int64_t actual_end;
  };
  std::vector<Run> running;
  int64_t next_id = 1000;
  for (int n = 1; n <= 4; ++n) {
    for (int g = 0; g < 8; ++g) {
      const int64_t end = kNow + 60 + static_cast<int64_t>(rng() % 3540);
      running.push_back({{next_id++, end, {OnNode("n" + std::to_string(n), 1, {g})}}, end});
    }
  }
  std::vector<PendingJob> pending = {MakeJob(1, "-N 4 --gres=gpu:8 -t 60", 1000000, kNow)};
  SchedulerOptions o;
  o.backfill = backfill;
  SimResult r;
  for (int64_t now = kNow; now < kNow + 6 * 3600 && r.gang_start == 0; now += 60) {
    std::erase_if(running, [&](const Run& run) { return run.actual_end <= now; });
    for (int k = 0; k < 2; ++k) pending.push_back(MakeJob(next_id++, "--gres=gpu:1 -t 30", 1, now));
    ClusterSnapshot c = base;
    c.now = now;
    for (const Run& run : running) AddRunning(c, run.job.id, run.job.end_time, run.job.allocation);
    std::vector<Decision> ds = RunCycle(c, pending, o);
    std::vector<PendingJob> still;
    for (const Decision& d : ds) {
      auto it = std::find_if(pending.begin(), pending.end(), [&](const PendingJob& p) { return p.id == d.job_id; });
      if (d.job_id == 1 && d.kind == DecisionKind::kPending && d.start_time > 0) {
        if (r.promise == 0) r.promise = d.start_time;
        r.latest_promise = std::max(r.latest_promise, d.start_time);
      }
      if (d.kind != DecisionKind::kStart) {
        still.push_back(*it);
        continue;
      }
      if (d.job_id == 1) {
        r.gang_start = now;
        continue;
      }
      const int64_t actual = 1200 + static_cast<int64_t>(rng() % 600);
      running.push_back({{d.job_id, now + 1800, d.nodes}, now + actual});
    }
    pending = std::move(still);
    if (r.gang_start == 0) r.gpu_seconds_before += 60.0 * static_cast<double>(running.size());  // 1 GPU each
  }
  return r;
}

TEST(BackfillTest, AStreamOfSmallJobsNeverStarvesTheGang) {
  SimResult with = Simulate(true);
  SimResult without = Simulate(false);
  ASSERT_GT(with.promise, kNow);
  ASSERT_GT(with.gang_start, 0) << "the gang never started";
  // The scheduler runs once a minute here: the gang starts at the first cycle after its promise.
  EXPECT_LE(with.gang_start, with.promise + 60);
  EXPECT_EQ(with.latest_promise, with.promise);  // no cycle pushed the reservation back
  ASSERT_GT(without.gang_start, 0);
  EXPECT_LE(without.gang_start, with.promise + 60);
  EXPECT_GT(with.gpu_seconds_before, without.gpu_seconds_before);
}


// Backfill never delays a reservation, over random traces replayed with and without it: jobs of
// 1 to 32 GPUs arrive on 4 x 8 GPUs, first come first served (no later job outranks an earlier
// one), and run exactly their time limits (whole minutes, like the arrivals and the cycles), so a
// reservation is a promise the scheduler can keep to the second. With backfill every job starts
// no later than the first reservation any cycle gave it and no cycle moves a reservation later;
// the replay without backfill starts no job out of order, and waits longer in all. Backfill must
// have started jobs out of order and given reservations (else the test proves nothing).
struct ReplayResult {
  std::map<int64_t, int64_t> start, promise;
  int moved_later = 0, broken = 0, out_of_order = 0;
  int64_t total_wait = 0;  // seconds, over every job
};

ReplayResult Replay(uint64_t seed, bool backfill) {
  const ClusterSnapshot base =
      ClusterBuilder().Nodes("n[1-4]", DgxNode()).Leaf("leaf", "n[1-4]").Partition("p", "n[1-4]", true).Build();
  std::mt19937_64 rng(seed);
  struct Arrival {
    int64_t at;
    PendingJob job;
    int64_t limit_s;
  };
  std::vector<Arrival> trace;
  const char* shapes[] = {"--gres=gpu:1", "--gres=gpu:2", "--gres=gpu:4", "--gres=gpu:8", "-N 2 --gres=gpu:8",
                          "-N 4 --gres=gpu:8"};
  for (int64_t id = 1; id <= 80; ++id) {
    const int64_t at = kNow + 60 * static_cast<int64_t>(rng() % 120);
    const int minutes = 1 + static_cast<int>(rng() % 30);
    const char* shape = shapes[rng() % (rng() % 4 == 0 ? 6 : 4)];  // gangs are rarer
    trace.push_back({at, MakeJob(id, std::string(shape) + " -t " + std::to_string(minutes), 0, at), minutes * 60});
  }
  std::sort(trace.begin(), trace.end(), [](const Arrival& a, const Arrival& b) {
    return a.at != b.at ? a.at < b.at : a.job.id < b.job.id;
  });
  for (size_t k = 0; k < trace.size(); ++k) trace[k].job.priority = 1'000'000 - static_cast<int64_t>(k);  // FCFS
  std::map<int64_t, int64_t> limit_of;
  for (const Arrival& a : trace) limit_of[a.job.id] = a.limit_s;
  SchedulerOptions o;
  o.backfill = backfill;
  o.backfill_depth = 1000;
  ReplayResult r;
  std::vector<RunningJob> running;
  std::vector<PendingJob> pending;
  size_t next = 0;
  int64_t last_started_rank = -1;
  for (int64_t now = kNow; now < kNow + 48 * 3600 && (next < trace.size() || !pending.empty() || !running.empty());
       now += 60) {
    std::erase_if(running, [&](const RunningJob& j) { return j.end_time <= now; });
    while (next < trace.size() && trace[next].at <= now) pending.push_back(trace[next++].job);
    ClusterSnapshot c = base;
    c.now = now;
    for (const RunningJob& j : running) {
      ApplyAllocation(c, j.allocation);
      c.running.push_back(j);
    }
    std::vector<PendingJob> still;
    for (const Decision& d : RunCycle(c, pending, o)) {
      auto it = std::find_if(pending.begin(), pending.end(), [&](const PendingJob& p) { return p.id == d.job_id; });
      if (d.kind == DecisionKind::kStart) {
        r.start[d.job_id] = now;
        if (r.promise.count(d.job_id) && now > r.promise[d.job_id]) ++r.broken;
        const int64_t rank = 1'000'000 - it->priority;
        if (rank < last_started_rank) ++r.out_of_order;
        last_started_rank = std::max(last_started_rank, rank);
        running.push_back({d.job_id, now + limit_of[d.job_id], d.nodes});
        r.total_wait += now - it->submit_time;
        continue;
      }
      EXPECT_NE(d.kind, DecisionKind::kReject) << d.ToString();
      if (d.start_time > 0) {
        auto [p, first] = r.promise.emplace(d.job_id, d.start_time);
        if (!first && d.start_time > p->second) ++r.moved_later;
      }
      still.push_back(*it);
    }
    pending = std::move(still);
  }
  EXPECT_TRUE(pending.empty() && next == trace.size()) << "the trace did not finish";
  return r;
}

TEST(BackfillTest, ReplayedWithAndWithoutBackfillNoReservationIsDelayed) {
  int out_of_order = 0, promises = 0;
  int64_t wait_with = 0, wait_without = 0;
  for (uint64_t seed : {1, 2, 3, 4, 5}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const ReplayResult with = Replay(seed, true);
    const ReplayResult without = Replay(seed, false);
    EXPECT_EQ(with.broken, 0);
    EXPECT_EQ(with.moved_later, 0);
    EXPECT_EQ(without.out_of_order, 0);
    EXPECT_EQ(with.start.size(), 80u);
    EXPECT_EQ(without.start.size(), 80u);
    wait_with += with.total_wait;
    wait_without += without.total_wait;
    out_of_order += with.out_of_order;
    promises += static_cast<int>(with.promise.size());
  }
  EXPECT_GT(out_of_order, 0) << "backfill never started a job out of order";
  EXPECT_GT(promises, 0) << "no job ever waited with a reservation";
  EXPECT_LT(wait_with, wait_without) << "backfill did not shorten the waits";
}
}  // namespace
}  // namespace muster
