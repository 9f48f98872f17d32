// Adopting a run's shepherd after an agent restart, in the window where the killed agent had just
// forked it: the shepherd holds the run's lock but has not recorded itself yet. The new agent must
// wait for it, not take the run for gone (which ran the job a second time in the kill soak).
#include "agent/shepherd.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace muster {
namespace {

namespace fs = std::filesystem;

// Field 22 of /proc/<pid>/stat: what a shepherd records beside its pid.
long long StartTimeOf(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream rest(all.substr(all.rfind(')') + 2));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i) {
  }
  return std::atoll(field.c_str());
}

class ShepherdAdoptTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("shepherd_test_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (child_ > 0) {
      kill(child_, SIGKILL);
      waitpid(child_, nullptr, 0);
    }
    fs::remove_all(dir_);
  }
  fs::path dir_;
  pid_t child_ = -1;
};

TEST_F(ShepherdAdoptTest, WaitsForAShepherdStillStarting) {
  // A stand-in for a shepherd its agent forked just before dying: it holds the run's lock (from
  // the fork on, as the real one does through its stdin) and records itself 300 ms later.
  const int lock = open((dir_ / "lock").c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(lock, 0);
  ASSERT_EQ(flock(lock, LOCK_EX | LOCK_NB), 0);
  child_ = fork();
  ASSERT_GE(child_, 0);
  if (child_ == 0) {
    usleep(300 * 1000);
    const std::string tmp = (dir_ / "shepherd.tmp").string();
    {
      std::ofstream out(tmp);
      out << getpid() << " " << StartTimeOf(getpid()) << " -1\n";
    }
    std::rename(tmp.c_str(), (dir_ / "shepherd").c_str());
    pause();
    _exit(0);
  }
  close(lock);  // the child's copy holds it now
  StatusOr<ShepherdHandle> h = ShepherdHandle::Adopt(dir_.string());
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(h->pid(), child_);
}

TEST_F(ShepherdAdoptTest, ARunNobodyHoldsIsGoneAtOnce) {
  {
    std::ofstream(dir_ / "lock");  // an old lock file, nobody holds it
  }
  const auto start = std::chrono::steady_clock::now();
  StatusOr<ShepherdHandle> h = ShepherdHandle::Adopt(dir_.string());
  EXPECT_EQ(h.status().code(), StatusCode::kNotFound);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5)) << "it waited for nobody";
}

// The agent's log line on a run's start says where its time went (bench/launch_budget.py parses it).
TEST(ShepherdTimesTest, TextGivesTheOrderTimeAndEachStep) {
  // 2026-12-07T00:10:27.123456Z
  const int64_t order = 1796602227123456;
  EXPECT_EQ(StartTimesText(order, {order + 410, order + 1610, order + 2240}),
            "launch order at 00:10:27.123456, then agent 0.41 ms, shepherd start 1.20 ms, shepherd 0.63 ms to the script's fork");
  // A shepherd that gave no times (adopted, or of an earlier version), and a step out of order.
  EXPECT_EQ(StartTimesText(order, {order + 2000, 0, 0}),
            "launch order at 00:10:27.123456, then agent 2.00 ms, shepherd start ? ms, shepherd ? ms to the script's fork");
  EXPECT_EQ(StartTimesText(order, {order - 5, order + 25, order + 45}),
            "launch order at 00:10:27.123456, then agent ? ms, shepherd start 0.03 ms, shepherd 0.02 ms to the script's fork");
}

}  // namespace
}  // namespace muster
