// The FGD protocol on openb: the fragment measure and the typical pods on hand-computed cases, a
// tiny run whose curve is known, and (where ../shared is beside the checkout) one seed of the real
// trace against the paper's figures.
#include "sim/openb.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace muster {
namespace {

OpenbNodeState Node(int64_t cpu, std::vector<int> gpus) {
  OpenbNodeState n;
  n.cpu_left = cpu;
  n.memory_left = 1 << 20;
  n.gpu_left = std::move(gpus);
  return n;
}

TEST(OpenbFragment, WhatATypeCannotUseIsFragment) {
  const OpenbNodeState n = Node(4000, {1000, 500, 200});  // 1.7 GPUs idle
  struct Row {
    const char* what;
    TypicalPod t;
    bool model_ok;
    double want;
  };
  for (const Row& r : std::vector<Row>{
           {"a 0.3-GPU pod fits: only the 0.2 card is too small", {1000, 300, 1, "", 1}, true, 200},
           {"a whole-GPU pod fits: the partly used cards are fragments", {1000, 1000, 1, "", 1}, true, 700},
           {"a 2-GPU pod does not fit: everything idle is", {1000, 1000, 2, "", 1}, true, 1700},
           {"not enough CPU: everything idle is", {8000, 300, 1, "", 1}, true, 1700},
           {"a CPU-only pod uses no GPU: everything idle is", {1000, 0, 0, "", 1}, true, 1700},
           {"the wrong GPU model: everything idle is", {1000, 300, 1, "V100", 1}, false, 1700},
       }) {
    EXPECT_EQ(NodeFragment(n, r.t, r.model_ok), r.want) << r.what;
  }
  EXPECT_EQ(NodeFragment(Node(4000, {0, 0}), TypicalPod{1000, 1000, 1, "", 1}, true), 0);  // nothing idle
}

OpenbPod Pod(const std::string& name, int64_t cpu, int num_gpu, int gpu_milli) {
  OpenbPod p;
  p.name = name;
  p.cpu_milli = cpu;
  p.memory_mib = 10;
  p.num_gpu = num_gpu;
  p.gpu_milli = gpu_milli;
  return p;
}

TEST(OpenbTypicalPods, MostFrequentTypesUntilTheCoverage) {
  std::vector<OpenbPod> pods;
  for (int k = 0; k < 5; ++k) pods.push_back(Pod("a" + std::to_string(k), 1000, 1, 500));
  for (int k = 0; k < 3; ++k) pods.push_back(Pod("b" + std::to_string(k), 2000, 1, 1000));
  pods.push_back(Pod("c", 3000, 0, 0));
  pods.push_back(Pod("d", 4000, 0, 0));
  const std::vector<TypicalPod> t80 = TypicalPods(pods, 0.8);
  ASSERT_EQ(t80.size(), 2u);  // 8 of 10 pods
  EXPECT_EQ(t80[0].cpu_milli, 1000);
  EXPECT_DOUBLE_EQ(t80[0].weight, 5.0 / 8);
  EXPECT_EQ(t80[1].gpu_milli, 1000);
  EXPECT_DOUBLE_EQ(t80[1].weight, 3.0 / 8);
  // 90%: one of the two singletons, the larger first on the tie.
  const std::vector<TypicalPod> t90 = TypicalPods(pods, 0.9);
  ASSERT_EQ(t90.size(), 3u);
  EXPECT_EQ(t90[2].cpu_milli, 4000);
  EXPECT_DOUBLE_EQ(t90[2].weight, 1.0 / 9);
}

// 3 GPUs; six half-GPU pods are 100% of the capacity and all fit; at 130% one clone more fits the
// demand (the next would pass 130%) and fails: the GPUs are full.
TEST(OpenbRun, ATinyClusterWhoseCurveIsKnown) {
  std::vector<OpenbNode> nodes = {{"n1", 4000, 1000, 1, "T4"}, {"n2", 4000, 1000, 2, "T4"}, {"cpu", 4000, 1000, 0, ""}};
  std::vector<OpenbPod> pods;
  for (int k = 0; k < 6; ++k) pods.push_back(Pod("p" + std::to_string(k), 100, 1, 500));
  for (OpenbPolicy policy : AllOpenbPolicies()) {
    SCOPED_TRACE(OpenbPolicyName(policy));
    StatusOr<OpenbRun> r = RunOpenb(nodes, pods, OpenbOptions{policy, 7, 1.3});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->capacity_milli, 3000);  // the CPU-only node is not part of the cluster
    EXPECT_EQ(r->pods, 7);
    EXPECT_EQ(r->failed, 1);
    ASSERT_EQ(r->alloc.size(), 131u);
    EXPECT_EQ(r->alloc[17], 16.67);  // one pod of 6 arrived
    EXPECT_EQ(r->alloc[50], 50.0);
    EXPECT_EQ(r->alloc[100], 100.0);
    EXPECT_EQ(r->alloc[117], 100.0);  // the clone failed
    EXPECT_FALSE(r->alloc[130].has_value());  // no pod arrived near 130%
    EXPECT_FALSE(r->alloc[25].has_value());
    EXPECT_EQ(r->frag_rate[17], 0.0);  // every idle half fits the one pod type
  }
  EXPECT_EQ(RunOpenb({{"cpu", 4000, 1000, 0, ""}}, pods, {}).status().message(), "the node list has no GPU node");
  EXPECT_EQ(ParseOpenbPolicy("tetris").status().message(),
            "unknown placement policy 'tetris' (expected random, dotprod, gpupacking, bestfit, fgd or muster)");
}

