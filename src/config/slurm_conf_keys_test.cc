// slurm.conf's global keys (mapped to muster.yaml's, or warned about), its partitions' access
// lists, the Slurm peer's settings, and muster.yaml's keys winning over slurm.conf's.
#include "config/slurm_conf.h"

#include <gtest/gtest.h>

#include <string>

#include "base/test_util.h"
#include "config/muster_config.h"
#include "config/slurm_conf_test_util.h"

namespace muster {
namespace {

using test::Join;
using test::kTestData;

// ---- global keys and partition access ------------------------------------------------------------

std::string Settings(const ClusterConfig& c) {
  std::string out;
  for (const auto& [key, s] : c.settings) out += key + "=" + s.value + " <- " + s.origin + "\n";
  return out;
}

// The global keys with a Muster meaning set muster.yaml's keys (in its units); the others are
// warned about, by name and line: unsupported and unknown ones one each, the harmless ones together.
TEST(SlurmConf, GlobalKeysAreMappedOrWarnedAbout) {
  StatusOr<ClusterConfig> c = LoadSlurmConf(
      "ClusterName=Site\n"
      "KillWait=45\n"
      "SlurmdTimeout=120 MinJobAge=600\n"
      "FirstJobId=1000\n"
      "HealthCheckProgram=/usr/sbin/nhc\n"
      "HealthCheckInterval=300\n"
      "DisableRootJobs=YES\n"
      "PriorityWeightAge=1000\n"
      "PriorityWeightFairshare=10000\n"
      "PriorityWeightJobSize=10\n"
      "PriorityWeightPartition=100\n"
      "PriorityWeightQOS=2000\n"
      "PriorityMaxAge=14-0\n"
      "PriorityDecayHalfLife=7-0\n"
      "PriorityCalcPeriod=5\n"
      "PriorityFavorSmall=NO\n"
      "PreemptMode=SUSPEND,GANG\n"
      "PreemptExemptTime=00:10:00\n"
      "SchedulerType=sched/backfill\n"
      "SchedulerParameters=bf_window=2880,bf_continue,bf_max_job_test=500,default_queue_depth=200\n"
      "SlurmctldPort=6817\n"
      "AuthType=auth/munge\n"
      "OverTimeLimit=5\n"
      "InactiveLimit=120\n"
      "SlurmdTimeout=0\n"
      "Frobnicate=yes\n"
      "StateSaveLocation=/var/spool/slurmctld\n"
      "PreemptType=preempt/qos\n"
      "NodeName=n1 CPUs=4\n",
      "s.conf");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->name, "site");
  EXPECT_EQ(Settings(*c),
            "agent.health_check.interval=300 <- s.conf:6: HealthCheckInterval=300\n"
            "agent.health_check.program=/usr/sbin/nhc <- s.conf:5: HealthCheckProgram=/usr/sbin/nhc\n"
            "controller.allow_root_jobs=false <- s.conf:7: DisableRootJobs=YES\n"
            "controller.first_job_id=1000 <- s.conf:4: FirstJobId=1000\n"
            "controller.heartbeat_timeout=120 <- s.conf:3: SlurmdTimeout=120\n"
            "controller.kill_wait=45 <- s.conf:2: KillWait=45\n"
            "controller.min_job_age=600 <- s.conf:3: MinJobAge=600\n"
            "preemption.by_partition_tier=false <- s.conf:28: PreemptType=preempt/qos\n"
            "preemption.by_qos=true <- s.conf:28: PreemptType=preempt/qos\n"
            "preemption.exempt_time=600 <- s.conf:18: PreemptExemptTime=00:10:00\n"
            "preemption.mode=suspend <- s.conf:17: PreemptMode=SUSPEND,GANG\n"
            "priority.calc_period=300 <- s.conf:15: PriorityCalcPeriod=5\n"
            "priority.decay_half_life=604800 <- s.conf:14: PriorityDecayHalfLife=7-0\n"
            "priority.favor_small=false <- s.conf:16: PriorityFavorSmall=NO\n"
            "priority.max_age=1209600 <- s.conf:13: PriorityMaxAge=14-0\n"
            "priority.weights.age=1000 <- s.conf:8: PriorityWeightAge=1000\n"
            "priority.weights.fairshare=10000 <- s.conf:9: PriorityWeightFairshare=10000\n"
            "priority.weights.job_size=10 <- s.conf:10: PriorityWeightJobSize=10\n"
            "priority.weights.partition=100 <- s.conf:11: PriorityWeightPartition=100\n"
            "priority.weights.qos=2000 <- s.conf:12: PriorityWeightQOS=2000\n"
            "scheduler.backfill=true <- s.conf:19: SchedulerType=sched/backfill\n"
            "scheduler.backfill_depth=500 <- s.conf:20: "
            "SchedulerParameters=bf_window=2880,bf_continue,bf_max_job_test=500,default_queue_depth=200\n"
            "scheduler.backfill_horizon=172800 <- s.conf:20: "
            "SchedulerParameters=bf_window=2880,bf_continue,bf_max_job_test=500,default_queue_depth=200\n");
  EXPECT_EQ(Join(c->warnings, "\n"),
            "s.conf:20: SchedulerParameters: options not supported by Muster, ignored: bf_continue, "
            "default_queue_depth=200\n"
            "s.conf:23: OverTimeLimit=5: not supported by Muster, ignored\n"
            "s.conf:24: InactiveLimit=120: not supported by Muster, ignored\n"
            "s.conf:25: SlurmdTimeout=0: Muster's controller.heartbeat_timeout takes 1 to 86400 seconds; ignored\n"
            "s.conf:26: Frobnicate=yes: not a slurm.conf key Muster knows, ignored\n"
            "s.conf: keys for Slurm's own daemons and plugins, with nothing for Muster to do, ignored: "
            "SlurmctldPort (line 21), AuthType (line 22), StateSaveLocation (line 27)");
}

// AuthAltParameters=max_token_lifespan= bounds `scontrol token` (controller.jwt_max_lifespan); a
// value slurmctld would not take means no limit there, and here, with a warning.
TEST(SlurmConf, MaxTokenLifespanIsTheJwtMaxLifespan) {
  StatusOr<ClusterConfig> c = LoadSlurmConf(
      "AuthAltParameters=jwt_key=/etc/slurm/jwt.key,max_token_lifespan=3600\nNodeName=n1 CPUs=4\n", "s.conf");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->settings.at("controller.jwt_max_lifespan").value, "3600");
  EXPECT_EQ(c->settings.at("controller.jwt_key").value, "/etc/slurm/jwt.key");
  EXPECT_TRUE(c->warnings.empty()) << Join(c->warnings, "\n");
  c = LoadSlurmConf("AuthAltParameters=max_token_lifespan=soon\nNodeName=n1 CPUs=4\n", "s.conf");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->settings.at("controller.jwt_max_lifespan").value, "0");
  EXPECT_EQ(Join(c->warnings, "\n"),
            "s.conf:1: AuthAltParameters=max_token_lifespan=soon: max_token_lifespan must be a number of seconds "
            "from 1 to 2147483648; no limit enforced");
}

