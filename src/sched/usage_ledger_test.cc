#include "sched/usage_ledger.h"

#include <gtest/gtest.h>

namespace muster {
namespace {

TEST(UsageLedgerTest, HalvesEveryHalfLife) {
  UsageLedger l(100);
  l.Charge("phys", "alice", 8, 0);
  EXPECT_DOUBLE_EQ(l.Usage("phys", "alice", 0), 8);
  EXPECT_DOUBLE_EQ(l.Usage("phys", "alice", 100), 4);
  EXPECT_DOUBLE_EQ(l.Usage("phys", "alice", 300), 1);
  EXPECT_DOUBLE_EQ(l.Usage("phys", "bob", 300), 0);
  EXPECT_DOUBLE_EQ(l.Usage("chem", "alice", 300), 0);
}

TEST(UsageLedgerTest, ChargesAddToTheDecayedValue) {
  UsageLedger l(100);
  l.Charge("phys", "alice", 8, 0);
  l.Charge("phys", "alice", 4, 100);  // 4 left of the first, plus 4
  EXPECT_DOUBLE_EQ(l.Usage("phys", "alice", 100), 8);
  EXPECT_DOUBLE_EQ(l.Usage("phys", "alice", 200), 4);
  // A charge dated before the last one counts at the last one's time: no growth backwards.
  l.Charge("phys", "alice", 2, 50);
  EXPECT_DOUBLE_EQ(l.Usage("phys", "alice", 100), 10);
}

TEST(UsageLedgerTest, WithoutHalfLifeUsageOnlyGrows) {
  UsageLedger l(0);
  l.Charge("a", "u", 5, 0);
  l.Charge("a", "u", 5, 1000000);
  EXPECT_DOUBLE_EQ(l.Usage("a", "u", 99999999), 10);
}

TEST(UsageLedgerTest, EntriesAreSortedAndDecayed) {
  UsageLedger l(10);
  l.Charge("b", "x", 2, 0);
  l.Charge("a", "y", 4, 10);
  l.Charge("a", "x", 1, 10);
  std::vector<UsageLedger::Entry> e = l.Entries(20);
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0].account + "/" + e[0].user, "a/x");
  EXPECT_DOUBLE_EQ(e[0].usage, 0.5);
  EXPECT_EQ(e[1].account + "/" + e[1].user, "a/y");
  EXPECT_DOUBLE_EQ(e[1].usage, 2);
  EXPECT_EQ(e[2].account + "/" + e[2].user, "b/x");
  EXPECT_DOUBLE_EQ(e[2].usage, 0.5);
}

TEST(UsageLedgerTest, SaveAndRestoreKeepTheDecay) {
  UsageLedger l(100);
  l.Charge("a", "u", 8, 0);
  l.Charge("b", "v", 3, 50);
  UsageLedger back(100);
  back.Restore(l.Save());
  EXPECT_DOUBLE_EQ(back.Usage("a", "u", 100), 4);
  EXPECT_DOUBLE_EQ(back.Usage("b", "v", 150), 1.5);
  // Restore replaces what was there.
  back.Restore({});
  EXPECT_DOUBLE_EQ(back.Usage("a", "u", 100), 0);
}

TEST(UsageLedgerTest, BillingRateWeighsGpusCpusAndMemory) {
  EXPECT_DOUBLE_EQ(BillingRate(UsageWeights{}, 2, 16, 65536), 2);  // GPUs only by default
  EXPECT_DOUBLE_EQ(BillingRate(UsageWeights{1, 0.25, 0.5}, 0.5, 8, 4096), 0.5 + 2 + 2);
}

}  // namespace
}  // namespace muster
