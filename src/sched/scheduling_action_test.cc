// The pass's stages by name (sched/scheduling_action.h) and the Statement every stage's changes go
// through (sched/statement.h): a rollback undoes every kind of change since the checkpoint.
#include "sched/scheduling_action.h"

#include <gtest/gtest.h>

#include "sched/cluster_builder.h"
#include "sched/scheduler.h"
#include "sched/statement.h"

namespace muster {
namespace {

constexpr int64_t kNow = 1'000'000;

TEST(ActionRegistryTest, ThePassRunsEveryStageByNameInItsFixedOrder) {
  const std::vector<std::string_view> want = {"admit",    "limits",  "backfill", "blocked",
                                              "allocate", "preempt", "reserve"};
  const std::span<const std::string_view> names = ActionRegistry::Names();
  EXPECT_EQ(std::vector<std::string_view>(names.begin(), names.end()), want);
  std::vector<std::string_view> pass;
  for (const SchedulingAction* a : ActionRegistry::Pass()) pass.push_back(a->name());
  EXPECT_EQ(pass, want);
  for (std::string_view name : want) {
    std::unique_ptr<const SchedulingAction> a = ActionRegistry::Create(name);
    ASSERT_NE(a, nullptr) << name;
    EXPECT_EQ(std::string_view(a->name()), name);
  }
  EXPECT_EQ(ActionRegistry::Create("consolidate"), nullptr);
}

NodeAllocation Gpus(const std::string& node, std::vector<int> gpus) {
  NodeAllocation a;
  a.node = node;
  a.cpu_milli = 1000;
  a.tasks = 1;
  for (int g : gpus) a.gpus.push_back({g, 1000});
  return a;
}

Decision Started(int64_t id) {
  Decision d;
  d.job_id = id;
  d.kind = DecisionKind::kStart;
  return d;
}

TEST(StatementTest, RollbackUndoesEveryChangeSinceTheCheckpointAndCommitKeepsThem) {
  ClusterSnapshot snap = ClusterBuilder().Nodes("n[1-2]", DgxNode()).Partition("p", "n[1-2]", true).Build();
  snap.now = kNow;
  const ClusterIndex index(snap);
  Plan plan(index, snap), claims(index, snap);
  const AccountTree accounts;
  const std::vector<Qos> qos;
  LimitGate gate(accounts, qos);
  Timeline timeline(index, snap);
  boost::unordered_flat_set<int64_t> doomed;
  std::vector<Decision> out = {Started(1)};
  const int n1 = index.Find("n1");
  JobUse use;
  use.gpu_milli = 2000;

  Statement st({.plan = &plan, .claims = &claims, .timeline = &timeline, .doomed = &doomed, .out = &out});
  plan.Take(n1, Gpus("n1", {0, 1}));
  claims.Take(n1, Gpus("n1", {0, 1}));
  st.AddUse(gate, use);
  timeline.Add({Gpus("n1", {2})}, kNow + 10, kNow + 20);
  st.Doom(7);
  out.push_back(Started(2));
  EXPECT_EQ(plan.free_whole(n1), 6);
  EXPECT_EQ(gate.AccountUse("").gpu_milli, 2000);
  st.Rollback();
  EXPECT_EQ(plan.free_whole(n1), 8);
  EXPECT_EQ(claims.free_whole(n1), 8);
  EXPECT_EQ(gate.AccountUse("").gpu_milli, 0);
  EXPECT_EQ(gate.AccountUse("").jobs, 0);
  EXPECT_EQ(timeline.StartTimes(kNow, kNow + 100), (std::vector<int64_t>{kNow}));
  EXPECT_TRUE(doomed.empty());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].job_id, 1);

  // Committed changes stay; a later rollback undoes only what came after the commit.
  plan.Take(n1, Gpus("n1", {0}));
  st.AddUse(gate, use);
  st.Doom(7);
  st.Commit();
  plan.Take(n1, Gpus("n1", {1}));
  st.AddUse(gate, use, -1);
  st.Doom(8);
  st.Rollback();
  EXPECT_EQ(plan.free_whole(n1), 7);
  EXPECT_EQ(gate.AccountUse("").gpu_milli, 2000);
  EXPECT_EQ(doomed, (boost::unordered_flat_set<int64_t>{7}));
}

TEST(StatementTest, AVictimNamedBeforeTheCheckpointStaysNamed) {
  ClusterSnapshot snap = ClusterBuilder().Nodes("n1", DgxNode()).Partition("p", "n1", true).Build();
  const ClusterIndex index(snap);
  Plan plan(index, snap);
  boost::unordered_flat_set<int64_t> doomed = {5};
  Statement st({.plan = &plan, .doomed = &doomed});
  st.Doom(5);  // already a victim: not the statement's to take back
  st.Rollback();
  EXPECT_EQ(doomed, (boost::unordered_flat_set<int64_t>{5}));
}

}  // namespace
}  // namespace muster
