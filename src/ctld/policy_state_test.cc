// PolicyState alone: the accounts and QOS in force and their changes, usage charging and saving,
// and job priorities, over jobs the test holds.
#include "ctld/policy_state.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "sched/cluster_builder.h"

namespace muster {
namespace {

ClusterSnapshot Cluster() {
  ClusterBuilder b;
  b.Nodes("gpu[01-02]", {.gpus = 4});
  b.Partition("low", "gpu[01-02]", /*is_default=*/true);
  b.Partition("high", "gpu[01-02]");
  b.SetPartition("high", [](Partition& p) { p.priority_tier = 2; });
  return b.Build();
}

PrioritySettings Settings(std::string_view order = "multifactor") {
  PrioritySettings s;
  s.order = JobOrderRegistry::Create(order);
  s.weights.qos = 1000;
  s.weights.partition = 1000;
  s.accounts.accounts = {Account{.name = "team"}};
  return s;
}

std::shared_ptr<const SchedPolicy> QosPolicy() {
  auto p = std::make_shared<SchedPolicy>();
  p->qos = {Qos{.name = "high", .priority = 100}, Qos{.name = "normal", .priority = 10}};
  p->preemption.grace_time_s = 7;
  return p;
}

JobRecord Pending(int64_t id, const std::string& qos = "", const std::string& partition = "low") {
  JobRecord j;
  j.id = id;
  j.state = JobState::kPending;
  j.user = "alice";
  j.account = "team";
  j.qos = qos;
  j.partition = partition;
  j.request.gpus_per_node = 1;
  j.request.min_nodes = 1;
  return j;
}

JobRecord Running(int64_t id, int64_t start, int gpus) {
  JobRecord j = Pending(id);
  j.state = JobState::kRunning;
  j.start_time = start;
  NodeAllocation a;
  a.node = "gpu01";
  a.cpu_milli = 1000;
  for (int g = 0; g < gpus; ++g) a.gpus.push_back(GpuShare{g});
  j.allocation = {a};
  return j;
}

ActiveJobs Active(std::vector<JobRecord>& jobs) {
  ActiveJobs out;
  for (JobRecord& j : jobs) out[j.id] = &j;
  return out;
}

double UsageOf(const std::vector<FairShareRow>& rows, const std::string& user) {
  for (const FairShareRow& r : rows) {
    if (r.user == user) return r.raw_usage;
  }
  return -1;
}

const PolicyOp kAddGold{"add", "qos", "gold", {{"Priority", "50"}}};

TEST(PolicyStateTest, TheConfiguredPolicyIsInForceUntilAChange) {
  PolicyState none(Settings(), nullptr, Cluster(), 30);
  EXPECT_EQ(none.scheduler_policy(), nullptr);
  ASSERT_EQ(none.Policy().accounts.accounts.size(), 1u);
  EXPECT_EQ(none.Policy().accounts.accounts[0].name, "team");
  EXPECT_TRUE(none.Policy().qos.empty());

  const std::shared_ptr<const SchedPolicy> configured = QosPolicy();
  PolicyState state(Settings(), configured, Cluster(), 30);
  EXPECT_EQ(state.scheduler_policy(), configured);  // the very one: nothing installed yet
  const PolicyState::InForce before = state.in_force();
  ASSERT_NE(before.accounts, nullptr);
  std::vector<std::string> saved;
  ASSERT_TRUE(state.Change(kAddGold, [&](const std::string& s) {
                     saved.push_back(s);
                     return Status::Ok();
                   }).ok());
  ASSERT_EQ(saved.size(), 1u);
  EXPECT_EQ(saved[0], PolicyOpsToJson({kAddGold}));
  const SchedPolicy now = state.Policy();
  ASSERT_EQ(now.qos.size(), 3u);
  EXPECT_EQ(now.qos[2].name, "gold");
  EXPECT_EQ(now.preemption.grace_time_s, 7);  // the configured preemption settings stay
  EXPECT_EQ(state.scheduler_policy()->qos.size(), 3u);
  // The copies taken before are as they were.
  EXPECT_EQ(before.policy->qos.size(), 2u);
  EXPECT_EQ(before.accounts->users.size(), 0u);
  // The next change is stored with the first.
  ASSERT_TRUE(state.Change(PolicyOp{"add", "user", "alice", {{"Account", "team"}}}, [&](const std::string& s) {
                     saved.push_back(s);
                     return Status::Ok();
                   }).ok());
  EXPECT_EQ(saved[1], PolicyOpsToJson({kAddGold, PolicyOp{"add", "user", "alice", {{"Account", "team"}}}}));
  EXPECT_EQ(state.in_force().accounts->users.size(), 1u);
}

TEST(PolicyStateTest, AChangeThatIsNotSavedOrDoesNotApplyTakesNoEffect) {
  PolicyState state(Settings(), QosPolicy(), Cluster(), 30);
  int saves = 0;
  Status refused = state.Change(PolicyOp{"add", "qos", "high", {}}, [&](const std::string&) {
    ++saves;
    return Status::Ok();
  });
  EXPECT_EQ(refused.message(), "QOS 'high' already exists");
  EXPECT_EQ(saves, 0);
  Status unsaved = state.Change(kAddGold, [&](const std::string&) {
    ++saves;
    return Status(StatusCode::kInternal, "disk full");
  });
  EXPECT_EQ(unsaved.message(), "disk full");
  EXPECT_EQ(state.Policy().qos.size(), 2u);
  // Not in the list stored with the next change either.
  std::string stored;
  ASSERT_TRUE(state.Change(PolicyOp{"add", "qos", "silver", {}}, [&](const std::string& s) {
                     stored = s;
                     return Status::Ok();
                   }).ok());
  EXPECT_EQ(stored, PolicyOpsToJson({PolicyOp{"add", "qos", "silver", {}}}));
}

TEST(PolicyStateTest, ReplayAppliesTheStoredChangesAndDropsThoseThatNoLongerApply) {
  PolicyState state(Settings(), QosPolicy(), Cluster(), 30);
  const PolicyOp stale{"add", "qos", "high", {}};  // muster.yaml has it now
  ASSERT_TRUE(state.Replay(PolicyOpsToJson({kAddGold, stale})).ok());
  ASSERT_EQ(state.warnings().size(), 1u);
  EXPECT_NE(state.warnings()[0].find("stored change 'add qos high' no longer applies to muster.yaml"), std::string::npos);
  EXPECT_EQ(state.Policy().qos.size(), 3u);
  EXPECT_EQ(state.Policy().preemption.grace_time_s, 7);
  std::string stored;
  ASSERT_TRUE(state.Change(PolicyOp{"add", "qos", "silver", {}}, [&](const std::string& s) {
                     stored = s;
                     return Status::Ok();
                   }).ok());
  EXPECT_EQ(stored, PolicyOpsToJson({kAddGold, PolicyOp{"add", "qos", "silver", {}}}));
  EXPECT_FALSE(state.Replay("not json").ok());
}

TEST(PolicyStateTest, TickChargesTheRunningJobsAndReturnsTheUsageWhenItIsDue) {
  PolicyState state(Settings(), nullptr, Cluster(), /*usage_save_s=*/30);
  std::vector<JobRecord> jobs = {Running(1, 1, 2)};
  ActiveJobs active = Active(jobs);
  EXPECT_EQ(state.Tick(active, 10), "");  // charged, not yet due
  EXPECT_GT(UsageOf(state.Shares(active, 10), "alice"), 0);
  const std::string usage = state.Tick(active, 30);
  EXPECT_NE(usage, "");
  EXPECT_EQ(state.Tick(active, 40), "");
  // Storing it failed: due again at the next Tick.
  state.UsageSaveFailed();
  EXPECT_NE(state.Tick(active, 41), "");
  // Nothing ran since: due, but nothing changed to store.
  jobs.clear();
  active.clear();
  EXPECT_EQ(state.Tick(active, 100), "");

  // The saved usage restored elsewhere: the same charge (decayed in steps, not at once).
  PolicyState restored(Settings(), nullptr, Cluster(), 30);
  ASSERT_TRUE(restored.RestoreUsage(usage).ok());
  restored.RefreshPriorities(active, 30);
  PolicyState original(Settings(), nullptr, Cluster(), 30);
  std::vector<JobRecord> again = {Running(1, 1, 2)};
  ActiveJobs again_active = Active(again);
  original.Charge(again[0], 30);
  original.RefreshPriorities(again_active, 30);
  EXPECT_NEAR(UsageOf(restored.Shares(active, 30), "alice"), UsageOf(original.Shares(again_active, 30), "alice"), 0.01);
  EXPECT_FALSE(restored.RestoreUsage("{").ok());
}

TEST(PolicyStateTest, SaveUsageChargesUpToNowAndEndedJobsAreChargedToTheirEnd) {
  PolicyState state(Settings(), nullptr, Cluster(), 30);
  std::vector<JobRecord> jobs = {Running(1, 1, 1), Running(2, 1, 1)};
  ActiveJobs active = Active(jobs);
  EXPECT_NE(state.SaveUsage(active, 10), "");
  EXPECT_EQ(state.Tick(active, 20), "");  // saved at 10: not due before 40
  jobs[1].end_time = 20;
  jobs[1].state = JobState::kCompleted;
  state.Ended(jobs[1]);
  state.RefreshPriorities(ActiveJobs{{1, &jobs[0]}}, 20);
  // Job 1 charged from its start (1) up to 20 by Tick, job 2 to its end: 38 GPU-seconds,
  // decayed a little.
  const double charged = UsageOf(state.Shares(active, 20), "alice");
  EXPECT_GT(charged, 37.9);
  EXPECT_LE(charged, 38.0);
  // A requeued job is charged for the run so far, and its next run from its own start.
  state.Requeued(jobs[0], 30);
  jobs[0].start_time = 50;
  state.Charge(jobs[0], 60);
  state.RefreshPriorities(active, 60);
  const double after = UsageOf(state.Shares(active, 60), "alice");
  EXPECT_GT(after, 57.9);
  EXPECT_LE(after, 58.0);
}

TEST(PolicyStateTest, PrioritizesPendingJobsByQosAndPartitionTier) {
  PolicyState state(Settings(), QosPolicy(), Cluster(), 30);
  std::vector<JobRecord> jobs = {Pending(1, "normal"), Pending(2, "high"), Pending(3, "normal", "high"),
                                 Running(4, 1, 1)};
  jobs[3].priority = 77;
  ActiveJobs active = Active(jobs);
  state.RefreshPriorities(active, 100);
  EXPECT_GT(jobs[1].priority, jobs[0].priority);
  EXPECT_GT(jobs[2].priority, jobs[0].priority);
  EXPECT_EQ(jobs[3].priority, 77);  // running: left alone
  std::map<int64_t, PriorityFactors> factors = state.PendingFactors(active, 100);
  ASSERT_EQ(factors.size(), 3u);
  EXPECT_DOUBLE_EQ(factors[2].qos, 1.0);
  EXPECT_DOUBLE_EQ(factors[1].qos, 0.1);
  EXPECT_DOUBLE_EQ(factors[3].partition, 1.0);
  EXPECT_LT(factors[1].partition, factors[3].partition);
  // A job that ends leaves the factors.
  jobs[0].state = JobState::kCancelled;
  state.Ended(jobs[0]);
  EXPECT_EQ(state.PendingFactors(active, 100).count(1), 0u);
  // One job at a time (a submission).
  JobRecord late = Pending(5, "high");
  state.Prioritize(late, 100);
  EXPECT_EQ(late.priority, jobs[1].priority);
  EXPECT_EQ(state.PendingFactors(active, 100).count(5), 1u);
}

TEST(PolicyStateTest, UnderAServiceOrderTickRanksAndTheFactorsWaitUntilAsked) {
  PolicyState state(Settings("least-attained"), nullptr, Cluster(), 30);
  std::vector<JobRecord> jobs = {Pending(1), Running(2, 1, 2)};
  jobs[0].run_before_s = 4000;  // attained service before a requeue
  ActiveJobs active = Active(jobs);
  (void)state.Tick(active, 10);
  EXPECT_EQ(jobs[0].priority, state.Rank(jobs[0], 10));
  EXPECT_NE(state.Rank(jobs[0], 10), state.Rank(Pending(3), 10));  // it attained more
  // The factors and shares are computed when asked (the Tick left them stale).
  EXPECT_EQ(state.PendingFactors(active, 10).count(1), 1u);
  EXPECT_GT(UsageOf(state.Shares(active, 10), "alice"), 0);
}

}  // namespace
}  // namespace muster
