#include <gtest/gtest.h>

#include <memory>

#include "sched/job_order.h"
#include "sched/job_order_testing.h"
#include "sched/priority_policy.h"

namespace muster {
namespace {

TEST(MultifactorOrderTest, RanksByTheMultifactorPriority) {
  std::unique_ptr<const JobOrderPolicy> order = NewMultifactorOrder();
  const PrioritySettings s;
  // Service and limits play no part: only the priority (age, fair share, ... as computed).
  const std::vector<std::pair<int, OrderedJob>> jobs = {
      {1, {.priority = 500, .gpus = 8, .time_limit_s = 60, .run_s = 0}},
      {2, {.priority = 9000, .gpus = 1, .time_limit_s = kUnlimited, .run_s = 100000}},
      {3, {.priority = 500, .gpus = 1, .time_limit_s = 3600, .run_s = 0}},
      {4, {.priority = 0, .gpus = 0, .time_limit_s = 60, .run_s = 0}},  // held
  };
  EXPECT_EQ(OrderOf(*order, s, jobs), (std::vector<int>{2, 1, 3, 4}));
  EXPECT_TRUE(order->ranks_by_multifactor());
  EXPECT_EQ(order->name(), "multifactor");
  EXPECT_EQ(order->priority_type(), "priority/multifactor");
}

TEST(MultifactorOrderTest, ARankIsNeverKnownToHold) {
  // The priority moves with age and fair share, which the run seconds do not show: the
  // controller must ask again every pass.
  std::unique_ptr<const JobOrderPolicy> order = NewMultifactorOrder();
  int64_t until = -1;
  EXPECT_EQ(order->Rank(PrioritySettings{}, {.priority = 42, .gpus = 1, .time_limit_s = 60, .run_s = 30}, &until), 42);
  EXPECT_EQ(until, 30);
}

}  // namespace
}  // namespace muster
