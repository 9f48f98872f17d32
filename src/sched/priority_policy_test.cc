#include "sched/priority_policy.h"

#include <gtest/gtest.h>

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
