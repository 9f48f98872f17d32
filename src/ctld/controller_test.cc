// Controller state machines with a fake agent fleet, a manual clock and a real SQLite store
// (fixtures in controller_test_fixture.h).
#include "ctld/controller.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "ctld/controller_test_fixture.h"
#include "model/slurm_errors.h"
#include "sched/cluster_builder.h"

namespace muster {
namespace {

using namespace ctld_test;  // NOLINT(build/namespaces)

TEST_F(ControllerTest, SubmitRunComplete) {
  RegisterAll();
  const int64_t id = Submit({"--gres=gpu:2"});
  EXPECT_EQ(Job(id).state, JobState::kPending);
  EXPECT_EQ(ctld_->ScheduleOnce(), 1);
  JobRecord j = Job(id);
  EXPECT_EQ(j.state, JobState::kRunning);
  EXPECT_EQ(j.batch_host, "n1");
  EXPECT_EQ(WholeGpus(j.allocation.at(0)), (std::vector<int>{0, 1}));
  ASSERT_EQ(agents_.launched.size(), 1u);
  EXPECT_EQ(agents_.launched[0], std::make_pair(std::string("n1"), id));
  // A gang: every node hears of it (steps run there), the batch host first.
  const int64_t gang = Submit({"-N", "2", "--gres=gpu:1"});
  ctld_->ScheduleOnce();
  ASSERT_EQ(agents_.launched.size(), 3u);
  EXPECT_EQ(agents_.launched[1], std::make_pair(std::string("n1"), gang));
  EXPECT_EQ(agents_.launched[2], std::make_pair(std::string("n2"), gang));
  ASSERT_TRUE(ctld_->JobExited(gang, "n1", ExitReport{}, kAdmin).ok());
  clock_.AdvanceSeconds(5);
  ASSERT_TRUE(ctld_->JobExited(id, "n1", ExitReport{0, 0, false, ""}, kAdmin).ok());
  j = Job(id);
  EXPECT_EQ(j.state, JobState::kCompleted);
  EXPECT_EQ(j.end_time - j.start_time, 5);
  // Non-zero exit -> FAILED with the code kept.
  const int64_t id2 = Submit({"-n", "1"});
  ctld_->ScheduleOnce();
  ASSERT_TRUE(ctld_->JobExited(id2, Job(id2).batch_host, ExitReport{3, 0, false, ""}, kAdmin).ok());
  EXPECT_EQ(Job(id2).state, JobState::kFailed);
  EXPECT_EQ(Job(id2).exit_code, 3);
}

// The controller learns the workload from what is submitted and places a one-node job where it
// leaves the least fragment the coming jobs could not use: with 3-GPU jobs expected, a 1-GPU job
// goes to the idle 4-GPU node (3 stay usable), not, as best fit would put it, beside a 1-GPU job
// (leaving 2 that no 3-GPU job can use).
TEST_F(ControllerTest, PlacesByTheWorkloadItLearnt) {
  for (const bool learn : {true, false}) {
    config_.scheduler.placement = PlacementScorerRegistry::Create(learn ? "learned" : "bestfit");
    TearDown();
    SetUp();  // (keeps config_.scheduler.placement)
    RegisterAll();
    const int64_t first = Submit({"--gres=gpu:1"});
    ctld_->ScheduleOnce();
    ASSERT_EQ(Job(first).batch_host, "n1");
    JobSpec held;  // expected work, held so that it stays waiting
    EXPECT_TRUE(SetResourceOptions(held, {"--gres=gpu:3"}).ok());
    held.script = "#!/bin/sh\ntrue\n";
    held.hold = true;
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(ctld_->Submit(held, kAlice).ok());
    const int64_t small = Submit({"--gres=gpu:1"});
    ctld_->ScheduleOnce();
    ASSERT_EQ(Job(small).state, JobState::kRunning);
    EXPECT_EQ(Job(small).batch_host, learn ? "n2" : "n1") << "learn " << learn;
  }
}

TEST_F(ControllerTest, SubmissionErrorsUseSlurmMessages) {
  JobSpec s;
  s.script = "#!/bin/sh\ntrue\n";
  std::string user_msg = "stale";
  EXPECT_TRUE(SetResourceOptions(s, {"--gres=gpu:9"}).ok());
  EXPECT_EQ(ctld_->Submit(s, kAlice, &user_msg).status().message(), "Requested node configuration is not available");
  EXPECT_EQ(user_msg, "") << "GPUs, not memory, are what no node has";
  EXPECT_TRUE(SetResourceOptions(s, {"-p", "nosuch"}).ok());
  EXPECT_EQ(ctld_->Submit(s, kAlice).status().message(), "Invalid partition name specified");
  EXPECT_TRUE(SetResourceOptions(s, {"--mem=999999"}).ok());
  EXPECT_EQ(ctld_->Submit(s, kAlice, &user_msg).status().message(), "Requested node configuration is not available");
  EXPECT_EQ(user_msg, "Memory specification can not be satisfied") << "Slurm's line before the error";
  EXPECT_TRUE(SetResourceOptions(s, {"--mem=999999", "--gres=gpu:9"}).ok());
  EXPECT_EQ(ctld_->Submit(s, kAlice, &user_msg).status().message(), "Requested node configuration is not available");
  EXPECT_EQ(user_msg, "") << "not memory alone";
  EXPECT_TRUE(SetResourceOptions(s, {}).ok());
  EXPECT_EQ(ctld_->Submit(s, kAdmin).status().code(), StatusCode::kPermissionDenied);  // root
  EXPECT_EQ(ctld_->Submit(s, Caller{}).status().code(), StatusCode::kUnauthenticated);
  s.script = "";
  EXPECT_EQ(ctld_->Submit(s, kAlice).status().message(), "Batch script is empty!");
  EXPECT_TRUE(ctld_->ListJobs().empty());  // nothing half-accepted
}

TEST_F(ControllerTest, EachSubmissionIsJudgedOnItsOwnShape) {
  // The check against the idle cluster keeps its scheduler between submissions: what it found
  // for one shape must not answer for the next.
  JobSpec s;
  s.script = "#!/bin/sh\ntrue\n";
  for (int round = 0; round < 2; ++round) {
    EXPECT_TRUE(SetResourceOptions(s, {"--gres=gpu:9"}).ok());
    EXPECT_EQ(ctld_->Submit(s, kAlice).status().message(), "Requested node configuration is not available") << round;
    EXPECT_TRUE(SetResourceOptions(s, {"--gres=gpu:1"}).ok());
    EXPECT_TRUE(ctld_->Submit(s, kAlice).ok()) << round;
    EXPECT_TRUE(SetResourceOptions(s, {"-N", "3"}).ok());
    EXPECT_EQ(ctld_->Submit(s, kAlice).status().message(), "Requested node configuration is not available") << round;
  }
  EXPECT_EQ(ctld_->ListJobs().size(), 2u);
}

TEST_F(ControllerTest, WaitsWithReasonsUntilNodesRegister) {
  const int64_t id = Submit({"--gres=gpu:1"});  // accepted: fits the configured nodes
  EXPECT_EQ(ctld_->ScheduleOnce(), 0);
  EXPECT_EQ(Job(id).reason, "ReqNodeNotAvail");
  RegisterAll();
  EXPECT_EQ(ctld_->ScheduleOnce(), 1);
}

TEST_F(ControllerTest, CancelPendingAndRunningAndPermissions) {
  RegisterAll();
  const int64_t big = Submit({"-N", "2", "--gres=gpu:4"});
  const int64_t waiting = Submit({"-N", "2", "--gres=gpu:4"});
  ctld_->ScheduleOnce();
  EXPECT_EQ(Job(big).state, JobState::kRunning);
  EXPECT_EQ(Job(waiting).reason, "Resources");
  // Bob may not cancel Alice's jobs; an admin may.
  EXPECT_EQ(ctld_->Cancel(waiting, 0, kBob).code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(Job(waiting).state, JobState::kPending);
  EXPECT_TRUE(ctld_->Cancel(waiting, 0, kAlice).ok());
  EXPECT_EQ(Job(waiting).state, JobState::kCancelled);
  // Running: SIGTERM to every node of the gang, with SIGKILL after kill_wait; CANCELLED on exit.
  EXPECT_TRUE(ctld_->Cancel(big, 0, kAdmin).ok());
  EXPECT_EQ(Job(big).state, JobState::kCompleting);
  ASSERT_EQ(agents_.signals.size(), 2u);
  EXPECT_EQ(agents_.signals[0].signal, SIGTERM);
  EXPECT_EQ(agents_.signals[0].why, "cancel");
  ASSERT_TRUE(ctld_->JobExited(big, "n1", ExitReport{0, SIGTERM, false, ""}, kAdmin).ok());
  EXPECT_EQ(Job(big).state, JobState::kCancelled);
  EXPECT_EQ(ctld_->Cancel(12345, 0, kAlice).code(), StatusCode::kNotFound);
  // Only agents (admins) report exits and register nodes.
  EXPECT_EQ(ctld_->JobExited(big, "n1", ExitReport{}, kAlice).code(), StatusCode::kPermissionDenied);
}

TEST_F(ControllerTest, TimeLimitEndsInTimeout) {
  RegisterAll();
  const int64_t id = Submit({"-p", "debug", "-t", "5"});
  ctld_->ScheduleOnce();
  for (int s = 0; s < 299; s += 10) {
    clock_.AdvanceSeconds(std::min(10, 299 - s));
    ASSERT_TRUE(ctld_->Heartbeat("n1", Running({id}), kAdmin).ok());
    ctld_->Tick();
  }
  EXPECT_TRUE(agents_.signals.empty());
  EXPECT_EQ(Job(id).state, JobState::kRunning);
  clock_.AdvanceSeconds(1);
  ctld_->Tick();
  ASSERT_EQ(agents_.signals.size(), 1u);
  EXPECT_EQ(agents_.signals[0].why, "timeout");
  ASSERT_TRUE(ctld_->JobExited(id, "n1", ExitReport{0, SIGTERM, false, ""}, kAdmin).ok());
  EXPECT_EQ(Job(id).state, JobState::kTimeout);
}

// sbatch --signal=B:USR1@60: the signal goes out once, 60 s before the limit, to the batch shell only.
TEST_F(ControllerTest, WarningSignalBeforeTheTimeLimit) {
  RegisterAll();
  JobSpec s;
  EXPECT_TRUE(SetResourceOptions(s, {"-p", "debug", "-t", "5"}).ok());
  s.script = "#!/bin/sh\ntrue\n";
  s.warn_signal = SIGUSR1;
  s.warn_time_s = 60;
  s.warn_batch_only = true;
  StatusOr<int64_t> id = ctld_->Submit(s, kAlice);
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  ctld_->ScheduleOnce();
  clock_.AdvanceSeconds(239);
  ASSERT_TRUE(ctld_->Heartbeat("n1", Running({*id}), kAdmin).ok());
  ctld_->Tick();
  EXPECT_TRUE(agents_.signals.empty());
  clock_.AdvanceSeconds(1);
  ctld_->Tick();
  ASSERT_EQ(agents_.signals.size(), 1u);
  EXPECT_EQ(agents_.signals[0].signal, SIGUSR1);
  EXPECT_EQ(agents_.signals[0].why, "signal-batch");  // B: the batch shell alone
  EXPECT_TRUE(Job(*id).warn_sent);
  clock_.AdvanceSeconds(10);
  ctld_->Tick();
  EXPECT_EQ(agents_.signals.size(), 1u) << "once per run";
  s.warn_signal = 99;
  EXPECT_EQ(ctld_->Submit(s, kAlice).status().message(), "Invalid --signal specification");
}

// sbatch --test-only: now on free nodes, later (the running job's end) on busy ones; nothing stored.
TEST_F(ControllerTest, TestOnlySaysWhenAndWhereWithoutSubmitting) {
  RegisterAll();
  JobSpec s;
  EXPECT_TRUE(SetResourceOptions(s, {"-p", "debug", "-t", "5"}).ok());
  s.script = "#!/bin/sh\ntrue\n";
  StatusOr<WillRun> w = ctld_->TestOnly(s, kAlice);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->start_time, clock_.NowSeconds());
  EXPECT_EQ(w->nodes, "n1");
  EXPECT_EQ(w->partition, "debug");
  EXPECT_GE(w->cpus, 1);
  const size_t jobs = ctld_->ListJobs(JobQuery{}).size();
  EXPECT_TRUE(SetResourceOptions(s, {"-p", "debug", "-t", "5", "--exclusive"}).ok());
  const int64_t busy = Submit(s.submit_args);
  ctld_->ScheduleOnce();
  ASSERT_EQ(Job(busy).state, JobState::kRunning);
  StatusOr<WillRun> later = ctld_->TestOnly(s, kAlice);
  ASSERT_TRUE(later.ok()) << later.status().ToString();
  EXPECT_EQ(later->start_time, Job(busy).start_time + 300) << "when the exclusive job's limit ends";
  EXPECT_EQ(busy, w->job_id) << "test-only shows the next submission's id and takes none";
  EXPECT_EQ(later->job_id, busy + 1);
  EXPECT_EQ(ctld_->ListJobs(JobQuery{}).size(), jobs + 1) << "only the real submission";
  EXPECT_TRUE(SetResourceOptions(s, {"--gres=gpu:99"}).ok());
  EXPECT_EQ(ctld_->TestOnly(s, kAlice).status().message(), "Requested node configuration is not available");
}

TEST_F(ControllerTest, OomReported) {
  RegisterAll();
  const int64_t id = Submit({"--mem=1G"});
  ctld_->ScheduleOnce();
  ASSERT_TRUE(ctld_->JobExited(id, "n1", ExitReport{0, SIGKILL, true, ""}, kAdmin).ok());
  EXPECT_EQ(Job(id).state, JobState::kOutOfMemory);
}

// A silent node is DOWN after heartbeat_timeout (30 s here), but its job is given up only once
// the node's lease (30 s) has run out and its shepherds have ended the job (kill_wait 10 s), plus a
// margin: never does the job run in two places.
TEST_F(ControllerTest, SilentNodeGoesDownAndItsJobIsRequeuedOnceItsLeaseIsOver) {
  RegisterAll();
  const int64_t id = Submit({"--gres=gpu:4"});
  ctld_->ScheduleOnce();
  EXPECT_EQ(Job(id).batch_host, "n1");
  StatusOr<NodeOrders> orders = ctld_->Heartbeat("n1", Running({id}), kAdmin);
  ASSERT_TRUE(orders.ok());
  EXPECT_EQ(orders->lease_s, 30);
  clock_.AdvanceSeconds(20);
  ASSERT_TRUE(ctld_->Heartbeat("n2", {}, kAdmin).ok());
  clock_.AdvanceSeconds(11);
  // (n2 answers on: were both silent, it would be the controller's own fault: controller_outage_test.cc)
  ASSERT_TRUE(ctld_->Heartbeat("n2", {}, kAdmin).ok());
  ctld_->Tick();
  std::vector<NodeRecord> nodes = ctld_->ListNodes();
  EXPECT_EQ(nodes[0].node.state, NodeState::kDown);
  EXPECT_EQ(nodes[0].node.reason, "Not responding");
  EXPECT_NE(nodes[1].node.state, NodeState::kDown);
  EXPECT_EQ(Job(id).state, JobState::kRunning) << "its lease (30 s) and its kill wait are not over";
  clock_.AdvanceSeconds(30 + 10 + kLeaseMarginS - 31 - 1);
  ASSERT_TRUE(ctld_->Heartbeat("n2", {}, kAdmin).ok());
  ctld_->Tick();
  EXPECT_EQ(Job(id).state, JobState::kRunning);
  clock_.AdvanceSeconds(1);
  agents_.signals.clear();
  ctld_->Tick();
  JobRecord j = Job(id);
  EXPECT_EQ(j.state, JobState::kPending);
  EXPECT_EQ(j.restart_count, 1);
  // The lost node is not called (its lease ended the run; a call would stall the loop until the
  // client's timeout).
  for (const FakeAgents::Sig& s : agents_.signals) EXPECT_NE(s.node, "n1") << s.why;
  EXPECT_EQ(ctld_->ScheduleOnce(), 1);
  EXPECT_EQ(Job(id).batch_host, "n2");
}

TEST_F(ControllerTest, DrainStopsNewWorkAndNeedsAdmin) {
  RegisterAll();
  EXPECT_EQ(ctld_->UpdateNode("n1", "DRAIN", "maintenance", kAlice).code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(ctld_->UpdateNode("n1", "DRAIN", "", kAdmin).code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(ctld_->UpdateNode("n1", "DRAIN", "maintenance", kAdmin).ok());
  const int64_t a = Submit({"--gres=gpu:4"});
  const int64_t b = Submit({"--gres=gpu:4"});
  ctld_->ScheduleOnce();
  EXPECT_EQ(Job(a).batch_host, "n2");
  EXPECT_EQ(Job(b).state, JobState::kPending);
  ASSERT_TRUE(ctld_->UpdateNode("n1", "RESUME", "", kAdmin).ok());
  ctld_->ScheduleOnce();
  EXPECT_EQ(Job(b).batch_host, "n1");
}

TEST_F(ControllerTest, ConfiguredDownAndFutureNodesStayOutUntilResumed) {
  // slurm.conf's State=DOWN Reason=... and State=FUTURE survive the agents' registration (an
  // agent coming back only revives a node that had stopped answering).
  config_.cluster.nodes[0].state = NodeState::kDown;
  config_.cluster.nodes[0].reason = "bad fan";
  config_.cluster.nodes[1].state = NodeState::kFuture;
  Open();
  RegisterAll();
  auto state_of = [&](const std::string& name) {
    for (const NodeRecord& n : ctld_->ListNodes()) {
      if (n.node.name == name) return n.node;
    }
    return Node{};
  };
  EXPECT_EQ(state_of("n1").state, NodeState::kDown);
  EXPECT_EQ(state_of("n1").reason, "bad fan");
  EXPECT_EQ(state_of("n2").state, NodeState::kFuture);
  const int64_t a = Submit({"--gres=gpu:1"});
  ctld_->ScheduleOnce();
  EXPECT_EQ(Job(a).state, JobState::kPending);
  // A FUTURE node that never heartbeats again is not declared "Not responding".
  clock_.AdvanceSeconds(config_.heartbeat_timeout_s + 1);
  ctld_->Tick();
  EXPECT_EQ(state_of("n2").state, NodeState::kFuture);
  ASSERT_TRUE(ctld_->UpdateNode("n2", "RESUME", "", kAdmin).ok());
  EXPECT_EQ(state_of("n2").state, NodeState::kIdle);
  ctld_->ScheduleOnce();
  EXPECT_EQ(Job(a).batch_host, "n2");
  ASSERT_TRUE(ctld_->UpdateNode("n1", "RESUME", "", kAdmin).ok());
  EXPECT_EQ(state_of("n1").state, NodeState::kIdle);
  EXPECT_EQ(state_of("n1").reason, "");
}

TEST_F(ControllerTest, RestartRecoversEverything) {
  RegisterAll();
  const int64_t run = Submit({"--gres=gpu:4"});
  const int64_t run2 = Submit({"--gres=gpu:4"});
  const int64_t wait = Submit({"--gres=gpu:4"});
  ctld_->ScheduleOnce();
  Open();  // a new controller on the same store, as after kill -9
  EXPECT_EQ(Job(run).state, JobState::kRunning);
  EXPECT_EQ(Job(run2).state, JobState::kRunning);
  EXPECT_EQ(Job(wait).state, JobState::kPending);
  // Agents re-register with their running jobs: nothing changes; n2 lost its job: requeued.
  NodeRecord n1;
  n1.node = config_.cluster.nodes[0];
  ASSERT_TRUE(ctld_->RegisterNode(n1, Running({run}), kAdmin).ok());
  NodeRecord n2;
  n2.node = config_.cluster.nodes[1];
  ASSERT_TRUE(ctld_->RegisterNode(n2, {}, kAdmin).ok());
  EXPECT_EQ(Job(run).state, JobState::kRunning);
  // Started a moment ago: its launch may still be on its way to n2, so it is not lost yet.
  EXPECT_EQ(Job(run2).state, JobState::kRunning);
  clock_.AdvanceSeconds(kLaunchGraceS);
  ASSERT_TRUE(ctld_->Heartbeat("n1", Running({run}), kAdmin).ok());
  ASSERT_TRUE(ctld_->Heartbeat("n2", {}, kAdmin).ok());
  EXPECT_EQ(Job(run).state, JobState::kRunning);
  EXPECT_EQ(Job(run2).state, JobState::kPending);
  // New ids never reuse old ones.
  EXPECT_GT(Submit({}), wait);
}

TEST_F(ControllerTest, JobsThatPreemptedEachOtherInTurnDoNotWaitForEachOtherForEver) {
  // Each was requeued for the other (as a least-attained-service order can do: A stops B, runs,
  // falls to a lower queue and is stopped by B, ...). Waiting for one's preemptor to start first
  // must not make both wait for ever.
  const int64_t a = Submit({"--gres=gpu:1"});
  const int64_t b = Submit({"--gres=gpu:1"});
  JobRecord ja = Job(a), jb = Job(b);
  ja.preempted_by = b;
  jb.preempted_by = a;
  ja.restart_count = jb.restart_count = 1;
  ASSERT_TRUE(store_->SaveJob(ja).ok());
  ASSERT_TRUE(store_->SaveJob(jb).ok());
  Open();
  RegisterAll();
  EXPECT_EQ(ctld_->ScheduleOnce(), 2);
  EXPECT_EQ(Job(a).state, JobState::kRunning);
  EXPECT_EQ(Job(b).state, JobState::kRunning);
}

TEST_F(ControllerTest, AJobPreemptedForAWaitingOneWaitsForItToStart) {
  // The rule the test above bounds: c, stopped for d, does not take back the GPUs d waits for,
  // though it came first.
  const int64_t c = Submit({"--gres=gpu:4"});
  const int64_t d = Submit({"--gpus=8"});  // both nodes
  JobRecord jc = Job(c);
  jc.preempted_by = d;
  jc.restart_count = 1;
  ASSERT_TRUE(store_->SaveJob(jc).ok());
  Open();
  RegisterAll();
  EXPECT_EQ(ctld_->ScheduleOnce(), 1);
  EXPECT_EQ(Job(d).state, JobState::kRunning);
  EXPECT_EQ(Job(c).state, JobState::kPending);
  EXPECT_EQ(Job(c).reason, "Priority");
}

// A launch that got no answer may have started the run, or not: the job stays put until the node
// says (its report names the run, or does not once a launch could have arrived). The lost one is
// requeued as run 1, but never started: a lost launch, not a restart (Restarts=0), where Slurm
// counts one (restart_cnt++ in _job_complete's requeue of a batch launch its agent gave up on).
// More in controller_restarts_test.cc.
TEST_F(ControllerTest, ALaunchWithoutAnAnswerIsSettledByTheNodesNextReport) {
  RegisterAll();
  agents_.launch_error = Status(StatusCode::kUnavailable, "POST /v1/launch on unix:/nowhere/n1: timed out");
  const int64_t started = Submit({"--gres=gpu:4"});
  const int64_t missing = Submit({"--gres=gpu:4"});
  EXPECT_EQ(ctld_->ScheduleOnce(), 0);
  EXPECT_EQ(Job(started).state, JobState::kRunning);
  EXPECT_EQ(Job(missing).state, JobState::kRunning);
  for (const NodeRecord& n : ctld_->ListNodes()) EXPECT_FALSE(n.node.drain);
  const std::string h1 = Job(started).batch_host, h2 = Job(missing).batch_host;
  clock_.AdvanceSeconds(kLaunchGraceS);
  ASSERT_TRUE(ctld_->Heartbeat(h1, Running({started}), kAdmin).ok());  // it did start there
  ASSERT_TRUE(ctld_->Heartbeat(h2, {}, kAdmin).ok());                  // it did not
  EXPECT_EQ(Job(started).state, JobState::kRunning);
  EXPECT_EQ(Job(started).restart_count, 0);
  EXPECT_EQ(Job(missing).state, JobState::kPending);
  EXPECT_EQ(Job(missing).restart_count, 1);
  EXPECT_EQ(Job(missing).lost_launches, 1);
  EXPECT_EQ(Restarts(Job(missing)), 0);
}

// A node that cannot launch a job (its fault) is drained with the agent's words, and the job is
// requeued held, as Slurm's "launch failed requeued held", until its user releases it; it does not
// wait for ever behind a reason that says nothing.
// A signal (scancel -s) for a job not started, or whose launch is under way, is refused with
// Slurm's words, which scancel retries; once the launch has returned, it reaches the job's nodes.
TEST_F(ControllerTest, SignalsWaitForTheLaunch) {
  RegisterAll();
  const int64_t id = Submit({"-n", "1"});
  Status pending = ctld_->Cancel(id, SIGUSR1, kAlice, "steps");
  EXPECT_EQ(pending.message(), "Job is pending execution");
  EXPECT_TRUE(IsTransitional(pending));
  Status during = Status::Ok();
  agents_.during_launch = [&](const JobRecord& j) { during = ctld_->Cancel(j.id, SIGUSR1, kAlice, "steps"); };
  ASSERT_EQ(ctld_->ScheduleOnce(), 1);
  agents_.during_launch = nullptr;
  EXPECT_EQ(during.message(), "Job can not be altered now, try again later");
  EXPECT_TRUE(IsTransitional(during));
  ASSERT_TRUE(ctld_->Cancel(id, SIGUSR1, kAlice, "steps").ok());
  ASSERT_EQ(agents_.signals.size(), 1u);
  EXPECT_EQ(agents_.signals[0].signal, SIGUSR1);
  EXPECT_FALSE(IsTransitional(ctld_->Cancel(id, 0, kBob, "full"))) << "not another user's";
  const int64_t waiting = Submit({"-n", "1"});  // no pass runs: it waits
  ASSERT_TRUE(ctld_->Cancel(waiting, SIGKILL, kAlice, "full").ok()) << "SIGKILL cancels a waiting job";
  EXPECT_EQ(Job(waiting).state, JobState::kCancelled);
}

// (Run 1 next, but Restarts=0: the launch never started, a lost launch; slurmctld's
// _job_requeue_op counts slurmd's JOB_LAUNCH_FAILED requeue as a restart.)
TEST_F(ControllerTest, LaunchFailureRequeuesHeldAndDrains) {
  RegisterAll();
  agents_.fail_launch = true;
  const int64_t id = Submit({"--gres=gpu:1"});
  EXPECT_EQ(ctld_->ScheduleOnce(), 0);
  JobRecord j = Job(id);
  EXPECT_EQ(j.state, JobState::kPending);
  EXPECT_TRUE(j.held);
  EXPECT_EQ(j.reason, "launch failed requeued held");
  EXPECT_EQ(j.restart_count, 1);
  EXPECT_EQ(j.lost_launches, 1);
  EXPECT_EQ(Restarts(j), 0);
  const NodeRecord drained = ctld_->ListNodes()[0];
  EXPECT_TRUE(drained.node.drain);
  EXPECT_EQ(j.reason_detail, "launch failed on " + drained.node.name + ": cgroup: cannot create job_1");
  EXPECT_EQ(drained.node.reason, "launch failed: cgroup: cannot create job_1");
  agents_.fail_launch = false;
  EXPECT_EQ(ctld_->ScheduleOnce(), 0) << "held: it waits for its release";
  EXPECT_EQ(Job(id).reason, "launch failed requeued held") << "the pass keeps a held job's reason";
  EXPECT_EQ(ctld_->Hold(id, false, kBob).code(), StatusCode::kPermissionDenied) << "not another user's";
  ASSERT_TRUE(ctld_->Hold(id, false, kAlice).ok()) << "its user releases it";
  EXPECT_EQ(ctld_->ScheduleOnce(), 1);
  j = Job(id);
  EXPECT_EQ(j.state, JobState::kRunning);
  EXPECT_NE(j.batch_host, drained.node.name) << "not on the drained node";
}

// With launch_failure: requeue, the job goes back to the queue and runs on another node at once.
TEST_F(ControllerTest, LaunchFailureRequeuesToRunElsewhereWhenTheClusterSaysSo) {
  config_.hold_on_launch_failure = false;
  Open();
  RegisterAll();
  agents_.fail_launch = true;
  const int64_t id = Submit({"--gres=gpu:1"});
  EXPECT_EQ(ctld_->ScheduleOnce(), 0);
  EXPECT_FALSE(Job(id).held);
  EXPECT_EQ(Job(id).state, JobState::kPending);
  agents_.fail_launch = false;
  EXPECT_EQ(ctld_->ScheduleOnce(), 1);
  EXPECT_EQ(Job(id).state, JobState::kRunning);
}

// One user's bad path fails that user's job and drains nothing: the next job runs on the node.
TEST_F(ControllerTest, ALaunchFailedByTheJobFailsItAndLeavesTheNodeUp) {
  RegisterAll();
  agents_.launch_error = InvalidArgument("Could not open stdout file /root/x: Permission denied");
  const int64_t id = Submit({"--gres=gpu:1"});
  EXPECT_EQ(ctld_->ScheduleOnce(), 0);
  const JobRecord j = Job(id);
  EXPECT_EQ(j.state, JobState::kFailed);
  EXPECT_EQ(j.reason, "JobLaunchFailure");
  EXPECT_EQ(j.reason_detail, "Could not open stdout file /root/x: Permission denied");
  EXPECT_EQ(j.exit_code, 0);
  EXPECT_EQ(j.exit_signal, kLaunchFailureSignal);
  EXPECT_EQ(j.restart_count, 0) << "not requeued to fail on the next node";
  for (const NodeRecord& n : ctld_->ListNodes()) EXPECT_FALSE(n.node.drain) << n.node.name;
  agents_.launch_error = Status::Ok();
  const int64_t next = Submit({"--gres=gpu:4"});
  EXPECT_EQ(ctld_->ScheduleOnce(), 1);
  EXPECT_EQ(Job(next).state, JobState::kRunning);
}

TEST_F(ControllerTest, HoldAndRelease) {
  RegisterAll();
  JobSpec s;
  s.script = "#!/bin/sh\n";
  s.hold = true;
  const int64_t id = *ctld_->Submit(s, kAlice);
  EXPECT_EQ(ctld_->ScheduleOnce(), 0);
  EXPECT_EQ(Job(id).reason, "JobHeldUser");
  EXPECT_EQ(ctld_->Hold(id, false, kBob).code(), StatusCode::kPermissionDenied);
  ASSERT_TRUE(ctld_->Hold(id, false, kAlice).ok());
  EXPECT_EQ(ctld_->ScheduleOnce(), 1);
}

TEST_F(ControllerTest, FinishedJobsLeaveMemoryAfterMinJobAgeButStayStored) {
  RegisterAll();
  const int64_t done = Submit({"-n", "1"});
  ctld_->ScheduleOnce();
  const int64_t waiting = Submit({"-n", "1"});  // no cycle runs after it: stays PENDING
  ASSERT_TRUE(ctld_->JobExited(done, Job(done).batch_host, ExitReport{}, kAdmin).ok());
  clock_.AdvanceSeconds(299);
  ctld_->Tick();
  EXPECT_TRUE(ctld_->GetJob(done).ok());  // younger than MinJobAge (300 s)
  clock_.AdvanceSeconds(10);  // the purge pass runs at most every 10 s
  ctld_->Tick();
  EXPECT_EQ(ctld_->GetJob(done).status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(ctld_->GetJob(waiting).ok());  // pending jobs never age out
  EXPECT_EQ(ctld_->ListJobs().size(), 1u);
  StatusOr<std::vector<JobRecord>> stored = store_->LoadJobs();
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->size(), 2u);  // accounting keeps it
  // A restart does not bring it back, and its id is never handed out again.
  Open();
  EXPECT_EQ(ctld_->GetJob(done).status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(ctld_->GetJob(waiting).ok());
  EXPECT_GT(Submit({"-n", "1"}), waiting);
}

TEST_F(FairShareTest, LetsTheLighterUserGoFirstAndUsageSurvivesARestart) {
  RegisterAll();  // 2 nodes x 4 GPUs
  const int64_t big = Submit({"-N", "2", "--gres=gpu:4"}, kHeavy);
  ASSERT_EQ(ctld_->ScheduleOnce(), 1);
  Pass(3600);
  // While it runs, the heavy user queues first, the light one 10 s later.
  const int64_t heavy2 = Submit({"-N", "2", "--gres=gpu:4"}, kHeavy);
  Pass(10);
  const int64_t light = Submit({"-N", "2", "--gres=gpu:4"}, kLight);
  ctld_->Tick();  // charges the running hour, refreshes fair share, saves the usage
  EXPECT_EQ(ctld_->ScheduleOnce(), 0);  // nothing fits yet; priorities computed
  std::map<int64_t, Controller::JobPriority> prio;
  for (const Controller::JobPriority& p : ctld_->PendingPriorities()) prio[p.job_id] = p;
  ASSERT_EQ(prio.size(), 2u);
  EXPECT_DOUBLE_EQ(prio[light].factors.fairshare, 1.0);
  EXPECT_DOUBLE_EQ(prio[heavy2].factors.fairshare, 0.5);
  EXPECT_GT(prio[light].priority, prio[heavy2].priority);
  EXPECT_EQ(Job(light).priority, prio[light].priority);  // squeue and scontrol show it
  // Held: priority 0 and left out of sprio, as in Slurm; released: computed again.
  ASSERT_TRUE(ctld_->Hold(heavy2, true, kHeavy).ok());
  EXPECT_EQ(Job(heavy2).priority, 0);
  ctld_->Tick();
  EXPECT_EQ(Job(heavy2).priority, 0) << "a refresh keeps it";
  EXPECT_EQ(ctld_->PendingPriorities().size(), 1u);
  ASSERT_TRUE(ctld_->Hold(heavy2, false, kHeavy).ok());
  EXPECT_EQ(Job(heavy2).priority, prio[heavy2].priority);
  EXPECT_EQ(ctld_->PendingPriorities().size(), 2u);
  ASSERT_TRUE(ctld_->JobExited(big, Job(big).batch_host, ExitReport{}, kAdmin).ok());
  EXPECT_EQ(ctld_->ScheduleOnce(), 1);
  EXPECT_EQ(Job(light).state, JobState::kRunning);  // though submitted later
  EXPECT_EQ(Job(heavy2).state, JobState::kPending);
  auto usage_of = [&](const std::string& user) {
    for (const FairShareRow& r : ctld_->Shares()) {
      if (r.user == user) return r.raw_usage;
    }
    return -1.0;
  };
  ctld_->Tick();
  EXPECT_DOUBLE_EQ(usage_of("4242"), 8.0 * 3610);  // 8 GPUs for 3610 s, charged once
  EXPECT_DOUBLE_EQ(usage_of("4243"), 0);
  // A restart (the last save was at the first Tick, with the same usage) keeps it, and charges
  // the light user's job, still running, from its start: it had not been charged when saved.
  clock_.AdvanceSeconds(100);
  Open();
  ctld_->Tick();
  EXPECT_EQ(Job(light).state, JobState::kRunning);
  EXPECT_NEAR(usage_of("4242"), 8.0 * 3610, 8.0 * 3610 * 1e-3);  // decayed by 100 s of a week
  EXPECT_NEAR(usage_of("4243"), 8.0 * 100, 1e-6);
}

TEST_F(FairShareTest, JobsAreChargedToConfiguredAccounts) {
  config_.priority.accounts.accounts = {{"vision", "", 1}, {"nlp", "", 1}};
  config_.priority.accounts.users = {{"4242", "vision", 1}, {"4242", "nlp", 1}};
  Open();
  RegisterAll();
  EXPECT_EQ(Job(Submit({"-n", "1"}, kHeavy)).account, "vision");  // the first association
  JobSpec s;
  EXPECT_TRUE(SetResourceOptions(s, {"-n", "1"}).ok());
  s.script = "#!/bin/sh\ntrue\n";
  s.account = "nlp";
  StatusOr<int64_t> ok = ctld_->Submit(s, kHeavy);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(Job(*ok).account, "nlp");
  s.account = "physics";
  StatusOr<int64_t> bad = ctld_->Submit(s, kHeavy);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "Invalid account or account/partition combination specified");
  // A user without associations may name any account: it joins the tree implicitly.
  StatusOr<int64_t> other = ctld_->Submit(s, kLight);
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  ctld_->Tick();
  bool listed = false;
  for (const FairShareRow& r : ctld_->Shares()) listed |= r.account == "physics" && r.user == "4243";
  EXPECT_TRUE(listed);
}

// Proof: two accounts with equal shares, both always wanting more than the cluster, get
// GPU time within 5% of half each over a simulated day, although one asks for 2-GPU jobs of 30
// minutes and the other for 1-GPU jobs of 45 minutes. Virtual time: a cycle a minute.
TEST_F(FairShareTest, TwoSaturatingAccountsConvergeToTheirShares) {
  config_.priority.accounts.accounts = {{"a", "", 1}, {"b", "", 1}};
  config_.priority.accounts.users = {{"4242", "a", 1}, {"4243", "b", 1}};
  config_.min_job_age_s = 0;  // keep every job listed, for the tally
  Open();
  RegisterAll();  // 8 GPUs
  struct Kind {
    Caller who;
    std::vector<std::string> args;
    int gpus;
    int64_t duration;
  } kinds[] = {{kHeavy, {"--gres=gpu:2", "-n", "1"}, 2, 1800}, {kLight, {"--gres=gpu:1", "-n", "1"}, 1, 2700}};
  std::map<int64_t, int> kind_of;  // job -> index into kinds
  const int64_t t0 = clock_.NowSeconds();
  const int64_t day = 24 * 3600;
  for (int64_t t = 0; t < day; t += 60) {
    // Both keep 6 jobs waiting.
    for (int k = 0; k < 2; ++k) {
      int waiting = 0;
      for (const auto& [id, kk] : kind_of) waiting += kk == k && Job(id).state == JobState::kPending;
      for (; waiting < 6; ++waiting) kind_of[Submit(kinds[k].args, kinds[k].who)] = k;
    }
    ctld_->Tick();
    ctld_->ScheduleOnce();
    Pass(60);
    for (const auto& [id, k] : kind_of) {
      JobRecord j = Job(id);
      if (j.state == JobState::kRunning && clock_.NowSeconds() - j.start_time >= kinds[k].duration) {
        ASSERT_TRUE(ctld_->JobExited(id, j.batch_host, ExitReport{}, kAdmin).ok());
      }
    }
  }
  // GPU-seconds each account got within the day.
  double got[2] = {0, 0};
  const int64_t end = t0 + day;
  for (const auto& [id, k] : kind_of) {
    JobRecord j = Job(id);
    if (j.start_time == 0) continue;
    const int64_t stop = j.end_time > 0 ? std::min(j.end_time, end) : end;
    got[k] += static_cast<double>(kinds[k].gpus) * static_cast<double>(std::max<int64_t>(0, stop - j.start_time));
  }
  const double share_a = got[0] / (got[0] + got[1]);
  EXPECT_NEAR(share_a, 0.5, 0.05) << "a: " << got[0] << " GPU-s, b: " << got[1] << " GPU-s";
  EXPECT_GT(got[0] + got[1], 0.9 * 8 * day);  // and the GPUs were kept busy
}

TEST_F(ControllerTest, BackfillStartsShortJobsAroundTheGangsReservation) {
  config_.scheduler.backfill = true;
  Open();
  RegisterAll();  // n1, n2: 4 GPUs each
  const int64_t hour = Submit({"--gres=gpu:4", "-t", "60", "-w", "n1"});
  ASSERT_EQ(ctld_->ScheduleOnce(), 1);
  const int64_t gang = Submit({"-N", "2", "--gres=gpu:4", "-t", "60"});
  const int64_t endless = Submit({"--gres=gpu:1"});          // no limit: would outlast the hour
  const int64_t quick = Submit({"--gres=gpu:1", "-t", "10"});  // done long before
  EXPECT_EQ(ctld_->ScheduleOnce(), 1);
  EXPECT_EQ(Job(quick).state, JobState::kRunning);
  EXPECT_EQ(Job(quick).batch_host, "n2");
  EXPECT_EQ(Job(gang).state, JobState::kPending);
  EXPECT_EQ(Job(gang).reason, "Resources");
  EXPECT_EQ(Job(endless).state, JobState::kPending);
  EXPECT_EQ(Job(endless).reason, "Priority");
  // squeue --start: the gang when the hour is up; the endless job after the gang's hour.
  EXPECT_EQ(Job(gang).expected_start, Job(hour).start_time + 3600);
  EXPECT_EQ(Job(endless).expected_start, Job(hour).start_time + 7200);
  EXPECT_EQ(Job(gang).sched_nodes, "n[1-2]");  // SCHEDNODES
  // The hour ends (the quick job too): the gang takes both nodes before the endless job.
  clock_.AdvanceSeconds(600);
  ASSERT_TRUE(ctld_->JobExited(quick, "n2", ExitReport{}, kAdmin).ok());
  ASSERT_TRUE(ctld_->JobExited(hour, "n1", ExitReport{}, kAdmin).ok());
  EXPECT_EQ(ctld_->ScheduleOnce(), 1);
  EXPECT_EQ(Job(gang).state, JobState::kRunning);
  EXPECT_EQ(Job(endless).state, JobState::kPending);
}

}  // namespace
}  // namespace muster

namespace muster::ctld_test {
namespace {

// Finding 1 of the fault review: a job ends while the controller is down, and its node registers
// again before its queued exit report is sent. The report travels in the registration and is
// settled first: the job completes, and is neither requeued nor failed.
TEST_F(ControllerTest, AnExitReportedWithTheRegistrationSettlesTheJob) {
  RegisterAll();
  const int64_t ok = Submit({"--gres=gpu:4"});
  JobSpec s;
  EXPECT_TRUE(SetResourceOptions(s, {"--gres=gpu:4"}).ok());
  s.script = "#!/bin/sh\ntrue\n";
  s.requeue = false;
  const int64_t no_requeue = *ctld_->Submit(s, kAlice);
  ASSERT_EQ(ctld_->ScheduleOnce(), 2);
  const std::string host_ok = Job(ok).batch_host, host_nr = Job(no_requeue).batch_host;
  Open();  // the controller restarts; both jobs ended meanwhile
  for (const auto& [host, id] : {std::pair{host_ok, ok}, std::pair{host_nr, no_requeue}}) {
    NodeRecord n;
    n.node = config_.cluster.nodes[host == "n1" ? 0 : 1];
    NodeReport report;
    report.exits.push_back(RunExit{id, ExitReport{0, 0, false, "", 0}});
    StatusOr<NodeOrders> orders = ctld_->RegisterNode(n, report, kAdmin);
    ASSERT_TRUE(orders.ok()) << orders.status().ToString();
    EXPECT_TRUE(orders->stop.empty());
    EXPECT_GT(orders->lease_s, 0);
  }
  EXPECT_EQ(Job(ok).state, JobState::kCompleted);
  EXPECT_EQ(Job(ok).restart_count, 0);
  EXPECT_EQ(Job(no_requeue).state, JobState::kCompleted) << "not NODE_FAIL";
  EXPECT_EQ(Job(no_requeue).exit_code, 0);
}

// Every order names its run: the SIGKILL for a requeued job's old run carries the old count, and a
// node that still holds that run is told to stop it when it next reports.
TEST_F(ControllerTest, OrdersNameTheRunAndStrayRunsAreStopped) {
  RegisterAll();
  const int64_t id = Submit({"--gres=gpu:4"});
  ASSERT_EQ(ctld_->ScheduleOnce(), 1);
  const std::string host = Job(id).batch_host;
  ASSERT_TRUE(ctld_->UpdateNode(host, "DOWN", "maintenance", kAdmin).ok());
  EXPECT_EQ(Job(id).state, JobState::kPending);
  EXPECT_EQ(Job(id).restart_count, 1);
  ASSERT_FALSE(agents_.signals.empty());
  EXPECT_EQ(agents_.signals.back().why, "requeue");
  EXPECT_EQ(agents_.signals.back().restart_count, 0) << "the kill is for the run that was lost";
  ASSERT_EQ(ctld_->ScheduleOnce(), 1);  // run 1 starts on the other node
  const std::string other = Job(id).batch_host;
  ASSERT_NE(other, host);
  // The other node runs run 1; a node still holding run 0 is told to stop it, and only it.
  StatusOr<NodeOrders> here = ctld_->Heartbeat(other, Running({id}, 1), kAdmin);
  ASSERT_TRUE(here.ok());
  EXPECT_TRUE(here->stop.empty());
  StatusOr<NodeOrders> stale = ctld_->Heartbeat(other, Running({id, 999}, 0), kAdmin);
  ASSERT_TRUE(stale.ok());
  ASSERT_EQ(stale->stop.size(), 2u);
  EXPECT_EQ(stale->stop[0], (JobRun{id, 0}));
  EXPECT_EQ(stale->stop[1], (JobRun{999, 0}));
  EXPECT_EQ(Job(id).state, JobState::kRunning);
}

// Finding 10: a submission retried after its answer was lost is the same job.
TEST_F(ControllerTest, ASubmissionKeyMakesRetriesReturnTheSameJob) {
  RegisterAll();
  JobSpec s;
  s.script = "#!/bin/sh\ntrue\n";
  s.submit_key = "0123abcd";
  const int64_t first = *ctld_->Submit(s, kAlice);
  EXPECT_EQ(*ctld_->Submit(s, kAlice), first);
  EXPECT_NE(*ctld_->Submit(s, kBob), first) << "keys are per user";
  Open();  // and across a restart
  EXPECT_EQ(*ctld_->Submit(s, kAlice), first);
  EXPECT_EQ(ctld_->ListJobs().size(), 2u);
  s.submit_key = "bad key!";
  EXPECT_EQ(ctld_->Submit(s, kAlice).status().code(), StatusCode::kInvalidArgument);
  s.submit_key.clear();
  EXPECT_NE(*ctld_->Submit(s, kAlice), *ctld_->Submit(s, kAlice)) << "no key: every submission is a job";
}

}  // namespace
}  // namespace muster::ctld_test
