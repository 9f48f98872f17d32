#include <gtest/gtest.h>

#include <memory>

#include "sched/job_order.h"
#include "sched/job_order_testing.h"
#include "sched/priority_policy.h"

namespace muster {
namespace {

OrderedJob Left(int64_t time_limit_s, int64_t run_s) {
  return {.priority = 0, .gpus = 1, .time_limit_s = time_limit_s, .run_s = run_s};
}

TEST(ShortestRemainingOrderTest, TheLeastTimeLeftFirstAndNoLimitLast) {
  std::unique_ptr<const JobOrderPolicy> order = NewShortestRemainingOrder();
  const PrioritySettings s;
  const std::vector<std::pair<int, OrderedJob>> jobs = {
      {1, Left(kUnlimited, 0)},          // no limit: after every limit
      {2, Left(30 * 24 * 3600, 0)},      // a month left
      {3, Left(600, 500)},               // 100 s left
      {4, Left(600, 0)},                 // 600 s left
      {5, Left(600, 900)},               // past its limit: nothing left
      {6, {.priority = 99999, .gpus = 8, .time_limit_s = 600, .run_s = 0}},  // 600 s: priority and GPUs play no part
  };
  EXPECT_EQ(OrderOf(*order, s, jobs), (std::vector<int>{5, 3, 4, 6, 2, 1}));
  EXPECT_FALSE(order->ranks_by_multifactor());
  EXPECT_EQ(order->name(), "shortest-remaining");
  EXPECT_EQ(order->priority_type(), "muster/shortest-remaining");
}

TEST(ShortestRemainingOrderTest, RanksByTheLimitLeftAndMovesEverySecond) {
  std::unique_ptr<const JobOrderPolicy> order = NewShortestRemainingOrder();
  const PrioritySettings s;
  int64_t until = 0;
  EXPECT_EQ(order->Rank(s, Left(600, 0), nullptr), -600);
  EXPECT_EQ(order->Rank(s, {.priority = 0, .gpus = 3, .time_limit_s = 600, .run_s = 10}, &until), -590);
  EXPECT_EQ(until, 11) << "a shortest-remaining rank moves every second";
  EXPECT_EQ(order->Rank(s, Left(600, 900), nullptr), 0);
  EXPECT_LT(order->Rank(s, Left(kUnlimited, 0), nullptr), order->Rank(s, Left(30 * 24 * 3600, 0), nullptr));
}

}  // namespace
}  // namespace muster
