// Scenario tables for the scheduler core: cluster + queue in, decisions out; each also shuffled
// (node and queue order) and re-run for further cycles that must change nothing.
#include "sched/scheduler.h"

#include <gtest/gtest.h>

#include <random>

#include "sched/cluster_builder.h"
#include "sched/scenario_harness.h"

namespace muster {
namespace {

// 16 nodes, 4 per leaf, 2 leaves per spine, a core over the spines.
ClusterBuilder TwoSpines() {
  ClusterBuilder b;
  b.Nodes("gpu[01-16]", DgxNode())
      .Leaf("leaf1", "gpu[01-04]")
      .Leaf("leaf2", "gpu[05-08]")
      .Leaf("leaf3", "gpu[09-12]")
      .Leaf("leaf4", "gpu[13-16]")
      .Spine("spine1", "leaf[1-2]")
      .Spine("spine2", "leaf[3-4]")
      .Spine("core", "spine[1-2]")
      .Partition("gpu", "gpu[01-16]", true);
  return b;
}

const std::vector<int> kFull(8, 1000);

std::vector<Scenario> Scenarios() {
  std::vector<Scenario> s;
  // -O: one task's CPUs per node, shared by all its tasks (Slurm's overcommit): 80 tasks on one
  // node of 64 CPUs, which without it could never run.
  s.push_back({"overcommit_gives_one_tasks_cpus_per_node",
               [] { return ClusterBuilder().Nodes("n[1-2]", DgxNode()).Partition("p", "n[1-2]", true).Build(); },
               {MakeJob(1, "-n 80 -N 1 -O"), MakeJob(2, "-n 4 -c 2 -N 1 --overcommit")},
               {"1 START n1{cpu=1 mem=0 tasks=80}", "2 START n1{cpu=2 mem=0 tasks=4}"}});
  s.push_back({"single_job_lowest_gpus_on_nvswitch",
               [] { return ClusterBuilder().Nodes("n1", DgxNode()).Partition("p", "n1", true).Build(); },
               {MakeJob(1, "--gres=gpu:4")},
               {"1 START n1{cpu=1 mem=0 tasks=1 gpus=0,1,2,3}"}});
  s.push_back({"best_fit_node_keeps_free_node_whole",
               [] {
                 return ClusterBuilder()
                     .Nodes("n[1-2]", DgxNode())
                     .Partition("p", "n[1-2]", true)
                     .Use("n2", 4, 0, {1000, 1000, 1000, 1000, 1000, 1000})
                     .Build();
               },
               {MakeJob(1, "--gres=gpu:2")},
               {"1 START n2{cpu=1 mem=0 tasks=1 gpus=6,7}"}});
  s.push_back({"islands_whole_island_for_four",
               [] {
                 return ClusterBuilder()
                     .Nodes("n1", DgxNode("islands:4"))
                     .Partition("p", "n1", true)
                     .Use("n1", 1, 0, {1000, 0, 0, 0, 0, 0, 0, 0})
                     .Build();
               },
               {MakeJob(1, "--gres=gpu:4"), MakeJob(2, "--gres=gpu:2")},
               // GPU 0 is busy: the only fully connected four are 4-7; then 1-2 of island A.
               {"1 START n1{cpu=1 mem=0 tasks=1 gpus=4,5,6,7}", "2 START n1{cpu=1 mem=0 tasks=1 gpus=1,2}"}});
  s.push_back({"link_quality_before_best_fit_on_dgx1",
               [] {
                 return ClusterBuilder()
                     .Nodes("n[1-2]", DgxNode("dgx1"))
                     .Partition("p", "n[1-2]", true)
                     .Use("n1", 1, 0, {1000, 0, 0, 0, 0, 1000})
                     .Build();
               },
               {MakeJob(1, "--gres=gpu:4", 2), MakeJob(2, "--gres=gpu:2", 1)},
               // n1 (GPUs 0 and 5 busy) can only offer 4 GPUs with 6 links; the free n2 offers the
               // quad 0-3 with 9, so job 1 goes there. A pair with 2 links (the most any pair
               // has) exists on both; n2 is then the better fit (4 free < 6): {4,7} (NV2).
               {"1 START n2{cpu=1 mem=0 tasks=1 gpus=0,1,2,3}", "2 START n2{cpu=1 mem=0 tasks=1 gpus=4,7}"}});
  s.push_back({"gang_stays_in_one_leaf",
               [] {
                 ClusterBuilder b = TwoSpines();
                 // leaf1: one free node; leaf2: two free nodes; leaves 3-4 full.
                 for (auto n : {"gpu01", "gpu02", "gpu03", "gpu05", "gpu06"}) b.Use(n, 8, 0, kFull);
                 for (int i = 9; i <= 16; ++i) b.Use("gpu" + std::to_string(i), 8, 0, kFull);
                 return b.Build();
               },
               {MakeJob(1, "-N 2 --gres=gpu:8")},
               {"1 START gpu07{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7} "
                "gpu08{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7}"}});
  s.push_back({"gang_best_fit_leaf",
               [] {
                 ClusterBuilder b = TwoSpines();
                 // leaf1: 4 free, leaf2: 2 free (gpu07-08), leaf3: 3 free, leaf4: full.
                 for (auto n : {"gpu05", "gpu06", "gpu09"}) b.Use(n, 8, 0, kFull);
                 for (int i = 13; i <= 16; ++i) b.Use("gpu" + std::to_string(i), 8, 0, kFull);
                 return b.Build();
               },
               {MakeJob(1, "-N 2 --gres=gpu:8"), MakeJob(2, "-N 3 --gres=gpu:8")},
               {"1 START gpu07{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7} "
                "gpu08{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7}",
                "2 START gpu10{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7} "
                "gpu11{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7} gpu12{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7}"}});
  s.push_back({"gang_fewest_leaves_under_lowest_spine",
               [] {
                 ClusterBuilder b = TwoSpines();
                 // free: leaf1 gpu04; leaf2 gpu07-08; leaf3 gpu10-12; leaf4 gpu16.
                 for (auto n : {"gpu01", "gpu02", "gpu03", "gpu05", "gpu06", "gpu09", "gpu13", "gpu14", "gpu15"}) {
                   b.Use(n, 8, 0, kFull);
                 }
                 return b.Build();
               },
               // 4 nodes: no leaf has 4; spine1 has 3, spine2 has 4 -> spine2: leaf3 (3) + leaf4 (1).
               {MakeJob(1, "-N 4 --gres=gpu:8")},
               {"1 START gpu10{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7} "
                "gpu11{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7} gpu12{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7} "
                "gpu16{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7}"}});
  s.push_back({"gang_best_fit_spine",
               [] {
                 ClusterBuilder b = TwoSpines();
                 // free: leaf1 gpu01-03 (3), leaf2 gpu05 (1), leaf3 gpu09-10 (2), leaf4 gpu13-16 (4).
                 for (auto n : {"gpu04", "gpu06", "gpu07", "gpu08", "gpu11", "gpu12"}) b.Use(n, 8, 0, kFull);
                 return b.Build();
               },
               // 6 nodes: spine1 has 4, spine2 has 6 -> spine2, leaf4 (4) + leaf3 (2).
               {MakeJob(1, "-N 6 --gres=gpu:8")},
               {"1 START gpu09{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7} "
                "gpu10{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7} gpu13{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7} "
                "gpu14{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7} gpu15{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7} "
                "gpu16{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7}"}});
  s.push_back({"gang_across_spines_fewest_leaves",
               [] {
                 ClusterBuilder b = TwoSpines();
                 // free: leaf1 gpu01-03 (3), leaf2 gpu05 (1), leaf3 gpu09-10 (2), leaf4 gpu13-16 (4).
                 for (auto n : {"gpu04", "gpu06", "gpu07", "gpu08", "gpu11", "gpu12"}) b.Use(n, 8, 0, kFull);
                 return b.Build();
               },
               // 9 nodes: only the core holds it: spine2 whole (6), then 3 from spine1, where
               // leaf1 alone (3) covers them; leaf2's single node stays free.
               {MakeJob(1, "-N 9 --gres=gpu:8")},
               {"1 START gpu01{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7} "
                "gpu02{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7} gpu03{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7} "
                "gpu09{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7} gpu10{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7} "
                "gpu13{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7} gpu14{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7} "
                "gpu15{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7} gpu16{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7}"}});
  s.push_back({"gang_all_or_nothing",
               [] {
                 return ClusterBuilder()
                     .Nodes("n[1-3]", DgxNode())
                     .Partition("p", "n[1-3]", true)
                     .Use("n3", 1, 0, {1000})
                     .Build();
               },
               {MakeJob(1, "-N 3 --gres=gpu:8", 10), MakeJob(2, "--gres=gpu:8", 5), MakeJob(3, "--gres=gpu:8", 5)},
               {"1 PENDING Resources", "2 START n1{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7}",
                "3 START n2{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7}"},
               SchedulerOptions{.strict_priority = false}});
  s.push_back({"strict_priority_blocks_partition",
               [] { return ClusterBuilder().Nodes("n[1-2]", DgxNode()).Partition("p", "n[1-2]", true).Build(); },
               {MakeJob(1, "-N 3 --gres=gpu:8", 10), MakeJob(2, "--gres=gpu:1", 5)},
               {"1 REJECT Requested node configuration is not available", "2 START n1{cpu=1 mem=0 tasks=1 gpus=0}"}});
  s.push_back({"strict_priority_reason",
               [] {
                 return ClusterBuilder().Nodes("n[1-2]", DgxNode()).Partition("p", "n[1-2]", true).Use("n2", 1, 0, {1000}).Build();
               },
               {MakeJob(1, "-N 2 --gres=gpu:8", 10), MakeJob(2, "--gres=gpu:1", 5)},
               {"1 PENDING Resources", "2 PENDING Priority"}});
  s.push_back({"fraction_best_fit_partly_used_gpu",
               [] {
                 return ClusterBuilder()
                     .Nodes("n[1-2]", DgxNode())
                     .Partition("p", "n[1-2]", true)
                     .Use("n1", 1, 0, {500, 250})
                     .Build();
               },
               {MakeJob(1, "--gpu-fraction=0.25", 3), MakeJob(2, "--gpu-fraction=0.5", 2),
                MakeJob(3, "--gres=gpu:6", 1)},
               // 0.25 -> GPU0 (room 500, tightest); 0.5 -> GPU1 (room 750); the 6-GPU job finds
               // 6 whole free GPUs on n1 (best fit: n1 has 6 free, n2 has 8).
               {"1 START n1{cpu=1 mem=0 tasks=1 gpus=0:250}", "2 START n1{cpu=1 mem=0 tasks=1 gpus=1:500}",
                "3 START n1{cpu=1 mem=0 tasks=1 gpus=2,3,4,5,6,7}"}});
  s.push_back({"fraction_prefers_shared_gpu_on_other_node",
               [] {
                 return ClusterBuilder()
                     .Nodes("n[1-2]", DgxNode())
                     .Partition("p", "n[1-2]", true)
                     .Use("n2", 1, 0, {0, 0, 0, 0, 0, 0, 0, 500})
                     .Build();
               },
               {MakeJob(1, "--gpu-fraction=0.5"), MakeJob(2, "--gpu-memory=40G"), MakeJob(3, "--gpu-memory=20G")},
               // n2 GPU7 has room 500: job 1 fills it. Job 2 (40G of 80G = 500) opens a GPU on
               // the best-fit node n2 (7 free whole GPUs < 8). Job 3 (250) joins job 2's GPU.
               {"1 START n2{cpu=1 mem=0 tasks=1 gpus=7:500}", "2 START n2{cpu=1 mem=0 tasks=1 gpus=0:500}",
                "3 START n2{cpu=1 mem=0 tasks=1 gpus=0:250}"}});
  s.push_back({"mig_slices_are_typed_devices",
               [] {
                 NodeTemplate mig = DgxNode();
                 mig.mig_profiles = {"3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"};
                 mig.mig_memory_mb = 10240;
                 return ClusterBuilder()
                     .Nodes("m1", mig)
                     .Nodes("n1", DgxNode())
                     .Partition("p", "m1,n1", true)
                     .Build();
               },
               {MakeJob(1, "--gres=gpu:1g.10gb:2"), MakeJob(2, "--gres=gpu:1"), MakeJob(3, "--gres=gpu:3g.40gb:1"),
                MakeJob(4, "--gres=gpu:1g.10gb:1")},
               {"1 START m1{cpu=1 mem=0 tasks=1 gpus=2,3}", "2 START n1{cpu=1 mem=0 tasks=1 gpus=0}",
                "3 START m1{cpu=1 mem=0 tasks=1 gpus=0}", "4 PENDING Resources"},
               SchedulerOptions{.strict_priority = false}});
  s.push_back({"flexible_gpus_total_fewest_nodes",
               [] {
                 return ClusterBuilder()
                     .Nodes("n[1-3]", DgxNode())
                     .Partition("p", "n[1-3]", true)
                     .Use("n1", 1, 0, {1000, 1000, 1000, 1000})
                     .Build();
               },
               // 12 GPUs: n2 gives 8, and the rest (4) goes to the best fit: n1 with 4 free.
               {MakeJob(1, "--gpus=12")},
               {"1 START n1{cpu=1 mem=0 tasks=1 gpus=4,5,6,7} n2{cpu=1 mem=0 tasks=1 gpus=0,1,2,3,4,5,6,7}"}});
  s.push_back({"tasks_per_node_and_cpus",
               [] {
                 return ClusterBuilder().Nodes("n[1-3]", DgxNode()).Partition("p", "n[1-3]", true).Build();
               },
               {MakeJob(1, "-n 16 --ntasks-per-node=8 -c 4 --gpus-per-task=1 --mem-per-cpu=1G")},
               {"1 START n1{cpu=32 mem=32768 tasks=8 gpus=0,1,2,3,4,5,6,7} "
                "n2{cpu=32 mem=32768 tasks=8 gpus=0,1,2,3,4,5,6,7}"}});
  s.push_back({"exclusive_takes_whole_idle_node",
               [] {
                 return ClusterBuilder().Nodes("n[1-2]", DgxNode()).Partition("p", "n[1-2]", true).Use("n1", 1, 0, {}).Build();
               },
               {MakeJob(1, "--exclusive --gres=gpu:1"), MakeJob(2, "--gres=gpu:1")},
               {"1 START n2{cpu=64 mem=1048576 tasks=1 gpus=0,1,2,3,4,5,6,7 exclusive}",
                "2 START n1{cpu=1 mem=0 tasks=1 gpus=0}"}});
  s.push_back({"partition_reasons_and_rejections",
               [] {
                 NodeTemplate a100 = DgxNode();
                 a100.model = "a100";
                 a100.features = {"ib"};
                 return ClusterBuilder()
                     .Nodes("n[1-2]", a100)
                     .Nodes("d1", DgxNode())
                     .Partition("p", "n[1-2]", true)
                     .Partition("short", "n[1-2]")
                     .Partition("off", "n[1-2]")
                     .Partition("drained", "d1")
                     .SetPartition("short",
                                   [](Partition& p) {
                                     p.max_time_s = 3600;
                                     p.max_nodes = 1;
                                   })
                     .SetPartition("off", [](Partition& p) { p.up = false; })
                     .Drain("d1")
                     .Build();
               },
               {MakeJob(1, "-p nosuch --gres=gpu:1", 9), MakeJob(2, "--gres=gpu:9", 9), MakeJob(3, "--mem=2T", 9),
                MakeJob(4, "-C nvlink --gres=gpu:1", 9), MakeJob(5, "-p short -t 2:00:00", 9),
                MakeJob(6, "-p short -N 2 -t 10", 9), MakeJob(7, "-p off", 9), MakeJob(8, "-p drained", 9),
                MakeJob(9, "--gres=gpu:h100:1", 9), MakeJob(10, "-C ib --gres=gpu:a100:2", 9)},
               {"1 REJECT Invalid partition name specified: nosuch",
                "2 REJECT Requested node configuration is not available",
                "3 REJECT Requested node configuration is not available", "4 REJECT Invalid feature specification",
                "5 PENDING PartitionConfig", "6 PENDING PartitionNodeLimit", "7 PENDING PartitionDown",
                "8 PENDING ReqNodeNotAvail (UnavailableNodes:d1)", "9 REJECT Requested node configuration is not available",
                "10 START n1{cpu=1 mem=0 tasks=1 gpus=0,1}"}});
  s.push_back({"bad_constraints_when_feature_nodes_down",
               [] {
                 NodeTemplate ib = DgxNode();
                 ib.features = {"ib"};
                 return ClusterBuilder()
                     .Nodes("n1", ib)
                     .Nodes("n2", DgxNode())
                     .Partition("p", "n[1-2]", true)
                     .Down("n1")
                     .Build();
               },
               {MakeJob(1, "-C ib --gres=gpu:1", 2), MakeJob(2, "--gres=gpu:1", 1)},
               {"1 PENDING BadConstraints", "2 START n2{cpu=1 mem=0 tasks=1 gpus=0}"}});
  return s;
}

class ScenarioTest : public ::testing::TestWithParam<Scenario> {};

TEST_P(ScenarioTest, DecisionsMatchAndAreStable) {
  const Scenario& sc = GetParam();
  ClusterSnapshot cluster = sc.cluster();
  std::vector<Decision> ds = RunCycle(cluster, sc.jobs, sc.options);
  EXPECT_EQ(DecisionStrings(ds), sc.expect);

  // Shuffled node order, partition order and queue order: identical decisions.
  std::mt19937_64 rng(12345);
  for (int round = 0; round < 8; ++round) {
    ClusterSnapshot shuffled = ShuffleNodes(cluster, rng);
    std::vector<PendingJob> jobs = sc.jobs;
    std::shuffle(jobs.begin(), jobs.end(), rng);
    EXPECT_EQ(DecisionStrings(RunCycle(shuffled, jobs, sc.options)), DecisionStrings(ds)) << "round " << round;
  }

  // Further cycles with the started jobs running: nothing new starts, the reasons stay.
  std::vector<PendingJob> rest = ApplyStarts(cluster, sc.jobs, ds);
  std::vector<std::string> waiting;
  for (const Decision& d : ds) {
    if (d.kind == DecisionKind::kPending) waiting.push_back(d.ToString());
  }
  for (int cycle = 0; cycle < 2; ++cycle) {
    EXPECT_EQ(DecisionStrings(RunCycle(cluster, rest, sc.options)), waiting) << "cycle " << cycle + 2;
  }
}

INSTANTIATE_TEST_SUITE_P(Table, ScenarioTest, ::testing::ValuesIn(Scenarios()),
                         [](const ::testing::TestParamInfo<Scenario>& info) { return info.param.name; });

TEST(SchedulerTest, RunCycleLeavesSchedulerReusable) {
  ClusterSnapshot c = ClusterBuilder().Nodes("n[1-2]", DgxNode()).Partition("p", "n[1-2]", true).Build();
  Scheduler s(c);
  std::vector<PendingJob> q = {MakeJob(1, "--gres=gpu:8"), MakeJob(2, "--gres=gpu:8")};
  auto first = DecisionStrings(s.RunCycle(q));
  EXPECT_EQ(DecisionStrings(s.RunCycle(q)), first);
  EXPECT_EQ(first, DecisionStrings(RunCycle(c, q)));
  // Another queue on the same scheduler is judged on its own shapes, not on what the last cycle
  // found for its first (a cycle names shapes afresh: #1, #2, ...).
  const std::string never = "1 REJECT Requested node configuration is not available";
  EXPECT_EQ(DecisionStrings(s.RunCycle({MakeJob(1, "--gres=gpu:9")})), std::vector<std::string>{never});
  EXPECT_EQ(DecisionStrings(s.RunCycle({MakeJob(1, "--gres=gpu:1")})), DecisionStrings(RunCycle(c, {MakeJob(1, "--gres=gpu:1")})));
  EXPECT_EQ(DecisionStrings(s.RunCycle({MakeJob(1, "--gres=gpu:9")})), std::vector<std::string>{never});
}

TEST(SchedulerTest, HeldByTakesTheMemoWhenFilledElseSumsTheAllocation) {
  RunningJob r;
  r.allocation = {NodeAllocation{"n1", 4000, 100, 1, {GpuShare{0, 1000}, GpuShare{1, 500}}},
                  NodeAllocation{"n2", 2000, 50, 1, {GpuShare{3, 1000}}}};
  const JobUse summed = HeldBy(r);
  EXPECT_EQ(summed.gpu_milli, 2500);
  EXPECT_EQ(summed.cpu_milli, 6000);
  EXPECT_EQ(summed.memory_mb, 150);
  const JobUse direct = UseOf(r.allocation);
  EXPECT_EQ(direct.gpu_milli, summed.gpu_milli);
  r.held_gpu_milli = 7;  // a memo (the controller's) wins: the allocation is not walked
  r.held_cpu_milli = 8;
  r.held_memory_mb = 9;
  const JobUse memo = HeldBy(r);
  EXPECT_EQ(memo.gpu_milli, 7);
  EXPECT_EQ(memo.cpu_milli, 8);
  EXPECT_EQ(memo.memory_mb, 9);
}

TEST(SchedulerTest, AKeptSchedulerReloadedDecidesAsAFreshOne) {
  // As the controller keeps one: the same snapshot object and index, whose usage changes between
  // cycles, then Reload. Each cycle must decide as a Scheduler built afresh on that snapshot.
  ClusterSnapshot c = ClusterBuilder().Nodes("n[1-2]", DgxNode()).Partition("p", "n[1-2]", true).Build();
  ClusterIndex index(c);
  Scheduler kept(c, index);
  const std::vector<PendingJob> q = {MakeJob(1, "--gres=gpu:9"), MakeJob(2, "--gres=gpu:8"),
                                     MakeJob(3, "--gres=gpu:4"), MakeJob(4, "--gpus=12")};
  const ClusterSnapshot idle = c;
  const std::vector<std::vector<int>> n1_use = {{}, {1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000},
                                                {1000, 1000, 1000, 1000}, {}};
  for (size_t round = 0; round < n1_use.size(); ++round) {
    c.usage = idle.usage;
    if (!n1_use[round].empty()) {
      c.usage = ClusterBuilder().Nodes("n[1-2]", DgxNode()).Partition("p", "n[1-2]", true)
                    .Use("n1", 8, 1024, n1_use[round]).Build().usage;
    }
    if (round > 0) kept.Reload({});
    const std::vector<std::string> fresh = DecisionStrings(RunCycle(c, q));
    EXPECT_EQ(DecisionStrings(kept.RunCycle(q)), fresh) << "round " << round;
    EXPECT_EQ(fresh.front(), "1 REJECT Requested node configuration is not available") << "round " << round;
  }
}

TEST(SchedulerTest, AKeptSchedulerResolvesAJobAgainOnlyWhenItsRevisionMoves) {
  // The controller numbers each copy of a request it puts in the queue (PendingJob::revision):
  // a kept Scheduler takes what it resolved for a job (shape, nodes, whether it can ever fit)
  // again only while that number stays. Each cycle must decide as a Scheduler built afresh.
  ClusterSnapshot c = ClusterBuilder().Nodes("n[1-2]", DgxNode()).Partition("p", "n[1-2]", true).Build();
  ClusterIndex index(c);
  Scheduler kept(c, index);
  auto job = [](int64_t id, const std::string& opts, uint64_t revision) {
    PendingJob j = MakeJob(id, opts);
    j.revision = revision;
    return j;
  };
  const std::vector<std::vector<PendingJob>> rounds = {
      {job(1, "--gres=gpu:4", 1), job(2, "--gres=gpu:9", 2)},
      // 2 came back asking for less (a new copy: a new revision); 1 is unchanged.
      {job(1, "--gres=gpu:4", 1), job(2, "--gres=gpu:2", 3), job(3, "--gres=gpu:8", 4)},
      // 1 asks for what never fits, 3 unchanged.
      {job(3, "--gres=gpu:8", 4), job(1, "--gres=gpu:9", 5)},
  };
  std::vector<std::vector<std::string>> seen;
  for (size_t round = 0; round < rounds.size(); ++round) {
    kept.Reload({});
    const std::vector<std::string> fresh = DecisionStrings(RunCycle(c, rounds[round]));
    EXPECT_EQ(DecisionStrings(kept.RunCycle(rounds[round])), fresh) << "round " << round;
    seen.push_back(fresh);
  }
  ASSERT_EQ(seen[1].size(), 3u);
  EXPECT_EQ(seen[0][1], "2 REJECT Requested node configuration is not available");
  EXPECT_EQ(seen[1][1].rfind("2 START", 0), 0u) << seen[1][1];
  EXPECT_EQ(seen[2][0], "1 REJECT Requested node configuration is not available");
}

}  // namespace
}  // namespace muster

