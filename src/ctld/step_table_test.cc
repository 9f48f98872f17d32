// StepTable alone: creating steps with their ids, what running steps hold, ending them, and
// forgetting them with their jobs.
#include "ctld/step_table.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <thread>
#include <vector>

namespace muster {
namespace {

StepRecord Step(std::vector<std::string> nodes, std::vector<int> cpus, std::vector<int64_t> mem = {},
                std::vector<std::vector<int>> gpus = {}) {
  StepRecord s;
  s.nodes = std::move(nodes);
  s.node_cpus = std::move(cpus);
  s.node_mem_mb = std::move(mem);
  s.node_gpus = std::move(gpus);
  s.state = JobState::kRunning;
  s.start_time = 100;
  return s;
}

// A plan that adds `step` whatever runs, and records what it was shown.
StepTable::Plan Adds(const StepRecord& step, std::vector<StepRecord>* shown = nullptr) {
  return [step, shown](std::span<const StepRecord> running) -> StatusOr<StepRecord> {
    if (shown != nullptr) shown->assign(running.begin(), running.end());
    return step;
  };
}

TEST(StepTableTest, CreateGivesEachJobItsNextStepIdAndShowsThePlanItsRunningSteps) {
  StepTable table;
  StatusOr<StepRecord> a = table.Create(7, Adds(Step({"n1"}, {2})));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->job_id, 7);
  EXPECT_EQ(a->step_id, 0);
  ASSERT_TRUE(table.Create(8, Adds(Step({"n2"}, {1}))).ok());
  std::vector<StepRecord> shown;
  StatusOr<StepRecord> b = table.Create(7, Adds(Step({"n1"}, {1}), &shown));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->step_id, 1);
  ASSERT_EQ(shown.size(), 1u);  // job 7's, not job 8's
  EXPECT_EQ(shown[0].step_id, 0);
  // An ended step is not shown, but its id stays taken.
  ASSERT_TRUE(table.Finish(7, 0, 0, 200).ok());
  StatusOr<StepRecord> c = table.Create(7, Adds(Step({"n1"}, {1}), &shown));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->step_id, 2);
  ASSERT_EQ(shown.size(), 1u);
  EXPECT_EQ(shown[0].step_id, 1);
  // A plan that refuses adds nothing.
  Status busy(StatusCode::kUnavailable, "Requested nodes are busy");
  StatusOr<StepRecord> refused =
      table.Create(7, [&](std::span<const StepRecord>) -> StatusOr<StepRecord> { return busy; });
  EXPECT_EQ(refused.status().message(), "Requested nodes are busy");
  EXPECT_EQ(table.List().size(), 4u);
  // An erased step's id is given again.
  table.Erase(7, 2);
  EXPECT_EQ(table.Create(7, Adds(Step({"n1"}, {1})))->step_id, 2);
}

TEST(StepTableTest, ConcurrentCreatesOfAJobTakeDistinctIdsAndSeeEachOther) {
  StepTable table;
  // Each plan refuses when a running step holds n1's only CPU: exactly one of them gets it.
  const auto plan = [](std::span<const StepRecord> running) -> StatusOr<StepRecord> {
    if (StepTable::HeldOn(running, "n1", &StepRecord::node_cpus) + 1 > 1) {
      return Status(StatusCode::kUnavailable, "Requested nodes are busy");
    }
    return Step({"n1"}, {1});
  };
  std::vector<std::thread> threads;
  std::vector<int> ok(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] { ok[t] = table.Create(3, plan).ok() ? 1 : 0; });
  }
  for (std::thread& t : threads) t.join();
  int created = 0;
  for (int v : ok) created += v;
  EXPECT_EQ(created, 1);
  EXPECT_EQ(table.List().size(), 1u);
}

