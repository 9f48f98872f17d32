// The controller's scheduling policies: preemption, limits, quotas and QOS, in virtual time.
#include <gtest/gtest.h>
#include <signal.h>

#include "ctld/controller_test_fixture.h"

namespace muster {
namespace {

using namespace ctld_test;  // NOLINT(build/namespaces)

TEST_F(PolicyTest, HighQosRequeuesTheYoungestNormalJobAfterItsGrace) {
  UsePolicy(QosPolicy());
  const int64_t first = SubmitAs(kAlice, {"--gres=gpu:4"});
  ctld_->ScheduleOnce();
  Pass(60);
  const int64_t second = SubmitAs(kAlice, {"--gres=gpu:4"});
  ctld_->ScheduleOnce();
  Pass(60);
  ASSERT_EQ(Job(second).state, JobState::kRunning);
  const int64_t urgent = SubmitAs(kBob, {"--gres=gpu:4"}, "high");
  EXPECT_EQ(ctld_->ScheduleOnce(), 0);
  // The youngest victim that frees what is needed: `second`, SIGTERM on its node, SIGKILL after 20 s.
  JobRecord v = Job(second);
  EXPECT_EQ(v.state, JobState::kCompleting);
  EXPECT_EQ(v.preempted_by, urgent);
  EXPECT_EQ(v.preempt_reason, "QOS high preempts QOS normal");
  EXPECT_EQ(v.preempt_time, clock_.NowSeconds());
  ASSERT_EQ(SignalsFor(second).size(), 1u);
  EXPECT_EQ(SignalsFor(second)[0].signal, SIGTERM);
  EXPECT_EQ(SignalsFor(second)[0].kill_after, 20);
  EXPECT_EQ(SignalsFor(second)[0].why, "preempt");
  EXPECT_TRUE(SignalsFor(first).empty());
  EXPECT_EQ(Job(first).state, JobState::kRunning);
  // While it stops, the next passes preempt nobody else.
  Pass(5);
  EXPECT_EQ(ctld_->ScheduleOnce(), 0);
  EXPECT_EQ(Job(first).state, JobState::kRunning);
  EXPECT_EQ(SignalsFor(first).size(), 0u);
  // It exits (SIGTERM honoured): pending again, requeued, and the urgent job starts.
  ASSERT_TRUE(ctld_->JobExited(second, v.batch_host, ExitReport{0, SIGTERM, false, "", 0}, kAdmin).ok());
  v = Job(second);
  EXPECT_EQ(v.state, JobState::kPending);
  EXPECT_EQ(v.restart_count, 1);
  EXPECT_EQ(v.reason_detail, "Preempted by job " + std::to_string(urgent));
  EXPECT_EQ(ctld_->ScheduleOnce(), 1);
  EXPECT_EQ(Job(urgent).state, JobState::kRunning);
  EXPECT_EQ(Job(second).state, JobState::kPending);
  // The record survives a restart.
  Open();
  EXPECT_EQ(Job(second).preempted_by, urgent);
  EXPECT_EQ(Job(second).preempt_reason, "QOS high preempts QOS normal");
  ASSERT_EQ(Job(second).preemptions.size(), 1u);
  EXPECT_EQ(Job(second).preemptions[0],
            (PreemptionEvent{urgent, Job(second).preempt_time, "REQUEUE", "QOS high preempts QOS normal"}));
}

TEST_F(PolicyTest, KeepsTheLastPreemptionsOfAJobPreemptedOverAndOver) {
  UsePolicy(QosPolicy());
  const int64_t victim = SubmitAs(kAlice, {"-N", "2", "--gres=gpu:4"});
  ASSERT_EQ(ctld_->ScheduleOnce(), 1);
  const int rounds = static_cast<int>(kPreemptionHistory) + 3;
  std::vector<int64_t> by;
  for (int round = 0; round < rounds; ++round) {
    Pass(60);
    const int64_t urgent = SubmitAs(kBob, {"-N", "2", "--gres=gpu:4"}, "high");
    by.push_back(urgent);
    EXPECT_EQ(ctld_->ScheduleOnce(), 0);
    ASSERT_EQ(Job(victim).state, JobState::kCompleting) << "round " << round;
    ASSERT_TRUE(ctld_->JobExited(victim, Job(victim).batch_host, ExitReport{0, SIGTERM, false, "", round}, kAdmin).ok());
    ASSERT_EQ(ctld_->ScheduleOnce(), 1);
    ASSERT_EQ(Job(urgent).state, JobState::kRunning);
    ASSERT_TRUE(ctld_->JobExited(urgent, Job(urgent).batch_host, ExitReport{0, 0, false, "", 0}, kAdmin).ok());
    ASSERT_EQ(ctld_->ScheduleOnce(), 1) << "round " << round;
    ASSERT_EQ(Job(victim).state, JobState::kRunning);
  }
  // Every preemption counted, the last kPreemptionHistory kept (oldest first), also after a restart.
  Open();
  const JobRecord v = Job(victim);
  EXPECT_EQ(v.restart_count, rounds);
  ASSERT_EQ(v.preemptions.size(), kPreemptionHistory);
  for (size_t k = 0; k < kPreemptionHistory; ++k) {
    EXPECT_EQ(v.preemptions[k].by, by[rounds - kPreemptionHistory + k]) << k;
  }
  EXPECT_EQ(v.preemptions.back().by, v.preempted_by);
}

TEST_F(PolicyTest, CancelModeAndJobsThatMayNotRequeueEndPreempted) {
  SchedPolicy p = QosPolicy();
  UsePolicy(p);
  const int64_t fixed = SubmitAs(kAlice, {"-N", "2", "--gres=gpu:4"}, "", "", /*requeue=*/false);
  ctld_->ScheduleOnce();
  Pass(60);
  const int64_t urgent = SubmitAs(kBob, {"--gres=gpu:2"}, "high");
  ctld_->ScheduleOnce();
  // A gang goes whole: both nodes are told.
  EXPECT_EQ(SignalsFor(fixed).size(), 2u);
  ASSERT_TRUE(ctld_->JobExited(fixed, Job(fixed).batch_host, ExitReport{0, SIGTERM, false, "", 0}, kAdmin).ok());
  EXPECT_EQ(Job(fixed).state, JobState::kPreempted);
  EXPECT_EQ(ctld_->ScheduleOnce(), 1);
  EXPECT_EQ(Job(urgent).state, JobState::kRunning);
}

TEST_F(PolicyTest, LimitsLeaveJobsPendingWithSlurmsReasons) {
  SchedPolicy p = QosPolicy();
  p.qos[1].max_gpus_per_user = 4;
  Account team{.name = "team"};
  team.max_jobs = 1;
  p.accounts.accounts = {team};
  config_.allow_root_jobs = true;  // the admin's own job below
  UsePolicy(p);
  const int64_t a1 = SubmitAs(kAlice, {"--gres=gpu:3"});
  const int64_t a2 = SubmitAs(kAlice, {"--gres=gpu:2"});
  const int64_t b1 = SubmitAs(kBob, {"--gres=gpu:2"}, "", "team");
  const int64_t b2 = SubmitAs(kBob, {"--gres=gpu:1"}, "", "team");
  EXPECT_EQ(ctld_->ScheduleOnce(), 2);
  EXPECT_EQ(Job(a1).state, JobState::kRunning);
  EXPECT_EQ(Job(a2).reason, "QOSMaxGRESPerUser");
  EXPECT_EQ(Job(b1).state, JobState::kRunning);
  EXPECT_EQ(Job(b2).reason, "AssocMaxJobsLimit");
  // Bad QOS names and negative nice from a user are refused with Slurm's words.
  JobSpec s;
  EXPECT_TRUE(SetResourceOptions(s, {"-n", "1"}).ok());
  s.script = "#!/bin/sh\ntrue\n";
  s.qos = "gold";
  EXPECT_EQ(ctld_->Submit(s, kAlice).status().message(), "Invalid qos specification");
  s.qos = "";
  s.nice = -5;
  EXPECT_EQ(ctld_->Submit(s, kAlice).status().code(), StatusCode::kPermissionDenied);
  EXPECT_TRUE(ctld_->Submit(s, kAdmin).ok());
}

// Proof: a team that lent its idle quota gets it back within one cycle plus
// the grace time once it submits, and the borrower keeps its own quota.
TEST_F(PolicyTest, QuotaReclaimReturnsTheQuotaWithinOneCyclePlusTheGrace) {
  SchedPolicy p;
  Account a{.name = "a"}, b{.name = "b"};
  a.quota.gpus = 4;
  b.quota.gpus = 4;
  p.accounts.accounts = {a, b};
  p.preemption.grace_time_s = 30;
  UsePolicy(p);
  std::vector<int64_t> borrowed;
  for (int i = 0; i < 8; ++i) borrowed.push_back(SubmitAs(kBob, {"--gres=gpu:1"}, "", "b"));
  EXPECT_EQ(ctld_->ScheduleOnce(), 8);  // a is idle: b borrows a's 4 GPUs
  Pass(600);
  const int64_t t_submit = clock_.NowSeconds();
  std::vector<int64_t> mine;
  for (int i = 0; i < 4; ++i) mine.push_back(SubmitAs(kAlice, {"--gres=gpu:1"}, "", "a"));
  EXPECT_EQ(ctld_->ScheduleOnce(), 0);  // one cycle: four victims named
  int stopping = 0;
  for (int64_t id : borrowed) stopping += Job(id).state == JobState::kCompleting;
  EXPECT_EQ(stopping, 4);
  // The agents kill what ignores SIGTERM when the grace ends; then one cycle starts a's jobs.
  Pass(30);
  for (int64_t id : borrowed) {
    JobRecord j = Job(id);
    if (j.state != JobState::kCompleting) continue;
    EXPECT_EQ(j.preempt_reason, "quota reclaim: account a is within its quota, account b is over its quota");
    ASSERT_TRUE(ctld_->JobExited(id, j.batch_host, ExitReport{0, SIGKILL, false, "", 0}, kAdmin).ok());
  }
  EXPECT_EQ(ctld_->ScheduleOnce(), 4);
  for (int64_t id : mine) EXPECT_EQ(Job(id).state, JobState::kRunning);
  EXPECT_LE(clock_.NowSeconds() - t_submit, 30);  // the grace; the cycles take no virtual time
  int b_running = 0;
  for (int64_t id : borrowed) b_running += Job(id).state == JobState::kRunning;
  EXPECT_EQ(b_running, 4);  // b keeps its quota
  // More from a beyond its quota reclaims nothing: it waits for b's jobs to end.
  const int64_t extra = SubmitAs(kAlice, {"--gres=gpu:1"}, "", "a");
  EXPECT_EQ(ctld_->ScheduleOnce(), 0);
  for (int64_t id : borrowed) EXPECT_NE(Job(id).state, JobState::kCompleting);
  EXPECT_EQ(Job(extra).state, JobState::kPending);
}

TEST_F(PolicyTest, SacctmgrChangesApplyAtOnceAndSurviveARestart) {
  UsePolicy(QosPolicy());
  const PolicyOp add_account{"add", "account", "team", {{"MaxJobs", "1"}}};
  EXPECT_EQ(ctld_->ChangePolicy(add_account, kAlice).code(), StatusCode::kPermissionDenied);
  ASSERT_TRUE(ctld_->ChangePolicy(add_account, kAdmin).ok());
  ASSERT_TRUE(ctld_->ChangePolicy(PolicyOp{"add", "user", "1001", {{"Account", "team"}}}, kAdmin).ok());
  ASSERT_TRUE(ctld_->ChangePolicy(PolicyOp{"add", "qos", "gold", {{"Priority", "50"}}}, kAdmin).ok());
  EXPECT_EQ(ctld_->ChangePolicy(PolicyOp{"add", "qos", "gold", {}}, kAdmin).message(), "QOS 'gold' already exists");
  // In force at once: the account limit, the new QOS, the user's association.
  const int64_t b1 = SubmitAs(kBob, {"--gres=gpu:1"}, "gold");
  const int64_t b2 = SubmitAs(kBob, {"--gres=gpu:1"});
  EXPECT_EQ(Job(b1).account, "team");
  ctld_->ScheduleOnce();
  EXPECT_EQ(Job(b1).state, JobState::kRunning);
  EXPECT_EQ(Job(b2).reason, "AssocMaxJobsLimit");
  // A restart replays the stored changes over the configuration.
  Open();
  const SchedPolicy p = ctld_->Policy();
  ASSERT_NE(p.accounts.Find("team"), nullptr);
  EXPECT_EQ(p.accounts.Find("team")->max_jobs, 1);
  EXPECT_NE(FindQos(p.qos, "gold"), nullptr);
  EXPECT_TRUE(ctld_->policy_warnings().empty());
  // A change the configuration no longer allows is dropped, with a warning, and the rest kept.
  SchedPolicy changed = QosPolicy();
  changed.qos.push_back(Qos{.name = "gold"});
  config_.scheduler.policy = std::make_shared<SchedPolicy>(changed);
  Open();
  ASSERT_EQ(ctld_->policy_warnings().size(), 1u);
  EXPECT_EQ(ctld_->policy_warnings()[0],
            "stored change 'add qos gold' no longer applies to muster.yaml: QOS 'gold' already exists; dropped");
  EXPECT_NE(ctld_->Policy().accounts.Find("team"), nullptr);
}

TEST_F(FairShareTest, RunningJobsAreChargedEveryCalcPeriodNotEveryTick) {
  // As Slurm's decay thread: usage accrues once a PriorityCalcPeriod (and when saved), in one
  // piece. Charged at every 10 s Tick instead, the pieces would each decay a little before the
  // refresh, and the total would fall short of 8 GPUs x 300 s (by about 0.4).
  config_.priority.calc_period_s = 300;
  config_.usage_save_s = 3600;
  Open();
  RegisterAll();
  const int64_t id = Submit({"-N", "2", "--gres=gpu:4"}, kHeavy);
  ctld_->Tick();  // refreshes (the first Tick does) and saves: nothing charged yet
  ASSERT_EQ(ctld_->ScheduleOnce(), 1);
  auto usage = [&] {
    for (const FairShareRow& r : ctld_->Shares()) {
      if (r.user == "4242") return r.raw_usage;
    }
    return -1.0;
  };
  for (int t = 10; t < 300; t += 10) {
    Pass(10);
    ctld_->Tick();
    ASSERT_DOUBLE_EQ(usage(), 0) << "at " << t << " s: fair share is as of the last refresh";
  }
  Pass(10);
  ctld_->Tick();
  EXPECT_DOUBLE_EQ(usage(), 8.0 * 300);
  EXPECT_EQ(Job(id).state, JobState::kRunning);
}

TEST_F(FairShareTest, AStoppingControllerSavesTheUsageToTheSecond) {
  RegisterAll();
  const int64_t id = Submit({"--gres=gpu:2"}, kHeavy);
  ASSERT_EQ(ctld_->ScheduleOnce(), 1);
  ctld_->Tick();  // saves (nothing charged yet)
  Pass(7);        // under the 30 s between saves: a Tick would not save
  ASSERT_TRUE(ctld_->JobExited(id, "n1", ExitReport{}, kAdmin).ok());  // charged 2 GPUs x 7 s
  ctld_->Tick();
  auto usage_after_restart = [&] {
    Open();
    ctld_->Tick();
    for (const FairShareRow& r : ctld_->Shares()) {
      if (r.user == "4242") return r.raw_usage;
    }
    return 0.0;  // no usage and no job: not listed
  };
  // Without a save at the stop, the last seconds of usage would be lost...
  EXPECT_NEAR(usage_after_restart(), 0, 1e-6);
  // ...with it, they are kept. (The same run again, this time saved before the restart.)
  const int64_t again = Submit({"--gres=gpu:2"}, kHeavy);
  ASSERT_EQ(ctld_->ScheduleOnce(), 1);
  ctld_->Tick();
  Pass(7);
  ASSERT_TRUE(ctld_->JobExited(again, "n1", ExitReport{}, kAdmin).ok());
  ASSERT_TRUE(ctld_->SaveUsage().ok());
  EXPECT_NEAR(usage_after_restart(), 2.0 * 7, 1e-3);
}

TEST_F(PolicyTest, APreemptionInProgressSurvivesAControllerRestart) {
  UsePolicy(QosPolicy());
  const int64_t victim = SubmitAs(kAlice, {"-N", "2", "--gres=gpu:4"});
  ctld_->ScheduleOnce();
  Pass(60);
  const int64_t urgent = SubmitAs(kBob, {"--gres=gpu:4"}, "high");
  ctld_->ScheduleOnce();
  ASSERT_EQ(Job(victim).state, JobState::kCompleting);
  // The controller restarts before the victim ends; its agents keep reporting it.
  Open();
  for (const Node& n : config_.cluster.nodes) ASSERT_TRUE(ctld_->Heartbeat(n.name, Running({victim}), kAdmin).ok());
  // Its SIGKILL was due 20 s after the SIGTERM: 10 s after that, it is sent again.
  agents_.signals.clear();
  Pass(31);
  ctld_->Tick();
  std::vector<FakeAgents::Sig> sent = SignalsFor(victim);
  ASSERT_EQ(sent.size(), 2u);  // both nodes of the gang
  EXPECT_EQ(sent[0].signal, SIGKILL);
  // It ends: requeued, as the preemption decided before the restart, and the urgent job runs.
  ASSERT_TRUE(ctld_->JobExited(victim, "n1", ExitReport{0, SIGKILL, false, "", 0}, kAdmin).ok());
  EXPECT_EQ(Job(victim).state, JobState::kPending);
  EXPECT_EQ(Job(victim).restart_count, 1);
  EXPECT_EQ(ctld_->ScheduleOnce(), 1);
  EXPECT_EQ(Job(urgent).state, JobState::kRunning);
}

TEST_F(PolicyTest, QosAccessMaxWallAsTheDefaultLimitAndNiceBounds) {
  SchedPolicy p = QosPolicy();
  p.qos[1].max_wall_s = 3600;  // normal
  Account team{.name = "team"};
  team.qos = {"normal"};       // its users may not name "high"
  p.accounts.accounts = {team};
  p.accounts.users = {{"1001", "team", 1}};
  UsePolicy(p);
  JobSpec s;
  EXPECT_TRUE(SetResourceOptions(s, {"-n", "1"}).ok());
  s.script = "#!/bin/sh\ntrue\n";
  s.qos = "high";
  EXPECT_EQ(ctld_->Submit(s, kBob).status().message(), "Invalid qos specification");
  EXPECT_TRUE(ctld_->Submit(s, kAlice).ok());  // no association restricts alice
  // No time limit given: normal's MaxWall becomes it (a job without one would wait for ever).
  s.qos = "";
  StatusOr<int64_t> id = ctld_->Submit(s, kBob);
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(Job(*id).time_limit_s, 3600);
  ctld_->ScheduleOnce();
  EXPECT_EQ(Job(*id).state, JobState::kRunning);
  s.nice = int64_t{1} << 40;
  EXPECT_EQ(ctld_->Submit(s, kBob).status().message(), "Invalid nice value: must be between -2147483645 and 2147483645");
}

TEST_F(PolicyTest, AVictimDoesNotStartBeforeItsPreemptor) {
  // Equal priorities (no QOS weight), and everything within one second: the victim, requeued,
  // ties with its preemptor and has the lower id. It must not take its GPUs back.
  UsePolicy(QosPolicy());
  const int64_t victim = SubmitAs(kAlice, {"-N", "2", "--gres=gpu:4"});
  ctld_->ScheduleOnce();
  const int64_t urgent = SubmitAs(kAlice, {"--gres=gpu:2"}, "high");
  ctld_->ScheduleOnce();
  ASSERT_EQ(Job(victim).state, JobState::kCompleting);
  ASSERT_TRUE(ctld_->JobExited(victim, "n1", ExitReport{0, SIGTERM, false, "", 0}, kAdmin).ok());
  ASSERT_EQ(Job(victim).priority, Job(urgent).priority);
  EXPECT_EQ(ctld_->ScheduleOnce(), 1);
  EXPECT_EQ(Job(urgent).state, JobState::kRunning);
  EXPECT_EQ(Job(victim).state, JobState::kPending);
  EXPECT_EQ(Job(victim).preemptions.size(), 1u);  // preempted once, not round after round
}


// SUSPEND: the victim stops where it stands, gives back its CPUs at once and
// keeps its memory and GPUs; its preemptor starts on them; once that ends, the victim resumes,
// and its clock (elapsed time, time limit) leaves the suspension out.
TEST_F(PolicyTest, SuspendStopsTheVictimAndResumesItAfterThePreemptor) {
  SchedPolicy p = QosPolicy();
  p.qos[1].has_preempt_mode = true;
  p.qos[1].preempt_mode = PreemptMode::kSuspend;  // normal
  UsePolicy(p);
  // Two 16-CPU jobs, one on each node (16 CPUs a node), each with a GPU and a 10-minute limit.
  const int64_t older = SubmitAs(kAlice, {"-c", "16", "--gres=gpu:1", "-t", "10"});
  ctld_->ScheduleOnce();
  Pass(60);
  const int64_t victim = SubmitAs(kAlice, {"-c", "16", "--gres=gpu:1", "-t", "10"});
  ctld_->ScheduleOnce();
  ASSERT_EQ(Job(victim).state, JobState::kRunning);
  const int64_t started = Job(victim).start_time;
  Pass(60);
  // A GPU job of QOS high would need GPUs suspending cannot free... there are free GPUs, but no
  // CPU: suspending frees CPUs, so the youngest is suspended, at once and without a grace.
  const int64_t urgent = SubmitAs(kBob, {"-c", "4", "--gres=gpu:1", "-t", "5"}, "high");
  EXPECT_EQ(ctld_->ScheduleOnce(), 0);
  JobRecord v = Job(victim);
  EXPECT_EQ(v.state, JobState::kSuspended);
  EXPECT_EQ(v.suspend_time, clock_.NowSeconds());
  EXPECT_EQ(v.preempted_by, urgent);
  ASSERT_EQ(v.preemptions.size(), 1u);
  EXPECT_EQ(v.preemptions[0].mode, "SUSPEND");
  ASSERT_EQ(SignalsFor(victim).size(), 1u);
  EXPECT_EQ(SignalsFor(victim)[0].signal, SIGSTOP);
  EXPECT_EQ(SignalsFor(victim)[0].why, "suspend");
  EXPECT_EQ(Job(older).state, JobState::kRunning);
  // The node shows its CPUs free (sinfo's CPUAlloc), its GPU and memory still held.
  const NodeAllocated held = ctld_->AllocatedByNode()[v.batch_host];
  EXPECT_EQ(held.cpus, 0);
  EXPECT_EQ(held.gpus, 1);
  // The preemptor starts next cycle, on the victim's node.
  EXPECT_EQ(ctld_->ScheduleOnce(), 1);
  EXPECT_EQ(Job(urgent).state, JobState::kRunning);
  EXPECT_EQ(Job(urgent).batch_host, v.batch_host);
  // Suspended for 4 minutes: no timeout meanwhile, though its 10 minutes since the start pass.
  for (int k = 0; k < 8; ++k) {
    Pass(30);
    ctld_->Tick();
    EXPECT_EQ(ctld_->ScheduleOnce(), 0);  // nor does it resume while its preemptor runs
  }
  EXPECT_EQ(Job(victim).state, JobState::kSuspended);
  ASSERT_TRUE(ctld_->JobExited(urgent, Job(urgent).batch_host, ExitReport{}, kAdmin).ok());
  // Its preemptor gone, it resumes, SIGCONT, with the 4 minutes it spent suspended kept apart.
  EXPECT_EQ(ctld_->ScheduleOnce(), 0);
  v = Job(victim);
  EXPECT_EQ(v.state, JobState::kRunning);
  EXPECT_EQ(v.suspend_time, 0);
  EXPECT_EQ(v.suspended_s, 240);
  EXPECT_EQ(SignalsFor(victim).back().signal, SIGCONT);
  EXPECT_EQ(SignalsFor(victim).back().why, "resume");
  EXPECT_EQ(ctld_->AllocatedByNode()[v.batch_host].cpus, 16);
  // Its limit ends 10 minutes of running after its start: 4 minutes later than without the
  // suspension. The older job, never suspended, timed out on time meanwhile.
  Pass(started + 600 + 240 - 1 - clock_.NowSeconds());
  ctld_->Tick();
  EXPECT_EQ(Job(victim).state, JobState::kRunning);
  EXPECT_EQ(Job(older).state, JobState::kCompleting);
  EXPECT_EQ(Job(older).ending, "timeout");
  Pass(1);
  ctld_->Tick();
  EXPECT_EQ(Job(victim).state, JobState::kCompleting);
  EXPECT_EQ(Job(victim).ending, "timeout");
  // All of it survives a restart.
  Open();
  EXPECT_EQ(Job(victim).suspended_s, 240);
  EXPECT_EQ(Job(victim).preemptions.at(0).mode, "SUSPEND");
}

TEST_F(PolicyTest, ASuspendedJobCancelledEndsWithoutTakingItsCpusBack) {
  SchedPolicy p = QosPolicy();
  p.qos[1].has_preempt_mode = true;
  p.qos[1].preempt_mode = PreemptMode::kSuspend;
  UsePolicy(p);
  const int64_t a = SubmitAs(kAlice, {"-c", "16"});
  const int64_t b = SubmitAs(kAlice, {"-c", "16"});
  ctld_->ScheduleOnce();
  Pass(60);
  const int64_t urgent = SubmitAs(kBob, {"-c", "16"}, "high");
  ctld_->ScheduleOnce();
  const int64_t victim = Job(a).state == JobState::kSuspended ? a : b;
  ASSERT_EQ(Job(victim).state, JobState::kSuspended);
  ASSERT_EQ(ctld_->ScheduleOnce(), 1);  // the preemptor holds all 16 CPUs of that node
  ASSERT_EQ(Job(urgent).batch_host, Job(victim).batch_host);
  // Cancelled while suspended: COMPLETING (the agent lets it run to take the SIGTERM), and its
  // CPUs are not counted twice on the node the preemptor now holds.
  ASSERT_TRUE(ctld_->Cancel(victim, 0, kAlice).ok());
  EXPECT_EQ(Job(victim).state, JobState::kCompleting);
  EXPECT_EQ(SignalsFor(victim).back().signal, SIGTERM);
  EXPECT_EQ(ctld_->AllocatedByNode()[Job(victim).batch_host].cpus, 16);
  EXPECT_EQ(ctld_->ScheduleOnce(), 0);
  Pass(30);
  ASSERT_TRUE(ctld_->JobExited(victim, Job(victim).batch_host, ExitReport{0, SIGTERM, false, "", 0}, kAdmin).ok());
  EXPECT_EQ(Job(victim).state, JobState::kCancelled);
  EXPECT_EQ(Job(victim).suspended_s, 30);
}
}  // namespace
}  // namespace muster

