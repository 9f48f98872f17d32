// Heterogeneous jobs in the scheduler core: the components start together or not at all, each
// with its own request, and with backfill the gang gets one reservation for all of them.
#include <gtest/gtest.h>

#include "sched/cluster_builder.h"
#include "sched/scheduler.h"

namespace muster {
namespace {

constexpr int64_t kNow = 1'000'000;

NodeAllocation Whole(const std::string& node) {
  NodeAllocation a;
  a.node = node;
  a.cpu_milli = 8 * 1000;
  a.tasks = 1;
  for (int g = 0; g < 8; ++g) a.gpus.push_back({g, 1000});
  return a;
}

ClusterSnapshot Cluster(int nodes) {
  ClusterSnapshot c = ClusterBuilder()
                          .Nodes("n[1-" + std::to_string(nodes) + "]", DgxNode())
                          .Partition("p", "n[1-" + std::to_string(nodes) + "]", true)
                          .Build();
  c.now = kNow;
  return c;
}

// A job of components: the leader `id` with `leader`'s options, then id+1, id+2, ...
PendingJob Het(int64_t id, const std::string& leader, const std::vector<std::string>& others, int64_t priority = 0) {
  PendingJob j = MakeJob(id, leader, priority);
  for (size_t k = 0; k < others.size(); ++k) {
    const PendingJob c = MakeJob(id + 1 + static_cast<int64_t>(k), others[k]);
    j.het.push_back({c.id, c.request, c.account, c.qos});
  }
  return j;
}

std::vector<std::string> Lines(const std::vector<Decision>& ds) {
  std::vector<std::string> out;
  for (const Decision& d : ds) out.push_back(d.ToString());
  return out;
}

TEST(HetJobTest, EveryComponentStartsWithItsOwnShape) {
  ClusterSnapshot c = Cluster(3);
  const std::vector<Decision> d = RunCycle(c, {Het(10, "--gres=gpu:1", {"-N 2 --gres=gpu:2"})}, {});
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].job_id, 10);
  EXPECT_EQ(d[1].job_id, 11);
  EXPECT_EQ(d[0].kind, DecisionKind::kStart);
  EXPECT_EQ(d[1].kind, DecisionKind::kStart);
  ASSERT_EQ(d[0].nodes.size(), 1u);
  EXPECT_EQ(d[0].nodes[0].gpus.size(), 1u);
  ASSERT_EQ(d[1].nodes.size(), 2u);
  EXPECT_EQ(d[1].nodes[0].gpus.size(), 2u);
  // The second component was placed on what the first left: no GPU of a node given twice.
  for (const NodeAllocation& b : d[1].nodes) {
    if (b.node != d[0].nodes[0].node) continue;
    for (const GpuShare& g : b.gpus) EXPECT_NE(g.index, d[0].nodes[0].gpus[0].index) << Lines(d)[1];
  }
}

TEST(HetJobTest, NoComponentStartsUnlessAllFit) {
  // Three nodes, n1 busy: the second component (two whole nodes) would fit on n2 and n3, but
  // then the leader's GPU would not. Neither starts, nothing is held for them, and a later job
  // runs on n2.
  ClusterSnapshot c = Cluster(3);
  ApplyAllocation(c, {Whole("n1")});
  c.running.push_back({500, kNow + 600, {Whole("n1")}});
  SchedulerOptions first_fit;
  first_fit.strict_priority = false;
  const std::vector<Decision> d =
      RunCycle(c, {Het(10, "--gres=gpu:1", {"-N 2 --gres=gpu:8"}, 100), MakeJob(20, "--gres=gpu:8", 1)}, first_fit);
  EXPECT_EQ(Lines(d), (std::vector<std::string>{"10 PENDING Resources", "11 PENDING Resources",
                                                "20 START n2{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7}"}));
  // With strict priority the waiting gang holds the lower job back.
  const std::vector<Decision> strict =
      RunCycle(c, {Het(10, "--gres=gpu:1", {"-N 2 --gres=gpu:8"}, 100), MakeJob(20, "--gres=gpu:8", 1)}, {});
  EXPECT_EQ(strict[2].ToString(), "20 PENDING Priority");
}

