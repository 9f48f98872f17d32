#include "ctld/node_usage_book.h"

#include <gtest/gtest.h>

#include <vector>

#include "sched/cluster_builder.h"

namespace muster {
namespace {

ClusterSnapshot TwoNodes() {
  NodeTemplate t;
  t.cpus = 4;
  t.memory_mb = 8192;
  t.gpus = 2;
  return ClusterBuilder().Nodes("n[1-2]", t).Partition("gpu", "n[1-2]", true).Build();
}

JobRecord Running(int64_t id, const std::string& node, int64_t cpu_milli, std::vector<GpuShare> gpus,
                  bool exclusive = false) {
  JobRecord j;
  j.id = id;
  j.state = JobState::kRunning;
  NodeAllocation a;
  a.node = node;
  a.cpu_milli = cpu_milli;
  a.memory_mb = 1000;
  a.gpus = std::move(gpus);
  a.exclusive = exclusive;
  j.allocation.push_back(a);
  return j;
}

class NodeUsageBookTest : public ::testing::Test {
 protected:
  NodeUsageBookTest() : table_(TwoNodes(), SchedulerOptions{}), book_(table_) {
    NodeTable::Access nodes = table_.Lock();
    for (size_t i = 0; i < nodes.size(); ++i) nodes.at(i).node.state = NodeState::kIdle;
  }
  void Hold(JobRecord& j) { jobs_[j.id] = &j; }

  NodeTable table_;
  NodeUsageBook book_;
  ActiveJobs jobs_;
};

TEST_F(NodeUsageBookTest, CountsWhatTheJobsHoldAndKeepsItAsTheyChange) {
  JobRecord a = Running(1, "n1", 2000, {{0, kMilliPerGpu}});
  JobRecord b = Running(2, "n1", 1000, {{1, 500}});
  Hold(a);
  Hold(b);
  NodeTable::Access nodes = table_.Lock();
  std::vector<NodeUsage> u = book_.Current(nodes, jobs_);
  ASSERT_EQ(u.size(), 2u);
  EXPECT_EQ(u[0].cpu_milli, 3000);
  EXPECT_EQ(u[0].memory_mb, 2000);
  EXPECT_EQ(u[0].jobs, 2);
  EXPECT_EQ(u[0].gpus[0].milli, kMilliPerGpu);
  EXPECT_EQ(u[0].gpus[1].milli, 500);
  EXPECT_EQ(u[1].jobs, 0);

  // Suspended, b gives its CPUs back and keeps its memory and GPU share (bracketed as the
  // controller brackets every change; Debug builds recount at each read and check).
  book_.Count(b, -1);
  b.suspend_time = 5;
  book_.Count(b, 1);
  u = book_.Current(nodes, jobs_);
  EXPECT_EQ(u[0].cpu_milli, 2000);
  EXPECT_EQ(u[0].memory_mb, 2000);
  EXPECT_EQ(u[0].gpus[1].milli, 500);

  // Ended, a holds nothing.
  book_.Count(a, -1);
  a.state = JobState::kCompleted;
  book_.Count(a, 1);
  u = book_.Current(nodes, jobs_);
  EXPECT_EQ(u[0].jobs, 1);
  EXPECT_EQ(u[0].gpus[0].milli, 0);
}

TEST_F(NodeUsageBookTest, AGpuOutIsTakenAndAnAddedStartCounts) {
  NodeTable::Access nodes = table_.Lock();
  nodes.at(1).failed_gpus.push_back(GpuFault{1, false, "Xid 79"});
  nodes.OffersChanged(/*hardware=*/false);  // the epoch moves: recounted
  std::vector<NodeUsage> u = book_.Current(nodes, jobs_);
  EXPECT_EQ(u[1].gpus[1].milli, kMilliPerGpu);
  EXPECT_EQ(u[1].jobs, 0);
  NodeAllocation start;
  start.node = "n2";
  start.cpu_milli = 1000;
  start.gpus = {{0, 250}};
  start.exclusive = true;
  book_.Add(u, start);
  EXPECT_EQ(u[1].cpu_milli, 1000);
  EXPECT_EQ(u[1].gpus[0].milli, 250);
  EXPECT_TRUE(u[1].exclusive);
  start.node = "n9";  // not configured: nothing
  book_.Add(u, start);
  EXPECT_EQ(u[1].jobs, 1);
}

TEST_F(NodeUsageBookTest, NodeStatesComeOfWhatTheJobsHold) {
  JobRecord part = Running(1, "n1", 1000, {{0, kMilliPerGpu}});
  JobRecord whole = Running(2, "n2", 1000, {}, /*exclusive=*/true);
  Hold(part);
  Hold(whole);
  {
    NodeTable::Access nodes = table_.Lock();
    book_.SetNodeStates(nodes, jobs_);
    EXPECT_EQ(nodes.at(0).node.state, NodeState::kMixed);
    EXPECT_EQ(nodes.at(1).node.state, NodeState::kAllocated);
  }
  book_.Count(part, -1);
  part.state = JobState::kCompleted;
  book_.Count(part, 1);
  NodeTable::Access nodes = table_.Lock();
  nodes.at(1).node.state = NodeState::kDown;  // a DOWN node keeps its state
  book_.SetNodeStates(nodes, jobs_);
  EXPECT_EQ(nodes.at(0).node.state, NodeState::kIdle);
  EXPECT_EQ(nodes.at(1).node.state, NodeState::kDown);
}

}  // namespace
}  // namespace muster
