#include "cli/command_args.h"

#include <gtest/gtest.h>

namespace muster {
namespace {

const std::vector<std::string> kEnv = {"HOME=/home/a", "PATH=/bin", "SLURM_CONF=/etc/slurm.conf", "X=1"};

TEST(ExportedEnvironmentTest, AllIsEverything) {
  EXPECT_EQ(ExportedEnvironment("ALL", kEnv), kEnv);
  EXPECT_EQ(ExportedEnvironment("", kEnv), kEnv);
}

TEST(ExportedEnvironmentTest, NoneKeepsOnlySlurmVariables) {
  EXPECT_EQ(ExportedEnvironment("NONE", kEnv), std::vector<std::string>{"SLURM_CONF=/etc/slurm.conf"});
  EXPECT_EQ(ExportedEnvironment("NIL", kEnv), std::vector<std::string>{"SLURM_CONF=/etc/slurm.conf"});
}

TEST(ExportedEnvironmentTest, ListNamesAndAssignments) {
  EXPECT_EQ(ExportedEnvironment("PATH,Y=2,MISSING", kEnv),
            (std::vector<std::string>{"SLURM_CONF=/etc/slurm.conf", "PATH=/bin", "Y=2"}));
}

TEST(ExportedEnvironmentTest, AllWithAssignmentsReplacesInPlace) {
  EXPECT_EQ(ExportedEnvironment("ALL,X=5,Z=3", kEnv),
            (std::vector<std::string>{"HOME=/home/a", "PATH=/bin", "SLURM_CONF=/etc/slurm.conf", "X=5", "Z=3"}));
}

TEST(ParseJobTokenTest, ArrayForms) {
  StatusOr<JobToken> t = ParseJobToken("12_[1-3,5]");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->id, 12);
  EXPECT_EQ(t->tasks, (std::vector<int>{1, 2, 3, 5}));
  EXPECT_FALSE(ParseJobToken("12_x").ok());
}

}  // namespace
}  // namespace muster
