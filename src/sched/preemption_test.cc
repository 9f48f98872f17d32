// Preemption: the rules (who may preempt whom) as a table, and the scheduler's choice of victims:
// the fewest GPUs and then jobs that let the job fit, youngest first on ties, gangs whole, never
// before the minimum runtime, never a queue below its quota.
#include "sched/preemption.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "sched/cluster_builder.h"
#include "sched/scenario_harness.h"
#include "sched/scheduler.h"

namespace muster {
namespace {

constexpr int64_t kNow = 1'000'000;

JobUse Use(const std::string& account, int gpus, const std::string& qos = "") {
  JobUse u;
  u.account = account;
  u.user = "u-" + account;
  u.qos = qos;
  u.gpu_milli = gpus * 1000;
  return u;
}

SchedPolicy Policy() {
  SchedPolicy p;
  Qos high{.name = "high", .priority = 100, .preempt = {"normal", "scavenger"}};
  Qos normal{.name = "normal", .priority = 10, .preempt = {"scavenger"}};
  Qos scavenger{.name = "scavenger"};
  Qos pinned{.name = "pinned"};
  pinned.has_preempt_mode = true;
  pinned.preempt_mode = PreemptMode::kOff;
  Qos patient{.name = "patient"};
  patient.preempt_exempt_time_s = 3600;
  patient.grace_time_s = 120;
  high.preempt.push_back("pinned");
  high.preempt.push_back("patient");
  p.qos = {high, normal, scavenger, pinned, patient};
  Account a{.name = "a"}, b{.name = "b"}, ops{.name = "ops"}, a1{.name = "a1", .parent = "a"};
  a.quota.gpus = 4;
  b.quota.gpus = 4;
  p.accounts.accounts = {a, b, ops, a1};
  p.preemption.exempt_time_s = 60;
  return p;
}

struct Row {
  const char* name;
  PreemptParty preemptor;
  PreemptParty victim;
  std::vector<JobUse> running;  // besides the victim
  std::string want;             // "" = may not
};

TEST(PreemptionPolicyTest, WhoMayPreemptWhom) {
  const SchedPolicy policy = Policy();
  const PreemptionPolicy rules(policy);
  ASSERT_TRUE(rules.enabled());
  const int64_t old = kNow - 7200;
  const Row rows[] = {
      {"QOS list", {Use("ops", 1, "high")}, {Use("ops", 1, "normal"), 0, old}, {}, "QOS high preempts QOS normal"},
      {"no QOS means normal", {Use("ops", 1, "high")}, {Use("ops", 1, ""), 0, old}, {}, "QOS high preempts QOS normal"},
      {"not listed", {Use("ops", 1, "scavenger")}, {Use("ops", 1, "normal"), 0, old}, {}, ""},
      {"not the other way", {Use("ops", 1, "normal")}, {Use("ops", 1, "high"), 0, old}, {}, ""},
      {"mode OFF", {Use("ops", 1, "high")}, {Use("ops", 1, "pinned"), 0, old}, {}, ""},
      {"before the cluster's exempt time", {Use("ops", 1, "high")}, {Use("ops", 1, "normal"), 0, kNow - 30}, {}, ""},
      {"after it", {Use("ops", 1, "high")}, {Use("ops", 1, "normal"), 0, kNow - 60}, {}, "QOS high preempts QOS normal"},
      {"the QOS's own exempt time", {Use("ops", 1, "high")}, {Use("ops", 1, "patient"), 0, kNow - 1800}, {}, ""},
      {"partition tier is off by default", {Use("ops", 1), 2}, {Use("ops", 1), 1, old}, {}, ""},
      {"reclaim: a within quota, b borrows", {Use("a", 2)}, {Use("b", 1), 0, old}, {Use("b", 5)},
       "quota reclaim: account a is within its quota, account b is over its quota"},
      {"reclaim from a child of a", {Use("a1", 2)}, {Use("b", 1), 0, old}, {Use("b", 5)},
       "quota reclaim: account a is within its quota, account b is over its quota"},
      {"not below b's quota", {Use("a", 2)}, {Use("b", 1), 0, old}, {Use("b", 3)}, ""},
      {"a would pass its quota", {Use("a", 2)}, {Use("b", 1), 0, old}, {Use("b", 5), Use("a", 3)}, ""},
      {"a job larger than the quota", {Use("a", 6)}, {Use("b", 1), 0, old}, {Use("b", 7)}, ""},
      {"no quota, no reclaim", {Use("ops", 1)}, {Use("b", 1), 0, old}, {Use("b", 7)}, ""},
      {"not within one branch", {Use("a1", 1)}, {Use("a", 1), 0, old}, {Use("a", 7)}, ""},
  };
  for (const Row& r : rows) {
    LimitGate usage(policy.accounts, policy.qos);
    usage.Add(r.victim.use);
    for (const JobUse& u : r.running) usage.Add(u);
    EXPECT_EQ(rules.Why(r.preemptor, r.victim, usage, kNow), r.want) << r.name;
  }
  EXPECT_EQ(rules.ModeOf("pinned"), PreemptMode::kOff);
  EXPECT_EQ(rules.ModeOf("normal"), PreemptMode::kRequeue);
  EXPECT_EQ(rules.GraceOf("patient"), 120);
  EXPECT_EQ(rules.GraceOf(""), 30);
}

TEST(PreemptionPolicyTest, PartitionTiersWhenAskedFor) {
  SchedPolicy policy = Policy();
  policy.preemption.by_partition_tier = true;
  const PreemptionPolicy rules(policy);
  LimitGate usage(policy.accounts, policy.qos);
  EXPECT_EQ(rules.Why({Use("ops", 1), 2}, {Use("ops", 1), 1, kNow - 7200}, usage, kNow),
            "partition tier 2 preempts tier 1");
  EXPECT_EQ(rules.Why({Use("ops", 1), 1}, {Use("ops", 1), 1, kNow - 7200}, usage, kNow), "");
  policy.preemption.mode = PreemptMode::kOff;
  EXPECT_EQ(PreemptionPolicy(policy).Why({Use("ops", 1), 2}, {Use("ops", 1), 1, kNow - 7200}, usage, kNow), "");
}

TEST(PreemptionPolicyTest, PriorityWhenAskedFor) {
  SchedPolicy policy;  // no QOS rules, no quotas: only the priority rule
  EXPECT_FALSE(PreemptionPolicy(policy).enabled());
  policy.preemption.by_priority = true;
  policy.preemption.exempt_time_s = 60;
  const PreemptionPolicy rules(policy);
  ASSERT_TRUE(rules.enabled());
  LimitGate usage(policy.accounts, policy.qos);
  PreemptParty high{Use("ops", 1)}, low{Use("ops", 1), 0, kNow - 7200};
  high.priority = 3;
  low.priority = 1;
  EXPECT_EQ(rules.Why(high, low, usage, kNow), "priority 3 preempts priority 1");
  EXPECT_EQ(rules.Why(low, high, usage, kNow), "");
  low.priority = 3;
  EXPECT_EQ(rules.Why(high, low, usage, kNow), "") << "equal priorities never preempt";
  low.priority = 1;
  low.start_time = kNow - 30;
  EXPECT_EQ(rules.Why(high, low, usage, kNow), "") << "within the minimum runtime";
  // The cheap test: only a job above the lowest running priority may preempt anyone.
  EXPECT_TRUE(rules.MayPreemptAny(high, usage, 0, 2));
  EXPECT_FALSE(rules.MayPreemptAny(high, usage, 0, 3));
}

TEST(PreemptionPolicyTest, PartitionModeAndGraceUnderTheQosOwn) {
  const SchedPolicy policy = Policy();
  const PreemptionPolicy rules(policy);
  Partition off;
  off.has_preempt_mode = true;
  off.preempt_mode = PreemptMode::kOff;
  Partition cancel;
  cancel.has_preempt_mode = true;
  cancel.preempt_mode = PreemptMode::kCancel;
  cancel.grace_time_s = 90;
  EXPECT_EQ(rules.ModeOf("normal", &cancel), PreemptMode::kCancel);
  EXPECT_EQ(rules.GraceOf("normal", &cancel), 90);
  EXPECT_EQ(rules.GraceOf("patient", &cancel), 120);             // the QOS's own grace first
  EXPECT_EQ(rules.ModeOf("pinned", &cancel), PreemptMode::kOff);  // the QOS's own mode first
  LimitGate usage(policy.accounts, policy.qos);
  PreemptParty victim{Use("ops", 1, "normal"), 0, kNow - 7200, &off};
  EXPECT_EQ(rules.Why({Use("ops", 1, "high")}, victim, usage, kNow), "");  // its partition: OFF
  victim.partition = &cancel;
  EXPECT_EQ(rules.Why({Use("ops", 1, "high")}, victim, usage, kNow), "QOS high preempts QOS normal");
}

TEST(PreemptionPolicyTest, NothingConfiguredNothingEnabled) {
  SchedPolicy p;
  EXPECT_FALSE(PreemptionPolicy(p).enabled());
}

// --- The scheduler's choice. ---

NodeAllocation OnNode(const std::string& node, std::vector<int> gpus) {
  NodeAllocation a;
  a.node = node;
  a.cpu_milli = 1000;
  a.tasks = 1;
  for (int g : gpus) a.gpus.push_back({g, 1000});
  return a;
}

struct Cluster {
  ClusterSnapshot snap;
  void Run(int64_t id, std::vector<NodeAllocation> alloc, const std::string& qos, int64_t started,
           const std::string& account = "ops", bool terminating = false) {
    ApplyAllocation(snap, alloc);
    RunningJob r;
    r.id = id;
    r.end_time = kUnlimited;
    r.allocation = std::move(alloc);
    r.start_time = started;
    r.user = "u-" + account;
    r.account = account;
    r.qos = qos;
    r.partition = "p";
    r.terminating = terminating;
    snap.running.push_back(std::move(r));
  }
};

Cluster Nodes(int n) {
  Cluster c;
  c.snap = ClusterBuilder().Nodes("n[1-" + std::to_string(n) + "]", NodeTemplate{}).Partition("p", "n[1-" + std::to_string(n) + "]", true).Build();
  c.snap.now = kNow;
  return c;
}

PendingJob Job(int64_t id, const std::string& opts, const std::string& qos, int64_t prio = 100,
               const std::string& account = "ops") {
  PendingJob j = MakeJob(id, opts, prio);
  j.qos = qos;
  j.account = account;
  j.user = "u-" + account;
  return j;
}

// Decision::ToString() and each victim's mode and grace time.
std::vector<std::string> WithVictims(const std::vector<Decision>& ds) {
  std::vector<std::string> out;
  for (const Decision& d : ds) {
    std::string s = d.ToString();
    for (const Preemption& p : d.preempt) s += " [" + std::to_string(p.victim) + " " + PreemptModeName(p.mode) + " " + std::to_string(p.grace_s) + "]";
    out.push_back(s);
  }
  return out;
}

std::vector<std::string> Decide(const Cluster& c, const std::vector<PendingJob>& q, SchedPolicy policy = Policy(),
                                bool backfill = false) {
  SchedulerOptions o;
  o.policy = std::make_shared<SchedPolicy>(std::move(policy));
  o.backfill = backfill;
  auto strings = [&](const ClusterSnapshot& snap) { return WithVictims(RunCycle(snap, q, o)); };
  std::vector<std::string> out = strings(c.snap);
  // The running jobs' order does not matter (the controller keeps them in no particular order).
  ClusterSnapshot reversed = c.snap;
  std::reverse(reversed.running.begin(), reversed.running.end());
  EXPECT_EQ(strings(reversed), out) << "with the running jobs in reverse order";
  return out;
}

constexpr int64_t kOld = kNow - 7200;

TEST(PreemptionSchedulerTest, FewestGpusThenFewestJobsYoungestFirst) {
  Cluster c = Nodes(1);
  c.Run(11, {OnNode("n1", {0})}, "normal", kOld);
  c.Run(12, {OnNode("n1", {1, 2, 3, 4})}, "normal", kOld + 100);
  c.Run(13, {OnNode("n1", {5, 6})}, "normal", kOld + 200);
  c.Run(14, {OnNode("n1", {7})}, "normal", kOld + 300);
  // One GPU: the youngest 1-GPU job.
  EXPECT_EQ(Decide(c, {Job(1, "--gres=gpu:1", "high")}),
            (std::vector<std::string>{"1 PENDING Resources preempt=14 [14 REQUEUE 30]"}));
  // Two GPUs: job 13 alone (2 GPUs, 1 job), not 14 and 11 (2 GPUs, 2 jobs).
  EXPECT_EQ(Decide(c, {Job(1, "--gres=gpu:2", "high")}),
            (std::vector<std::string>{"1 PENDING Resources preempt=13 [13 REQUEUE 30]"}));
  // Three: 13 and 14 (3 GPUs), not 12 (4 GPUs).
  EXPECT_EQ(Decide(c, {Job(1, "--gres=gpu:3", "high")}),
            (std::vector<std::string>{"1 PENDING Resources preempt=14,13 [14 REQUEUE 30] [13 REQUEUE 30]"}));
  // A normal job may not preempt normal ones; a scavenger nobody.
  EXPECT_EQ(Decide(c, {Job(1, "--gres=gpu:1", "normal")}), (std::vector<std::string>{"1 PENDING Resources"}));
}

TEST(PreemptionSchedulerTest, ByPriorityTheLowestRankedRunningJobsGo) {
  // Least attained service: running jobs rank by the queue their service has reached.
  Cluster c = Nodes(1);
  c.Run(41, {OnNode("n1", {0, 1, 2, 3})}, "", kOld);
  c.Run(42, {OnNode("n1", {4, 5, 6, 7})}, "", kOld);
  c.snap.running[0].priority = 2;  // still in the first queue
  c.snap.running[1].priority = 0;  // in the last
  SchedPolicy p;
  p.preemption.by_priority = true;
  EXPECT_EQ(Decide(c, {Job(1, "--gres=gpu:4", "", 2)}, p),
            (std::vector<std::string>{"1 PENDING Resources preempt=42 [42 REQUEUE 30]"}));
  // Eight GPUs would need job 41 too, which ranks as high as the job: nothing to do.
  EXPECT_EQ(Decide(c, {Job(1, "--gres=gpu:8", "", 2)}, p), (std::vector<std::string>{"1 PENDING Resources"}));
  // A job ranked at the bottom stops nobody.
  EXPECT_EQ(Decide(c, {Job(1, "--gres=gpu:1", "", 0)}, p), (std::vector<std::string>{"1 PENDING Resources"}));
}

TEST(PreemptionSchedulerTest, AVictimGangGoesWholeAndNobodyTakesWhatItFrees) {
  Cluster c = Nodes(2);
  c.Run(21, {OnNode("n1", {0, 1, 2, 3}), OnNode("n2", {0, 1, 2, 3})}, "scavenger", kOld);  // a 2-node gang
  c.Run(22, {OnNode("n1", {4, 5, 6, 7})}, "normal", kOld);
  c.Run(23, {OnNode("n2", {4, 5, 6, 7})}, "normal", kOld);
  // An 8-GPU job of QOS normal may preempt the scavenger gang only: it frees 4 GPUs on each node,
  // never 8 on one, so nothing is preempted in vain.
  EXPECT_EQ(Decide(c, {Job(1, "--gres=gpu:8", "normal")}), (std::vector<std::string>{"1 PENDING Resources"}));
  // Two 4-GPU tasks on two nodes fit once the gang is gone: the whole gang goes, and the lower job
  // after it does not start on what the gang frees (it is still held until the gang ends).
  EXPECT_EQ(Decide(c, {Job(1, "-N 2 --gres=gpu:4", "normal"), Job(2, "--gres=gpu:1", "normal", 50)}),
            (std::vector<std::string>{"1 PENDING Resources preempt=21 [21 REQUEUE 30]", "2 PENDING Priority"}));
}

TEST(PreemptionSchedulerTest, MinimumRuntimeModeOffAndJobsBeingStopped) {
  Cluster c = Nodes(1);
  c.Run(31, {OnNode("n1", {0, 1, 2, 3})}, "normal", kNow - 30);  // younger than the exempt time (60 s)
  c.Run(32, {OnNode("n1", {4, 5})}, "pinned", kOld);
  c.Run(33, {OnNode("n1", {6, 7})}, "normal", kOld, "ops", /*terminating=*/true);
  EXPECT_EQ(Decide(c, {Job(1, "--gres=gpu:4", "high")}), (std::vector<std::string>{"1 PENDING Resources"}));
  // Two GPUs: job 33, already being stopped, suffices; nobody new is preempted.
  EXPECT_EQ(Decide(c, {Job(1, "--gres=gpu:2", "high")}), (std::vector<std::string>{"1 PENDING Resources"}));
  // Once 31 is old enough: 31 with the free 33 (2 + 4 GPUs on one node), or, for 4 GPUs, 31 alone.
  c.snap.now = kNow + 60;
  EXPECT_EQ(Decide(c, {Job(1, "--gres=gpu:6", "high")}),
            (std::vector<std::string>{"1 PENDING Resources preempt=31 [31 REQUEUE 30]"}));
}

TEST(PreemptionSchedulerTest, TwoPreemptorsInACycleDoNotShareVictims) {
  Cluster c = Nodes(1);
  for (int g = 0; g < 8; ++g) c.Run(40 + g, {OnNode("n1", {g})}, "scavenger", kOld + g);
  EXPECT_EQ(Decide(c, {Job(1, "--gres=gpu:2", "normal", 100), Job(2, "--gres=gpu:2", "high", 90)}),
            (std::vector<std::string>{"1 PENDING Resources preempt=47,46 [47 REQUEUE 30] [46 REQUEUE 30]",
                                      // Job 1 claimed what 47 and 46 free: job 2 names its own.
                                      "2 PENDING Resources preempt=45,44 [45 REQUEUE 30] [44 REQUEUE 30]"}));
  // Next cycle, the four being stopped: both wait for them, nobody new is named, and a job that
  // would fit on what is free now... there is none; a third preemptor names two more.
  Cluster next = Nodes(1);
  for (int g = 0; g < 8; ++g) next.Run(40 + g, {OnNode("n1", {g})}, "scavenger", kOld + g, "ops", /*terminating=*/g >= 4);
  EXPECT_EQ(Decide(next, {Job(1, "--gres=gpu:2", "normal", 100), Job(2, "--gres=gpu:2", "high", 90),
                          Job(3, "--gres=gpu:2", "high", 80)}),
            (std::vector<std::string>{"1 PENDING Resources", "2 PENDING Resources",
                                      "3 PENDING Resources preempt=43,42 [43 REQUEUE 30] [42 REQUEUE 30]"}));
}

TEST(PreemptionSchedulerTest, QuotaReclaimStopsAtTheLendersQuota) {
  Cluster c = Nodes(1);
  // b borrows: 8 GPUs of its quota of 4.
  for (int g = 0; g < 8; ++g) c.Run(50 + g, {OnNode("n1", {g})}, "normal", kOld + g, "b");
  EXPECT_EQ(Decide(c, {Job(1, "--gres=gpu:3", "normal", 100, "a")}),
            (std::vector<std::string>{"1 PENDING Resources preempt=57,56,55 [57 REQUEUE 30] [56 REQUEUE 30] [55 REQUEUE 30]"}));
  // More than a's quota: no reclaim.
  EXPECT_EQ(Decide(c, {Job(1, "--gres=gpu:5", "normal", 100, "a")}), (std::vector<std::string>{"1 PENDING Resources"}));
  // b at its quota of 4 (4 GPUs idle... taken by ops): a reclaims nothing from b.
  Cluster d = Nodes(1);
  for (int g = 0; g < 4; ++g) d.Run(60 + g, {OnNode("n1", {g})}, "normal", kOld, "b");
  for (int g = 4; g < 8; ++g) d.Run(60 + g, {OnNode("n1", {g})}, "normal", kOld, "ops");
  EXPECT_EQ(Decide(d, {Job(1, "--gres=gpu:1", "normal", 100, "a")}), (std::vector<std::string>{"1 PENDING Resources"}));
}

TEST(PreemptionSchedulerTest, WithBackfillTheFirstJobOfAPartitionStillPreempts) {
  Cluster c;
  c.snap = ClusterBuilder().Nodes("n[1-2]", NodeTemplate{}).Partition("p", "n1", true).Partition("q", "n2").Build();
  c.snap.now = kNow;
  c.Run(72, {OnNode("n1", {0, 1, 2, 3, 4, 5, 6, 7})}, "scavenger", kOld);
  c.Run(73, {OnNode("n2", {0, 1, 2, 3, 4, 5, 6, 7})}, "normal", kOld);
  c.snap.running.back().end_time = kNow + 600;
  // Job 0 (partition q) gets a reservation; job 1 then goes through backfill, and, first of its
  // partition, still preempts; job 2 behind it in p does not.
  PendingJob j0 = Job(10, "-p q --gres=gpu:8 -t 60", "normal", 200);
  EXPECT_EQ(Decide(c, {j0, Job(1, "--gres=gpu:8 -t 60", "normal", 100), Job(2, "--gres=gpu:8 -t 60", "normal", 90)},
                   Policy(), /*backfill=*/true),
            (std::vector<std::string>{"10 PENDING Resources start=1000600",
                                      "1 PENDING Resources preempt=72 [72 REQUEUE 30]", "2 PENDING Resources"}));
}

TEST(PreemptionCyclesTest, JobsBeingStoppedNoLongerCountAsALendersUsage) {
  // 2 nodes x 8 GPUs; a and b have quotas of 8; b holds 12 (three 4-GPU jobs), ops 4.
  Cluster c = Nodes(2);
  c.Run(81, {OnNode("n1", {0, 1, 2, 3})}, "normal", kOld, "b");
  c.Run(82, {OnNode("n1", {4, 5, 6, 7})}, "normal", kOld + 1, "b");
  c.Run(83, {OnNode("n2", {0, 1, 2, 3})}, "normal", kOld + 2, "b");
  c.Run(84, {OnNode("n2", {4, 5, 6, 7})}, "normal", kOld, "ops");
  SchedPolicy p = Policy();
  p.accounts.accounts[0].quota.gpus = 8;
  p.accounts.accounts[1].quota.gpus = 8;
  const PendingJob p1 = Job(1, "--gres=gpu:4", "normal", 100, "a");
  const PendingJob p2 = Job(2, "--gres=gpu:4", "normal", 90, "a");
  // Cycle 1: a reclaims one of b's 4 borrowed GPUs' jobs (the youngest); b keeps its quota of 8.
  EXPECT_EQ(Decide(c, {p1}, p), (std::vector<std::string>{"1 PENDING Resources preempt=83 [83 REQUEUE 30]"}));
  // Cycle 2, 83 still stopping (for job 1): b is at its quota; job 2 reclaims nothing more (and
  // waits behind job 1).
  c.snap.running[2].terminating = true;
  c.snap.running[2].preempted_by = 1;
  EXPECT_EQ(Decide(c, {p1, p2}, p), (std::vector<std::string>{"1 PENDING Resources", "2 PENDING Priority"}));
}

TEST(PreemptionCyclesTest, AKeptSchedulerTakesAVictimAgainOnlyWhileItsRevisionHolds) {
  // As the controller keeps one: the same snapshot object, refilled every cycle, its running
  // entries numbered by revision (the same revision: the same allocation and start). Each cycle
  // must decide as a Scheduler built afresh on that snapshot.
  struct Job1 {
    int64_t id;
    std::string node;
    std::vector<int> gpus;
    int64_t started;
    uint64_t revision;
    bool terminating = false;
  };
  const Job1 pinned{20, "n2", {0, 1, 2, 3, 4, 5, 6, 7}, kOld, 7};  // QOS pinned: never a victim
  const std::vector<std::vector<Job1>> rounds = {
      {{11, "n1", {0}, kOld, 1}, {12, "n1", {1, 2, 3, 4}, kOld + 100, 2}, {13, "n1", {5, 6}, kOld + 200, 3},
       {14, "n1", {7}, kOld + 300, 4}, pinned},
      // 14 ended and 15 started in its place; 11 is being stopped (for nobody waiting).
      {pinned, {15, "n1", {7}, kOld + 400, 5}, {13, "n1", {5, 6}, kOld + 200, 3}, {12, "n1", {1, 2, 3, 4}, kOld + 100, 2},
       {11, "n1", {0}, kOld, 1, true}},
      // 11 and 20 are gone; 13 was requeued and runs again, on 4 GPUs of n2: a new revision.
      {{12, "n1", {1, 2, 3, 4}, kOld + 100, 2}, {13, "n2", {4, 5, 6, 7}, kOld + 500, 6}, {15, "n1", {7}, kOld + 400, 5}},
      // Nothing changed but the order of the entries.
      {{15, "n1", {7}, kOld + 400, 5}, {12, "n1", {1, 2, 3, 4}, kOld + 100, 2}, {13, "n2", {4, 5, 6, 7}, kOld + 500, 6}},
  };
  const std::vector<PendingJob> q = {Job(1, "--gres=gpu:2 -N 1", "high"), Job(2, "--gres=gpu:6 -N 1", "high", 90)};
  Cluster c = Nodes(2);
  ClusterSnapshot snap = c.snap;
  const ClusterIndex index(snap);
  SchedulerOptions o;
  o.policy = std::make_shared<SchedPolicy>(Policy());
  Scheduler kept(snap, index, o);
  std::vector<std::vector<std::string>> seen;
  for (size_t round = 0; round < rounds.size(); ++round) {
    Cluster now = Nodes(2);
    for (const Job1& j : rounds[round]) {
      now.Run(j.id, {OnNode(j.node, j.gpus)}, j.id == pinned.id ? "pinned" : "normal", j.started, "ops", j.terminating);
      now.snap.running.back().revision = j.revision;
    }
    snap = now.snap;
    kept.Reload(o);
    const std::vector<std::string> fresh = WithVictims(RunCycle(now.snap, q, o));
    EXPECT_EQ(WithVictims(kept.RunCycle(q)), fresh) << "round " << round;
    seen.push_back(fresh);
  }
  // The rounds differ where the victims did (else the test would show nothing).
  EXPECT_EQ(seen[0], (std::vector<std::string>{"1 PENDING Resources preempt=13 [13 REQUEUE 30]",
                                               "2 PENDING Resources preempt=14,11,12 [14 REQUEUE 30] [11 REQUEUE 30] [12 REQUEUE 30]"}));
  EXPECT_EQ(seen[1], (std::vector<std::string>{"1 PENDING Resources preempt=15 [15 REQUEUE 30]",
                                               "2 PENDING Resources preempt=13,12 [13 REQUEUE 30] [12 REQUEUE 30]"}));
  // 13's 4 GPUs on n2 are what job 2 needs (taken as its 2 of n1, it would be released twice).
  EXPECT_EQ(seen[2], (std::vector<std::string>{"1 START n1{cpu=1 mem=0 tasks=1 gpus=5,6}",
                                               "2 PENDING Resources preempt=13 [13 REQUEUE 30]"}));
  EXPECT_EQ(seen[3], seen[2]);
}

TEST(PreemptionCyclesTest, WhatAVictimFreesIsItsPreemptorsOnly) {
  Cluster c = Nodes(1);
  c.Run(91, {OnNode("n1", {0, 1, 2, 3})}, "normal", kOld);
  c.Run(92, {OnNode("n1", {4, 5, 6, 7})}, "normal", kOld, "ops", /*terminating=*/true);
  c.snap.running[1].preempted_by = 2;  // stopped for job 2
  // Job 1 ranks first but may preempt nobody: it does not get what 92 frees; job 2 does.
  EXPECT_EQ(Decide(c, {Job(1, "--gres=gpu:4", "scavenger", 200), Job(2, "--gres=gpu:4", "high", 100)}),
            (std::vector<std::string>{"1 PENDING Resources", "2 PENDING Resources"}));
  // Were job 2 gone (cancelled), what 92 frees is anyone's: job 1 waits for it.
  SchedulerOptions o;
  o.policy = std::make_shared<SchedPolicy>(Policy());
  Scheduler s(c.snap, o);
  std::vector<Decision> d = s.RunCycle({Job(1, "--gres=gpu:4", "scavenger", 200), Job(3, "--gres=gpu:4", "high", 100)});
  // Job 1 claims 92's GPUs; job 3 (high) must name its own victim: 91.
  EXPECT_EQ(d[0].ToString(), "1 PENDING Resources");
  EXPECT_EQ(d[1].ToString(), "3 PENDING Resources preempt=91");
}

TEST(PreemptionCyclesTest, ASubAccountWithinItsQuotaReclaimsUnderTheParentsLimit) {
  // 3 nodes x 8 GPUs; dept (limit 16) holds a and b (quotas 8); b holds all 16; 8 GPUs are free.
  Cluster c = Nodes(3);
  for (int k = 0; k < 4; ++k) {
    c.Run(100 + k, {OnNode(k < 2 ? "n1" : "n2", k % 2 == 0 ? std::vector<int>{0, 1, 2, 3} : std::vector<int>{4, 5, 6, 7})},
          "normal", kOld + k, "b");
  }
  SchedPolicy p;
  Account dept{.name = "dept"}, a{.name = "a", .parent = "dept"}, b{.name = "b", .parent = "dept"};
  dept.limit.gpus = 16;
  a.quota.gpus = 8;
  b.quota.gpus = 8;
  p.accounts.accounts = {dept, a, b};
  // a's job fits the free node but dept is at its limit: b's youngest job makes room for it.
  EXPECT_EQ(Decide(c, {Job(1, "--gres=gpu:4", "normal", 100, "a")}, p),
            (std::vector<std::string>{"1 PENDING Resources preempt=103 [103 REQUEUE 30]"}));
  // Without quotas to reclaim, the limit holds it.
  p.accounts.accounts[1].quota = TresAmounts{};
  p.accounts.accounts[2].quota = TresAmounts{};
  EXPECT_EQ(Decide(c, {Job(1, "--gres=gpu:4", "normal", 100, "a")}, p),
            (std::vector<std::string>{"1 PENDING AssocGrpGRES"}));
}

// --- SUSPEND: frees CPUs only, and the suspended job resumes once its preemptor is gone. ---

SchedPolicy SuspendPolicy() {
  SchedPolicy p = Policy();
  for (Qos& q : p.qos) {
    if (q.name == "scavenger") {
      q.has_preempt_mode = true;
      q.preempt_mode = PreemptMode::kSuspend;
    }
  }
  return p;
}

NodeAllocation Cpus(const std::string& node, int cpus, std::vector<int> gpus = {}) {
  NodeAllocation a = OnNode(node, std::move(gpus));
  a.cpu_milli = cpus * 1000;
  a.memory_mb = 1024;
  return a;
}

TEST(PreemptionSuspendTest, OnlyWhereCpusAreWhatTheJobLacks) {
  Cluster c = Nodes(1);  // 64 CPUs, 8 GPUs
  c.Run(101, {Cpus("n1", 60)}, "scavenger", kOld);           // a CPU job
  c.Run(102, {Cpus("n1", 4, {0, 1, 2, 3, 4, 5, 6, 7})}, "scavenger", kOld + 1);  // all GPUs
  // CPUs are what a CPU job lacks: the younger of the two frees 4, the older 60; one suffices.
  EXPECT_EQ(Decide(c, {Job(1, "-c 2", "high")}, SuspendPolicy()),
            (std::vector<std::string>{"1 PENDING Resources preempt=102:suspend [102 SUSPEND 30]"}));
  EXPECT_EQ(Decide(c, {Job(1, "-c 8", "high")}, SuspendPolicy()),
            (std::vector<std::string>{"1 PENDING Resources preempt=101:suspend [101 SUSPEND 30]"}));
  // A GPU job: suspending 102 would free no GPU (its processes keep their GPU memory), so
  // nobody is named, where REQUEUE would stop 102.
  EXPECT_EQ(Decide(c, {Job(1, "--gres=gpu:1", "high")}, SuspendPolicy()),
            (std::vector<std::string>{"1 PENDING Resources"}));
  EXPECT_EQ(Decide(c, {Job(1, "--gres=gpu:1", "high")}),
            (std::vector<std::string>{"1 PENDING Resources preempt=102 [102 REQUEUE 30]"}));
  // Memory stays held too: a job that needs more memory than is free names nobody.
  EXPECT_EQ(Decide(c, {Job(1, "-c 2 --mem=511G", "high")}, SuspendPolicy()),
            (std::vector<std::string>{"1 PENDING Resources"}));
  // A node held whole stays held by its suspended job.
  Cluster x = Nodes(1);
  x.Run(103, {Cpus("n1", 64)}, "scavenger", kOld);
  x.snap.running[0].allocation[0].exclusive = true;
  x.snap.usage[0].exclusive = true;
  EXPECT_EQ(Decide(x, {Job(1, "-c 2", "high")}, SuspendPolicy()), (std::vector<std::string>{"1 PENDING Resources"}));
}

TEST(PreemptionSuspendTest, ResumesOnceThePreemptorIsGoneAndItsCpusAreFree) {
  // Job 101 was suspended for job 1: it holds its memory and GPU, not its 60 CPUs.
  auto with = [](bool preemptor_runs, int other_cpus) {
    Cluster c = Nodes(1);
    c.Run(101, {Cpus("n1", 0, {0})}, "scavenger", kOld);
    c.snap.running[0].suspended = true;
    c.snap.running[0].preempted_by = 1;
    c.snap.running[0].suspended_cpu_milli = {60'000};
    if (preemptor_runs) c.Run(1, {Cpus("n1", 8)}, "high", kNow - 10);
    if (other_cpus > 0) c.Run(7, {Cpus("n1", other_cpus)}, "normal", kNow - 5);
    return c;
  };
  // The preemptor still runs: 101 stays suspended, though 56 CPUs are free.
  EXPECT_EQ(Decide(with(true, 0), {}, SuspendPolicy()), (std::vector<std::string>{}));
  // Still waiting (queued): the same.
  const std::vector<std::string> queued = Decide(with(false, 0), {Job(1, "-c 8", "high")}, SuspendPolicy());
  ASSERT_EQ(queued.size(), 1u);
  EXPECT_EQ(queued[0].rfind("1 START n1{cpu=8 ", 0), 0u) << queued[0];
  // Gone: 101 resumes, first, and takes its 60 CPUs back before a waiting job looks.
  EXPECT_EQ(Decide(with(false, 0), {Job(2, "-c 8", "normal")}, SuspendPolicy()),
            (std::vector<std::string>{"101 RESUME", "2 PENDING Resources"}));
  // Gone, but its CPUs were taken meanwhile: it waits.
  EXPECT_EQ(Decide(with(false, 10), {}, SuspendPolicy()), (std::vector<std::string>{}));
  EXPECT_EQ(Decide(with(false, 4), {}, SuspendPolicy()), (std::vector<std::string>{"101 RESUME"}));
}

}  // namespace
}  // namespace muster
