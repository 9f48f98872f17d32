#include "sched/fair_tree.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

namespace muster {
namespace {

constexpr int64_t kNow = 1000;

struct Use {
  const char* account;
  const char* user;
  double usage;
};

UsageLedger Ledger(std::initializer_list<Use> uses) {
  UsageLedger l(0);
  for (const Use& u : uses) l.Charge(u.account, u.user, u.usage, 0);
  return l;
}

// "account/user" -> fairshare, for the users' rows.
std::map<std::string, double> Factors(const std::vector<FairShareRow>& rows) {
  std::map<std::string, double> f;
  for (const FairShareRow& r : rows) {
    if (!r.user.empty()) f[r.account + "/" + r.user] = r.fairshare;
  }
  return f;
}

AccountTree TwoByTwo() {
  AccountTree t;
  t.accounts = {{"A", "", 1}, {"B", "", 1}};
  t.users = {{"a1", "A", 1}, {"a2", "A", 1}, {"b1", "B", 1}, {"b2", "B", 1}};
  return t;
}

TEST(FairTreeTest, AnAccountWithoutUsageRanksFirst) {
  AccountTree t;
  t.accounts = {{"A", "", 1}, {"B", "", 1}};
  t.users = {{"a1", "A", 1}, {"b1", "B", 1}};
  auto rows = ComputeFairTree(t, Ledger({{"A", "a1", 100}}), kNow);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  auto f = Factors(*rows);
  EXPECT_DOUBLE_EQ(f["B/b1"], 1.0);
  EXPECT_DOUBLE_EQ(f["A/a1"], 0.5);
}

TEST(FairTreeTest, EveryUserOfTheBetterAccountRanksAboveTheOtherAccountsUsers) {
  // A used 90 of 190, B 100: A's Level FS (0.5 / (90/190) = 1.056) beats B's (0.95). So a2, who
  // used 80 of A's 90 (Level FS 0.5625), still ranks above b2 (Level FS 0.5 / 0.4 = 1.25).
  auto rows = ComputeFairTree(
      TwoByTwo(), Ledger({{"A", "a1", 10}, {"A", "a2", 80}, {"B", "b1", 60}, {"B", "b2", 40}}), kNow);
  ASSERT_TRUE(rows.ok());
  auto f = Factors(*rows);
  EXPECT_DOUBLE_EQ(f["A/a1"], 1.0);
  EXPECT_DOUBLE_EQ(f["A/a2"], 0.75);
  EXPECT_DOUBLE_EQ(f["B/b2"], 0.5);
  EXPECT_DOUBLE_EQ(f["B/b1"], 0.25);
}

TEST(FairTreeTest, TiedAccountsHaveTheirUsersRankedTogether) {
  // A and B used 100 each: their users are sorted as one list by their own Level FS:
  // a1 0.5/0.1 = 5, b2 0.5/0.4 = 1.25, b1 0.5/0.6 = 0.83, a2 0.5/0.9 = 0.56.
  auto rows = ComputeFairTree(
      TwoByTwo(), Ledger({{"A", "a1", 10}, {"A", "a2", 90}, {"B", "b1", 60}, {"B", "b2", 40}}), kNow);
  ASSERT_TRUE(rows.ok());
  auto f = Factors(*rows);
  EXPECT_DOUBLE_EQ(f["A/a1"], 1.0);
  EXPECT_DOUBLE_EQ(f["B/b2"], 0.75);
  EXPECT_DOUBLE_EQ(f["B/b1"], 0.5);
  EXPECT_DOUBLE_EQ(f["A/a2"], 0.25);
}

TEST(FairTreeTest, TiedUsersShareARank) {
  AccountTree t;
  t.accounts = {{"A", "", 1}};
  t.users = {{"u1", "A", 1}, {"u2", "A", 1}, {"u3", "A", 1}};
  auto rows = ComputeFairTree(t, Ledger({{"A", "u3", 5}}), kNow);
  ASSERT_TRUE(rows.ok());
  auto f = Factors(*rows);
  EXPECT_DOUBLE_EQ(f["A/u1"], 1.0);  // no usage: +inf, tied
  EXPECT_DOUBLE_EQ(f["A/u2"], 1.0);
  EXPECT_DOUBLE_EQ(f["A/u3"], 1.0 / 3);  // two ranks were used up by the tie
  // Nobody used anything: everyone ties at the top.
  auto idle = ComputeFairTree(t, Ledger({}), kNow);
  ASSERT_TRUE(idle.ok());
  for (const auto& [who, fs] : Factors(*idle)) EXPECT_DOUBLE_EQ(fs, 1.0) << who;
}

TEST(FairTreeTest, ZeroSharesRankLast) {
  AccountTree t;
  t.accounts = {{"A", "", 1}};
  t.users = {{"guest", "A", 0}, {"heavy", "A", 1}};
  auto rows = ComputeFairTree(t, Ledger({{"A", "heavy", 1000}}), kNow);
  ASSERT_TRUE(rows.ok());
  auto f = Factors(*rows);
  EXPECT_DOUBLE_EQ(f["A/heavy"], 1.0);  // Level FS 1 / 1 = 1 beats 0
  EXPECT_DOUBLE_EQ(f["A/guest"], 0.5);
}

TEST(FairTreeTest, RowsGoDepthFirstWithSharesAndUsage) {
  AccountTree t;
  t.accounts = {{"X", "", 3}, {"Y", "", 1}, {"X2", "X", 1}, {"X1", "X", 1}};
  t.users = {{"y", "Y", 1}, {"x1", "X1", 1}, {"x2", "X2", 1}, {"xa", "X", 2}};
  UsageLedger l(100);
  l.Charge("X1", "x1", 60, kNow - 100);  // 30 at kNow
  l.Charge("Y", "y", 10, kNow);
  auto rows = ComputeFairTree(t, l, kNow);
  ASSERT_TRUE(rows.ok());
  std::vector<std::string> order;
  for (const FairShareRow& r : *rows) order.push_back(r.account + "/" + r.user + "@" + std::to_string(r.depth));
  EXPECT_EQ(order, (std::vector<std::string>{"X/@0", "X/xa@1", "X1/@1", "X1/x1@2", "X2/@1", "X2/x2@2", "Y/@0", "Y/y@1"}));
  auto row = [&](const std::string& account, const std::string& user) {
    for (const FairShareRow& r : *rows) {
      if (r.account == account && r.user == user) return r;
    }
    ADD_FAILURE() << account << "/" << user;
    return FairShareRow{};
  };
  EXPECT_DOUBLE_EQ(row("X", "").norm_shares, 0.75);
  EXPECT_DOUBLE_EQ(row("X", "xa").norm_shares, 0.75 * 0.5);  // 2 of X's 4 shares (xa 2, X1 1, X2 1)
  EXPECT_DOUBLE_EQ(row("X1", "").norm_shares, 0.75 * 0.25);
  EXPECT_DOUBLE_EQ(row("X", "").raw_usage, 30);  // the subtree, decayed
  EXPECT_DOUBLE_EQ(row("X", "").norm_usage, 0.75);
  EXPECT_DOUBLE_EQ(row("Y", "y").norm_usage, 0.25);
  EXPECT_DOUBLE_EQ(row("X", "").level_fs, 1.0);        // 0.75 / 0.75
  EXPECT_DOUBLE_EQ(row("Y", "").level_fs, 1.0);        // 0.25 / 0.25: tied with X
  EXPECT_TRUE(std::isinf(row("X2", "").level_fs));     // no usage
  EXPECT_DOUBLE_EQ(row("X", "").fairshare, 0);         // accounts carry no factor
  // X and Y tie, so xa (+inf), X1, X2 and y are ranked together: xa, x2 (X2 is +inf), then
  // X1's x1 and y. y's Level FS (its only sibling: itself) is 1/1 = 1, X1's is 0.25/1 = 0.25.
  auto f = Factors(*rows);
  EXPECT_DOUBLE_EQ(f["X/xa"], 1.0);
  EXPECT_DOUBLE_EQ(f["X2/x2"], 0.75);
  EXPECT_DOUBLE_EQ(f["Y/y"], 0.5);
  EXPECT_DOUBLE_EQ(f["X1/x1"], 0.25);
}

TEST(FairTreeTest, RejectsABrokenTree) {
  AccountTree t;
  t.accounts = {{"A", "B", 1}, {"B", "A", 1}};
  auto rows = ComputeFairTree(t, Ledger({}), kNow);
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(rows.status().message().find("its own ancestor"), std::string::npos) << rows.status().ToString();
}

}  // namespace
}  // namespace muster
