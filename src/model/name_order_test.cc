#include "model/name_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace muster {
namespace {

TEST(NaturalCompareTest, OrdersLikeSlurm) {
  std::vector<std::string> names = {"gpu10", "gpu2", "gpu1", "rack10n1", "rack2n3", "n1", "n01", "n", "a"};
  std::sort(names.begin(), names.end(), NaturalLess);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "gpu1", "gpu2", "gpu10", "n", "n01", "n1", "rack2n3", "rack10n1"}));
  EXPECT_EQ(NaturalCompare("node9", "node9"), 0);
  EXPECT_LT(NaturalCompare("node9", "node10"), 0);
  EXPECT_GT(NaturalCompare("node10", "node9"), 0);
}

}  // namespace
}  // namespace muster
