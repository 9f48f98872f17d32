#include "sched/multifactor_priority.h"

#include <gtest/gtest.h>

namespace muster {
namespace {

constexpr int64_t kDay = 24 * 3600;

TEST(MultifactorPriorityTest, AgeGrowsToOneAtMaxAge) {
  PriorityWeights w;
  w.max_age_s = 7 * kDay;
  PriorityInputs in;
  in.eligible_time = 1000;
  struct {
    int64_t now;
    double age;
  } rows[] = {{1000, 0}, {1000 + 7 * kDay / 2, 0.5}, {1000 + 7 * kDay, 1}, {1000 + 30 * kDay, 1}, {0, 0}};
  for (const auto& r : rows) EXPECT_DOUBLE_EQ(ComputeFactors(in, w, r.now).age, r.age) << r.now;
  w.max_age_s = 0;  // no age factor at all
  EXPECT_DOUBLE_EQ(ComputeFactors(in, w, 1000 + kDay).age, 0);
}

TEST(MultifactorPriorityTest, JobSizeIsTheShareOfGpusElseOfCpus) {
  PriorityWeights w;
  PriorityInputs in;
  in.cluster_gpus = 32;
  in.cluster_cpus = 64;
  in.gpus = 8;
  in.cpus = 32;
  EXPECT_DOUBLE_EQ(ComputeFactors(in, w, 0).job_size, 0.25);  // GPUs decide when asked for
  in.gpus = 0;
  in.cpus = 4;
  EXPECT_DOUBLE_EQ(ComputeFactors(in, w, 0).job_size, 0.0625);
  w.favor_small = true;
  EXPECT_DOUBLE_EQ(ComputeFactors(in, w, 0).job_size, 0.9375);
  in.cpus = 640;  // more than the cluster: capped
  EXPECT_DOUBLE_EQ(ComputeFactors(in, w, 0).job_size, 0);
}

TEST(MultifactorPriorityTest, PartitionAndQosAreRelativeToTheHighest) {
  PriorityWeights w;
  PriorityInputs in;
  in.partition_tier = 2;
  in.max_partition_tier = 4;
  in.qos_priority = 30;
  in.max_qos_priority = 40;
  in.fairshare = 1.5;  // out of range: clamped
  PriorityFactors f = ComputeFactors(in, w, 0);
  EXPECT_DOUBLE_EQ(f.partition, 0.5);
  EXPECT_DOUBLE_EQ(f.qos, 0.75);
  EXPECT_DOUBLE_EQ(f.fairshare, 1);
  in.max_qos_priority = 0;
  EXPECT_DOUBLE_EQ(ComputeFactors(in, w, 0).qos, 0);
}

TEST(MultifactorPriorityTest, CombinesWeightedFactorsMinusNice) {
  PriorityWeights w;
  w.age = 1000;
  w.fairshare = 10000;
  w.job_size = 500;
  w.partition = 2000;
  PriorityFactors f;
  f.age = 0.5;
  f.fairshare = 0.75;
  f.job_size = 0.25;
  f.partition = 0.5;
  f.qos = 1;  // weight 0: adds nothing
  PriorityInputs in;
  EXPECT_EQ(CombinePriority(f, w, in), 500 + 7500 + 125 + 1000);
  in.nice = 100;
  in.site = 10;
  EXPECT_EQ(CombinePriority(f, w, in), 9125 - 100 + 10);
  in.nice = 100000;  // never below 1
  EXPECT_EQ(CombinePriority(f, w, in), 1);
  // Each term is rounded down on its own, as sprio prints them.
  PriorityWeights w3;
  w3.age = 3;
  w3.fairshare = 3;
  PriorityFactors thirds;
  thirds.age = 0.5;
  thirds.fairshare = 0.5;
  EXPECT_EQ(CombinePriority(thirds, w3, PriorityInputs{}), 2);
}

TEST(MultifactorPriorityTest, LowerFairShareLowersTheOrder) {
  PriorityWeights w;
  w.age = 100;
  w.fairshare = 10000;
  PriorityInputs heavy, light;
  heavy.eligible_time = 0;  // waited longer
  heavy.fairshare = 0.25;   // but used much lately
  light.eligible_time = 3600;
  light.fairshare = 1;
  const int64_t now = 7200;
  EXPECT_LT(CombinePriority(ComputeFactors(heavy, w, now), w, heavy),
            CombinePriority(ComputeFactors(light, w, now), w, light));
}

}  // namespace
}  // namespace muster