TEST(StepTableTest, HeldOnAndGpuHeldCountRunningStepsOnTheNode) {
  std::vector<StepRecord> running = {
      Step({"n1", "n2"}, {2, 3}, {100, 200}, {{0}, {1, 2}}),
      Step({"n2"}, {4}, {50}, {{3}}),
      Step({"n1"}, {}, {10}, {{5}}),  // --overlap: no CPUs, shares its GPUs
  };
  EXPECT_EQ(StepTable::HeldOn(running, "n1", &StepRecord::node_cpus), 2);
  EXPECT_EQ(StepTable::HeldOn(running, "n2", &StepRecord::node_cpus), 7);
  EXPECT_EQ(StepTable::HeldOn(running, "n1", &StepRecord::node_mem_mb), 110);
  EXPECT_EQ(StepTable::HeldOn(running, "n2", &StepRecord::node_mem_mb), 250);
  EXPECT_EQ(StepTable::HeldOn(running, "n3", &StepRecord::node_cpus), 0);
  EXPECT_TRUE(StepTable::GpuHeld(running, "n1", 0));
  EXPECT_FALSE(StepTable::GpuHeld(running, "n1", 1));
  EXPECT_TRUE(StepTable::GpuHeld(running, "n2", 2));
  EXPECT_TRUE(StepTable::GpuHeld(running, "n2", 3));
  EXPECT_FALSE(StepTable::GpuHeld(running, "n1", 5));  // the overlap step's
  running[1].state = JobState::kCompleted;
  EXPECT_EQ(StepTable::HeldOn(running, "n2", &StepRecord::node_cpus), 3);
  EXPECT_FALSE(StepTable::GpuHeld(running, "n2", 3));
}

TEST(StepTableTest, FinishRecordsTheEndOnce) {
  StepTable table;
  StepRecord limited = Step({"n1"}, {1});
  limited.time_limit_s = 60;
  ASSERT_TRUE(table.Create(1, Adds(Step({"n1"}, {1}))).ok());
  ASSERT_TRUE(table.Create(1, Adds(Step({"n1"}, {1}))).ok());
  ASSERT_TRUE(table.Create(1, Adds(limited)).ok());
  ASSERT_TRUE(table.Create(1, Adds(limited)).ok());
  StatusOr<std::optional<StepRecord>> done = table.Finish(1, 0, 0, 150);
  ASSERT_TRUE(done.ok() && done->has_value());
  EXPECT_EQ((*done)->state, JobState::kCompleted);
  EXPECT_EQ((*done)->end_time, 150);
  // Again: nothing changes.
  done = table.Finish(1, 0, 3, 170);
  ASSERT_TRUE(done.ok());
  EXPECT_FALSE(done->has_value());
  EXPECT_EQ(table.List()[0].exit_code, 0);
  EXPECT_EQ(table.Finish(1, 1, 2, 150).value()->state, JobState::kFailed);
  // Non-zero after its time limit: TIMEOUT; before it: FAILED.
  EXPECT_EQ(table.Finish(1, 2, 15, 160).value()->state, JobState::kTimeout);
  EXPECT_EQ(table.Finish(1, 3, 15, 159).value()->state, JobState::kFailed);
  EXPECT_EQ(table.Finish(1, 9, 0, 150).status().message(), "Invalid job id specified");
  EXPECT_EQ(table.Finish(2, 0, 0, 150).status().code(), StatusCode::kNotFound);
}

TEST(StepTableTest, AJobsEndCancelsItsRunningStepsAndForgettingTheJobDropsThem) {
  StepTable table;
  ASSERT_TRUE(table.Create(1, Adds(Step({"n1"}, {1}))).ok());
  ASSERT_TRUE(table.Create(1, Adds(Step({"n1"}, {1}))).ok());
  ASSERT_TRUE(table.Create(2, Adds(Step({"n2"}, {1}))).ok());
  ASSERT_TRUE(table.Finish(1, 0, 0, 150).ok());
  table.EndJob(1, 300);
  std::vector<StepRecord> steps = table.List();
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].state, JobState::kCompleted);  // ended before: kept as it was
  EXPECT_EQ(steps[0].end_time, 150);
  EXPECT_EQ(steps[1].state, JobState::kCancelled);
  EXPECT_EQ(steps[1].end_time, 300);
  EXPECT_EQ(steps[2].state, JobState::kRunning);  // another job's
  EXPECT_EQ(table.Of({1}).size(), 2u);
  EXPECT_EQ(table.Of({2, 5}).size(), 1u);
  EXPECT_TRUE(table.Of({}).empty());
  table.RetainJobs([](int64_t job_id) { return job_id != 1; });
  ASSERT_EQ(table.List().size(), 1u);
  EXPECT_EQ(table.List()[0].job_id, 2);
  // Recovery replaces them all, as loaded.
  StepRecord loaded = Step({"n3"}, {1});
  loaded.job_id = 9;
  loaded.step_id = 4;
  table.Reset({loaded});
  ASSERT_EQ(table.List().size(), 1u);
  EXPECT_EQ(table.Create(9, Adds(Step({"n3"}, {1})))->step_id, 5);
}

}  // namespace
}  // namespace muster
