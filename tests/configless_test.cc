// Configless agents (musterd --conf-server; docs/configuration.md, "Configless agents") on a real
// `muster up --tcp` cluster: node2's agent is replaced by one started by hand with no muster.yaml of
// its own, only the cluster key. It fetches the configuration from the controller (past an address
// where nothing listens), registers and runs a job; a change to the cluster file on the
// controller's side and `scontrol reconfigure` restart the controller in place, the agent sees the
// new hash, fetches it and restarts in place too, the job running on (not requeued), and the
// change is visible (the node's feature). A bad file is refused with its error and changes
// nothing; a user may not reconfigure. The agent starts from its cache when no controller answers,
// and fails clearly with neither. With two controllers (the PostgreSQL test server, as
// tests/standby_test.cc), the reconfigured leader keeps the lease: no standby takes over. Label
// "integration" in CTest.
#include <signal.h>

#include <fstream>

#include "local_cluster_test_util.h"
#include "standby_test_util.h"

namespace {

using namespace muster_test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

class Configless : public LocalClusterTest {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to run a command as another user";
    up_args_ = " --tcp";
    LocalClusterTest::SetUp();
    if (HasFatalFailure()) return;
    ctld_ = ControllerListen();
    ASSERT_FALSE(ctld_.empty()) << ReadFile((dir_ / "c" / "muster.yaml").string());
    cache_ = dir_ / "conf-cache";
    log_ = dir_ / "c" / "log" / "configless-node2.log";
  }
  void TearDown() override {
    if (IsSkipped()) return;
    StopAgent();
    LocalClusterTest::TearDown();
  }
  Result Tcp(const std::string& cmd) { return Run("MUSTER_SERVER=" + ctld_ + " " + cmd); }

  // Starts the configless agent of node2 with `servers`; its pid (0 when it did not start).
  pid_t StartAgent(const std::string& servers) {
    Result r = Sh("setsid " + BinDir() + "/musterd --node node2 --conf-server " + servers + " --key-file " +
                  (dir_ / "c" / "state" / "cluster.key").string() + " --ca-file " +
                  (dir_ / "c" / "tls" / "ca.crt").string() + " --conf-cache " + cache_.string() + " >> " +
                  log_.string() + " 2>&1 < /dev/null & echo $!");
    agent_ = r.rc == 0 ? static_cast<pid_t>(std::atoi(r.out.c_str())) : 0;
    return agent_;
  }
  void StopAgent() {
    if (agent_ <= 0) return;
    kill(agent_, SIGTERM);
    EXPECT_TRUE(WaitFor([&] { return Dead(agent_); }, 10s)) << "the configless agent did not stop";
    agent_ = 0;
  }
  std::string Log() { return ReadFile(log_.string()); }
  std::string CtldLog() { return ReadFile((dir_ / "c" / "log" / "musterctld.log").string()); }
  std::string Features(const std::string& node) { return Trim(Tcp("sinfo -h -N -n " + node + " -o %f").out); }

  std::string ctld_;
  fs::path cache_, log_;
  pid_t agent_ = 0;
};

