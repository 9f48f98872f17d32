// Signalling a run's processes by their environment markers (without cgroups): a run is this
// agent's by its spool marker AND its run marker; job 1's run 0 of another agent on the same host
// (another local cluster's, as the tests run side by side) carries the same MUSTER_RUN=1.0 and
// must be left alone. (Found as a job of one test's cluster killed by another's.)
#include "proc/stray_processes.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

namespace muster {
namespace {

// A `sleep` with these environment entries only; its pid.
pid_t SleepWith(const std::string& spool, const std::string& run) {
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string a = "MUSTER_SPOOL=" + spool, b = "MUSTER_RUN=" + run;
    char* const argv[] = {const_cast<char*>("sleep"), const_cast<char*>("30"), nullptr};
    char* const envp[] = {const_cast<char*>(a.c_str()), const_cast<char*>(b.c_str()), nullptr};
    execve("/bin/sleep", argv, envp);
    _exit(127);
  }
  return pid;
}

// Whether `pid` (our child) ended by `sig` within a few seconds (reaped either way).
bool EndsBy(pid_t pid, int sig) {
  int status = 0;
  for (int i = 0; i < 200; ++i) {
    if (waitpid(pid, &status, WNOHANG) == pid) return WIFSIGNALED(status) && WTERMSIG(status) == sig;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST(StrayProcessesTest, ARunIsSignalledByItsSpoolAndRunMarkersTogether) {
  const std::string tag = "/tmp/stray_test_" + std::to_string(getpid());
  const pid_t mine = SleepWith(tag + "/a/spool/node1", "1.0");
  const pid_t other_cluster = SleepWith(tag + "/b/spool/node1", "1.0");
  const pid_t other_run = SleepWith(tag + "/a/spool/node1", "1.1");
  ASSERT_GT(mine, 0);
  ASSERT_GT(other_cluster, 0);
  ASSERT_GT(other_run, 0);
  // The children must have exec'd (their environment is the new one) before we look.
  const auto execd = [](pid_t p) {
    char exe[256];
    const ssize_t n = readlink(("/proc/" + std::to_string(p) + "/exe").c_str(), exe, sizeof exe - 1);
    return n > 0 && std::string(exe, static_cast<size_t>(n)).find("sleep") != std::string::npos;
  };
  for (int i = 0; i < 200 && !(execd(mine) && execd(other_cluster) && execd(other_run)); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(SignalMarkedProcesses({"MUSTER_RUN=1.0", "MUSTER_SPOOL=" + tag + "/a/spool/node1"}, SIGKILL), 1);
  EXPECT_TRUE(EndsBy(mine, SIGKILL));
  // Neither the other cluster's job 1 run 0 nor this agent's run 1 was touched.
  EXPECT_EQ(kill(other_cluster, 0), 0);
  EXPECT_EQ(kill(other_run, 0), 0);
  EXPECT_EQ(SignalMarkedProcesses({}, SIGKILL), 0) << "no marker: nothing";
  kill(other_cluster, SIGKILL);
  kill(other_run, SIGKILL);
  EXPECT_TRUE(EndsBy(other_cluster, SIGKILL));
  EXPECT_TRUE(EndsBy(other_run, SIGKILL));
}

}  // namespace
}  // namespace muster
