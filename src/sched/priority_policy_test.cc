#include "sched/priority_policy.h"

#include <gtest/gtest.h>

#include <limits>

namespace muster {
namespace {

PrioritySettings Settings() {
  PrioritySettings s;
  s.half_life_s = 0;  // exact sums
  s.accounts.accounts = {{"vision", "", 1}, {"nlp", "", 1}};
  s.accounts.users = {{"alice", "vision", 1}, {"alice", "nlp", 1}, {"bob", "nlp", 1}};
  return s;
}

TEST(PriorityPolicyTest, ChargesEachSecondOnce) {
  PriorityPolicy p(Settings());
  p.Charge(7, "nlp", "bob", 2.0, 100, 110);  // 10 s at 2/s
  p.Charge(7, "nlp", "bob", 2.0, 100, 110);  // the same interval again: nothing
  p.Charge(7, "nlp", "bob", 2.0, 100, 115);
  EXPECT_DOUBLE_EQ(p.usage().Usage("nlp", "bob", 115), 30);
  p.Forget(7);
  p.Charge(8, "nlp", "bob", 1.0, 200, 150);  // not started yet at 150: nothing
  EXPECT_DOUBLE_EQ(p.usage().Usage("nlp", "bob", 200), 30);
}

TEST(PriorityPolicyTest, HeavyUsersGetALowerFactorAndPriority) {
  PriorityPolicy p(Settings());
  p.Charge(1, "nlp", "bob", 8, 0, 3600);
  p.Refresh(3600, {{"", "carol"}});
  // nlp used everything: vision's alice ranks first, carol (root, no usage) ties with vision
  // (both +inf at the root), bob is last.
  EXPECT_DOUBLE_EQ(p.FairShare("nlp", "bob"), 0.25);
  EXPECT_GT(p.FairShare("vision", "alice"), p.FairShare("nlp", "alice"));
  EXPECT_DOUBLE_EQ(p.FairShare("", "carol"), 1.0);
  EXPECT_DOUBLE_EQ(p.FairShare("unknown", "nobody"), 1.0);  // not seen: neutral
  PriorityJob bob{0, "nlp", "bob", 1, 1, 1};
  PriorityJob alice{1800, "vision", "alice", 1, 1, 1};  // waited less
  const int64_t now = 3600;
  EXPECT_GT(p.Priority(p.Factors(alice, 1, 32, 256, now)), p.Priority(p.Factors(bob, 1, 32, 256, now)));
  // The sshare rows include the implicit root user.
  bool carol = false;
  for (const FairShareRow& r : p.shares()) carol |= r.user == "carol" && r.account.empty() && r.depth == 0;
  EXPECT_TRUE(carol);
}

TEST(PriorityPolicyTest, UnconfiguredAccountsJoinTheRoot) {
  PriorityPolicy p(PrioritySettings{});
  p.Charge(1, "physics", "u1", 1, 0, 100);
  p.Refresh(100, {{"physics", "u2"}, {"chem", "u3"}});
  EXPECT_DOUBLE_EQ(p.FairShare("chem", "u3"), 1.0);
  EXPECT_DOUBLE_EQ(p.FairShare("physics", "u2"), 2.0 / 3);
  EXPECT_DOUBLE_EQ(p.FairShare("physics", "u1"), 1.0 / 3);
}

TEST(PriorityPolicyTest, SaveAndRestoreKeepUsageAndCharges) {
  PrioritySettings s = Settings();
  s.half_life_s = 3600;
  PriorityPolicy p(s);
  p.Charge(5, "nlp", "bob", 1, 0, 3600);
  PriorityPolicy back(s);
  back.Restore(p.Save());
  EXPECT_DOUBLE_EQ(back.usage().Usage("nlp", "bob", 7200), 1800);
  back.Charge(5, "nlp", "bob", 1, 0, 3600);  // already charged through 3600 before the restart
  EXPECT_DOUBLE_EQ(back.usage().Usage("nlp", "bob", 7200), 1800);
}

TEST(PriorityPolicyTest, RequestedSizes) {
  JobRequest r;
  EXPECT_DOUBLE_EQ(RequestedGpus(r), 0);
  EXPECT_DOUBLE_EQ(RequestedCpus(r), 1);
  r.min_nodes = 4;
  r.gpus_per_node = 8;
  r.ntasks_per_node = 8;
  r.cpus_per_task = 4;
  EXPECT_DOUBLE_EQ(RequestedGpus(r), 32);
  EXPECT_DOUBLE_EQ(RequestedCpus(r), 128);
  JobRequest g;
  g.gpus_total = 3;
  g.ntasks = 6;
  EXPECT_DOUBLE_EQ(RequestedGpus(g), 3);
  EXPECT_DOUBLE_EQ(RequestedCpus(g), 6);
  JobRequest f;
  f.gpu_milli = 250;
  EXPECT_DOUBLE_EQ(RequestedGpus(f), 0.25);
}

}  // namespace
}  // namespace muster