TEST_F(Configless, FetchesRunsAndFollowsReconfigure) {
  // node2's own agent (with a muster.yaml) makes way for a configless one.
  const pid_t local = static_cast<pid_t>(std::atoi(Pid("musterd-node2").c_str()));
  ASSERT_GT(local, 0);
  ASSERT_EQ(kill(local, SIGTERM), 0);
  ASSERT_TRUE(WaitFor([&] { return Dead(local); }, 10s));

  // The first address answers nothing: the agent moves on to the controller.
  const pid_t agent = StartAgent("127.0.0.1:1," + ctld_);
  ASSERT_GT(agent, 0);
  ASSERT_TRUE(WaitFor([&] { return Log().find("registered with the controller") != std::string::npos; }, 20s)) << Log();
  EXPECT_NE(Log().find("configless: fetched the configuration from " + ctld_), std::string::npos) << Log();
  EXPECT_EQ(Log().find("starting from the cache"), std::string::npos) << Log();
  // The cache: muster.yaml pointing at the cached cluster file, and the hash.
  const std::string cached = ReadFile((cache_ / "muster.yaml").string());
  EXPECT_NE(cached.find("cluster_file: " + (cache_ / "cluster.yaml").string()), std::string::npos) << cached;
  EXPECT_EQ(ReadFile((cache_ / "cluster.yaml").string()), ReadFile((dir_ / "c" / "cluster.yaml").string()));
  const std::string hash1 = Trim(ReadFile((cache_ / "hash").string()));
  ASSERT_EQ(hash1.size(), 64u) << hash1;
  EXPECT_EQ(Features("node2"), "(null)");

  // A job on the configless node, running until the test releases it.
  const fs::path release = dir_ / "work" / "release";
  const int64_t job = Submit("-w node2 --wrap 'while [ ! -e " + release.string() + " ]; do sleep 0.2; done'");
  ASSERT_GT(job, 0);
  ASSERT_TRUE(WaitState(job, "RUNNING", 20s)) << State(job);

  // A user may not reconfigure (Slurm's words), and nothing restarts.
  Result user = RunAs("nobody", "MUSTER_SERVER=" + ctld_ + " scontrol reconfigure");
  EXPECT_EQ(user.rc, 1) << user.out;
  EXPECT_EQ(Trim(user.out), "slurm_reconfigure error: Invalid user id");

  // The controller's cluster file gains a feature; scontrol reconfigure applies it.
  const std::string ctld_pid = Pid("musterctld");
  const fs::path cluster = dir_ / "c" / "cluster.yaml";
  std::string text = ReadFile(cluster.string());
  const size_t type = text.find("type: local}");
  ASSERT_NE(type, std::string::npos) << text;
  text.replace(type, 12, "type: local, features: [fast]}");
  std::ofstream(cluster.string()) << text;
  Result re = Tcp("scontrol reconfigure");
  ASSERT_EQ(re.rc, 0) << re.out;
  EXPECT_EQ(re.out, "");
  // The controller started again in its own process; the agent saw the new hash, fetched it and
  // started again in its own process too, and the change is what the node now shows.
  ASSERT_TRUE(WaitFor([&] { return Features("node2") == "fast"; }, 30s)) << Features("node2") << "\n" << Log();
  EXPECT_EQ(Pid("musterctld"), ctld_pid);
  EXPECT_FALSE(Dead(std::atoi(ctld_pid.c_str())));
  EXPECT_EQ(Count(CtldLog(), "scontrol reconfigure: stopping"), 1u) << CtldLog();
  EXPECT_EQ(Count(CtldLog(), "(pid " + ctld_pid + ")"), 2u) << CtldLog();
  const std::string hash2 = Trim(ReadFile((cache_ / "hash").string()));
  EXPECT_NE(hash2, hash1);
  EXPECT_NE(Log().find("configless: the configuration changed (hash " + hash1 + " -> " + hash2 + ")"), std::string::npos)
      << Log();
  EXPECT_FALSE(Dead(agent));
  EXPECT_EQ(Count(Log(), "(pid " + std::to_string(agent) + ")"), 2u) << Log();
  EXPECT_NE(Log().find("JobId=" + std::to_string(job) + ": run 0: adopted"), std::string::npos) << Log();
  // node1's agent reads a local muster.yaml: it ignores the hash (its features are its start's).
  EXPECT_EQ(Features("node1"), "(null)");
  // The job ran on through both restarts: not requeued.
  EXPECT_EQ(State(job), "RUNNING");
  Result show = Tcp("scontrol show job " + std::to_string(job));
  EXPECT_NE(show.out.find("Restarts=0"), std::string::npos) << show.out;

  // A bad cluster file: the error is printed, exit 1, and the controller runs on unchanged.
  const std::string good = ReadFile(cluster.string());
  std::ofstream(cluster.string(), std::ios::app) << "bogus: 1\n";
  Result bad = Tcp("scontrol reconfigure");
  EXPECT_EQ(bad.rc, 1) << bad.out;
  EXPECT_EQ(bad.out.rfind("slurm_reconfigure error: " + cluster.string() + ":", 0), 0u) << bad.out;
  EXPECT_NE(bad.out.find("unknown field 'bogus'"), std::string::npos) << bad.out;
  EXPECT_EQ(Count(CtldLog(), "scontrol reconfigure: stopping"), 1u) << CtldLog();
  EXPECT_EQ(Pid("musterctld"), ctld_pid);
  EXPECT_EQ(State(job), "RUNNING");
  std::ofstream(cluster.string()) << good;

  // Released, the job ends as it would have without the restarts.
  std::ofstream(release.string()) << "";
  ASSERT_TRUE(WaitState(job, "COMPLETED", 20s)) << State(job);
  StopAgent();

  // No controller answers: the agent starts from the cache of its last fetch, and says so.
  ASSERT_GT(StartAgent("127.0.0.1:1"), 0);
  ASSERT_TRUE(WaitFor([&] { return Count(Log(), "registered with the controller") >= 3; }, 20s)) << Log();
  EXPECT_NE(Log().find("starting from the cache of the last fetch in " + cache_.string() + " (hash " + hash2 + ")"),
            std::string::npos)
      << Log();
  StopAgent();

  // Neither a controller nor a cache: a clear error, at once.
  Result none = Sh(BinDir() + "/musterd --node node2 --conf-server 127.0.0.1:1 --key-file " +
                   (dir_ / "c" / "state" / "cluster.key").string() + " --conf-cache " + (dir_ / "empty").string());
  EXPECT_EQ(none.rc, 1) << none.out;
  EXPECT_NE(none.out.find("no controller served the configuration (127.0.0.1:1: "), std::string::npos) << none.out;
  EXPECT_NE(none.out.find("no cached configuration in " + (dir_ / "empty").string() + ": nothing to start with"),
            std::string::npos)
      << none.out;
}

