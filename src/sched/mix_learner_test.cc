#include "sched/mix_learner.h"

#include <gtest/gtest.h>

namespace muster {
namespace {

RequestShape Gpus(int per_node, int nodes, int64_t cpu_milli = 1000) {
  RequestShape s;
  s.per_node.gpus = per_node;
  s.per_node.cpu_milli = cpu_milli;
  s.min_nodes = s.max_nodes = nodes;
  return s;
}

std::string Describe(const std::vector<MixShape>& shapes) {
  std::string out;
  for (const MixShape& m : shapes) {
    out += std::to_string(m.num_gpu) + "x" + std::to_string(m.gpu_milli) + (m.gpu_type.empty() ? "" : ":" + m.gpu_type) +
           " cpu" + std::to_string(m.cpu_milli) + " w" + std::to_string(m.weight) + "; ";
  }
  return out;
}

TEST(MixLearner, CountsEachNodesSliceHeaviestFirst) {
  MixLearner l(/*half_life_jobs=*/1e9);
  for (int i = 0; i < 3; ++i) l.Observe(Gpus(1, 1));
  l.Observe(Gpus(8, 2, 4000));  // two nodes of 8 GPUs: two slices
  RequestShape units;           // --gpus=16 -c 2: units of 1 GPU, as few nodes as hold them
  units.unit.gpus = 1;
  units.unit.cpu_milli = 1500;
  units.units = 16;
  units.tasks_per_unit = 0;
  l.Observe(units);
  RequestShape slice;  // a shared GPU slice
  slice.gpu_milli = 250;
  slice.per_node.cpu_milli = 500;
  l.Observe(slice);
  EXPECT_EQ(l.observed(), 6);
  // (Of two equal counts the later weighs a hair more: the decay of a 10^9-job half-life.)
  EXPECT_EQ(Describe(l.Shapes(1.0)),
            "1x1000 cpu1000 w3.000000; 8x1000 cpu12000 w2.000000; 8x1000 cpu4000 w2.000000; 1x250 cpu1000 w1.000000; ");
  // The typical ones: covering 60% of the weight (5 of 8).
  EXPECT_EQ(Describe(l.Shapes(0.6)), "1x1000 cpu1000 w3.000000; 8x1000 cpu12000 w2.000000; ");
  EXPECT_EQ(l.Shapes(1.0, 2).size(), 2u);
}

TEST(MixLearner, RecentJobsWeighMore) {
  MixLearner l(/*half_life_jobs=*/1);
  l.Observe(Gpus(1, 1));
  l.Observe(Gpus(2, 1));  // one job later: twice the weight
  EXPECT_EQ(Describe(l.Shapes(1.0)), "2x1000 cpu1000 w2.000000; 1x1000 cpu1000 w1.000000; ");
  for (int i = 0; i < 100; ++i) l.Observe(Gpus(4, 1));  // rescaled on the way, order kept
  const std::vector<MixShape> s = l.Shapes(1.0);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].num_gpu, 4);
  EXPECT_EQ(s[1].num_gpu, 2);
  EXPECT_GT(s[1].weight, s[2].weight);
  EXPECT_EQ(Describe(l.Shapes(0.99)).substr(0, 2), "4x");
  EXPECT_EQ(l.Shapes(0.99).size(), 1u);
}

TEST(MixLearner, GpuTypeAndCpuOnlyShapesAreTheirOwn) {
  MixLearner l(1e9);
  RequestShape typed = Gpus(2, 1);
  typed.gpu_type = "a100";
  l.Observe(typed);
  RequestShape cpu_only;
  cpu_only.unit.cpu_milli = 2000;
  cpu_only.units = 3;
  l.Observe(cpu_only);
  RequestShape by_memory;  // sized by GPU memory: not counted
  by_memory.gpu_memory_mb = 10000;
  l.Observe(by_memory);
  EXPECT_EQ(l.observed(), 2);
  EXPECT_EQ(Describe(l.Shapes(1.0)), "0x0 cpu6000 w1.000000; 2x1000:a100 cpu1000 w1.000000; ");
}

}  // namespace
}  // namespace muster
