#include "model/step_layout.h"

#include <gtest/gtest.h>

namespace muster {
namespace {

std::vector<JobNodeAllocation> Alloc(const std::vector<std::pair<std::string, int>>& nodes) {
  std::vector<JobNodeAllocation> out;
  for (const auto& [name, tasks] : nodes) {
    JobNodeAllocation a;
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

}  // namespace
}  // namespace muster
