// muster.yaml's scheduling sections (scheduler, priority, accounts, queues, qos, preemption), as
// the controller reads them: values, defaults, and errors that name the field.
#include "config/scheduling/scheduling_config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace muster {
namespace {

class SchedulingConfigFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("scheduling_config_test_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "cluster.yaml") << "cluster: t\n"
                                            "node_types:\n"
                                            "  n: {cpus: 4, memory: 8G, gpus: 1, gpu_model: h100, gpu_memory: 80G}\n"
                                            "nodes:\n"
                                            "  - {names: \"node[1-2]\", type: n}\n"
                                            "partitions:\n"
                                            "  - {name: gpu, nodes: \"node[1-2]\", default: true}\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  StatusOr<SchedulingConfig> Load(const std::string& body) {
    const std::string p = (dir_ / "muster.yaml").string();
    std::ofstream(p, std::ios::trunc) << "cluster_file: cluster.yaml\n" << body;
    ASSIGN_OR_RETURN(MusterConfig conf, LoadMusterConfig(p));
    return LoadSchedulingConfig(conf);
  }
  std::filesystem::path dir_;
};

TEST_F(SchedulingConfigFile, PriorityAndAccountsAreRead) {
  StatusOr<SchedulingConfig> none = Load("");
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_EQ(none->priority.weights.fairshare, 10000);  // the defaults
  EXPECT_EQ(none->priority.half_life_s, 7 * 86400);
  EXPECT_TRUE(none->priority.accounts.accounts.empty());
  EXPECT_TRUE(none->scheduler.backfill);
  EXPECT_EQ(none->scheduler.backfill_depth, 64);
  StatusOr<SchedulingConfig> off = Load("scheduler:\n  backfill: false\n  backfill_depth: 8\n  backfill_horizon: 1-00:00:00\n");
  ASSERT_TRUE(off.ok()) << off.status().message();
  EXPECT_FALSE(off->scheduler.backfill);
  EXPECT_EQ(off->scheduler.backfill_depth, 8);
  EXPECT_EQ(off->scheduler.backfill_horizon_s, 86400);
  StatusOr<SchedulingConfig> bad = Load("scheduler:\n  backfill_depth: 0\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("scheduler.backfill_depth"), std::string::npos) << bad.status().message();
  EXPECT_EQ(none->scheduler.placement->name(), "learned");
  StatusOr<SchedulingConfig> best = Load("scheduler:\n  placement: bestfit\n");
  ASSERT_TRUE(best.ok()) << best.status().message();
  EXPECT_EQ(best->scheduler.placement->name(), "bestfit");
  StatusOr<SchedulingConfig> typo = Load("scheduler:\n  placement: best\n");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("'best' is not learned or bestfit"), std::string::npos) << typo.status().message();
  StatusOr<SchedulingConfig> c = Load(
      "priority:\n"
      "  weights: {age: 5, fairshare: 6, job_size: 7, partition: 8, qos: 9}\n"
      "  max_age: 1-00:00:00\n"
      "  favor_small: true\n"
      "  decay_half_life: 0\n"
      "  calc_period: 5:00\n"
      "  billing: {gpu: 2.5, cpu: 0.125, mem_gb: 0}\n"
      "accounts:\n"
      "  - name: research\n"
      "    shares: 10\n"
      "    users: [alice, {name: bob, shares: 2}]\n"
      "  - {name: vision, parent: research, shares: 4, users: [carol]}\n");
  ASSERT_TRUE(c.ok()) << c.status().message();
  const PrioritySettings& p = c->priority;
  EXPECT_EQ(p.weights.age, 5);
  EXPECT_EQ(p.weights.qos, 9);
  EXPECT_EQ(p.weights.max_age_s, 86400);
  EXPECT_TRUE(p.weights.favor_small);
  EXPECT_EQ(p.half_life_s, 0);
  EXPECT_EQ(p.calc_period_s, 300);
  EXPECT_EQ(none->priority.calc_period_s, 0);
  EXPECT_DOUBLE_EQ(p.billing.gpu, 2.5);
  EXPECT_DOUBLE_EQ(p.billing.cpu, 0.125);
  ASSERT_EQ(p.accounts.accounts.size(), 2u);
  EXPECT_EQ(p.accounts.accounts[1].parent, "research");
  ASSERT_EQ(p.accounts.users.size(), 3u);
  EXPECT_EQ(p.accounts.users[1].user, "bob");
  EXPECT_EQ(p.accounts.users[1].shares, 2);
  EXPECT_EQ(p.accounts.users[2].account, "vision");
  EXPECT_EQ(p.order->name(), "multifactor");
  StatusOr<SchedulingConfig> las = Load(
      "priority:\n  order: least-attained\n  las_queue_limits: [\"30:00\", \"2:00:00\"]\n"
      "preemption:\n  by_priority: true\n");
  ASSERT_TRUE(las.ok()) << las.status().message();
  EXPECT_EQ(las->priority.order->name(), "least-attained");
  EXPECT_EQ(las->priority.las_queue_limits_gpu_s, (std::vector<int64_t>{1800, 7200}));
  EXPECT_TRUE(las->preemption.by_priority);
}