// Options of node and partition lines that Muster does not act on are named by the line they are
// written on (a DEFAULT line's once), unless they hold Slurm's default.
TEST(SlurmConf, UnsupportedLineOptionsAreWarnedAbout) {
  StatusOr<ClusterConfig> c = LoadSlurmConf(
      "NodeName=DEFAULT Weight=10 TmpDisk=0\n"
      "NodeName=n1 CPUs=4 NodeAddr=10.0.0.1 Port=6818\n"
      "NodeName=n2 CPUs=4 Weight=1\n"
      "PartitionName=p Nodes=n[1-2] RootOnly=YES OverSubscribe=FORCE:4 Hidden=NO AllocNodes=ALL\n"
      "PartitionName=q Nodes=n1 ExclusiveUser=NO\n",
      "s.conf");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(Join(c->warnings, "\n"),
            "s.conf:1: options not supported by Muster, ignored: Weight=10\n"
            "s.conf:4: options not supported by Muster, ignored: OverSubscribe=FORCE:4, RootOnly=YES");
}

TEST(SlurmConf, MappedKeysWithBadValuesAreErrors) {
  const std::pair<const char*, const char*> cases[] = {
      {"KillWait=soon", "s.conf:1: KillWait=soon: expected a non-negative integer"},
      {"PriorityMaxAge=old", "s.conf:1: PriorityMaxAge=old: expected a time (minutes, or [days-]hours:minutes:seconds)"},
      {"HealthCheckProgram=nhc", "s.conf:1: HealthCheckProgram=nhc: expected an absolute path"},
      {"PriorityFavorSmall=maybe", "s.conf:1: PriorityFavorSmall=maybe: expected YES or NO"},
      {"PreemptMode=sometimes",
       "s.conf:1: PreemptMode=sometimes: invalid preempt mode 'sometimes' (expected OFF, CANCEL, REQUEUE or SUSPEND)"},
      {"SchedulerParameters=bf_window=long",
       "s.conf:1: SchedulerParameters=bf_window=long: bf_window expects an integer in [1, 100000]"},
      {"NodeName=n1\nPartitionName=p Nodes=n1 AllowGroups=gpu,a&b",
       "s.conf:2: AllowGroups=gpu,a&b: invalid name 'a&b'"},
      {"NodeName=n1\nPartitionName=p Nodes=n1 DenyQos=,", "s.conf:2: DenyQos=,: invalid name ''"},
  };
  for (const auto& [text, error] : cases) {
    const std::string conf = std::string(text) + (std::string(text).find("NodeName") == std::string::npos ? "\nNodeName=n1\n" : "\n");
    StatusOr<ClusterConfig> r = LoadSlurmConf(conf, "s.conf");
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().message(), error);
  }
}

