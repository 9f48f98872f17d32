// Queue order: fair shares from quotas, over-quota weights and limits (table), and the cycle's
// order across queues, through the scheduler.
#include "sched/queue_order.h"

#include <gtest/gtest.h>

#include "sched/cluster_builder.h"
#include "sched/scheduler.h"

namespace muster {
namespace {

QueueClaim Claim(int64_t quota, double weight, int64_t demand, int64_t limit = kUnlimited) {
  return QueueClaim{quota, limit, weight, demand};
}

TEST(DivideCapacityTest, QuotaFirstThenTheRestByWeight) {
  struct Row {
    const char* name;
    int64_t capacity;
    std::vector<QueueClaim> claims;
    std::vector<int64_t> want;
  } rows[] = {
      {"quotas fill the cluster", 8, {Claim(6, 1, 100), Claim(2, 1, 100)}, {6, 2}},
      {"the rest by weight 3:1", 8, {Claim(2, 3, 100), Claim(2, 1, 100)}, {5, 3}},
      {"a queue wanting less leaves the rest", 8, {Claim(2, 1, 3), Claim(2, 1, 100)}, {3, 5}},
      {"nothing wanted, nothing given", 8, {Claim(4, 1, 1), Claim(kUnlimited, 1, 0)}, {1, 0}},
      {"a limit caps", 8, {Claim(kUnlimited, 1, 100, 2), Claim(kUnlimited, 1, 100)}, {2, 6}},
      {"quotas over the capacity shrink alike", 8, {Claim(8, 1, 100), Claim(8, 1, 100)}, {4, 4}},
      {"weight 0 gets its quota only", 8, {Claim(2, 0, 100), Claim(2, 1, 100)}, {2, 6}},
      {"no quotas: by weight", 9, {Claim(kUnlimited, 2, 100), Claim(kUnlimited, 1, 100)}, {6, 3}},
  };
  for (const Row& r : rows) EXPECT_EQ(DivideCapacity(r.capacity, r.claims), r.want) << r.name;
}

std::vector<PendingJob> Jobs(const std::string& account, int first_id, int n, int64_t prio) {
  std::vector<PendingJob> out;
  for (int i = 0; i < n; ++i) {
    PendingJob j = MakeJob(first_id + i, "--gres=gpu:1", prio - i);
    j.account = account;
    j.user = "u-" + account;
    out.push_back(j);
  }
  return out;
}

std::map<std::string, int> StartsByAccount(const ClusterSnapshot& c, const std::vector<PendingJob>& q,
                                           std::shared_ptr<SchedPolicy> policy) {
  SchedulerOptions o;
  o.policy = std::move(policy);
  std::map<int64_t, std::string> account;
  for (const PendingJob& j : q) account[j.id] = j.account;
  std::map<std::string, int> n;
  for (const Decision& d : RunCycle(c, q, o)) {
    if (d.kind == DecisionKind::kStart) n[account[d.job_id]] += 1;
  }
  return n;
}

std::vector<PendingJob> Concat(std::vector<PendingJob> a, const std::vector<PendingJob>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

ClusterSnapshot OneNode() {
  return ClusterBuilder().Nodes("n1", NodeTemplate{}).Partition("p", "n1", true).Build();  // 8 GPUs
}

TEST(QueueOrderTest, QuotasDivideTheClusterWhatEverThePriorities) {
  auto policy = std::make_shared<SchedPolicy>();
  Account a{.name = "a"}, b{.name = "b"};
  a.quota.gpus = 6;
  b.quota.gpus = 2;
  policy->accounts.accounts = {a, b};
  // b's jobs all rank above a's.
  const std::vector<PendingJob> q = Concat(Jobs("b", 100, 8, 1000), Jobs("a", 200, 8, 500));
  EXPECT_EQ(StartsByAccount(OneNode(), q, policy), (std::map<std::string, int>{{"a", 6}, {"b", 2}}));
  // Without quotas, priority alone: b takes everything.
  EXPECT_EQ(StartsByAccount(OneNode(), q, std::make_shared<SchedPolicy>()), (std::map<std::string, int>{{"b", 8}}));
}

TEST(QueueOrderTest, IdleCapacityGoesByOverQuotaWeightAndCountsWhatRuns) {
  auto policy = std::make_shared<SchedPolicy>();
  Account a{.name = "a", .over_quota_weight = 3}, b{.name = "b", .over_quota_weight = 1}, c{.name = "c"};
  a.quota.gpus = 0;
  b.quota.gpus = 0;
  c.quota.gpus = 0;
  c.over_quota_weight = 0;
  policy->accounts.accounts = {a, b, c};
  const std::vector<PendingJob> q = Concat(Jobs("b", 100, 8, 1000), Jobs("a", 200, 8, 500));
  EXPECT_EQ(StartsByAccount(OneNode(), q, policy), (std::map<std::string, int>{{"a", 6}, {"b", 2}}));
  // b already holds 4 GPUs (its fair share is 2 of 8): the 4 free go to a.
  ClusterSnapshot held = OneNode();
  NodeAllocation alloc;
  alloc.node = "n1";
  alloc.cpu_milli = 1000;
  for (int g = 0; g < 4; ++g) alloc.gpus.push_back({g, 1000});
  ApplyAllocation(held, {alloc});
  RunningJob r;
  r.id = 99;
  r.end_time = kUnlimited;
  r.allocation = {alloc};
  r.account = "b";
  held.running.push_back(r);
  EXPECT_EQ(StartsByAccount(held, q, policy), (std::map<std::string, int>{{"a", 4}}));
}

TEST(QueueOrderTest, SharesFollowTheTreeAndJobsOutsideItQueueUnderTheRoot) {
  Account dept{.name = "dept"}, x{.name = "x", .parent = "dept"}, y{.name = "y", .parent = "dept"};
  dept.quota.gpus = 6;
  x.quota.gpus = 4;
  y.quota.gpus = 2;
  AccountTree tree;
  tree.accounts = {dept, x, y};
  QueueOrder order(tree);
  ASSERT_TRUE(order.active());
  const std::vector<PendingJob> q = Concat(Concat(Jobs("x", 1, 8, 100), Jobs("y", 20, 8, 100)), Jobs("", 40, 8, 100));
  std::vector<const PendingJob*> by_priority;
  for (const PendingJob& j : q) by_priority.push_back(&j);
  const std::vector<const PendingJob*> got = order.Order(by_priority, {}, 8000, true);
  ASSERT_EQ(got.size(), q.size());
  EXPECT_EQ(order.shares().at("dept").fair_share, 6000 + 1000);  // its quota, and half the 2 left
  EXPECT_EQ(order.shares().at("").fair_share, 1000);             // no quota: half of what is left
  EXPECT_EQ(order.shares().at("x").fair_share, 4000 + 500);
  EXPECT_EQ(order.shares().at("y").fair_share, 2000 + 500);
  // The first 8 jobs taken: dept its 7 and the rest 1, as their shares; within dept x 4 and y 3
  // for shares of 4.5 and 2.5 (the eighth goes to y at 2/2.5 used, before x at 4/4.5).
  std::map<std::string, int> first8;
  for (int k = 0; k < 8; ++k) first8[got[k]->account] += 1;
  EXPECT_EQ(first8, (std::map<std::string, int>{{"", 1}, {"x", 4}, {"y", 3}}));
}

}  // namespace
}  // namespace muster