TEST(HetJobTest, AGangThatCanNeverFitIsRejectedWhole) {
  ClusterSnapshot c = Cluster(2);
  // Each component fits the cluster alone; together they need three whole nodes.
  const std::vector<Decision> d = RunCycle(c, {Het(10, "-N 2 --gres=gpu:8", {"--gres=gpu:8"})}, {});
  ASSERT_EQ(d.size(), 2u);
  for (const Decision& x : d) {
    EXPECT_EQ(x.kind, DecisionKind::kReject);
    EXPECT_EQ(x.message, "Requested node configuration is not available");
  }
  // A component naming a partition that does not exist rejects the whole job.
  PendingJob bad = Het(30, "--gres=gpu:1", {"-p nope --gres=gpu:1"});
  const std::vector<Decision> b = RunCycle(c, {bad}, {});
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].message, "Invalid partition name specified: nope");
  EXPECT_EQ(b[1].kind, DecisionKind::kReject);
}

TEST(HetJobTest, BackfillReservesOneStartForEveryComponentAndFillsAroundIt) {
  ClusterSnapshot c = Cluster(3);
  ApplyAllocation(c, {Whole("n1")});
  c.running.push_back({500, kNow + 3600, {Whole("n1")}});
  SchedulerOptions o;
  o.backfill = true;
  const std::vector<Decision> d = RunCycle(
      c,
      {Het(10, "--gres=gpu:8 -t 120", {"-N 2 --gres=gpu:8 -t 60"}, 100),  // all three nodes
       MakeJob(20, "--gres=gpu:8 -t 30", 50),                              // ends before n1 frees
       MakeJob(21, "--gres=gpu:8 -t 120", 40)},                            // would delay the gang
      o);
  ASSERT_EQ(d.size(), 4u);
  EXPECT_EQ(d[0].kind, DecisionKind::kPending);
  EXPECT_EQ(d[0].start_time, kNow + 3600);
  EXPECT_EQ(d[1].start_time, kNow + 3600);
  EXPECT_EQ(d[0].nodes.size() + d[1].nodes.size(), 3u);
  EXPECT_EQ(d[2].job_id, 20);
  EXPECT_EQ(d[2].kind, DecisionKind::kStart);
  EXPECT_EQ(d[3].job_id, 21);
  EXPECT_EQ(d[3].kind, DecisionKind::kPending);
}

TEST(HetJobTest, RepeatedCyclesDecideTheSame) {
  ClusterSnapshot c = Cluster(3);
  const std::vector<PendingJob> q = {Het(10, "--gres=gpu:4", {"--gres=gpu:4", "-N 2 --gres=gpu:2"}),
                                     MakeJob(20, "--gres=gpu:8")};
  Scheduler s(c);
  const std::vector<Decision> first = s.RunCycle(q);
  EXPECT_EQ(first.size(), 4u);
  EXPECT_EQ(Lines(s.RunCycle(q)), Lines(first));
  EXPECT_EQ(Lines(RunCycle(c, q, {})), Lines(first));
}

TEST(HetJobTest, AGangRefusedByAClaimGivesBackWhatItsOtherComponentsClaimed) {
  // n1: a low-priority job on half of it; n2: a job nobody may preempt; n3: free. Job 1 needs a
  // whole node but n3: it preempts job 501 and claims all of n1. The gang's leader fits n3 and its
  // second component only n1's free half, which job 1 has claimed: the gang waits. What the
  // leader had been given of n3 goes back, so job 3 (a whole node, lower still) starts there.
  ClusterSnapshot c = Cluster(3);
  auto run = [&](int64_t id, NodeAllocation a, int64_t priority) {
    ApplyAllocation(c, {a});
    RunningJob r{id, kUnlimited, {a}};
    r.start_time = kNow - 7200;
    r.priority = priority;
    r.partition = "p";
    c.running.push_back(std::move(r));
  };
  NodeAllocation half = Whole("n1");
  half.cpu_milli = 4 * 1000;
  half.gpus.resize(4);
  run(501, half, 0);
  run(502, Whole("n2"), 1000);
  SchedulerOptions o;
  o.strict_priority = false;  // (so the later jobs are tried at all)
  auto policy = std::make_shared<SchedPolicy>();
  policy->preemption.by_priority = true;
  o.policy = policy;
  const std::vector<PendingJob> q = {MakeJob(1, "-x n3 --gres=gpu:8", 100),
                                     Het(2, "--gres=gpu:8", {"--gres=gpu:4"}, 50), MakeJob(4, "--gres=gpu:8", 10)};
  const std::vector<Decision> d = RunCycle(c, q, o);
  EXPECT_EQ(Lines(d), (std::vector<std::string>{"1 PENDING Resources preempt=501", "2 PENDING Priority",
                                                "3 PENDING Priority",
                                                "4 START n3{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7}"}));
}

}  // namespace
}  // namespace muster