TEST_F(SchedulingConfigFile, PriorityErrorsNameTheField) {
  struct {
    const char* body;
    const char* error;
  } rows[] = {
      {"priority:\n  weights: {age: -1}\n", "priority.weights.age: '-1' is out of range"},
      {"priority:\n  weigths: {}\n", "weigths"},
      {"priority:\n  billing: {gpu: lots}\n", "priority.billing.gpu: expected a number, got 'lots'"},
      {"accounts:\n  - {name: a, parent: b}\n", "accounts: account 'a': parent account 'b' is not defined"},
      {"accounts:\n  - {name: a, users: [{name: u, shares: x}]}\n", "accounts[0].users[0].shares"},
      {"accounts:\n  - {name: a, users: [u, u]}\n", "user 'u' is in account 'a' twice"},
      {"priority:\n  order: newest-first\n", "priority.order"},
      {"priority:\n  calc_period: soon\n", "priority.calc_period"},
      {"priority:\n  las_queue_limits: [\"2:00:00\", \"1:00:00\"]\n", "priority.las_queue_limits: the limits must ascend"},
      {"priority:\n  las_queue_limits: [soon]\n", "priority.las_queue_limits: 'soon' is not a positive time"},
  };
  for (const auto& r : rows) {
    StatusOr<SchedulingConfig> c = Load(r.body);
    ASSERT_FALSE(c.ok()) << r.body;
    EXPECT_NE(c.status().message().find(r.error), std::string::npos) << c.status().message();
  }
}

