#include "base/log.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "base/test_util.h"

namespace muster {
namespace {

std::vector<std::string> Lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

class LogTest : public ::testing::Test {
 protected:
  void TearDown() override {
    ASSERT_TRUE(InitLogging({.process = "test"}).ok());  // back to stderr
  }
  TempDir tmp_{"muster_log_test."};
  const std::string dir_ = tmp_.path(), path_ = dir_ + "/d.log";
};

TEST_F(LogTest, LinesCarryTimeProcessNodeLevelAndSubject) {
  ASSERT_TRUE(InitLogging({.process = "musterd", .node = "node7", .file = path_}).ok());
  LogInfo(LogSubject::Job(42), "started as pid 1234");
  LogWarning(LogSubject::Step(42, 3), "task 1: cannot reach srun");
  LogError(LogSubject::Node("node2"), "drained");
  LogInfo("registered with the controller");
  const std::vector<std::string> lines = Lines(path_);
  ASSERT_EQ(lines.size(), 4u);
  const std::regex time(R"(^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z )");
  for (const std::string& l : lines) EXPECT_TRUE(std::regex_search(l, time)) << l;
  EXPECT_EQ(lines[0].substr(25), "musterd[node7] info: JobId=42: started as pid 1234");
  EXPECT_EQ(lines[1].substr(25), "musterd[node7] warning: StepId=42.3: task 1: cannot reach srun");
  EXPECT_EQ(lines[2].substr(25), "musterd[node7] error: NodeName=node2: drained");
  EXPECT_EQ(lines[3].substr(25), "musterd[node7] info: registered with the controller");
}

TEST_F(LogTest, TheLevelFiltersAndAFileIsAppendedToAndPrivate) {
  { std::ofstream(path_) << "earlier line\n"; }
  ASSERT_TRUE(InitLogging({.process = "musterctld", .level = LogLevel::kWarning, .file = path_}).ok());
  EXPECT_FALSE(LogEnabled(LogLevel::kInfo));
  EXPECT_TRUE(LogEnabled(LogLevel::kError));
  LogDebug("not written");
  LogInfo("not written either");
  LogWarning("written");
  const std::vector<std::string> lines = Lines(path_);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "earlier line");
  EXPECT_EQ(lines[1].substr(25), "musterctld warning: written");

  const std::string fresh = dir_ + "/fresh.log";
  ASSERT_TRUE(InitLogging({.process = "musterctld", .file = fresh}).ok());
  struct stat st{};
  ASSERT_EQ(stat(fresh.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
  unlink(fresh.c_str());
}

TEST_F(LogTest, AFileThatCannotBeOpenedIsNamedAndTheOldLoggerStays) {
  ASSERT_TRUE(InitLogging({.process = "musterd", .file = path_}).ok());
  Status st = InitLogging({.process = "musterd", .file = dir_ + "/no/such/dir/x.log"});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("cannot open the log file " + dir_ + "/no/such/dir/x.log: No such file"), std::string::npos)
      << st.message();
  LogInfo("still here");
  ASSERT_EQ(Lines(path_).size(), 1u);
}

TEST(LogLevelTest, ParsesTheFourLevelsAndNamesABadOne) {
  EXPECT_EQ(*ParseLogLevel("debug"), LogLevel::kDebug);
  EXPECT_EQ(*ParseLogLevel("info"), LogLevel::kInfo);
  EXPECT_EQ(*ParseLogLevel("warn"), LogLevel::kWarning);
  EXPECT_EQ(*ParseLogLevel("warning"), LogLevel::kWarning);
  EXPECT_EQ(*ParseLogLevel("error"), LogLevel::kError);
  EXPECT_EQ(ParseLogLevel("loud").status().message(), "invalid log level 'loud' (debug, info, warning or error)");
  EXPECT_STREQ(LogLevelName(LogLevel::kWarning), "warning");
  EXPECT_EQ(LogSubjectText({}), "");
}

}  // namespace
}  // namespace muster
