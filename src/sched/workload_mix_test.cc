// WorkloadMix's expected fragment on hand-computed nodes, and the Placer's choices with a mix.
#include "sched/workload_mix.h"

#include <gtest/gtest.h>

#include <vector>

#include "sched/cluster_builder.h"
#include "sched/cluster_index.h"
#include "sched/placer.h"
#include "sched/plan.h"

namespace muster {
namespace {

NodeTemplate Box(int cpus, int gpus) {
  NodeTemplate t;
  t.cpus = cpus;
  t.memory_mb = 256 * 1024;
  t.gpus = gpus;
  t.model = "t4";
  t.layout = "pcie";
  t.numa_nodes = 1;
  return t;
}

MixShape Shape(int64_t cpu_milli, int num_gpu, int gpu_milli, double weight = 1) {
  MixShape s;
  s.cpu_milli = cpu_milli;
  s.num_gpu = num_gpu;
  s.gpu_milli = gpu_milli;
  s.weight = weight;
  return s;
}

RequestShape OneNode(int64_t cpu_milli, int gpus, int gpu_milli = 0) {
  RequestShape r;
  r.unit.cpu_milli = cpu_milli;
  r.per_node.gpus = gpus;
  r.gpu_milli = gpu_milli;
  r.units = 1;
  r.max_units_per_node = 1;
  r.tasks_per_unit = 1;
  r.min_nodes = r.max_nodes = 1;
  return r;
}

class WorkloadMixTest : public ::testing::Test {
 protected:
  WorkloadMixTest()
      : snapshot_(ClusterBuilder().Nodes("a", Box(32, 8)).Nodes("b", Box(4, 2)).Partition("p", "a,b", true).Build()),
        index_(snapshot_) {}
  int A() const { return index_.Find("a"); }
  int B() const { return index_.Find("b"); }
  ClusterSnapshot snapshot_;
  ClusterIndex index_;
};

TEST_F(WorkloadMixTest, FragmentIsTheIdleGpuTheShapesCannotUse) {
  const std::vector<int> free8(8, 1000);
  // 1-GPU jobs of 4 CPUs: with 32 CPUs left all 8 free GPUs are usable...
  WorkloadMix one({Shape(4000, 1, 1000)});
  EXPECT_DOUBLE_EQ(one.Fragment(index_, A(), 32000, free8), 0);
  // ...with 16, the CPU holds 4 of the 8 jobs: half the room is stranded (FGD would say 0).
  EXPECT_DOUBLE_EQ(one.Fragment(index_, A(), 16000, free8), 4000);
  // ...with 3, none fits: all of the idle GPU.
  EXPECT_DOUBLE_EQ(one.Fragment(index_, A(), 3000, free8), 8000);
  // CPU-only jobs use no GPU: all idle GPU is fragment. A mix weighs its shapes.
  WorkloadMix two({Shape(4000, 1, 1000, 3), Shape(1000, 0, 0, 1)});
  EXPECT_DOUBLE_EQ(two.Fragment(index_, A(), 16000, free8), 0.75 * 4000 + 0.25 * 8000);
  // Half-GPU slices: a GPU with 300 free is too small for one; 700 holds one.
  WorkloadMix half({Shape(1000, 1, 500)});
  EXPECT_DOUBLE_EQ(half.Fragment(index_, B(), 4000, std::vector<int>{700, 300}), 300);
  // 4-GPU jobs on a node with 3 whole GPUs free and a partly used one: all of it.
  WorkloadMix four({Shape(1000, 4, 1000)});
  EXPECT_DOUBLE_EQ(four.Fragment(index_, A(), 16000, std::vector<int>{1000, 1000, 1000, 400, 0, 0, 0, 0}), 3400);
  // A shape for another GPU model, or one that may not use the node, cannot use any of it.
  MixShape other = Shape(1000, 1, 1000);
  other.gpu_type = "a100";
  EXPECT_DOUBLE_EQ(WorkloadMix({other}).Fragment(index_, B(), 4000, std::vector<int>{1000, 1000}), 2000);
  MixShape elsewhere = Shape(1000, 1, 1000);
  elsewhere.nodes = DynamicBitset(index_.size());
  elsewhere.nodes.set(A());
  WorkloadMix mix_elsewhere({elsewhere});
  EXPECT_DOUBLE_EQ(mix_elsewhere.Fragment(index_, B(), 4000, std::vector<int>{1000, 1000}), 2000);
  EXPECT_DOUBLE_EQ(mix_elsewhere.Fragment(index_, A(), 16000, free8), 0);
  // Memoised per node kind and state: the same question twice, the same answer.
  EXPECT_DOUBLE_EQ(one.Fragment(index_, A(), 16000, free8), 4000);
  EXPECT_TRUE(WorkloadMix().empty());
  EXPECT_EQ(WorkloadMix().Fragment(index_, A(), 0, free8), 0);
}

TEST_F(WorkloadMixTest, PlacerKeepsCpuWhereTheMixNeedsIt) {
  // A CPU-only job of 4 CPUs. Without a mix, the best fit: the node with the fewest free GPUs
  // (b, 2 GPUs and 4 CPUs). The mix expects 1-GPU jobs of 2 CPUs: on b the job would leave no
  // CPU for b's 2 GPUs (fragment 0 -> 2,000); on a, 28 CPUs for 8 GPUs strand nothing; so a.
  const RequestShape cpu_job = OneNode(4000, 0);
  DynamicBitset all(index_.size(), true);
  Plan plain(index_, snapshot_);
  std::optional<std::vector<NodeAllocation>> p = TryPlace(index_, plain, cpu_job, all);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ((*p)[0].node, "b");
  WorkloadMix mix({Shape(2000, 1, 1000)});
  Plan plan(index_, snapshot_);
  std::optional<std::vector<NodeAllocation>> q = Placer(index_, plan, &mix).Place(cpu_job, all);
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ((*q)[0].node, "a");
  // The plan took it.
  EXPECT_EQ(plan.free(A()).cpu_milli, 28000);
}

TEST_F(WorkloadMixTest, PlacerPicksTheSliceThatLeavesRoomForTheMix) {
  // b's GPU 1 has 600 free. A 400 slice: without a mix the tightest GPU (1, leaving 200); with
  // a mix of half-GPU jobs, GPU 0 (1000 -> 600 keeps room for a half on each GPU).
  Plan plan(index_, snapshot_);
  NodeAllocation used;
  used.node = "b";
  used.cpu_milli = 1000;
  used.gpus = {GpuShare{1, 400}};
  plan.Take(B(), used);
  DynamicBitset only_b(index_.size());
  only_b.set(B());
  const RequestShape slice = OneNode(1000, 0, 400);
  std::optional<std::vector<NodeAllocation>> p = TryPlace(index_, plan, slice, only_b);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ((*p)[0].gpus, (std::vector<GpuShare>{GpuShare{1, 400}}));
  WorkloadMix mix({Shape(500, 1, 500)});
  std::optional<std::vector<NodeAllocation>> q = Placer(index_, plan, &mix).Place(slice, only_b);
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ((*q)[0].gpus, (std::vector<GpuShare>{GpuShare{0, 400}}));
  EXPECT_EQ(plan.gpu_free_milli(B(), 0), 600);
}

TEST_F(WorkloadMixTest, WeightsAreNormalised) {
  WorkloadMix mix({Shape(1000, 1, 1000, 6), Shape(1000, 0, 0, 2), Shape(1000, 0, 0, -1)});
  ASSERT_EQ(mix.shapes().size(), 3u);
  EXPECT_DOUBLE_EQ(mix.shapes()[0].weight, 0.75);
  EXPECT_DOUBLE_EQ(mix.shapes()[1].weight, 0.25);
  EXPECT_DOUBLE_EQ(mix.shapes()[2].weight, 0);  // a negative weight counts as none
}

}  // namespace
}  // namespace muster