// Slurm's Allow/Deny lists: ALL (or nothing) for everyone, DEFAULT lines apply, a Deny list beside
// the Allow list of its kind is ignored with a warning (slurmctld logs an error and ignores it).
TEST(SlurmConf, PartitionAccessLists) {
  StatusOr<ClusterConfig> c = LoadSlurmConf(
      "NodeName=n[1-2] CPUs=4\n"
      "PartitionName=DEFAULT AllowQos=normal,high\n"
      "PartitionName=gpu Nodes=n1 AllowGroups=gpu,staff AllowAccounts=physics,chemistry\n"
      "PartitionName=open Nodes=n2 AllowGroups=ALL AllowAccounts=ALL AllowQos=ALL DenyAccounts=guests\n"
      "PartitionName=both Nodes=n2 AllowAccounts=physics DenyAccounts=guests DenyQos=low\n",
      "s.conf");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const std::vector<Partition>& p = c->spec.partitions;
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].access.allow_groups, (std::vector<std::string>{"gpu", "staff"}));
  EXPECT_EQ(p[0].access.allow_accounts, (std::vector<std::string>{"physics", "chemistry"}));
  EXPECT_EQ(p[0].access.allow_qos, (std::vector<std::string>{"normal", "high"}));
  EXPECT_TRUE(p[1].access.allow_groups.empty());
  EXPECT_TRUE(p[1].access.allow_accounts.empty());
  EXPECT_TRUE(p[1].access.allow_qos.empty());
  EXPECT_EQ(p[1].access.deny_accounts, std::vector<std::string>{"guests"});
  EXPECT_EQ(p[2].access.allow_accounts, std::vector<std::string>{"physics"});
  EXPECT_TRUE(p[2].access.deny_accounts.empty());
  EXPECT_EQ(p[2].access.allow_qos, (std::vector<std::string>{"normal", "high"}));  // from DEFAULT
  EXPECT_TRUE(p[2].access.deny_qos.empty());
  EXPECT_EQ(Join(c->warnings, "\n"),
            "s.conf:5: DenyAccounts=guests: partition 'both' also has AllowAccounts=, which wins (as in Slurm); ignored\n"
            "s.conf:5: DenyQos=low: partition 'both' also has AllowQos=, which wins (as in Slurm); ignored");
}

