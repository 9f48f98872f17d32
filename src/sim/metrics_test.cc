// The queueing metrics on tiny traces computed by hand.
#include "sim/metrics.h"

#include <gtest/gtest.h>

namespace muster {
namespace {

TEST(QueueMetrics, ThreeJobsByHand) {
  // 2 GPUs. a: arrives 0, runs 0-100 on 2 GPUs. b: arrives 10, waits for a, runs 100-150 on 1.
  // c: arrives 20, runs 100-400 on 1.
  const std::vector<FinishedJob> jobs = {
      {1, 0, 0, 100, 2, "x"}, {2, 10, 100, 150, 1, "y"}, {3, 20, 100, 400, 1, "y"}};
  StatusOr<QueueMetrics> m = ComputeQueueMetrics(jobs, 2);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->jobs, 3);
  // JCTs 100, 140, 380.
  EXPECT_DOUBLE_EQ(m->avg_jct_s, (100.0 + 140 + 380) / 3);
  EXPECT_DOUBLE_EQ(m->p50_jct_s, 140);
  EXPECT_DOUBLE_EQ(m->p99_jct_s, 140 + (380 - 140) * 0.98);  // rank 1.98 of 0..2
  EXPECT_DOUBLE_EQ(m->avg_queue_s, (0.0 + 90 + 80) / 3);
  EXPECT_DOUBLE_EQ(m->avg_slowdown, (1.0 + 140.0 / 50 + 380.0 / 300) / 3);
  EXPECT_EQ(m->makespan_s, 400);
  // GPU-seconds 200 + 50 + 300 = 550 of 2 x 400.
  EXPECT_DOUBLE_EQ(m->gpu_utilization, 550.0 / 800);
  EXPECT_DOUBLE_EQ(m->vc_share.at("x"), 200.0 / 550);
  EXPECT_DOUBLE_EQ(m->vc_share.at("y"), 350.0 / 550);
}

TEST(QueueMetrics, APreemptedJobWaitsBetweenItsRuns) {
  // 1 GPU. a: arrives 0, runs 0-10, is preempted, runs again 20-110 (100 s in all). b: arrives 10,
  // runs 10-20.
  const std::vector<FinishedJob> jobs = {{1, 0, 0, 110, 1, "x", 100}, {2, 10, 10, 20, 1, "x", 10}};
  StatusOr<QueueMetrics> m = ComputeQueueMetrics(jobs, 1);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_DOUBLE_EQ(m->avg_jct_s, (110.0 + 10) / 2);
  EXPECT_DOUBLE_EQ(m->avg_queue_s, (10.0 + 0) / 2);  // a waited 10-20
  EXPECT_DOUBLE_EQ(m->avg_slowdown, (1.1 + 1.0) / 2);
  EXPECT_DOUBLE_EQ(m->gpu_utilization, 110.0 / 110);
  EXPECT_EQ(ComputeQueueMetrics({{3, 0, 5, 10, 1, "x", 6}}, 1).status().message(),
            "job 3: times out of order (arrival 0, start 5, end 10, ran 6)");
}

TEST(QueueMetrics, PercentilesAndErrors) {
  EXPECT_DOUBLE_EQ(Percentile({}, 0.5), 0);
  EXPECT_DOUBLE_EQ(Percentile({7}, 0.99), 7);
  EXPECT_DOUBLE_EQ(Percentile({4, 1, 3, 2}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(Percentile({1, 2, 3, 4}, 1.0), 4);
  EXPECT_EQ(ComputeQueueMetrics({{9, 50, 40, 60, 1, "x"}}, 4).status().message(),
            "job 9: times out of order (arrival 50, start 40, end 60, ran 20)");
  EXPECT_EQ(ComputeQueueMetrics({}, 0).status().message(), "the cluster has no GPUs");
  EXPECT_EQ(ComputeQueueMetrics({}, 8)->jobs, 0);
}

}  // namespace
}  // namespace muster