namespace muster {
namespace {

TEST(ServicePriorityTest, LeastAttainedRanksByTheQueueTheServiceReached) {
  PrioritySettings s;
  s.order = JobOrder::kLeastAttained;
  s.las_queue_limits_gpu_s = {3600, 36000};
  EXPECT_EQ(ServicePriority(s, 1, kUnlimited, 0), 2);        // new: the first queue
  EXPECT_EQ(ServicePriority(s, 1, kUnlimited, 3599), 2);
  EXPECT_EQ(ServicePriority(s, 1, kUnlimited, 3600), 1);     // one GPU-hour: the second
  EXPECT_EQ(ServicePriority(s, 8, kUnlimited, 450), 1);      // 8 GPUs x 450 s = 3600 GPU-seconds
  EXPECT_EQ(ServicePriority(s, 8, kUnlimited, 4500), 0);     // 36,000: the last
  EXPECT_EQ(ServicePriority(s, 0, kUnlimited, 3600), 1);     // no GPUs counts as one
  EXPECT_EQ(ServicePriority(s, 0.5, 600, 3600), 1) << "limits play no part";
  EXPECT_STREQ(JobOrderName(s.order), "least-attained");
}

TEST(ServicePriorityTest, SaysUntilWhenARankHolds) {
  PrioritySettings s;
  s.order = JobOrder::kLeastAttained;
  s.las_queue_limits_gpu_s = {300, 600, 1000, 7000};
  // Every second from 0 to 2000, for GPU counts whose products round: the rank is the same over
  // [run_s, until) and differs at until.
  for (double gpus : {0.0, 0.5, 1.0, 3.0, 7.0, 0.3}) {
    for (int64_t run_s = 0; run_s <= 2000; ++run_s) {
      int64_t until = 0;
      const int64_t rank = ServicePriority(s, gpus, kUnlimited, run_s, &until);
      ASSERT_GT(until, run_s) << gpus << " GPUs, " << run_s << " s";
      if (rank == 0) {
        EXPECT_EQ(until, std::numeric_limits<int64_t>::max()) << "the last queue holds for good";
        continue;
      }
      EXPECT_EQ(ServicePriority(s, gpus, kUnlimited, until - 1), rank) << gpus << " GPUs, " << run_s << " s";
      EXPECT_EQ(ServicePriority(s, gpus, kUnlimited, until), rank - 1) << gpus << " GPUs, " << run_s << " s";
    }
  }
  int64_t until = 0;
  EXPECT_EQ(ServicePriority(s, 3, kUnlimited, 0, &until), 4);
  EXPECT_EQ(until, 100);  // 3 GPUs x 100 s = the first limit, 300 GPU-seconds
  s.order = JobOrder::kShortestRemaining;
  EXPECT_EQ(ServicePriority(s, 3, 600, 10, &until), -590);
  EXPECT_EQ(until, 11) << "a shortest-remaining rank moves every second";
}

TEST(ServicePriorityTest, ShortestRemainingRanksByTheLimitLeft) {
  PrioritySettings s;
  s.order = JobOrder::kShortestRemaining;
  EXPECT_EQ(ServicePriority(s, 1, 600, 0), -600);
  EXPECT_EQ(ServicePriority(s, 4, 600, 500), -100);
  EXPECT_EQ(ServicePriority(s, 4, 600, 900), 0);  // past its limit: nothing left
  EXPECT_LT(ServicePriority(s, 1, kUnlimited, 0), ServicePriority(s, 1, 30 * 24 * 3600, 0));
  EXPECT_STREQ(JobOrderName(s.order), "shortest-remaining");
  EXPECT_STREQ(JobOrderName(JobOrder::kMultifactor), "multifactor");
}

}  // namespace
}  // namespace muster
