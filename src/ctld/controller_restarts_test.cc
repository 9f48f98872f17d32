// Restarts as users see them (scontrol's Restarts=, SLURM_RESTART_COUNT, sacct, the REST API):
// the requeues of runs that started on their node. A launch that never started there (its node
// refused it, or never acknowledged it) is requeued as a lost launch (JobRecord::lost_launches),
// not a restart; the run number (restart_count) moves on either way, since every order to an
// agent names its run.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "ctld/controller_test_fixture.h"
#include "proc/job_env.h"
#include "report/scontrol_format.h"

namespace muster::ctld_test {
namespace {

class RestartsTest : public ControllerTest {
 protected:
  void SetUp() override {
    ControllerTest::SetUp();
    agents_.during_launch = [this](const JobRecord& j) {
      std::lock_guard<std::mutex> l(agents_.mu);
      launches_.push_back(j);
    };
  }
  // The record the last launch of `id` carried to its nodes.
  JobRecord LastLaunch(int64_t id) {
    std::lock_guard<std::mutex> l(agents_.mu);
    for (auto it = launches_.rbegin(); it != launches_.rend(); ++it) {
      if (it->id == id) return *it;
    }
    ADD_FAILURE() << "job " << id << " was never launched";
    return JobRecord{};
  }
  // The batch script's environment, as the batch host builds it from the launch.
  static std::map<std::string, std::string> BatchEnv(const JobRecord& launched) {
    std::map<std::string, std::string> env;
    for (const std::string& kv : BuildJobEnvironment(launched, launched.batch_host, TaskPlacement{}, "test")) {
      const size_t eq = kv.find('=');
      env[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    return env;
  }
  // "Restarts=N" as scontrol show job prints it.
  std::string ScontrolRestarts(int64_t id) {
    const std::string text = FormatScontrolJob(Job(id), clock_.NowSeconds());
    const size_t at = text.find("Restarts=");
    if (at == std::string::npos) return "(no Restarts= in: " + text + ")";
    return text.substr(at, text.find(' ', at) - at);
  }
  std::vector<JobRecord> launches_;  // under agents_.mu
};

// A launch its node refused (a node-side failure, launch_failure: requeue) never started: the job
// runs again elsewhere as run 1, yet users see no restart, and its script no
// SLURM_RESTART_COUNT. The run number moved on all the same: an order for run 0 is refused. A
// requeue of run 1 once it started is a restart, the first its users see.
TEST_F(RestartsTest, ARefusedLaunchIsNotARestartButARequeueAfterTheStartIs) {
  config_.hold_on_launch_failure = false;
  Open();
  RegisterAll();
  agents_.fail_launch = true;
  const int64_t id = Submit({"--gres=gpu:4"});
  EXPECT_EQ(ctld_->ScheduleOnce(), 0);
  const std::string refused_on = LastLaunch(id).batch_host;
  JobRecord j = Job(id);
  EXPECT_EQ(j.state, JobState::kPending);
  EXPECT_EQ(j.restart_count, 1) << "the next run has a number of its own";
  EXPECT_EQ(j.lost_launches, 1);
  EXPECT_EQ(Restarts(j), 0);
  EXPECT_EQ(ScontrolRestarts(id), "Restarts=0");

  agents_.fail_launch = false;
  ASSERT_EQ(ctld_->ScheduleOnce(), 1);
  const JobRecord run1 = LastLaunch(id);
  EXPECT_NE(run1.batch_host, refused_on) << "the refusing node was drained";
  EXPECT_EQ(run1.restart_count, 1) << "the launch names run 1";
  EXPECT_EQ(Restarts(run1), 0);
  EXPECT_EQ(BatchEnv(run1).count("SLURM_RESTART_COUNT"), 0u) << BatchEnv(run1)["SLURM_RESTART_COUNT"];
  EXPECT_EQ(ScontrolRestarts(id), "Restarts=0");

  // Orders for run 0 are refused: a node reporting it is told to stop it, and its late end changes
  // nothing.
  StatusOr<NodeOrders> orders = ctld_->Heartbeat(run1.batch_host, Running({id}, 0), kAdmin);
  ASSERT_TRUE(orders.ok()) << orders.status().ToString();
  ASSERT_EQ(orders->stop.size(), 1u);
  EXPECT_EQ(orders->stop[0], (JobRun{id, 0}));
  ExitReport late;
  late.exit_code = 1;
  late.restart_count = 0;
  ASSERT_TRUE(ctld_->JobExited(id, run1.batch_host, late, kAdmin).ok());
  EXPECT_EQ(Job(id).state, JobState::kRunning) << "run 0's end is not run 1's";

  // Run 1 started (its launch was answered): losing it now is a restart.
  ASSERT_TRUE(ctld_->UpdateNode(run1.batch_host, "DOWN", "maintenance", kAdmin).ok());
  j = Job(id);
  EXPECT_EQ(j.state, JobState::kPending);
  EXPECT_EQ(j.restart_count, 2);
  EXPECT_EQ(j.lost_launches, 1);
  EXPECT_EQ(Restarts(j), 1);
  EXPECT_EQ(ScontrolRestarts(id), "Restarts=1");
  ASSERT_TRUE(ctld_->UpdateNode(refused_on, "RESUME", "", kAdmin).ok());
  ASSERT_EQ(ctld_->ScheduleOnce(), 1);
  const JobRecord run2 = LastLaunch(id);
  EXPECT_EQ(run2.restart_count, 2);
  EXPECT_EQ(BatchEnv(run2)["SLURM_RESTART_COUNT"], "1");
}

// A launch without an answer is settled by its node's reports: one the node names started (lost
// later, a restart); one it never names, once a launch could have arrived, never started there (a
// lost launch).
TEST_F(RestartsTest, AnUnansweredLaunchIsARestartOnlyOnceItsNodeNamedTheRun) {
  RegisterAll();
  agents_.launch_error = Status(StatusCode::kUnavailable, "POST /v1/launch on unix:/nowhere/n1: timed out");
  const int64_t named = Submit({"--gres=gpu:4"});
  const int64_t never = Submit({"--gres=gpu:4"});
  EXPECT_EQ(ctld_->ScheduleOnce(), 0);
  const std::string h1 = Job(named).batch_host, h2 = Job(never).batch_host;
  ASSERT_NE(h1, h2);
  clock_.AdvanceSeconds(kLaunchGraceS);
  ASSERT_TRUE(ctld_->Heartbeat(h1, Running({named}), kAdmin).ok());
  ASSERT_TRUE(ctld_->Heartbeat(h2, {}, kAdmin).ok());
  JobRecord lost = Job(never);
  EXPECT_EQ(lost.state, JobState::kPending);
  EXPECT_EQ(lost.restart_count, 1);
  EXPECT_EQ(lost.lost_launches, 1);
  EXPECT_EQ(ScontrolRestarts(never), "Restarts=0");
  ASSERT_EQ(Job(named).state, JobState::kRunning);
  ASSERT_TRUE(ctld_->UpdateNode(h1, "DOWN", "maintenance", kAdmin).ok());
  const JobRecord restarted = Job(named);
  EXPECT_EQ(restarted.state, JobState::kPending);
  EXPECT_EQ(restarted.restart_count, 1);
  EXPECT_EQ(restarted.lost_launches, 0);
  EXPECT_EQ(ScontrolRestarts(named), "Restarts=1");
}

// A node whose agent never answered a launch and then fell silent for good: once the node's lease
// is over the job is given up, as a lost launch. A job whose launch that node had taken is lost
// with it after a start: a restart.
TEST_F(RestartsTest, ASilentNodesUnacknowledgedLaunchIsLostAndItsAcknowledgedOneRestarts) {
  RegisterAll();
  const int64_t took = Submit({"--gres=gpu:1", "-w", "n1"});  // launched while n1 answers
  ASSERT_EQ(ctld_->ScheduleOnce(), 1);
  agents_.launch_error = Status(StatusCode::kUnavailable, "cannot connect to unix:/nowhere/n1: Connection refused");
  const int64_t unanswered = Submit({"--gres=gpu:1", "-w", "n1"});
  EXPECT_EQ(ctld_->ScheduleOnce(), 0);
  ASSERT_EQ(Job(unanswered).state, JobState::kRunning) << "no answer: its node's next report decides";
  agents_.launch_error = Status::Ok();
  // n1 is silent from now on; n2 answers (were both silent, the controller would take the silence
  // for its own outage and give up nothing: controller_outage_test.cc).
  int64_t waited = 0;
  while ((Job(took).state == JobState::kRunning || Job(unanswered).state == JobState::kRunning) && waited < 600) {
    clock_.AdvanceSeconds(5);
    waited += 5;
    ASSERT_TRUE(ctld_->Heartbeat("n2", {}, kAdmin).ok());
    ctld_->Tick();
  }
  ASSERT_EQ(Job(took).state, JobState::kPending) << "after " << waited << " s";
  ASSERT_EQ(Job(unanswered).state, JobState::kPending) << "after " << waited << " s";
  EXPECT_EQ(Job(took).restart_count, 1);
  EXPECT_EQ(Restarts(Job(took)), 1);
  EXPECT_EQ(Job(unanswered).restart_count, 1);
  EXPECT_EQ(Job(unanswered).lost_launches, 1);
  EXPECT_EQ(Restarts(Job(unanswered)), 0);
}

// A run the controller loaded from its store after a restart is taken for started (the controller
// before it may have heard it start): lost later, it counts as a restart, as before.
TEST_F(RestartsTest, ARunLoadedAfterAControllerRestartIsTakenForStarted) {
  RegisterAll();
  agents_.launch_error = Status(StatusCode::kUnavailable, "POST /v1/launch on unix:/nowhere/n1: timed out");
  const int64_t id = Submit({"--gres=gpu:4"});
  EXPECT_EQ(ctld_->ScheduleOnce(), 0);
  agents_.launch_error = Status::Ok();
  const std::string host = Job(id).batch_host;
  Open();
  RegisterAll();
  clock_.AdvanceSeconds(kLaunchGraceS);
  ASSERT_TRUE(ctld_->Heartbeat(host, {}, kAdmin).ok());
  const JobRecord j = Job(id);
  EXPECT_EQ(j.state, JobState::kPending);
  EXPECT_EQ(j.restart_count, 1);
  EXPECT_EQ(j.lost_launches, 0);
  EXPECT_EQ(Restarts(j), 1);
}

// The counts are stored with the record: a restarted controller shows the same Restarts=.
TEST_F(RestartsTest, LostLaunchesSurviveAControllerRestart) {
  config_.hold_on_launch_failure = false;
  Open();
  RegisterAll();
  agents_.fail_launch = true;
  const int64_t id = Submit({"--gres=gpu:4"});
  EXPECT_EQ(ctld_->ScheduleOnce(), 0);
  agents_.fail_launch = false;
  Open();
  const JobRecord j = Job(id);
  EXPECT_EQ(j.restart_count, 1);
  EXPECT_EQ(j.lost_launches, 1);
  EXPECT_EQ(ScontrolRestarts(id), "Restarts=0");
}

// A heterogeneous job whose leader's launch was refused: every component is requeued with it, and
// none of them counts a restart.
TEST_F(RestartsTest, AHeterogeneousJobsLostLaunchIsLostForEveryComponent) {
  config_.hold_on_launch_failure = false;
  Open();
  RegisterAll();
  JobSpec s;
  EXPECT_TRUE(SetResourceOptions(s, {"--gres=gpu:1"}).ok());
  s.script = "#!/bin/sh\ntrue\n";
  s.workdir = "/tmp";
  HetComponentSpec c;
  EXPECT_TRUE(SetResourceOptions(c, {"--gres=gpu:1"}).ok());
  s.het_components = {c};
  StatusOr<int64_t> leader = ctld_->Submit(s, kAlice);
  ASSERT_TRUE(leader.ok()) << leader.status().ToString();
  const int64_t component = *leader + 1;
  ASSERT_EQ(Job(component).het_job_id, *leader);
  agents_.fail_launch = true;
  EXPECT_EQ(ctld_->ScheduleOnce(), 0);
  for (const int64_t id : {*leader, component}) {
    const JobRecord j = Job(id);
    EXPECT_EQ(j.state, JobState::kPending) << id;
    EXPECT_EQ(j.restart_count, 1) << id;
    EXPECT_EQ(j.lost_launches, 1) << id;
  }
  agents_.fail_launch = false;
  ASSERT_EQ(ctld_->ScheduleOnce(), 2);
  EXPECT_EQ(Restarts(LastLaunch(*leader)), 0);
  EXPECT_EQ(Restarts(LastLaunch(component)), 0);
}

}  // namespace
}  // namespace muster::ctld_test
