#include "model/step_layout.h"

#include <gtest/gtest.h>

namespace muster {
namespace {

std::vector<NodeAllocation> Alloc(const std::vector<std::pair<std::string, int>>& nodes) {
  std::vector<NodeAllocation> out;
  for (const auto& [name, tasks] : nodes) {
    NodeAllocation a;
    a.node = name;
    a.tasks = tasks;
    out.push_back(a);
  }
  return out;
}

TEST(BlockTaskCounts, FirstNodesTakeTheRemainder) {
  EXPECT_EQ(BlockTaskCounts(4, 2), (std::vector<int>{2, 2}));
  EXPECT_EQ(BlockTaskCounts(5, 3), (std::vector<int>{2, 2, 1}));
  EXPECT_EQ(BlockTaskCounts(4, 3), (std::vector<int>{2, 1, 1}));
  EXPECT_EQ(BlockTaskCounts(1, 1), (std::vector<int>{1}));
  EXPECT_TRUE(BlockTaskCounts(3, 0).empty());
}

TEST(PlanStepLayout, DefaultsToTheJobsTasksOnEveryNode) {
  StatusOr<StepLayout> l = PlanStepLayout(Alloc({{"node1", 1}, {"node2", 1}}), {});
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  EXPECT_EQ(l->nodes, (std::vector<std::string>{"node1", "node2"}));
  EXPECT_EQ(l->tasks, (std::vector<int>{1, 1}));
  EXPECT_EQ(l->ntasks, 2);
  EXPECT_EQ(l->first_task(1), 1);
  EXPECT_TRUE(l->warning.empty());
  // A job with several tasks per node (sbatch --ntasks-per-node=4).
  l = PlanStepLayout(Alloc({{"n1", 4}, {"n2", 4}}), {});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->ntasks, 8);
  EXPECT_EQ(l->tasks, (std::vector<int>{4, 4}));
}

TEST(PlanStepLayout, NodesFollowSlurmsOrderNotTheAllocationsOrder) {
  StatusOr<StepLayout> l = PlanStepLayout(Alloc({{"n10", 1}, {"n2", 1}, {"n9", 1}}), {.ntasks = 4});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->nodes, (std::vector<std::string>{"n2", "n9", "n10"}));
  EXPECT_EQ(l->tasks, (std::vector<int>{2, 1, 1}));
  EXPECT_EQ(l->first_task(2), 3);
}

TEST(PlanStepLayout, ExplicitCounts) {
  auto alloc = Alloc({{"n1", 1}, {"n2", 1}, {"n3", 1}});
  StatusOr<StepLayout> l = PlanStepLayout(alloc, {.ntasks = 5});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->tasks, (std::vector<int>{2, 2, 1}));
  l = PlanStepLayout(alloc, {.nnodes = 1});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->nodes, (std::vector<std::string>{"n1"}));
  EXPECT_EQ(l->ntasks, 1);
  l = PlanStepLayout(alloc, {.nnodes = 2, .ntasks_per_node = 4});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->ntasks, 8);
  EXPECT_EQ(l->tasks, (std::vector<int>{4, 4}));
  l = PlanStepLayout(alloc, {.ntasks = 3, .ntasks_per_node = 2});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->tasks, (std::vector<int>{1, 1, 1}));
}

TEST(PlanStepLayout, FewerTasksThanNodesShrinksTheStep) {
  auto alloc = Alloc({{"n1", 1}, {"n2", 1}});
  StatusOr<StepLayout> l = PlanStepLayout(alloc, {.ntasks = 1});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->nodes, (std::vector<std::string>{"n1"}));
  EXPECT_TRUE(l->warning.empty());
  l = PlanStepLayout(alloc, {.ntasks = 1, .nnodes = 2});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->nodes.size(), 1u);
  EXPECT_EQ(l->warning, "can't run 1 processes on 2 nodes, setting nnodes to 1");
}

// srun -w/-x inside an allocation: the step on those of the job's nodes, in the job's order.
TEST(PlanStepLayout, NodelistAndExclude) {
  auto alloc = Alloc({{"n1", 2}, {"n2", 2}, {"n3", 2}});
  StatusOr<StepLayout> l = PlanStepLayout(alloc, {.nodelist = {"n3", "n2"}});
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  EXPECT_EQ(l->nodes, (std::vector<std::string>{"n2", "n3"}));
  EXPECT_EQ(l->ntasks, 4);
  l = PlanStepLayout(alloc, {.nnodes = 2, .nodelist = {"n3"}});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->nodes, (std::vector<std::string>{"n1", "n3"})) << "n3, and n1 to make two";
  l = PlanStepLayout(alloc, {.ntasks = 2, .exclude = {"n1"}});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->nodes, (std::vector<std::string>{"n2", "n3"}));
  for (const StepShapeRequest& bad : {StepShapeRequest{.nodelist = {"n9"}}, StepShapeRequest{.nodelist = {"n1"}, .exclude = {"n1"}},
                                      StepShapeRequest{.nnodes = 1, .nodelist = {"n1", "n2"}},
                                      StepShapeRequest{.exclude = {"n1", "n2", "n3"}}}) {
    EXPECT_EQ(PlanStepLayout(alloc, bad).status().message(), "Requested node configuration is not available");
  }
}

