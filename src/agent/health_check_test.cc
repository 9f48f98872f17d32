#include "agent/health_check.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace muster {
namespace {

class HealthCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("health_check_test_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Script(const std::string& body) {
    const std::string p = (dir_ / ("check" + std::to_string(n_++))).string();
    std::ofstream(p) << "#!/bin/sh\n" << body << "\n";
    chmod(p.c_str(), 0755);
    return p;
  }
  std::filesystem::path dir_;
  int n_ = 0;
};

TEST_F(HealthCheckTest, ExitStatusAndFirstLineAreTheVerdict) {
  EXPECT_EQ(RunHealthCheck(Script("echo all good; exit 0"), 10000), (HealthCheckResult{true, ""}));
  EXPECT_EQ(RunHealthCheck(Script("echo 'NHC: check_fs_mount: /scratch not mounted'; echo more; exit 1"), 10000),
            (HealthCheckResult{false, "NHC: check_fs_mount: /scratch not mounted"}));
  EXPECT_EQ(RunHealthCheck(Script("exit 3"), 10000).reason, "health check program " + (dir_ / "check2").string() + " exited 3");
  EXPECT_EQ(RunHealthCheck("/nonexistent/check", 10000).ok, false);
}

TEST_F(HealthCheckTest, AHungCheckFailsAtItsTimeout) {
  const HealthCheckResult r = RunHealthCheck(Script("sleep 1000"), 300);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.reason.find("timed out"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace muster
