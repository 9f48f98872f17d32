#include "base/bitset.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>
#include <vector>

namespace muster {
namespace {

std::vector<int> Members(const DynamicBitset& b) {
  std::vector<int> out;
  b.ForEach([&](int i) {
    out.push_back(i);
    return true;
  });
  return out;
}

// Sizes on both sides of the inline limit (256) and of word boundaries.
class BitsetSizes : public ::testing::TestWithParam<int> {};

TEST_P(BitsetSizes, SetsTestsAndCounts) {
  const int n = GetParam();
  DynamicBitset b(n);
  EXPECT_EQ(b.size(), n);
  EXPECT_FALSE(b.any());
  b.set(0);
  b.set(n - 1);
  b.set(n / 2);
  EXPECT_TRUE(b.test(0));
  EXPECT_TRUE(b.test(n - 1));
  EXPECT_FALSE(b.test(1));
  EXPECT_EQ(b.count(), static_cast<int>(std::set<int>{0, n - 1, n / 2}.size()));
  b.reset(n / 2);
  EXPECT_FALSE(b.test(n / 2));
  EXPECT_EQ(b.count(), static_cast<int>(std::set<int>{0, n - 1}.size()) - (n / 2 == 0 || n / 2 == n - 1 ? 1 : 0));
  DynamicBitset full(n, true);
  EXPECT_EQ(full.count(), n);  // the bits past the size stay clear
}

TEST_P(BitsetSizes, CopiesMovesAndCompares) {
  const int n = GetParam();
  DynamicBitset a(n);
  a.set(n - 1);
  a.set(0);
  DynamicBitset copy(a);
  EXPECT_EQ(copy, a);
  copy.reset(0);
  EXPECT_TRUE(a.test(0)) << "a copy shares no storage";
  EXPECT_NE(copy, a);

  DynamicBitset assigned(3);
  assigned.set(1);
  assigned = a;  // another size: storage made afresh
  EXPECT_EQ(assigned, a);
  assigned = copy;  // the same size: written over
  EXPECT_EQ(assigned, copy);

  const std::vector<int> members = Members(copy);
  EXPECT_EQ(members, n > 1 ? std::vector<int>{n - 1} : std::vector<int>{});
  DynamicBitset moved(std::move(copy));
  EXPECT_EQ(Members(moved), members);
  DynamicBitset target(n);
  target = std::move(moved);
  EXPECT_EQ(Members(target), members);
  EXPECT_NE(DynamicBitset(n), DynamicBitset(n + 1)) << "sets of different sizes differ";
}

TEST_P(BitsetSizes, WordwiseOperations) {
  const int n = GetParam();
  DynamicBitset evens(n), low(n);
  for (int i = 0; i < n; i += 2) evens.set(i);
  for (int i = 0; i < n / 2; ++i) low.set(i);
  DynamicBitset both = evens;
  both &= low;
  std::vector<int> want;
  for (int i = 0; i < n / 2; i += 2) want.push_back(i);
  EXPECT_EQ(Members(both), want);
  std::vector<int> via_mask;
  evens.ForEachAnd(low, [&](int i) {
    via_mask.push_back(i);
    return true;
  });
  EXPECT_EQ(via_mask, want);
  DynamicBitset either = evens;
  either |= low;
  DynamicBitset rest = either;
  rest.AndNot(low);
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(either.test(i), i % 2 == 0 || i < n / 2) << i;
    EXPECT_EQ(rest.test(i), i % 2 == 0 && i >= n / 2) << i;
  }
  EXPECT_EQ(static_cast<int>(evens.words().size()), (n + 63) / 64);
}

INSTANTIATE_TEST_SUITE_P(InlineAndHeap, BitsetSizes, ::testing::Values(1, 60, 64, 65, 256, 257, 1523));

TEST(Bitset, ForEachStopsEarly) {
  DynamicBitset b(300);
  b.set(5);
  b.set(70);
  b.set(299);
  std::vector<int> seen;
  EXPECT_FALSE(b.ForEach([&](int i) {
    seen.push_back(i);
    return i < 70;
  }));
  EXPECT_EQ(seen, (std::vector<int>{5, 70}));
}

}  // namespace
}  // namespace muster
