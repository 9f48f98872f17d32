#include "ctld/node_table.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "model/job_request.h"
#include "sched/cluster_builder.h"

namespace muster {
namespace {

ClusterSnapshot TwoNodes(int gpus) {
  NodeTemplate t;
  t.cpus = 16;
  t.memory_mb = 65536;
  t.gpus = gpus;
  return ClusterBuilder().Nodes("n[1-2]", t).Partition("gpu", "n[1-2]", true).Build();
}

JobRequest Request(const std::vector<std::string>& args) {
  StatusOr<JobRequest> r = ParseJobRequest(args);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return *r;
}

TEST(NodeTableTest, HoldsEveryConfiguredNodeInNameOrderUnknownUntilItRegisters) {
  ClusterSnapshot c = TwoNodes(4);
  c.nodes[1].state = NodeState::kDown;
  c.nodes[1].reason = "cabled wrong";
  NodeTable t(c, SchedulerOptions{});
  EXPECT_EQ(t.size(), 2u);
  EXPECT_EQ(t.Pos("n1"), 0);
  EXPECT_EQ(t.Pos("n2"), 1);
  EXPECT_EQ(t.Pos("n3"), -1);
  std::vector<NodeRecord> all = t.List();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].node.name, "n1");
  EXPECT_EQ(all[0].node.state, NodeState::kUnknown);
  EXPECT_EQ(all[1].node.state, NodeState::kDown);  // configured DOWN keeps its state and reason
  EXPECT_EQ(all[1].node.reason, "cabled wrong");
  std::vector<NodeRecord> some = t.Get({"n2", "nope", "n1"});
  ASSERT_EQ(some.size(), 2u);
  EXPECT_EQ(some[0].node.name, "n2");
  EXPECT_EQ(some[1].node.name, "n1");
}

TEST(NodeTableTest, ChangesThroughAnAccessAreSeenByTheCopies) {
  NodeTable t(TwoNodes(4), SchedulerOptions{});
  {
    NodeTable::Access nodes = t.Lock();
    ASSERT_NE(nodes.Find("n2"), nullptr);
    EXPECT_EQ(nodes.Find("n9"), nullptr);
    nodes.Find("n2")->node.drain = true;
    nodes.at(0).agent_address = "127.0.0.1:7000";
  }
  EXPECT_TRUE(t.Get({"n2"})[0].node.drain);
  EXPECT_EQ(t.List()[0].agent_address, "127.0.0.1:7000");
}

TEST(NodeTableTest, TheEpochMovesWithWhatNodesOffer) {
  NodeTable t(TwoNodes(4), SchedulerOptions{});
  const uint64_t e0 = t.epoch();
  {
    NodeTable::Access nodes = t.Lock();
    nodes.Find("n1")->node.reason = "maintenance";  // a reason alone moves nothing
    EXPECT_EQ(nodes.epoch(), e0);
    nodes.OffersChanged(/*hardware=*/false);
    EXPECT_EQ(nodes.epoch(), e0 + 1);
    nodes.OffersChanged(/*hardware=*/true);
  }
  EXPECT_EQ(t.epoch(), e0 + 2);
}

TEST(NodeTableTest, ResumedGpusAreHandedOutOnce) {
  NodeTable t(TwoNodes(4), SchedulerOptions{});
  NodeTable::Access nodes = t.Lock();
  nodes.ResumeGpu("n1", 2);
  nodes.ResumeGpu("n1", 3);
  EXPECT_EQ(nodes.TakeResumedGpus("n1"), (std::vector<int>{2, 3}));
  EXPECT_TRUE(nodes.TakeResumedGpus("n1").empty());
  EXPECT_TRUE(nodes.TakeResumedGpus("n2").empty());
}

TEST(NodeTableTest, TheIdleProbeAnswersFromTheNodesAsRegisteredAndIgnoresTheirState) {
  NodeTable t(TwoNodes(4), SchedulerOptions{});
  {
    NodeTable::Access nodes = t.Lock();
    for (size_t p = 0; p < nodes.size(); ++p) {
      nodes.at(p).node.state = NodeState::kDown;  // down and drained nodes count as up and idle
      nodes.at(p).node.drain = true;
    }
  }
  EXPECT_TRUE(t.EverRuns(Request({"-p", "gpu", "--gres=gpu:4"}), 100, nullptr).ok());
  std::string user_msg;
  Status never = t.EverRuns(Request({"-p", "gpu", "--gres=gpu:8"}), 100, &user_msg);
  EXPECT_EQ(never.code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(never.message().empty());
  // A node registers with 8 GPUs: what it has is probed once the record is replaced.
  {
    NodeTable::Access nodes = t.Lock();
    NodeRecord* n = nodes.Find("n1");
    n->node = TwoNodes(8).nodes[0];
    nodes.OffersChanged(/*hardware=*/true);
  }
  EXPECT_TRUE(t.EverRuns(Request({"-p", "gpu", "--gres=gpu:8"}), 100, nullptr).ok());
  EXPECT_EQ(t.EverRuns(Request({"-p", "gpu", "--gres=gpu:9"}), 100, nullptr).code(), StatusCode::kInvalidArgument);
}

TEST(NodeTableTest, ReadersAndWritersOnManyThreadsSeeWholeRecords) {
  NodeTable t(TwoNodes(4), SchedulerOptions{});
  std::atomic<bool> torn{false};
  std::vector<std::thread> threads;
  for (int w = 0; w < 2; ++w) {
    threads.emplace_back([&t, w] {
      for (int i = 0; i < 2000; ++i) {
        NodeTable::Access nodes = t.Lock();
        NodeRecord& r = nodes.at(w);
        r.node.reason = "step " + std::to_string(i);
        r.node.reason_user = "step " + std::to_string(i);  // written together with the reason
      }
    });
  }
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&t, &torn] {
      for (int i = 0; i < 2000; ++i) {
        for (const NodeRecord& n : t.List()) {
          if (n.node.reason != n.node.reason_user) torn = true;
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_FALSE(torn.load());
  EXPECT_EQ(t.List()[0].node.reason, "step 1999");
}

TEST(NodeTableDeathTest, ATableLockedTwiceByOneThreadIsAProgrammingError) {
  ::testing::FLAGS_gtest_death_test_style = "threadsafe";
  NodeTable t(TwoNodes(4), SchedulerOptions{});
  EXPECT_DEATH(
      {
        NodeTable::Access nodes = t.Lock();
        (void)t.List();
      },
      "took the node table's lock twice");
}

}  // namespace
}  // namespace muster
