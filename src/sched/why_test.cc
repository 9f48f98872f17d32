// ExplainPending on scenarios where each answer is known: the reason, the jobs ahead, the planned
// start and nodes, and each change that lets the job start sooner, found by the core.
#include "sched/why.h"

#include <gtest/gtest.h>

#include <memory>

#include "sched/cluster_builder.h"

namespace muster {
namespace {

constexpr int64_t kNow = 1'000'000;

NodeAllocation OnNode(const std::string& node, std::vector<int> gpus) {
  NodeAllocation a;
  a.node = node;
  a.cpu_milli = 1000;
  a.tasks = 1;
  for (int g : gpus) a.gpus.push_back({g, 1000});
  return a;
}

RunningJob& AddRunning(ClusterSnapshot& c, int64_t id, int64_t end, std::vector<NodeAllocation> alloc,
                       const std::string& account = "") {
  ApplyAllocation(c, alloc);
  RunningJob r;
  r.id = id;
  r.end_time = end;
  r.allocation = std::move(alloc);
  r.account = account;
  r.user = "bob";
  r.start_time = kNow - 60;
  c.running.push_back(std::move(r));
  return c.running.back();
}

PendingJob Job(int64_t id, const std::string& options, int64_t priority, const std::string& user = "alice") {
  PendingJob j = MakeJob(id, options, priority, kNow - 100 + id);
  j.user = user;
  return j;
}

std::vector<std::string> Nodes(const WhyOutcome& o) {
  std::vector<std::string> out;
  for (const NodeAllocation& a : o.nodes) {
    std::string s = a.node + ":";
    for (const GpuShare& g : a.gpus) s += std::to_string(g.index);
    out.push_back(s);
  }
  return out;
}

std::vector<std::string> Kinds(const PendingExplanation& e) {
  std::vector<std::string> out;
  for (const WhyAlternative& a : e.sooner) out.push_back(a.kind + " " + a.change + " -> " + WhyStartName(a.outcome.start));
  return out;
}

SchedulerOptions Backfill() {
  SchedulerOptions o;
  o.backfill = true;
  return o;
}

// Strict priority without backfill: the job waits behind a job waiting for resources and one
// behind it, both listed with their priorities and outcomes; the idle partition it may use is the
// one change that starts it now.
TEST(WhyTest, PriorityBehindKnownJobsAndAnIdlePartition) {
  ClusterSnapshot c = ClusterBuilder()
                          .Nodes("n[1-2]", DgxNode())
                          .Partition("gpu", "n1", true)
                          .Partition("debug", "n2")
                          .Build();
  c.now = kNow;
  AddRunning(c, 101, kNow + 3600, {OnNode("n1", {0, 1, 2, 3})});
  const std::vector<PendingJob> q = {Job(3, "--gres=gpu:2", 100), Job(1, "--gres=gpu:8", 300, "carol"),
                                     Job(2, "--gres=gpu:2 -p gpu", 200, "dave")};
  PendingExplanation e = ExplainPending(c, SchedulerOptions{}, q, 3);
  ASSERT_TRUE(e.queued);
  EXPECT_EQ(e.partition, "gpu");
  EXPECT_EQ(e.outcome.start, WhyStart::kUnplanned);
  EXPECT_EQ(e.outcome.reason, PendingReason::kPriority);
  EXPECT_EQ(e.position, 3);
  EXPECT_EQ(e.queue_size, 3);
  EXPECT_EQ(e.ahead_total, 2);
  EXPECT_EQ(e.ahead_in_partition, 2);
  ASSERT_EQ(e.ahead.size(), 2u);
  EXPECT_EQ(e.ahead[0].id, 1);
  EXPECT_EQ(e.ahead[0].priority, 300);
  EXPECT_EQ(e.ahead[0].user, "carol");
  EXPECT_EQ(e.ahead[0].gpus, 8);
  EXPECT_EQ(e.ahead[0].outcome.reason, PendingReason::kResources);
  EXPECT_EQ(e.ahead[1].id, 2);
  EXPECT_EQ(e.ahead[1].priority, 200);
  EXPECT_EQ(e.ahead[1].outcome.reason, PendingReason::kPriority);
  EXPECT_EQ(Kinds(e), (std::vector<std::string>{"partition -p debug -> now"}));
  EXPECT_EQ(Nodes(e.sooner[0].outcome), (std::vector<std::string>{"n2:01"}));
  // A partition its owner may not use is not offered.
  WhyOptions only_gpu;
  only_gpu.partitions = std::vector<std::string>{"gpu"};
  EXPECT_TRUE(ExplainPending(c, SchedulerOptions{}, q, 3, only_gpu).sooner.empty());
  // Without the what-ifs, one cycle.
  WhyOptions bare;
  bare.what_ifs = false;
  EXPECT_EQ(ExplainPending(c, SchedulerOptions{}, q, 3, bare).cycles, 1);
}

// Backfill: the gang of two whole nodes is planned when job 101 ends, on both nodes' 8 GPUs; no
// smaller request, shorter limit or other partition starts it sooner.
TEST(WhyTest, ResourcesWithAKnownPlannedStartAndNodes) {
  ClusterSnapshot c = ClusterBuilder().Nodes("n[1-2]", DgxNode()).Partition("p", "n[1-2]", true).Build();
  c.now = kNow;
  AddRunning(c, 101, kNow + 3600, {OnNode("n1", {0, 1, 2, 3, 4, 5, 6, 7})});
  AddRunning(c, 102, kNow + 600, {OnNode("n2", {0, 1, 2, 3})});
  const std::vector<PendingJob> q = {Job(1, "-N 2 --gres=gpu:8 -t 120", 100), Job(2, "--gres=gpu:2 -t 30", 50)};
  PendingExplanation e = ExplainPending(c, Backfill(), q, 1);
  ASSERT_TRUE(e.queued);
  EXPECT_EQ(e.outcome.reason, PendingReason::kResources);
  EXPECT_EQ(e.outcome.start, WhyStart::kPlanned);
  EXPECT_EQ(e.outcome.start_time, kNow + 3600);
  EXPECT_EQ(Nodes(e.outcome), (std::vector<std::string>{"n1:01234567", "n2:01234567"}));
  EXPECT_EQ(e.gpus, 16);
  EXPECT_EQ(e.time_limit_s, 7200);
  EXPECT_EQ(e.position, 1);
  EXPECT_TRUE(e.ahead.empty());
  EXPECT_TRUE(e.sooner.empty()) << testing::PrintToString(Kinds(e));
  // The job after it: backfilled now (the core would start it at the next pass).
  PendingExplanation second = ExplainPending(c, Backfill(), q, 2);
  EXPECT_EQ(second.outcome.start, WhyStart::kNow);
  EXPECT_TRUE(second.sooner.empty());
  ASSERT_EQ(second.ahead.size(), 1u);
  EXPECT_EQ(second.ahead[0].outcome.start, WhyStart::kPlanned);
  EXPECT_EQ(second.ahead[0].outcome.start_time, kNow + 3600);
}

// Half the node is free for an hour: with 4 GPUs (the most that fit, found by the search) it
// starts now instead of in an hour.
TEST(WhyTest, FewerGpusStartsItNow) {
  ClusterSnapshot c = ClusterBuilder().Nodes("n1", DgxNode()).Partition("p", "n1", true).Build();
  c.now = kNow;
  AddRunning(c, 101, kNow + 3600, {OnNode("n1", {0, 1, 2, 3})});
  PendingExplanation e = ExplainPending(c, Backfill(), {Job(1, "--gres=gpu:8 -t 60", 100)}, 1);
  EXPECT_EQ(e.outcome.start, WhyStart::kPlanned);
  EXPECT_EQ(e.outcome.start_time, kNow + 3600);
  EXPECT_EQ(Kinds(e), (std::vector<std::string>{"gpus 4 GPUs (--gres=gpu:4) -> now"}));
  EXPECT_EQ(e.sooner[0].gpus, 4);
  EXPECT_EQ(Nodes(e.sooner[0].outcome), (std::vector<std::string>{"n1:4567"}));
  // --gpus asks the same, and is answered in its own form.
  PendingExplanation total = ExplainPending(c, Backfill(), {Job(1, "--gpus=8 -t 60", 100)}, 1);
  EXPECT_EQ(Kinds(total), (std::vector<std::string>{"gpus 4 GPUs (--gpus=4) -> now"}));
  // Bounded: the baseline, then 1, 4, 6, 5 GPUs (the search), one minute (the limit's first try).
  EXPECT_LE(e.cycles, 8);
}

// A reservation at +10 min for the job ahead: the job fits now only if it ends by then, so the
// longest limit found is ten minutes.
TEST(WhyTest, AShorterLimitBackfillsIt) {
  ClusterSnapshot c = ClusterBuilder().Nodes("n1", DgxNode()).Partition("p", "n1", true).Build();
  c.now = kNow;
  AddRunning(c, 101, kNow + 600, {OnNode("n1", {0, 1, 2, 3})});
  const std::vector<PendingJob> q = {Job(1, "--gres=gpu:8 -t 60", 100), Job(2, "--gres=gpu:4 -t 60", 50)};
  PendingExplanation e = ExplainPending(c, Backfill(), q, 2);
  EXPECT_EQ(e.outcome.reason, PendingReason::kPriority);
  EXPECT_EQ(e.outcome.start, WhyStart::kPlanned);
  EXPECT_EQ(e.outcome.start_time, kNow + 600 + 3600);  // after job 1's hour
  ASSERT_EQ(e.ahead.size(), 1u);
  EXPECT_EQ(e.ahead[0].outcome.start_time, kNow + 600);
  EXPECT_EQ(Kinds(e), (std::vector<std::string>{"time --time=00:10:00 -> now"}));
  EXPECT_EQ(e.sooner[0].time_limit_s, 600);
}

// The account's GPU limit (8) is all in use: the job waits with AssocGrpGRES though n2 is idle;
// lifted, it starts now. Fewer GPUs would still break it.
TEST(WhyTest, TheAccountsGpuLimitHoldsIt) {
  ClusterSnapshot c = ClusterBuilder().Nodes("n[1-2]", DgxNode()).Partition("p", "n[1-2]", true).Build();
  c.now = kNow;
  AddRunning(c, 101, kNow + 3600, {OnNode("n1", {0, 1, 2, 3, 4, 5, 6, 7})}, "ml");
  auto policy = std::make_shared<SchedPolicy>();
  Account ml;
  ml.name = "ml";
  ml.limit.gpus = 8;
  policy->accounts.accounts.push_back(ml);
  SchedulerOptions o = Backfill();
  o.policy = policy;
  PendingJob j = Job(1, "--gres=gpu:4 -t 60", 100);
  j.account = "ml";
  PendingExplanation e = ExplainPending(c, o, {j}, 1);
  EXPECT_EQ(e.outcome.reason, PendingReason::kAssocGrpGRES);
  EXPECT_EQ(e.outcome.start, WhyStart::kUnplanned);
  EXPECT_EQ(Kinds(e), (std::vector<std::string>{"limit account ml's GrpTRES=gres/gpu (8) lifted -> now"}));
  EXPECT_EQ(e.sooner[0].account, "ml");
  EXPECT_EQ(e.sooner[0].value, 8);
  EXPECT_EQ(e.sooner[0].in_use, 8);
  EXPECT_EQ(Nodes(e.sooner[0].outcome), (std::vector<std::string>{"n2:0123"}));
}

// Team quotas: the cycle takes the account furthest below its fair share first. ml (quota 4) and
// cv (quota 8) hold 4 GPUs each; of the 16, ml's fair share is 6 and cv's 10, so cv's job comes
// first and takes the 8 free GPUs, whatever the priorities. With ml's quota raised to 12 (what it
// holds and this job), ml is the further below and its job starts now.
TEST(WhyTest, TeamQuotasOrderTheCycleAndTheQuotaRaised) {
  ClusterSnapshot c = ClusterBuilder().Nodes("n[1-2]", DgxNode()).Partition("p", "n[1-2]", true).Build();
  c.now = kNow;
  AddRunning(c, 101, kNow + 3600, {OnNode("n1", {0, 1, 2, 3})}, "ml");
  AddRunning(c, 102, kNow + 3600, {OnNode("n1", {4, 5, 6, 7})}, "cv");
  auto policy = std::make_shared<SchedPolicy>();
  Account ml, cv;
  ml.name = "ml";
  ml.quota.gpus = 4;
  cv.name = "cv";
  cv.quota.gpus = 8;
  policy->accounts.accounts = {ml, cv};
  SchedulerOptions o;
  o.policy = policy;
  PendingJob mine = Job(1, "--gres=gpu:8 -t 60", 500);
  mine.account = "ml";
  PendingJob theirs = Job(2, "--gres=gpu:8 -t 60", 10, "carol");
  theirs.account = "cv";
  PendingExplanation e = ExplainPending(c, o, {mine, theirs}, 1);
  EXPECT_TRUE(e.fair_share_order);
  EXPECT_EQ(e.outcome.reason, PendingReason::kResources);
  EXPECT_EQ(e.position, 2);  // despite its higher priority
  ASSERT_EQ(e.ahead.size(), 1u);
  EXPECT_EQ(e.ahead[0].id, 2);
  EXPECT_EQ(e.ahead[0].outcome.start, WhyStart::kNow);
  ASSERT_EQ(e.shares.size(), 2u);
  EXPECT_EQ(e.shares[0].account, "cv");
  EXPECT_EQ(e.shares[0].held, 4);
  EXPECT_EQ(e.shares[0].fair_share, 10);
  EXPECT_EQ(e.shares[0].quota, 8);
  EXPECT_EQ(e.shares[1].account, "ml");
  EXPECT_EQ(e.shares[1].held, 4);
  EXPECT_EQ(e.shares[1].fair_share, 6);
  EXPECT_EQ(e.shares[1].demand, 12);
  EXPECT_EQ(Kinds(e), (std::vector<std::string>{"quota account ml's quota raised from 4 GPUs to 12 -> now"}));
  EXPECT_EQ(e.sooner[0].value, 12);
  EXPECT_EQ(Nodes(e.sooner[0].outcome), (std::vector<std::string>{"n2:01234567"}));
}

TEST(WhyTest, AJobNotInTheQueueIsSaidSo) {
  ClusterSnapshot c = ClusterBuilder().Nodes("n1", DgxNode()).Partition("p", "n1", true).Build();
  PendingExplanation e = ExplainPending(c, SchedulerOptions{}, {Job(1, "--gres=gpu:1", 1)}, 7);
  EXPECT_FALSE(e.queued);
  EXPECT_EQ(e.cycles, 0);
}

}  // namespace
}  // namespace muster