// One seed of the paper's protocol on the real trace: FGD lands near its published figures
// (95.23% at 100%, 95.39% at 130%, 29.9% fragmentation at 80%; one seed varies ~0.2 points) and
// above BestFit (93.08% at 130%).
TEST(OpenbRun, RealTraceOneSeed) {
  const std::string dir = std::string(MUSTER_SOURCE_DIR) + "/../shared/data/traces/openb";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no " << dir << " here";
  StatusOr<std::vector<OpenbNode>> nodes =
      ParseOpenbNodes(ReadTraceFile(dir + "/openb_node_list_gpu_node.csv").value(), "nodes");
  StatusOr<std::vector<OpenbPod>> pods = ParseOpenbPods(ReadTraceFile(dir + "/openb_pod_list_default.csv").value(), "pods");
  ASSERT_TRUE(nodes.ok() && pods.ok());
  EXPECT_EQ(TypicalPods(*pods).size(), 35u);  // 95.26% of the pods, as the simulator counts
  StatusOr<OpenbRun> fgd = RunOpenb(*nodes, *pods, OpenbOptions{OpenbPolicy::kFgd, 42, 1.3});
  StatusOr<OpenbRun> bestfit = RunOpenb(*nodes, *pods, OpenbOptions{OpenbPolicy::kBestFit, 42, 1.3});
  ASSERT_TRUE(fgd.ok() && bestfit.ok());
  EXPECT_NEAR(*fgd->alloc[100], 95.23, 0.5);
  EXPECT_NEAR(*fgd->alloc[130], 95.39, 0.5);
  EXPECT_NEAR(*fgd->frag_rate[80], 29.9, 1.0);
  EXPECT_NEAR(*bestfit->alloc[130], 93.08, 0.5);
  EXPECT_GT(*fgd->alloc[130], *bestfit->alloc[130] + 1.5);
  // Muster's own placement (the scheduler core's Placer with the typical pods as its workload
  // mix), measured: above FGD (95.69 against 95.38 for this seed; 95.64 against 95.41 over 10).
  StatusOr<OpenbRun> muster = RunOpenb(*nodes, *pods, OpenbOptions{OpenbPolicy::kMuster, 42, 1.3});
  ASSERT_TRUE(muster.ok());
  EXPECT_GT(*muster->alloc[130], *fgd->alloc[130] + 0.1);
  EXPECT_GT(*muster->alloc[130], 95.39);  // FGD as published
}

}  // namespace
}  // namespace muster
