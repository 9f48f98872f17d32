#include <gtest/gtest.h>

#include <limits>
#include <memory>

#include "sched/job_order.h"
#include "sched/job_order_testing.h"
#include "sched/priority_policy.h"

namespace muster {
namespace {

// A job with `gpus` that has run `run_s` (no limit: limits play no part).
OrderedJob Attained(double gpus, int64_t run_s) {
  return {.priority = 0, .gpus = gpus, .time_limit_s = kUnlimited, .run_s = run_s};
}

class LeastAttainedOrderTest : public ::testing::Test {
 protected:
  int64_t Rank(double gpus, int64_t run_s, int64_t time_limit_s = kUnlimited, int64_t* until = nullptr) const {
    return order_->Rank(s_, {.priority = 0, .gpus = gpus, .time_limit_s = time_limit_s, .run_s = run_s}, until);
  }
  std::unique_ptr<const JobOrderPolicy> order_ = NewLeastAttainedOrder();
  PrioritySettings s_;
};

TEST_F(LeastAttainedOrderTest, TheLeastServedQueueFirstAndFirstComeWithinOne) {
  s_.las_queue_limits_gpu_s = {3600, 36000};
  const std::vector<std::pair<int, OrderedJob>> jobs = {
      {1, Attained(8, 4500)},                                     // 36,000 GPU-seconds: the last queue
      {2, Attained(1, 3600)},                                     // one GPU-hour: the second
      {3, Attained(1, 0)},                                        // new: the first
      {4, Attained(8, 400)},                                      // 3,200: still the first
      {5, {.priority = 99999, .gpus = 2, .time_limit_s = 60, .run_s = 0}},  // its priority plays no part
  };
  EXPECT_EQ(OrderOf(*order_, s_, jobs), (std::vector<int>{3, 4, 5, 2, 1}));
  EXPECT_FALSE(order_->ranks_by_multifactor());
  EXPECT_EQ(order_->name(), "least-attained");
  EXPECT_EQ(order_->priority_type(), "muster/least-attained");
}

TEST_F(LeastAttainedOrderTest, RanksByTheQueueTheServiceReached) {
  s_.las_queue_limits_gpu_s = {3600, 36000};
  EXPECT_EQ(Rank(1, 0), 2);  // new: the first queue
  EXPECT_EQ(Rank(1, 3599), 2);
  EXPECT_EQ(Rank(1, 3600), 1);   // one GPU-hour: the second
  EXPECT_EQ(Rank(8, 450), 1);    // 8 GPUs x 450 s = 3600 GPU-seconds
  EXPECT_EQ(Rank(8, 4500), 0);   // 36,000: the last
  EXPECT_EQ(Rank(0, 3600), 1);   // no GPUs counts as one
  EXPECT_EQ(Rank(0.5, 3600, 600), 1) << "limits play no part";
}

TEST_F(LeastAttainedOrderTest, SaysUntilWhenARankHolds) {
  s_.las_queue_limits_gpu_s = {300, 600, 1000, 7000};
  // Every second from 0 to 2000, for GPU counts whose products round: the rank is the same over
  // [run_s, until) and differs at until.
  for (double gpus : {0.0, 0.5, 1.0, 3.0, 7.0, 0.3}) {
    for (int64_t run_s = 0; run_s <= 2000; ++run_s) {
      int64_t until = 0;
      const int64_t rank = Rank(gpus, run_s, kUnlimited, &until);
      ASSERT_GT(until, run_s) << gpus << " GPUs, " << run_s << " s";
      if (rank == 0) {
        EXPECT_EQ(until, std::numeric_limits<int64_t>::max()) << "the last queue holds for good";
        continue;
      }
      EXPECT_EQ(Rank(gpus, until - 1), rank) << gpus << " GPUs, " << run_s << " s";
      EXPECT_EQ(Rank(gpus, until), rank - 1) << gpus << " GPUs, " << run_s << " s";
    }
  }
  int64_t until = 0;
  EXPECT_EQ(Rank(3, 0, kUnlimited, &until), 4);
  EXPECT_EQ(until, 100);  // 3 GPUs x 100 s = the first limit, 300 GPU-seconds
}

}  // namespace
}  // namespace muster
