// The placement scorers' registry, and what each scorer makes the placer choose.
#include "sched/placement_scorer.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "sched/cluster_builder.h"
#include "sched/cluster_index.h"
#include "sched/placer.h"
#include "sched/plan.h"
#include "sched/scheduler.h"
#include "sched/workload_mix.h"

namespace muster {
namespace {

TEST(PlacementScorerRegistryTest, ListsEveryScorerByTheNameItGoesBy) {
  std::vector<std::string> names;
  for (std::string_view name : PlacementScorerRegistry::Names()) {
    names.emplace_back(name);
    std::shared_ptr<const PlacementScorer> scorer = PlacementScorerRegistry::Create(name);
    ASSERT_NE(scorer, nullptr) << name;
    EXPECT_EQ(scorer->name(), name);
  }
  // In this order muster.yaml's error message lists them.
  EXPECT_EQ(names, (std::vector<std::string>{"learned", "bestfit"}));
  EXPECT_EQ(PlacementScorerRegistry::BestFit().name(), "bestfit");
}

TEST(PlacementScorerRegistryTest, ParsesTheConfigurationsWord) {
  EXPECT_EQ((*PlacementScorerRegistry::Parse("learned"))->name(), "learned");
  EXPECT_EQ((*PlacementScorerRegistry::Parse("bestfit"))->name(), "bestfit");
  EXPECT_EQ(PlacementScorerRegistry::Parse("Learned").status().message(), "'Learned' is not learned or bestfit");
  EXPECT_EQ(PlacementScorerRegistry::Create("best"), nullptr);
  EXPECT_EQ(PlacementScorerRegistry::Create(""), nullptr);
}

TEST(PlacementScorerRegistryTest, LearnedIsTheDefault) {
  EXPECT_EQ(PlacementScorerRegistry::kDefault, "learned");
  const SchedulerOptions o;
  ASSERT_NE(o.placement, nullptr);
  EXPECT_EQ(o.placement->name(), "learned");
  EXPECT_TRUE(o.placement->learns_mix());
  EXPECT_FALSE(PlacementScorerRegistry::BestFit().learns_mix());
}

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

RequestShape CpuJob(int64_t cpu_milli) {
  RequestShape r;
  r.unit.cpu_milli = cpu_milli;
  r.units = 1;
  r.max_units_per_node = 1;
  r.tasks_per_unit = 1;
  r.min_nodes = r.max_nodes = 1;
  return r;
}

class PlacementScorerTest : public ::testing::Test {
 protected:
  PlacementScorerTest()
      : snapshot_(ClusterBuilder().Nodes("a", Box(32, 8)).Nodes("b", Box(4, 2)).Partition("p", "a,b", true).Build()),
        index_(snapshot_),
        all_(index_.size(), true) {
    MixShape one_gpu;  // 1-GPU jobs of 2 CPUs expected
    one_gpu.cpu_milli = 2000;
    one_gpu.num_gpu = 1;
    one_gpu.gpu_milli = 1000;
    one_gpu.weight = 1;
    mix_ = WorkloadMix({one_gpu});
  }
  // Where `scorer` (with `mix`) puts a CPU-only job of 4 CPUs.
  std::string Where(const char* scorer, const WorkloadMix* mix) {
    Plan plan(index_, snapshot_);
    std::shared_ptr<const PlacementScorer> s = PlacementScorerRegistry::Create(scorer);
    std::optional<std::vector<NodeAllocation>> a = Placer(index_, plan, mix, s.get()).Place(CpuJob(4000), all_);
    return a ? (*a)[0].node : "none";
  }
  ClusterSnapshot snapshot_;
  ClusterIndex index_;
  DynamicBitset all_;
  WorkloadMix mix_;
};

TEST_F(PlacementScorerTest, BestFitTakesTheNodeWithTheLeastLeftAndIgnoresTheMix) {
  // b has the fewest free GPUs (2 against 8).
  EXPECT_EQ(Where("bestfit", nullptr), "b");
  EXPECT_EQ(Where("bestfit", &mix_), "b");
  Plan plan(index_, snapshot_);
  Placer placer(index_, plan);
  const int a = index_.Find("a"), b = index_.Find("b");
  const PlacementScore on_a = PlacementScorerRegistry::BestFit().Score(placer, a, 1, CpuJob(4000));
  const PlacementScore on_b = PlacementScorerRegistry::BestFit().Score(placer, b, 1, CpuJob(4000));
  ASSERT_TRUE(on_a.ok && on_b.ok);
  EXPECT_LT(on_b.key, on_a.key);
}

TEST_F(PlacementScorerTest, LearnedKeepsCpuWhereTheMixNeedsItAndIsBestFitWithoutOne) {
  // On b the job would leave no CPU for b's 2 GPUs the mix's jobs need; on a nothing is stranded.
  EXPECT_EQ(Where("learned", &mix_), "a");
  const WorkloadMix none;
  EXPECT_EQ(Where("learned", &none), "b");
  EXPECT_EQ(Where("learned", nullptr), "b");
  std::shared_ptr<const PlacementScorer> learned = PlacementScorerRegistry::Create("learned");
  EXPECT_FALSE(learned->Scores(CpuJob(4000), nullptr));
  EXPECT_FALSE(learned->Scores(CpuJob(4000), &none));
  RequestShape exclusive = CpuJob(4000);
  exclusive.exclusive = true;
  EXPECT_FALSE(learned->Scores(exclusive, &mix_)) << "a whole node strands nothing: best fit";
  EXPECT_TRUE(learned->Scores(CpuJob(4000), &mix_));
}

}  // namespace
}  // namespace muster