// Two controllers sharing a PostgreSQL state: the leader reconfigured starts again and leads again
// at once (it handed the lease to its own address), the standby standing by all along.
TEST_F(StandbyClusterTest, AReconfiguredLeaderKeepsTheLease) {
  const size_t leader = Leader();
  ASSERT_LT(leader, 2u);
  const size_t standby = 1 - leader;
  const pid_t pid = PidOf(leader);
  const int64_t job = Submit("--gres=gpu:1 --wrap 'sleep 300'");
  ASSERT_TRUE(WaitState(job, "RUNNING"));
  ASSERT_EQ(Count(LogOf(leader), "leading as " + hosts_[leader]), 1u) << LogOf(leader);
  Result re = Run("scontrol reconfigure");
  ASSERT_EQ(re.rc, 0) << re.out;
  ASSERT_TRUE(WaitFor([&] { return Count(LogOf(leader), "leading as " + hosts_[leader]) == 2; }, 15s))
      << LogOf(leader) << LogOf(standby);
  EXPECT_EQ(PidOf(leader), pid);
  EXPECT_FALSE(Dead(pid));
  EXPECT_EQ(Count(LogOf(leader), "scontrol reconfigure: stopping"), 1u) << LogOf(leader);
  EXPECT_EQ(Role(leader), "leader");
  EXPECT_EQ(Role(standby), "standby");
  EXPECT_EQ(LogOf(standby).find("leading as"), std::string::npos) << LogOf(standby);
  EXPECT_EQ(State(job), "RUNNING");
  Result show = Run("scontrol show job " + std::to_string(job));
  EXPECT_NE(show.out.find("Restarts=0"), std::string::npos) << show.out;
}

}  // namespace
