#include "model/partition_access.h"

#include <gtest/gtest.h>

namespace muster {
namespace {

using D = PartitionAccessDenial;

PartitionAccessRequest Who(std::vector<std::string> groups, std::string account, std::string qos = "") {
  PartitionAccessRequest r;
  r.groups = std::move(groups);
  r.account = std::move(account);
  r.qos = std::move(qos);
  return r;
}

TEST(PartitionAccess, OpenPartitionLetsEveryoneIn) {
  EXPECT_EQ(CheckPartitionAccess(PartitionAccess{}, Who({}, "")), D::kNone);
  EXPECT_EQ(CheckPartitionAccess(PartitionAccess{}, Who({"users"}, "a", "high")), D::kNone);
}

TEST(PartitionAccess, AllowGroupsMatchesAnyOfTheSubmittersGroups) {
  PartitionAccess a;
  a.allow_groups = {"gpu", "admins"};
  EXPECT_EQ(CheckPartitionAccess(a, Who({"users", "gpu"}, "")), D::kNone);  // a supplementary group
  EXPECT_EQ(CheckPartitionAccess(a, Who({"users"}, "")), D::kGroup);
  EXPECT_EQ(CheckPartitionAccess(a, Who({}, "")), D::kGroup);
}

TEST(PartitionAccess, RootAndAdminsBypassAllowGroupsOnly) {
  PartitionAccess a;
  a.allow_groups = {"gpu"};
  a.allow_accounts = {"physics"};
  PartitionAccessRequest admin = Who({"root"}, "physics");
  admin.privileged = true;
  EXPECT_EQ(CheckPartitionAccess(a, admin), D::kNone);
  admin.account = "chemistry";
  EXPECT_EQ(CheckPartitionAccess(a, admin), D::kAccount);  // as in Slurm: accounts apply to them too
}

// Slurm 22.05's part_policy_valid_acct: the account's own name (a sub-account is not its parent).
TEST(PartitionAccess, AccountsMatchByName) {
  PartitionAccess allow;
  allow.allow_accounts = {"physics"};
  EXPECT_EQ(CheckPartitionAccess(allow, Who({}, "physics")), D::kNone);
  EXPECT_EQ(CheckPartitionAccess(allow, Who({}, "lattice")), D::kAccount);  // a child of physics
  EXPECT_EQ(CheckPartitionAccess(allow, Who({}, "chemistry")), D::kAccount);
  EXPECT_EQ(CheckPartitionAccess(allow, Who({}, "")), D::kAccount);  // no account: not known
  PartitionAccess deny;
  deny.deny_accounts = {"physics"};
  EXPECT_EQ(CheckPartitionAccess(deny, Who({}, "physics")), D::kAccount);
  EXPECT_EQ(CheckPartitionAccess(deny, Who({}, "chemistry")), D::kNone);
  EXPECT_EQ(CheckPartitionAccess(deny, Who({}, "")), D::kNone);
}

TEST(PartitionAccess, QosListsTreatNoQosAsNormal) {
  PartitionAccess allow;
  allow.allow_qos = {"high"};
  EXPECT_EQ(CheckPartitionAccess(allow, Who({}, "", "high")), D::kNone);
  EXPECT_EQ(CheckPartitionAccess(allow, Who({}, "", "")), D::kQos);
  allow.allow_qos.push_back("normal");
  EXPECT_EQ(CheckPartitionAccess(allow, Who({}, "", "")), D::kNone);
  PartitionAccess deny;
  deny.deny_qos = {"normal"};
  EXPECT_EQ(CheckPartitionAccess(deny, Who({}, "", "")), D::kQos);
  EXPECT_EQ(CheckPartitionAccess(deny, Who({}, "", "high")), D::kNone);
}

TEST(PartitionAccess, GroupsAreCheckedBeforeAccountsAndQos) {
  PartitionAccess a;
  a.allow_groups = {"gpu"};
  a.allow_accounts = {"physics"};
  a.allow_qos = {"high"};
  EXPECT_EQ(CheckPartitionAccess(a, Who({"users"}, "chemistry", "low")), D::kGroup);
  EXPECT_EQ(CheckPartitionAccess(a, Who({"gpu"}, "chemistry", "low")), D::kAccount);
  EXPECT_EQ(CheckPartitionAccess(a, Who({"gpu"}, "physics", "low")), D::kQos);
}

TEST(PartitionAccess, MessagesAreSlurms) {
  EXPECT_STREQ(PartitionAccessMessage(D::kGroup), "User's group not permitted to use this partition");
  EXPECT_STREQ(PartitionAccessMessage(D::kAccount), "Invalid account or account/partition combination specified");
  EXPECT_STREQ(PartitionAccessMessage(D::kQos), "Invalid qos specification");
  EXPECT_STREQ(PartitionAccessMessage(D::kNone), "");
  EXPECT_EQ(FormatAccessList({}), "ALL");
  EXPECT_EQ(FormatAccessList({"a", "b"}), "a,b");
}

}  // namespace
}  // namespace muster