// The peer's file: what Muster reads of it, and what it says it ignores.
TEST(SlurmConf, SlurmPeersFileSettingsAndWarnings) {
  StatusOr<ClusterConfig> r = LoadSlurmConfFile((kTestData / "peer" / "slurm.conf").string());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->settings.size(), 3u);
  EXPECT_EQ(r->settings.at("scheduler.backfill").value, "true");
  // AuthAltParameters=jwt_key=: the key of slurmrestd's JWTs.
  EXPECT_EQ(r->settings.at("controller.jwt_key").value, "/tmp/slurm-peer/etc/jwt_hs256.key");
  EXPECT_EQ(r->settings.at("controller.min_job_age").value, "300");
  std::string unsupported;
  for (const std::string& w : r->warnings) {
    if (w.find("not supported") != std::string::npos) unsupported += w.substr(w.find(": ") + 2) + "\n";
  }
  EXPECT_EQ(unsupported,
            "MailProg=/bin/true: not supported by Muster, ignored\n"
            "ReturnToService=2: not supported by Muster, ignored\n"
            "MaxJobCount=100000: not supported by Muster, ignored\n");
  ASSERT_EQ(r->warnings.size(), 4u);
  EXPECT_NE(r->warnings.back().find("SlurmctldHost (line 3), SlurmctldPort (line 4)"), std::string::npos)
      << r->warnings.back();
}

// The precedence rule: what muster.yaml sets wins (a different value in slurm.conf is warned
// about); what it leaves out comes from slurm.conf; the rest keeps Muster's defaults.
TEST(SlurmConf, MusterYamlWinsOverSlurmConf) {
  TempDir dir("muster_slurm_conf_test.");
  dir.Write("slurm.conf",
            "KillWait=60\nSlurmdTimeout=120\nMinJobAge=600\nHealthCheckProgram=/usr/sbin/nhc\nNodeName=n1 CPUs=4\n");
  const std::string conf = dir.Write("muster.yaml",
                                     "cluster_file: slurm.conf\n"
                                     "controller:\n  kill_wait: 10\n  min_job_age: 600\n");
  StatusOr<MusterConfig> m = LoadMusterConfig(conf);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->kill_wait_s, 10);
  EXPECT_EQ(m->heartbeat_timeout_s, 120);
  EXPECT_EQ(m->min_job_age_s, 600);
  EXPECT_EQ(m->health_check_program, "/usr/sbin/nhc");
  EXPECT_EQ(m->first_job_id, 1);
  ASSERT_EQ(m->cluster.warnings.size(), 1u);
  EXPECT_EQ(m->cluster.warnings[0],
            dir.Path("slurm.conf") + ":1: KillWait=60: " + conf + " sets controller.kill_wait (10), which wins; ignored");

  // A slurm.conf timeout that leaves muster.yaml's heartbeat interval too long is an error.
  dir.Write("slurm.conf", "SlurmdTimeout=6\nNodeName=n1 CPUs=4\n");
  StatusOr<MusterConfig> bad = LoadMusterConfig(conf);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            conf + ": agent.heartbeat_interval (5) must be at most half of controller.heartbeat_timeout (6, from " +
                dir.Path("slurm.conf") + ":1: SlurmdTimeout=6)");
}

}  // namespace
}  // namespace muster
