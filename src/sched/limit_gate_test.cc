// Table tests: every account and QOS limit gives Slurm's reason, counts the whole subtree, and
// holds within a cycle (the scheduler adds each start).
#include "sched/limit_gate.h"

#include <gtest/gtest.h>

#include "sched/cluster_builder.h"
#include "sched/scheduler.h"

namespace muster {
namespace {

JobUse Cpus(JobUse u, int cpus) {
  u.cpu_milli = cpus * 1000;
  return u;
}

JobUse Mem(JobUse u, int64_t mb) {
  u.memory_mb = mb;
  return u;
}

JobUse Use(const std::string& account, const std::string& user, int gpus, const std::string& qos = "") {
  JobUse u;
  u.account = account;
  u.user = user;
  u.qos = qos;
  u.gpu_milli = gpus * 1000;
  u.cpu_milli = gpus * 4000;
  u.memory_mb = gpus * 10240;
  return u;
}

AccountTree Tree() {
  AccountTree t;
  Account research{.name = "research"};
  research.limit.gpus = 8;
  Account vision{.name = "vision", .parent = "research"};
  vision.max_jobs = 2;
  vision.grp_jobs = 3;
  vision.max_wall_s = 3600;
  vision.max_gpus_per_user = 4;
  vision.limit.cpus = 40;
  vision.limit.memory_mb = 100 * 1024;
  t.accounts = {research, vision, Account{.name = "ops"}};
  return t;
}

std::vector<Qos> QosList() {
  Qos normal{.name = "normal"};
  Qos small{.name = "small"};
  small.max_gpus_per_user = 2;
  small.max_gpus_per_job = 2;
  small.max_jobs_per_user = 2;
  small.max_wall_s = 600;
  small.grp_gpus = 3;
  return {normal, small};
}

struct Row {
  const char* name;
  std::vector<JobUse> running;
  JobUse job;
  int64_t time_limit_s;
  PendingReason want;
};

TEST(LimitGateTest, EveryLimitGivesSlurmsReason) {
  const AccountTree tree = Tree();
  const std::vector<Qos> qos = QosList();
  const Row rows[] = {
      {"nothing runs", {}, Use("vision", "alice", 4), 600, PendingReason::kNone},
      {"account GPU limit counts the subtree", {Use("vision", "bob", 4), Use("research", "carol", 2)},
       Use("vision", "alice", 4), 600, PendingReason::kAssocGrpGRES},
      {"exactly at the account's GPU limit", {Use("research", "carol", 4)}, Use("vision", "alice", 4), 600,
       PendingReason::kNone},
      {"per-user GPUs in the account", {Use("vision", "alice", 3)}, Use("vision", "alice", 2), 600,
       PendingReason::kAssocGrpGRES},
      {"another user's GPUs do not count per user", {Use("vision", "bob", 3)}, Use("vision", "alice", 2), 600,
       PendingReason::kNone},
      {"running jobs of the account", {Use("vision", "a", 0), Use("vision", "b", 0), Use("vision", "c", 0)},
       Use("vision", "d", 0), 600, PendingReason::kAssocGrpJobsLimit},
      {"running jobs of the user", {Use("vision", "a", 0), Use("vision", "a", 0)}, Use("vision", "a", 0), 600,
       PendingReason::kAssocMaxJobsLimit},
      {"another user's jobs", {Use("vision", "a", 0), Use("vision", "a", 0)}, Use("vision", "b", 0), 600,
       PendingReason::kNone},
      {"wall time over MaxWall", {}, Use("vision", "alice", 1), 7200, PendingReason::kAssocMaxWallDurationPerJobLimit},
      {"no time limit under a MaxWall", {}, Use("vision", "alice", 1), kUnlimited,
       PendingReason::kAssocMaxWallDurationPerJobLimit},
      {"account CPU limit", {Cpus(Use("vision", "bob", 1), 36)}, Use("vision", "alice", 2), 600,
       PendingReason::kAssocGrpCpuLimit},
      {"account memory limit", {Mem(Use("vision", "bob", 0), 95 * 1024)}, Use("vision", "alice", 1), 600,
       PendingReason::kAssocGrpMemLimit},
      {"within the memory limit", {Mem(Use("vision", "bob", 0), 90 * 1024)}, Use("vision", "alice", 1), 600,
       PendingReason::kNone},
      {"another branch is not limited", {Use("vision", "bob", 4), Use("research", "carol", 4)},
       Use("ops", "dave", 8), 600, PendingReason::kNone},
      {"QOS wall time", {}, Use("ops", "dave", 1, "small"), 1200, PendingReason::kQOSMaxWallDurationPerJobLimit},
      {"QOS GPUs per job", {}, Use("ops", "dave", 3, "small"), 600, PendingReason::kQOSMaxGRESPerJob},
      {"QOS GPUs per user", {Use("ops", "dave", 1, "small")}, Use("ops", "dave", 2, "small"), 600,
       PendingReason::kQOSMaxGRESPerUser},
      {"QOS running jobs per user", {Use("ops", "dave", 0, "small"), Use("ops", "dave", 0, "small")},
       Use("ops", "dave", 0, "small"), 600, PendingReason::kQOSMaxJobsPerUserLimit},
      {"QOS GPUs of all its jobs", {Use("ops", "x", 2, "small")}, Use("ops", "dave", 2, "small"), 600,
       PendingReason::kQOSGrpGRES},
      {"other QOS not limited", {Use("ops", "x", 2, "small")}, Use("ops", "dave", 2, "normal"), 600,
       PendingReason::kNone},
  };
  for (const Row& r : rows) {
    LimitGate gate(tree, qos);
    for (const JobUse& u : r.running) gate.Add(u);
    EXPECT_EQ(PendingReasonName(gate.Check(r.job, r.time_limit_s)), std::string(PendingReasonName(r.want))) << r.name;
  }
}

TEST(LimitGateTest, RemovingAJobGivesItsUseBack) {
  const AccountTree tree = Tree();
  const std::vector<Qos> qos = QosList();
  LimitGate gate(tree, qos);
  gate.Add(Use("vision", "bob", 4));
  EXPECT_EQ(gate.AccountUse("research").gpu_milli, 4000);
  EXPECT_EQ(gate.AccountUse("").jobs, 1);
  gate.Add(Use("vision", "bob", 4), -1);
  EXPECT_EQ(gate.AccountUse("research"), UseTotals{});
  EXPECT_EQ(gate.AccountUse("vision"), UseTotals{});
}

// Through the scheduler: the limit holds within one cycle, and a job over a limit blocks nobody.
TEST(LimitGateTest, SchedulerHoldsLimitsWithinACycleAndLetsOthersPass) {
  ClusterSnapshot c = ClusterBuilder().Nodes("n[1-4]", NodeTemplate{}).Partition("p", "n[1-4]", true).Build();
  auto policy = std::make_shared<SchedPolicy>();
  policy->accounts = Tree();
  policy->qos = QosList();
  SchedulerOptions o;
  o.policy = policy;
  std::vector<PendingJob> q;
  for (int i = 1; i <= 3; ++i) {
    PendingJob j = MakeJob(i, "--gres=gpu:4 -t 30", 100 - i);
    j.account = "research";
    j.user = "u" + std::to_string(i);
    q.push_back(j);
  }
  PendingJob other = MakeJob(4, "--gres=gpu:8 -t 30", 10);
  other.account = "ops";
  q.push_back(other);
  std::vector<std::string> got;
  for (const Decision& d : RunCycle(c, q, o)) got.push_back(d.ToString().substr(0, d.ToString().find('{')));
  EXPECT_EQ(got, (std::vector<std::string>{"1 START n1", "2 START n1", "3 PENDING AssocGrpGRES", "4 START n2"}));
}

// The gate walks the tree by its own index (built once); the path is the tree's own, name by
// name, whatever the tree: nested, an unknown name, a name given twice (the first counts), a
// parent that does not exist, and a cycle (cut where AccountTree::Path cuts it).
TEST(LimitGatePath, IsTheTreesPath) {
  AccountTree t;
  t.accounts = {Account{.name = "a"},
                Account{.name = "b", .parent = "a"},
                Account{.name = "c", .parent = "b"},
                Account{.name = "b", .parent = "c"},  // a second "b": never on a path
                Account{.name = "orphan", .parent = "gone"},
                Account{.name = "x", .parent = "y"},
                Account{.name = "y", .parent = "x"}};
  const std::vector<Qos> qos;
  const LimitGate gate(t, qos);
  for (const std::string name : {"a", "b", "c", "orphan", "x", "y", "nobody", ""}) {
    const std::vector<const Account*> want = t.Path(name);
    const LimitGate::AccountPath got = gate.Path(name);
    EXPECT_EQ(std::vector<const Account*>(got.begin(), got.end()), want) << name;
  }
  EXPECT_EQ(gate.Path("c").size(), 3u);
  EXPECT_EQ(gate.Path("x").size(), t.accounts.size() + 1);  // the cycle, cut
}

}  // namespace
}  // namespace muster
