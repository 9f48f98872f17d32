#include "report/sacctmgr_format.h"

#include <gtest/gtest.h>

namespace muster {
namespace {

TEST(SacctmgrFormatTest, AccountsAssociationsAndQosAsSlurmLaysThemOut) {
  Account team;
  team.name = "team";
  team.shares = 2;
  team.quota.gpus = 8;
  team.limit.memory_mb = 2048;
  team.max_wall_s = 3600;
  Account sub;
  sub.name = "sub";
  sub.parent = "team";
  sub.over_quota_weight = 0.5;
  const std::vector<UserAssociation> users = {{"alice", "team", 1}, {"bob", "", 3}};
  Qos high;
  high.name = "high";
  high.priority = 100;
  high.preempt = {"normal", "low"};
  high.has_preempt_mode = true;
  high.preempt_mode = PreemptMode::kRequeue;
  high.max_gpus_per_user = 8;
  Qos normal;
  normal.name = "normal";

  EXPECT_EQ(FormatSacctmgrShow("account", {team, sub}, users, {}, {}),
            "    Account     Parent      Share      Quota OverQuotaWeight    GrpTRES    MaxJobs    MaxWall  MaxTRESPU\n"
            " ---------- ---------- ---------- ---------- --------------- ---------- ---------- ---------- ----------\n"
            "       team       root          2 gres/gpu=8               1     mem=2G              01:00:00           \n"
            "        sub       team          1                        0.5                                            \n");
  EXPECT_EQ(FormatSacctmgrShow("assoc", {team}, users, {}, {false, 1}),
            "team||2|mem=2G||01:00:00|\n"
            "team|alice|1||||\n"
            "root|bob|3||||\n");
  EXPECT_EQ(FormatSacctmgrShow("qos", {}, {}, {high, normal}, {true, 2}),
            "Name|Priority|GraceTime|Preempt|PreemptExemptTime|PreemptMode|GrpTRES|MaxTRES|MaxWall|MaxTRESPU|MaxJobsPU|\n"
            "high|100||normal,low||requeue||||gres/gpu=8||\n"
            "normal|0||||cluster||||||\n");
}

}  // namespace
}  // namespace muster
