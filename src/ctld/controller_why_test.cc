// Controller::Why (muster why) over the controller's own pass: the planned start and nodes it
// gives are those the pass recorded for squeue --start, and the what-ifs come from the core.
#include <gtest/gtest.h>

#include "ctld/controller_test_fixture.h"

namespace muster::ctld_test {
namespace {

TEST_F(ControllerTest, WhyGivesThePassesPlanAndWhatWouldStartItSooner) {
  config_.scheduler.backfill = true;
  Open();
  RegisterAll();  // n1, n2: 4 GPUs each; partitions gpu (both) and debug (n1, 10 minutes at most)
  const int64_t hour = Submit({"--gres=gpu:4", "-t", "60", "-w", "n1"});
  ASSERT_EQ(ctld_->ScheduleOnce(), 1);
  const int64_t gang = Submit({"-N", "2", "--gres=gpu:4", "-t", "60"});
  const int64_t endless = Submit({"--gres=gpu:1"});  // no limit: would outlast the hour
  EXPECT_EQ(ctld_->ScheduleOnce(), 0);
  ASSERT_EQ(Job(gang).reason, "Resources");
  ASSERT_EQ(Job(endless).reason, "Priority");

  StatusOr<WhyAnswer> g = ctld_->Why(gang);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_TRUE(g->explained) << g->note;
  EXPECT_EQ(g->reason, "Resources");
  EXPECT_EQ(g->outcome.start, "planned");
  EXPECT_EQ(g->outcome.reason, "Resources");
  // squeue --start's figures, from the pass.
  EXPECT_EQ(g->outcome.start_time, Job(gang).expected_start);
  EXPECT_EQ(g->outcome.start_time, Job(hour).start_time + 3600);
  EXPECT_EQ(g->outcome.nodes, Job(gang).sched_nodes);
  EXPECT_EQ(g->outcome.gpus, (std::vector<std::string>{"n1:0-3", "n2:0-3"}));
  EXPECT_EQ(g->position, 1);
  EXPECT_EQ(g->queue_size, 2);
  EXPECT_TRUE(g->ahead.empty());
  EXPECT_TRUE(g->sooner.empty());  // every change asked still waits for n1

  StatusOr<WhyAnswer> e = ctld_->Why(endless);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->outcome.start, "planned");
  EXPECT_EQ(e->outcome.reason, "Priority");
  EXPECT_EQ(e->outcome.start_time, Job(endless).expected_start);
  EXPECT_EQ(e->outcome.nodes, Job(endless).sched_nodes);
  ASSERT_EQ(e->ahead.size(), 1u);
  EXPECT_EQ(e->ahead[0].job_id, gang);
  EXPECT_EQ(e->ahead[0].outcome.start_time, Job(gang).expected_start);
  // An hour's limit fits n2 before the gang's reservation; debug holds none without a limit.
  ASSERT_EQ(e->sooner.size(), 1u);
  EXPECT_EQ(e->sooner[0].kind, "time");
  EXPECT_EQ(e->sooner[0].change, "--time=01:00:00");
  EXPECT_EQ(e->sooner[0].outcome.start, "now");
  EXPECT_EQ(e->sooner[0].outcome.nodes, "n2");

  // Not pending, held, unknown.
  StatusOr<WhyAnswer> running = ctld_->Why(hour);
  ASSERT_TRUE(running.ok());
  EXPECT_FALSE(running->explained);
  EXPECT_EQ(running->state, "RUNNING");
  EXPECT_EQ(running->note, "it is not pending");
  ASSERT_TRUE(ctld_->Hold(endless, true, kAlice).ok());
  StatusOr<WhyAnswer> held = ctld_->Why(endless);
  ASSERT_TRUE(held.ok());
  EXPECT_FALSE(held->explained);
  EXPECT_EQ(held->note.rfind("it is held (JobHeldUser)", 0), 0u) << held->note;
  StatusOr<WhyAnswer> unknown = ctld_->Why(9999);
  EXPECT_EQ(unknown.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(unknown.status().message(), "Invalid job id specified");
}

}  // namespace
}  // namespace muster::ctld_test