namespace muster {
namespace {

// --tmp picks nodes by their TmpDisk=, --mincpus by their CPUs, and gives each node of the job
// at least that many CPUs; a request no node can meet is rejected.
TEST(SchedulerTest, TmpAndMinCpusChooseNodesAndSizeTheAllocation) {
  NodeTemplate small;
  small.cpus = 8;
  small.memory_mb = 64 * 1024;
  ClusterSnapshot c = ClusterBuilder().Nodes("n[1-2]", small).Nodes("n3", DgxNode()).Partition("p", "n[1-3]", true).Build();
  for (Node& n : c.nodes) n.tmp_disk_mb = n.name == "n2" ? 100 * 1024 : 1024;
  const std::vector<Decision> d = RunCycle(
      c, {MakeJob(1, "--tmp=50G"), MakeJob(2, "--mincpus=16 -n 2"), MakeJob(3, "--tmp=1T"), MakeJob(4, "--mincpus=128")});
  ASSERT_EQ(d.size(), 4u);
  EXPECT_EQ(d[0].ToString(), "1 START n2{cpu=1 mem=0 tasks=1}");
  EXPECT_EQ(d[1].ToString(), "2 START n3{cpu=17 mem=0 tasks=2}");  // 16 on its node, one more for the second task
  EXPECT_EQ(d[2].kind, DecisionKind::kReject);
  EXPECT_EQ(d[3].kind, DecisionKind::kReject);
}

}  // namespace
}  // namespace muster
