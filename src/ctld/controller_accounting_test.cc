// Dependencies, begin times and the accounting query through the controller, in virtual time
// (fixtures in controller_test_fixture.h).
#include <gtest/gtest.h>

#include "ctld/controller.h"
#include "ctld/controller_test_fixture.h"

namespace muster {
namespace {

using namespace ctld_test;  // NOLINT(build/namespaces)

class EligibilityTest : public ControllerTest {
 protected:
  int64_t SubmitWith(const std::string& dependency, int64_t begin = 0, const std::string& name = "") {
    JobSpec s;
    EXPECT_TRUE(SetResourceOptions(s, {"-n", "1"}).ok());
    s.script = "#!/bin/sh\ntrue\n";
    s.workdir = "/tmp";
    s.name = name;
    EXPECT_TRUE(SetDependency(s, dependency).ok());
    s.begin_time = begin;
    StatusOr<int64_t> id = ctld_->Submit(s, kAlice);
    EXPECT_TRUE(id.ok()) << id.status().ToString();
    return id.ok() ? *id : -1;
  }
  void Exit(int64_t id, int code) {
    ASSERT_TRUE(ctld_->JobExited(id, Job(id).batch_host, ExitReport{code, 0, false, ""}, kAdmin).ok());
  }
};

TEST_F(EligibilityTest, AfterOkWaitsThenRunsOrNeverRuns) {
  RegisterAll();
  const int64_t a = Submit({"-n", "1"});
  const int64_t ok = SubmitWith("afterok:" + std::to_string(a));
  const int64_t notok = SubmitWith("afternotok:" + std::to_string(a));
  const int64_t any = SubmitWith("afterany:" + std::to_string(a));
  const int64_t after = SubmitWith("after:" + std::to_string(a));
  ctld_->ScheduleOnce();
  EXPECT_EQ(Job(a).state, JobState::kRunning);
  EXPECT_EQ(Job(after).reason, "Dependency");  // judged before a started
  ctld_->ScheduleOnce();
  EXPECT_EQ(Job(after).state, JobState::kRunning);  // a has started
  for (int64_t id : {ok, notok, any}) {
    EXPECT_EQ(Job(id).state, JobState::kPending) << id;
    EXPECT_EQ(Job(id).reason, "Dependency") << id;
  }
  EXPECT_EQ(Job(ok).dependency_left, "afterok:" + std::to_string(a) + "(unfulfilled)");
  Exit(a, 0);
  ctld_->ScheduleOnce();
  EXPECT_EQ(Job(ok).state, JobState::kRunning);
  EXPECT_EQ(Job(ok).dependency_left, "");
  EXPECT_EQ(Job(any).state, JobState::kRunning);
  EXPECT_EQ(Job(notok).state, JobState::kPending);
  EXPECT_EQ(Job(notok).reason, "DependencyNeverSatisfied");
  EXPECT_EQ(Job(notok).dependency_left, "afternotok:" + std::to_string(a) + "(failed)");
  // Nothing changes on later cycles.
  EXPECT_EQ(ctld_->ScheduleOnce(), 0);
  EXPECT_EQ(Job(notok).reason, "DependencyNeverSatisfied");
}

TEST_F(EligibilityTest, AnyOfAndSingletonAndUnknownJobs) {
  RegisterAll();
  const int64_t a = Submit({"-n", "1"});
  ctld_->ScheduleOnce();
  Exit(a, 1);  // failed
  const int64_t either = SubmitWith("afterok:" + std::to_string(a) + "?afternotok:" + std::to_string(a));
  const int64_t unknown = SubmitWith("afterok:999999");  // no such job: satisfied, as in Slurm
  ctld_->ScheduleOnce();
  EXPECT_EQ(Job(either).state, JobState::kRunning);
  EXPECT_EQ(Job(unknown).state, JobState::kRunning);
  // singleton: one job of a name and user at a time, in submission order.
  const int64_t s1 = SubmitWith("singleton", 0, "single");
  const int64_t s2 = SubmitWith("singleton", 0, "single");
  ctld_->ScheduleOnce();
  EXPECT_EQ(Job(s1).state, JobState::kRunning);
  EXPECT_EQ(Job(s2).state, JobState::kPending);
  EXPECT_EQ(Job(s2).dependency_left, "singleton(unfulfilled)");
  Exit(s1, 0);
  ctld_->ScheduleOnce();
  EXPECT_EQ(Job(s2).state, JobState::kRunning);
}

TEST_F(EligibilityTest, BadDependencyIsRejectedAndBeginTimeWaits) {
  RegisterAll();
  JobSpec s;
  s.script = "#!/bin/sh\ntrue\n";
  // Read where it comes in (the command, the API edge), as slurmctld refuses it.
  EXPECT_EQ(SetDependency(s, "after:x").message(), "Job dependency problem");
  const int64_t now = clock_.NowSeconds();
  const int64_t later = SubmitWith("", now + 60);
  EXPECT_EQ(Job(later).eligible_time, now + 60);
  ctld_->ScheduleOnce();
  EXPECT_EQ(Job(later).state, JobState::kPending);
  EXPECT_EQ(Job(later).reason, "BeginTime");
  clock_.AdvanceSeconds(60);
  for (const Node& n : config_.cluster.nodes) ASSERT_TRUE(ctld_->Heartbeat(n.name, {}, kAdmin).ok());
  ctld_->ScheduleOnce();
  EXPECT_EQ(Job(later).state, JobState::kRunning);
}

TEST_F(EligibilityTest, AccountingListsStoredJobsWithTheirSteps) {
  RegisterAll();
  const int64_t a = Submit({"-n", "1"});
  const int64_t b = Submit({"-n", "1"}, kBob);
  ctld_->ScheduleOnce();
  StepRequest req;
  req.name = "train";
  StatusOr<StepCreated> step = ctld_->CreateStep(a, req, kAlice);
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  ASSERT_TRUE(ctld_->Cancel(b, 0, kBob).ok());
  Exit(a, 0);
  AccountingQuery q;
  StatusOr<std::vector<JobRecord>> all = ctld_->Accounting(q);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].id, a);
  EXPECT_TRUE((*all)[0].script.empty());  // listed without the script
  q.users = {"1001"};
  all = ctld_->Accounting(q);
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].id, b);
  EXPECT_EQ((*all)[0].cancelled_by, 1001);
  q = AccountingQuery();
  q.states = {JobState::kCompleted};
  ASSERT_EQ(ctld_->Accounting(q)->size(), 1u);
  q = AccountingQuery();
  q.start = clock_.NowSeconds() + 10;  // a ended before the window; b is still being stopped
  ASSERT_EQ(ctld_->Accounting(q)->size(), 1u);
  EXPECT_EQ(ctld_->Accounting(q)->front().id, b);
  q.ids = {a};  // ids ignore the window
  EXPECT_EQ(ctld_->Accounting(q)->size(), 1u);
  StatusOr<std::vector<StepRecord>> steps = ctld_->AccountingSteps({a, b});
  ASSERT_TRUE(steps.ok());
  ASSERT_EQ(steps->size(), 1u);
  EXPECT_EQ((*steps)[0].name, "train");
  // After a restart, from the store alone.
  Open();
  all = ctld_->Accounting(AccountingQuery());
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 2u);
  EXPECT_EQ(ctld_->AccountingSteps({a})->size(), 1u);
}

// sreport measures nothing before the cluster's records begin: the first start on the state
// database, kept there across restarts; a database that kept jobs before the key existed begins
// with its oldest job.
TEST_F(ControllerTest, RecordsBeginAtTheFirstStartAndStayThere) {
  const int64_t first = clock_.NowSeconds();
  EXPECT_EQ(ctld_->records_since(), first);
  clock_.AdvanceSeconds(7200);
  Open();
  EXPECT_EQ(ctld_->records_since(), first);

  ctld_.reset();
  store_ = OpenSqliteStore((dir_ / "older.db").string()).value();  // jobs kept, no key yet
  JobRecord old;
  old.id = 1;
  old.state = JobState::kCompleted;
  old.submit_time = first - 86400;
  ASSERT_TRUE(store_->SaveJob(old).ok());
  ctld_ = std::make_unique<Controller>(config_, store_.get(), &agents_, &clock_);
  ASSERT_TRUE(ctld_->Recover().ok());
  EXPECT_EQ(ctld_->records_since(), first - 86400);
  EXPECT_EQ(*store_->GetMeta("records_since"), std::to_string(first - 86400));
}

}  // namespace
}  // namespace muster