// Nodes the running steps fill go last: a one-task step takes the first free node; -w still
// names its own; the layout keeps the job's node order.
TEST(PlanStepLayout, BusyNodesGoLast) {
  auto alloc = Alloc({{"n1", 1}, {"n2", 1}, {"n3", 1}});
  StatusOr<StepLayout> l = PlanStepLayout(alloc, {.ntasks = 1, .busy = {"n1"}});
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  EXPECT_EQ(l->nodes, (std::vector<std::string>{"n2"}));
  l = PlanStepLayout(alloc, {.ntasks = 2, .busy = {"n1", "n2"}});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->nodes, (std::vector<std::string>{"n1", "n3"})) << "n3 free, then the first busy one";
  l = PlanStepLayout(alloc, {.ntasks = 1, .nodelist = {"n1"}, .busy = {"n1"}});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->nodes, (std::vector<std::string>{"n1"})) << "-w wins";
  l = PlanStepLayout(alloc, {.busy = {"n2"}});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->nodes, (std::vector<std::string>{"n1", "n2", "n3"})) << "all of them, in the job's order";
}

TEST(PlanStepLayout, Errors) {
  auto alloc = Alloc({{"n1", 1}, {"n2", 1}});
  StatusOr<StepLayout> l = PlanStepLayout(alloc, {.nnodes = 3});
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.status().message(), "Only allocated 2 nodes asked for 3");
  l = PlanStepLayout(alloc, {.ntasks = 9, .ntasks_per_node = 2});
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.status().code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(PlanStepLayout({}, {}).ok());
  EXPECT_FALSE(PlanStepLayout(alloc, {.ntasks = -1}).ok());
}

// Slurm 22.05: a step gets all the job's GPUs on its nodes unless it names some; --gpus spreads
// over the nodes, --gpus-per-task multiplies by the tasks there; held ones are skipped.
TEST(PlanStepGpus, DefaultsCountsAndHeldGpus) {
  std::vector<NodeAllocation> alloc(2);
  alloc[0].node = "n1";
  alloc[0].gpus = FromStoredGpus({{4, 1, 2}});
  alloc[1].node = "n2";
  alloc[1].gpus = FromStoredGpus({{0}, 3, 500});
  EXPECT_EQ(JobGpusOn(alloc, "n1"), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(JobGpusOn(alloc, "n2"), (std::vector<int>{0, 3}));
  EXPECT_TRUE(JobGpusOn(alloc, "n3").empty());
  StepLayout layout;
  layout.nodes = {"n1", "n2"};
  layout.tasks = {2, 1};
  layout.ntasks = 3;
  const auto none_held = [](const std::string&, int) { return false; };
  StatusOr<std::vector<std::vector<int>>> g = PlanStepGpus(alloc, layout, {}, none_held);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(*g, (std::vector<std::vector<int>>{{1, 2, 4}, {0, 3}}));
  g = PlanStepGpus(alloc, layout, {.given = true, .total = 3}, none_held);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(*g, (std::vector<std::vector<int>>{{1, 2}, {0}}));
  g = PlanStepGpus(alloc, layout, {.given = true, .per_task = 1}, none_held);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(*g, (std::vector<std::vector<int>>{{1, 2}, {0}}));
  g = PlanStepGpus(alloc, layout, {.given = true}, none_held);  // --gres=none
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(*g, (std::vector<std::vector<int>>{{}, {}}));
  // Held GPUs are skipped; too few free: busy; more than the job has: invalid.
  const auto held = [](const std::string& node, int gpu) { return node == "n1" && gpu == 1; };
  g = PlanStepGpus(alloc, layout, {.given = true, .per_node = 2}, held);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(*g, (std::vector<std::vector<int>>{{2, 4}, {0, 3}}));
  g = PlanStepGpus(alloc, layout, {}, held);
  EXPECT_EQ(g.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(g.status().message(), "Requested nodes are busy");
  g = PlanStepGpus(alloc, layout, {.given = true, .per_node = 3}, none_held);
  EXPECT_EQ(g.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(g.status().message().rfind("Invalid generic resource (gres) specification", 0), 0u);
  // An --overlap step (no holds) takes the lowest ones even when held.
  g = PlanStepGpus(alloc, layout, {.given = true, .per_node = 1}, nullptr);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(*g, (std::vector<std::vector<int>>{{1}, {0}}));
}

}  // namespace
}  // namespace muster