TEST_F(SchedulingConfigFile, QueuesQosAndPreemptionAreRead) {
  std::ofstream(dir_ / "queues.yaml") << "apiVersion: scheduling.run.ai/v2\n"
                                         "kind: Queue\n"
                                         "metadata: {name: dept}\n"
                                         "spec:\n"
                                         "  resources:\n"
                                         "    gpu: {quota: 8, overQuotaWeight: 2, limit: 16}\n"
                                         "---\n"
                                         "apiVersion: scheduling.run.ai/v2\n"
                                         "kind: Queue\n"
                                         "metadata: {name: team-a}\n"
                                         "spec:\n"
                                         "  parentQueue: dept\n"
                                         "  resources:\n"
                                         "    gpu: {quota: 4, limit: -1}\n"
                                         "    cpu: {quota: 64}\n"
                                         "    memory: {quota: 262144, limit: 524288}\n";
  StatusOr<SchedulingConfig> c = Load(
      "accounts:\n"
      "  - {name: ops, quota: {gpu: 2, memory: 1T}, limit: {gpu: 4}, over_quota_weight: 0.5, max_jobs: 10,\n"
      "     max_wall: 1-00:00:00, max_gpus_per_user: 2, users: [alice]}\n"
      "queues: queues.yaml\n"
      "qos:\n"
      "  - {name: high, priority: 100, preempt: [normal], max_gpus_per_user: 8}\n"
      "  - {name: scavenger, preempt_mode: cancel, grace_time: 5, preempt_exempt_time: 10, max_wall: 60}\n"
      "preemption: {by_partition_tier: true, mode: requeue, grace_time: 45, exempt_time: '5:00'}\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const AccountTree& t = c->priority.accounts;
  ASSERT_EQ(t.accounts.size(), 3u);
  const Account* ops = t.Find("ops");
  EXPECT_EQ(ops->quota, (TresAmounts{2, kUnlimited, 1024 * 1024}));
  EXPECT_EQ(ops->limit.gpus, 4);
  EXPECT_DOUBLE_EQ(ops->over_quota_weight, 0.5);
  EXPECT_EQ(ops->max_jobs, 10);
  EXPECT_EQ(ops->max_wall_s, 86400);
  EXPECT_EQ(ops->max_gpus_per_user, 2);
  const Account* team = t.Find("team-a");
  EXPECT_EQ(team->parent, "dept");
  EXPECT_EQ(team->quota, (TresAmounts{4, 64, 262144}));
  EXPECT_EQ(team->limit, (TresAmounts{kUnlimited, kUnlimited, 524288}));
  EXPECT_DOUBLE_EQ(t.Find("dept")->over_quota_weight, 2);
  EXPECT_EQ(t.Find("dept")->limit.gpus, 16);
  // "normal" is added: jobs without -q have it.
  ASSERT_EQ(c->qos.size(), 3u);
  EXPECT_EQ(c->qos[0].preempt, (std::vector<std::string>{"normal"}));
  EXPECT_EQ(c->qos[1].preempt_mode, PreemptMode::kCancel);
  EXPECT_TRUE(c->qos[1].has_preempt_mode);
  EXPECT_EQ(c->qos[1].grace_time_s, 5);
  EXPECT_EQ(c->qos[1].preempt_exempt_time_s, 600);  // Slurm time: minutes
  EXPECT_EQ(c->qos[1].max_wall_s, 3600);
  EXPECT_EQ(c->qos[2].name, "normal");
  EXPECT_TRUE(c->preemption.by_partition_tier);
  EXPECT_EQ(c->preemption.grace_time_s, 45);
  EXPECT_EQ(c->preemption.exempt_time_s, 300);
  // The scheduler gets all of it.
  ASSERT_NE(c->scheduler.policy, nullptr);
  EXPECT_EQ(c->scheduler.policy->accounts.accounts.size(), 3u);
  EXPECT_EQ(c->scheduler.policy->qos.size(), 3u);
}

TEST_F(SchedulingConfigFile, PolicyErrorsNameTheField) {
  struct {
    const char* body;
    const char* error;
  } rows[] = {
      {"qos:\n  - {name: high, preempt: [gold]}\n", "qos: QOS 'high': preempt names unknown QOS 'gold'"},
      {"qos:\n  - {name: high, preempt_mode: sometimes}\n",
       "qos[0].preempt_mode: invalid preempt mode 'sometimes' (expected OFF, CANCEL, REQUEUE or SUSPEND)"},
      {"qos:\n  - {name: a}\n  - {name: a}\n", "QOS 'a' is defined twice"},
      {"qos:\n  - {name: a, max_gpus_per_user: -2}\n", "qos[0].max_gpus_per_user"},
      {"preemption: {mode: never}\n", "preemption.mode: invalid preempt mode 'never'"},
      {"preemption: {grace: 5}\n", "grace"},
      {"accounts:\n  - {name: a, quota: {gpu: 8}, limit: {gpu: 4}}\n", "account 'a': gpu quota 8 is over its limit 4"},
      {"accounts:\n  - {name: a, quota: {gpus: 8}}\n", "gpus"},
      {"queues:\n  - {kind: Job, metadata: {name: x}}\n", "queues[0].kind: expected Queue, not 'Job'"},
      {"queues:\n  - {kind: Queue, spec: {}}\n", "metadata"},
      {"queues:\n  - {kind: Queue, metadata: {name: x}, spec: {parentQueue: nowhere}}\n",
       "queues: account 'x': parent account 'nowhere' is not defined"},
      {"queues: missing.yaml\n", "cannot read"},
  };
  for (const auto& r : rows) {
    StatusOr<SchedulingConfig> c = Load(r.body);
    ASSERT_FALSE(c.ok()) << r.body;
    EXPECT_NE(c.status().message().find(r.error), std::string::npos) << r.body << " -> " << c.status().message();
  }
}

// A slurm.conf's scheduling keys apply where muster.yaml says nothing; where it does, muster.yaml
// wins and a different value is warned about.
TEST_F(SchedulingConfigFile, SlurmConfSchedulingKeysUnderMusterYaml) {
  std::ofstream(dir_ / "slurm.conf") << "PriorityWeightAge=1000\nPriorityWeightFairshare=500\nPriorityMaxAge=1-0\n"
                                        "PriorityDecayHalfLife=0\nSchedulerType=sched/builtin\n"
                                        "SchedulerParameters=bf_window=60,bf_max_job_test=10\n"
                                        "PreemptMode=CANCEL\nPreemptExemptTime=5\nPreemptType=preempt/partition_prio\n"
                                        "NodeName=n1 CPUs=4\n";
  const std::string p = (dir_ / "muster.yaml").string();
  std::ofstream(p, std::ios::trunc) << "cluster_file: slurm.conf\npriority:\n  weights: {fairshare: 7}\n";
  StatusOr<MusterConfig> conf = LoadMusterConfig(p);
  ASSERT_TRUE(conf.ok()) << conf.status().message();
  StatusOr<SchedulingConfig> c = LoadSchedulingConfig(*conf);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->priority.weights.age, 1000);
  EXPECT_EQ(c->priority.weights.fairshare, 7);
  EXPECT_EQ(c->priority.weights.max_age_s, 86400);
  EXPECT_EQ(c->priority.half_life_s, 0);
  EXPECT_FALSE(c->scheduler.backfill);
  EXPECT_EQ(c->scheduler.backfill_depth, 10);
  EXPECT_EQ(c->scheduler.backfill_horizon_s, 3600);
  EXPECT_EQ(c->preemption.mode, PreemptMode::kCancel);
  EXPECT_EQ(c->preemption.exempt_time_s, 300);
  EXPECT_TRUE(c->preemption.by_partition_tier);  // PreemptType=preempt/partition_prio
  EXPECT_FALSE(c->preemption.by_qos);
  EXPECT_TRUE(c->preemption.by_partition_tier);
  EXPECT_FALSE(c->preemption.by_qos);
  ASSERT_EQ(c->warnings.size(), 1u);
  EXPECT_EQ(c->warnings[0], (dir_ / "slurm.conf").string() + ":2: PriorityWeightFairshare=500: " + p +
                                " sets priority.weights.fairshare (7), which wins; ignored");
}

}  // namespace
}  // namespace muster
