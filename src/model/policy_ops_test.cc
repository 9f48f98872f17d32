// sacctmgr's changes as values: every verb and entity, errors that name the problem, all or
// nothing, and the stored form.
#include "model/policy_ops.h"

#include <gtest/gtest.h>

namespace muster {
namespace {

PolicyOp Op(std::string verb, std::string entity, std::string name,
            std::vector<std::pair<std::string, std::string>> fields = {}) {
  return PolicyOp{std::move(verb), std::move(entity), std::move(name), std::move(fields)};
}

TEST(PolicyOpsTest, AccountsUsersAndQosAreAddedChangedAndDeleted) {
  AccountTree tree;
  std::vector<Qos> qos;
  ASSERT_TRUE(ApplyPolicyOp(Op("add", "account", "research", {{"Fairshare", "10"}, {"GrpTRES", "gres/gpu=16,cpu=256"}}),
                            &tree, &qos).ok());
  ASSERT_TRUE(ApplyPolicyOp(Op("add", "account", "vision",
                               {{"parent", "research"}, {"Quota", "gres/gpu=8,mem=1T"}, {"OverQuotaWeight", "2.5"},
                                {"MaxJobs", "20"}, {"MaxWall", "1-00:00:00"}, {"MaxTRESPerUser", "gres/gpu=4"}}),
                            &tree, &qos).ok());
  const Account* v = tree.Find("vision");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->parent, "research");
  EXPECT_EQ(v->quota, (TresAmounts{8, kUnlimited, 1024 * 1024}));
  EXPECT_DOUBLE_EQ(v->over_quota_weight, 2.5);
  EXPECT_EQ(v->max_jobs, 20);
  EXPECT_EQ(v->max_wall_s, 86400);
  EXPECT_EQ(v->max_gpus_per_user, 4);
  EXPECT_EQ(tree.Find("research")->limit, (TresAmounts{16, 256, kUnlimited}));
  ASSERT_TRUE(ApplyPolicyOp(Op("modify", "account", "vision", {{"MaxJobs", "-1"}}), &tree, &qos).ok());
  EXPECT_EQ(tree.Find("vision")->max_jobs, kUnlimited);
  ASSERT_TRUE(ApplyPolicyOp(Op("add", "user", "alice", {{"Account", "vision"}, {"Fairshare", "3"}}), &tree, &qos).ok());
  ASSERT_EQ(tree.users.size(), 1u);
  EXPECT_EQ(tree.users[0].shares, 3);
  ASSERT_TRUE(ApplyPolicyOp(Op("modify", "user", "alice", {{"Account", "vision"}, {"Fairshare", "5"}}), &tree, &qos).ok());
  EXPECT_EQ(tree.users[0].shares, 5);
  ASSERT_TRUE(ApplyPolicyOp(Op("add", "qos", "high", {{"Priority", "100"}, {"Preempt", "normal"}, {"PreemptMode", "cancel"},
                                                      {"GraceTime", "60"}, {"PreemptExemptTime", "10:00"},
                                                      {"MaxTRESPerUser", "gres/gpu=8"}, {"MaxTRESPerJob", "gres/gpu=4"},
                                                      {"MaxJobsPerUser", "3"}, {"MaxWall", "60"}, {"GrpTRES", "gres/gpu=32"}}),
                            &tree, &qos).ok());
  ASSERT_EQ(qos.size(), 2u);  // "normal" comes with the first QOS
  EXPECT_EQ(qos[1].name, "normal");
  const Qos& h = qos[0];
  EXPECT_EQ(h.priority, 100);
  EXPECT_EQ(h.preempt, (std::vector<std::string>{"normal"}));
  EXPECT_TRUE(h.has_preempt_mode);
  EXPECT_EQ(h.preempt_mode, PreemptMode::kCancel);
  EXPECT_EQ(h.grace_time_s, 60);
  EXPECT_EQ(h.preempt_exempt_time_s, 600);
  EXPECT_EQ(h.max_gpus_per_user, 8);
  EXPECT_EQ(h.max_gpus_per_job, 4);
  EXPECT_EQ(h.max_jobs_per_user, 3);
  EXPECT_EQ(h.max_wall_s, 3600);
  EXPECT_EQ(h.grp_gpus, 32);
  // Deleting: a user association, an account (with its users), a QOS.
  ASSERT_TRUE(ApplyPolicyOp(Op("delete", "account", "vision"), &tree, &qos).ok());
  EXPECT_EQ(tree.Find("vision"), nullptr);
  EXPECT_TRUE(tree.users.empty());
  ASSERT_TRUE(ApplyPolicyOp(Op("delete", "qos", "high"), &tree, &qos).ok());
  EXPECT_EQ(qos.size(), 1u);
}

TEST(PolicyOpsTest, ErrorsNameTheProblemAndChangeNothing) {
  AccountTree tree;
  std::vector<Qos> qos;
  ASSERT_TRUE(ApplyPolicyOp(Op("add", "account", "a"), &tree, &qos).ok());
  ASSERT_TRUE(ApplyPolicyOp(Op("add", "account", "b", {{"Parent", "a"}}), &tree, &qos).ok());
  ASSERT_TRUE(ApplyPolicyOp(Op("add", "qos", "low", {}), &tree, &qos).ok());
  ASSERT_TRUE(ApplyPolicyOp(Op("add", "qos", "high", {{"Preempt", "low"}}), &tree, &qos).ok());
  const AccountTree tree_before = tree;
  const std::vector<Qos> qos_before = qos;
  struct Row {
    PolicyOp op;
    const char* error;
  } rows[] = {
      {Op("add", "account", "a"), "account 'a' already exists"},
      {Op("add", "account", "c", {{"Fairshar", "1"}}), "unknown key 'Fairshar' for an account (known: Parent, Fairshare"},
      {Op("add", "account", "c", {{"Parent", "nowhere"}}), "account 'c': parent account 'nowhere' is not defined"},
      {Op("add", "account", "c", {{"GrpTRES", "gres/tpu=4"}}), "GrpTRES: unknown TRES 'gres/tpu' (known: cpu, mem, gres/gpu)"},
      {Op("add", "account", "c", {{"Quota", "gres/gpu=8"}, {"GrpTRES", "gres/gpu=4"}}), "gpu quota 8 is over its limit 4"},
      {Op("add", "account", "c", {{"MaxWall", "soon"}}), "MaxWall: "},
      {Op("modify", "account", "zz", {{"MaxJobs", "1"}}), "account 'zz' does not exist"},
      {Op("delete", "account", "a"), "account 'a' has sub-account 'b'"},
      {Op("add", "user", "u"), "add user: Account= is required"},
      {Op("add", "user", "u", {{"Account", "nowhere"}}), "account 'nowhere' is not defined"},
      {Op("add", "qos", "x", {{"Preempt", "gold"}}), "QOS 'x': preempt names unknown QOS 'gold'"},
      {Op("add", "qos", "x", {{"PreemptMode", "sometimes"}}), "PreemptMode: invalid preempt mode 'sometimes'"},
      {Op("delete", "qos", "low"), "QOS 'high' preempts 'low'; change it first"},
      {Op("delete", "qos", "normal"), "QOS 'normal' is every job's default"},
      {Op("frobnicate", "qos", "low"), "unknown verb 'frobnicate'"},
      {Op("add", "cluster", "c"), "unknown entity 'cluster'"},
  };
  for (const Row& r : rows) {
    Status st = ApplyPolicyOp(r.op, &tree, &qos);
    ASSERT_FALSE(st.ok()) << r.error;
    EXPECT_NE(st.message().find(r.error), std::string::npos) << st.message();
    EXPECT_EQ(tree.accounts.size(), tree_before.accounts.size());
    EXPECT_EQ(qos, qos_before);
  }
}

TEST(PolicyOpsTest, TresAndTheStoredFormRoundTrip) {
  StatusOr<TresAmounts> t = ParseTres("cpu=64,mem=512G,gres/gpu=8");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, (TresAmounts{8, 64, 512 * 1024}));
  EXPECT_EQ(FormatTres(*t), "cpu=64,mem=512G,gres/gpu=8");
  EXPECT_FALSE(ParseTres("gpu").ok());
  EXPECT_FALSE(ParseTres("cpu=lots").ok());
  const std::vector<PolicyOp> ops = {Op("add", "account", "a", {{"Quota", "gres/gpu=4"}}), Op("delete", "qos", "x")};
  StatusOr<std::vector<PolicyOp>> back = PolicyOpsFromJson(PolicyOpsToJson(ops));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, ops);
  EXPECT_FALSE(PolicyOpsFromJson("{}").ok());
  EXPECT_FALSE(PolicyOpsFromJson("[{\"verb\": 1}]").ok());
  // A change log saved by the earlier JSON codec (captured from it): it reads, and is written again
  // byte for byte.
  const std::string old =
      R"([{"entity":"user","fields":[["Account","team"],["MaxJobs","3"]],"name":"alice","verb":"add"},)"
      R"({"entity":"qos","fields":[],"name":"gold","verb":"delete"}])";
  StatusOr<std::vector<PolicyOp>> read = PolicyOpsFromJson(old);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, (std::vector<PolicyOp>{Op("add", "user", "alice", {{"Account", "team"}, {"MaxJobs", "3"}}),
                                          Op("delete", "qos", "gold")}));
  EXPECT_EQ(PolicyOpsToJson(*read), old);
}

}  // namespace
}  // namespace muster
