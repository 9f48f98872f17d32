// The fault suite: each finding of the fault and hostile-user review (issue 30) reproduced on a
// real local cluster, as a regression test. Label "integration" in CTest.
#include "local_cluster_test_util.h"

#include <string>

namespace {

using namespace muster_test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

class Faults : public LocalClusterTest {
 protected:
  // kill -9 of the controller, and a new one started on the same files.
  void KillController() { ASSERT_EQ(kill(std::atoi(Pid("musterctld").c_str()), SIGKILL), 0); }
  void StartController() {
    Result restart = Sh("setsid " + std::string(MUSTER_BIN_DIR) + "/musterctld --conf " +
                        (dir_ / "c/muster.yaml").string() + " >> " + (dir_ / "c/log/musterctld.log").string() +
                        " 2>&1 & echo $! > " + (dir_ / "c/musterctld.pid").string());
    ASSERT_EQ(restart.rc, 0);
    ASSERT_TRUE(WaitFor([&] { return Run("squeue").rc == 0; }, 10s));
  }
  std::string Field(int64_t id, const std::string& key) {
    const std::string out = Run("scontrol show job " + std::to_string(id)).out;
    const size_t at = out.find(" " + key + "=");
    if (at == std::string::npos) return "";
    const size_t from = at + key.size() + 2;
    return out.substr(from, out.find_first_of(" \n", from) - from);
  }
  bool NoNodeDrained() { return Run("sinfo -h -R").out.empty(); }
};

// Finding 2: one user's bad path drained every node. Slurm fails the job (JobLaunchFailure,
// ExitCode 0:53) and leaves the node alone; a working directory that cannot be entered is not
// fatal when the output can be opened elsewhere: the job runs in /tmp and is told so.
TEST_F(Faults, AUsersBadPathFailsTheJobAndDrainsNothing) {
  struct Case {
    std::string args;
    std::string detail;
  };
  const std::vector<Case> cases = {
      {"-D /nonexistent", "Could not open stdout file /nonexistent/slurm-"},
      {"-o /root/x", "Could not open stdout file /root/x: Permission denied"},
      {"-e /root/y", "Could not open stderr file /root/y: Permission denied"},
      {"-i /nonexistent/in", "Could not open stdin file /nonexistent/in: No such file or directory"},
  };
  for (const Case& c : cases) {
    Result r = RunAs("nobody", "sbatch --parsable " + c.args + " --wrap true");
    ASSERT_EQ(r.rc, 0) << r.out;
    const int64_t id = std::atoll(r.out.c_str());
    ASSERT_TRUE(WaitState(id, "FAILED")) << c.args << ": " << State(id);
    // scontrol prints a reason's blanks as '_': JobLaunchFailure,_Could_not_open_...
    std::string detail = c.detail;
    for (char& ch : detail) ch = ch == ' ' ? '_' : ch;
    EXPECT_EQ(Field(id, "Reason").rfind("JobLaunchFailure,_" + detail, 0), 0u) << Field(id, "Reason");
    EXPECT_EQ(Field(id, "ExitCode"), "0:53") << c.args;
    EXPECT_EQ(Field(id, "Restarts"), "0") << c.args << ": not bounced to another node";
    EXPECT_TRUE(NoNodeDrained()) << c.args << "\n" << Run("sinfo -R").out;
  }
  // The -e failure is told in the job's stdout, which could be opened.
  EXPECT_TRUE(WaitFor([&] { return Run("cat slurm-*.out").out.find("Could not open stderr file /root/y") != std::string::npos; }, 5s))
      << Run("ls -la; cat slurm-*.out").out;
  // A workdir that cannot be entered, with the output elsewhere: runs in /tmp, as under Slurm.
  const std::string out = (work_ / "pwd.txt").string();
  Result r = RunAs("nobody", "sbatch --parsable -D /nonexistent -o " + out + " --wrap pwd");
  ASSERT_EQ(r.rc, 0) << r.out;
  const int64_t id = std::atoll(r.out.c_str());
  ASSERT_TRUE(WaitState(id, "COMPLETED")) << State(id);
  EXPECT_NE(ReadFile(out).find("error: couldn't chdir to `/nonexistent': No such file or directory: going to /tmp instead\n/tmp\n"),
            std::string::npos)
      << ReadFile(out);
  // And the nodes take the next job at once.
  const int64_t next = Submit("-N 2 --wrap true");
  EXPECT_TRUE(WaitState(next, "COMPLETED")) << State(next);
}

// Finding 1: jobs that ended while the controller was down ran again and were recorded FAILED
// (their node re-registered before its queued exit reports). Now the exits travel with the
// registration: each job completes once, with its own exit code.
TEST_F(Faults, JobsThatEndWhileTheControllerIsDownCompleteOnce) {
  const int64_t plain = Submit("-w node1 --wrap 'sleep 1; echo run >> plain.runs'");
  const int64_t no_requeue = Submit("-w node2 --no-requeue --wrap 'sleep 1; echo run >> nr.runs; exit 3'");
  ASSERT_TRUE(WaitState(plain, "RUNNING"));
  ASSERT_TRUE(WaitState(no_requeue, "RUNNING"));
  KillController();
  // Both end while it is down.
  ASSERT_TRUE(WaitFor([&] { return ReadFile((work_ / "plain.runs").string()) == "run\n" &&
                                   ReadFile((work_ / "nr.runs").string()) == "run\n"; }, 10s));
  // The outage lasts longer than a heartbeat interval (2 s): the agents find the controller gone
  // and register again when it is back, which is when their queued exits used to be lost.
  std::this_thread::sleep_for(2500ms);
  StartController();
  for (const char* node : {"node1", "node2"}) {
    EXPECT_TRUE(WaitFor([&] { return Sh("grep -c 'registered with the controller' " + (dir_ / "c/log").string() + "/musterd-" +
                                        node + ".log").out == "2\n"; }, 10s))
        << node << " registered again";
  }
  ASSERT_TRUE(WaitState(plain, "COMPLETED", 20s)) << State(plain);
  ASSERT_TRUE(WaitState(no_requeue, "FAILED", 20s)) << State(no_requeue);
  EXPECT_EQ(Field(plain, "ExitCode"), "0:0");
  EXPECT_EQ(Field(plain, "Restarts"), "0");
  EXPECT_EQ(Field(no_requeue, "ExitCode"), "3:0") << "its own exit, not NODE_FAIL";
  // Never run twice, even a while later.
  std::this_thread::sleep_for(1s);
  EXPECT_EQ(ReadFile((work_ / "plain.runs").string()), "run\n");
  EXPECT_EQ(ReadFile((work_ / "nr.runs").string()), "run\n");
}

}  // namespace