namespace muster::ctld_test {
namespace {

// Least attained service through the controller: a job's rank falls as it runs, a requeued job
// keeps the service it had, and a new job stops the one that has had the most.
TEST_F(PolicyTest, LeastAttainedServicePreemptsTheJobThatHasHadMost) {
  config_.priority.order = JobOrderRegistry::Create("least-attained");
  config_.priority.las_queue_limits_gpu_s = {3600};  // one GPU-hour
  SchedPolicy p;
  p.preemption.by_priority = true;
  p.preemption.grace_time_s = 0;
  UsePolicy(p);  // 2 nodes x 4 GPUs
  const int64_t big = SubmitAs(kAlice, {"--gpus=8"});
  ASSERT_EQ(ctld_->ScheduleOnce(), 1);
  EXPECT_EQ(Job(big).priority, 1);  // nothing attained yet: the first queue
  Pass(400);  // 8 GPUs x 400 s = 3200 GPU-seconds: still in the first queue
  const int64_t small = SubmitAs(kBob, {"--gpus=1"});
  EXPECT_EQ(ctld_->ScheduleOnce(), 0);
  EXPECT_EQ(Job(big).state, JobState::kRunning) << "equal ranks: first come, first served";
  EXPECT_EQ(Job(small).reason, "Resources");
  Pass(100);  // 4000 GPU-seconds: the second queue
  EXPECT_EQ(ctld_->ScheduleOnce(), 0);
  JobRecord b = Job(big);
  EXPECT_EQ(b.state, JobState::kCompleting);
  EXPECT_EQ(b.preempted_by, small);
  EXPECT_EQ(b.preempt_reason, "priority 1 preempts priority 0");
  ASSERT_TRUE(ctld_->JobExited(big, b.batch_host, ExitReport{0, SIGTERM}, kAdmin).ok());
  b = Job(big);
  EXPECT_EQ(b.state, JobState::kPending);
  EXPECT_EQ(b.run_before_s, 500);  // what it ran is kept
  EXPECT_EQ(ctld_->ScheduleOnce(), 1);
  EXPECT_EQ(Job(small).state, JobState::kRunning);
  EXPECT_EQ(Job(big).priority, 0) << "it waits in the second queue";
  // Under a service order Tick leaves the fair-share tree and the factors to sshare and sprio,
  // which refresh them when asked: the big job's 500 s on 8 GPUs, and small's time so far.
  Pass(10);
  ctld_->Tick();
  EXPECT_EQ(Job(big).priority, 0) << "Tick keeps the waiting job's rank";
  std::map<std::string, double> usage;
  for (const FairShareRow& r : ctld_->Shares()) {
    if (!r.user.empty()) usage[r.user] = r.raw_usage;
  }
  ASSERT_EQ(usage.count(Job(big).user), 1u);
  EXPECT_NEAR(usage[Job(big).user], 8.0 * 500, 1.0);  // (decayed a little: half-life of a week)
  EXPECT_NEAR(usage[Job(small).user], 1.0 * 10, 0.01);
  std::vector<Controller::JobPriority> prio = ctld_->PendingPriorities();
  ASSERT_EQ(prio.size(), 1u);
  EXPECT_EQ(prio[0].job_id, big);
  EXPECT_EQ(prio[0].priority, 0);
  EXPECT_LT(prio[0].factors.fairshare, 1.0) << "alice used the most";
  // A restart keeps the service it attained.
  Open();
  EXPECT_EQ(Job(big).run_before_s, 500);
}

// scontrol show config names the configured order: Slurm's plugin for multifactor, Muster's own
// for the others.
TEST_F(PolicyTest, PriorityTypeNamesTheConfiguredOrder) {
  const std::pair<const char*, const char*> rows[] = {{"multifactor", "priority/multifactor"},
                                                      {"least-attained", "muster/least-attained"},
                                                      {"shortest-remaining", "muster/shortest-remaining"}};
  for (const auto& [order, type] : rows) {
    config_.priority.order = JobOrderRegistry::Create(order);
    Open();
    std::string shown;
    for (const auto& [key, value] : ctld_->SlurmConfig()) {
      if (key == "PriorityType") shown = value;
    }
    EXPECT_EQ(shown, type) << order;
  }
}

}  // namespace
}  // namespace muster::ctld_test
