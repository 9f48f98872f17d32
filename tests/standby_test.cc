// Two controllers sharing a PostgreSQL state (`muster up --state URL --controllers 2`: controller.hosts,
// a lease with a fencing token in the store), with real daemons: the standby takes over within
// 10 s of the leader's kill -9 while the jobs run on; the commands, scontrol ping and the agents
// follow; a leader paused past its lease (SIGSTOP: as if cut off) finds itself deposed when it
// resumes and starts again as a standby, acting no more as leader. Label "integration"; needs the
// PostgreSQL test server (tools/test.sh starts one; MUSTER_TEST_PG_URL).
#include <sys/stat.h>

#include "standby_test_util.h"

namespace {

using namespace muster_test;
using namespace std::chrono_literals;
using Standby = StandbyClusterTest;

TEST_F(Standby, TakesOverWithinTenSecondsOfTheLeadersKillAndTheJobsRunOn) {
  Result ping = Run("scontrol ping");
  EXPECT_EQ(ping.rc, 0) << ping.out;
  EXPECT_EQ(ping.out, "Slurmctld(primary) at 127.0.0.1 is UP\nSlurmctld(backup) at 127.0.0.1 is UP\n");
  const size_t leader = Leader();
  ASSERT_LT(leader, 2u);
  const size_t standby = 1 - leader;
  EXPECT_EQ(Role(standby), "standby");

  const int64_t long_job = Submit("--gres=gpu:1 --wrap 'sleep 300'");
  const int64_t short_job = Submit("--gres=gpu:1 -o short.out --wrap 'sleep 3; echo ran-once'");
  ASSERT_TRUE(WaitState(long_job, "RUNNING"));
  ASSERT_TRUE(WaitState(short_job, "RUNNING"));

  const auto killed = std::chrono::steady_clock::now();
  ASSERT_EQ(kill(PidOf(leader), SIGKILL), 0);
  ASSERT_TRUE(WaitFor([&] { return Role(standby) == "leader"; }, 15s)) << LogOf(standby);
  const double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
  std::cerr << "takeover " << took_s << " s after kill -9 (lease 3 s)\n";
  EXPECT_LT(took_s, 10.0);
  EXPECT_NE(LogOf(standby).find("took over from " + hosts_[leader]), std::string::npos) << LogOf(standby);

  // The commands follow the new leader; what ran runs on, the job that ended meanwhile ended once.
  EXPECT_EQ(State(long_job), "RUNNING");
  ASSERT_TRUE(WaitState(short_job, "COMPLETED", 20s)) << State(short_job);
  EXPECT_EQ(ReadFile((work_ / "short.out").string()), "ran-once\n");
  const int64_t after = Submit("--gres=gpu:1 --wrap 'true'");
  EXPECT_TRUE(WaitState(after, "COMPLETED", 20s)) << State(after);
  ping = Run("scontrol ping");
  EXPECT_NE(ping.out.find(std::string("Slurmctld(") + (leader == 0 ? "primary" : "backup") + ") at 127.0.0.1 is DOWN"),
            std::string::npos)
      << ping.out;
  Result metrics = Run("curl -sf --unix-socket " + (dir_ / "c" / "run" / (standby == 0 ? "ctld.sock" : "ctld2.sock")).string() +
                       " http://ctld/metrics | grep -E '^muster_controller_(leader|leaderships_total)'");
  EXPECT_NE(metrics.out.find("muster_controller_leader{address=\"" + hosts_[standby] + "\"} 1"), std::string::npos)
      << metrics.out;
  EXPECT_NE(metrics.out.find("muster_controller_leaderships_total 2"), std::string::npos) << metrics.out;

  // The killed one comes back as a standby; a clean stop of the leader hands over at once.
  Restart(leader);
  ASSERT_TRUE(WaitFor([&] { return Role(leader) == "standby"; }, 10s)) << LogOf(leader);
  ASSERT_EQ(kill(PidOf(standby), SIGTERM), 0);
  ASSERT_TRUE(WaitFor([&] { return Role(leader) == "leader"; }, 10s)) << LogOf(leader);
  EXPECT_EQ(State(long_job), "RUNNING");
  EXPECT_NE(LogOf(standby).find("resigned the lease"), std::string::npos) << LogOf(standby);
}

// Fencing, with real processes: the leader paused past its lease (SIGSTOP: a long stall, or a host
// cut off) is replaced; resumed, it finds the lease taken, stops acting as leader and starts again
// (same pid) as a standby; the cluster goes on under the new leader.
TEST_F(Standby, APausedLeaderIsDeposedAndComesBackAsAStandby) {
  const size_t leader = Leader();
  ASSERT_LT(leader, 2u);
  const size_t standby = 1 - leader;
  const int64_t job = Submit("--gres=gpu:1 --wrap 'sleep 300'");
  ASSERT_TRUE(WaitState(job, "RUNNING"));
  const pid_t paused = PidOf(leader);
  ASSERT_EQ(kill(paused, SIGSTOP), 0);
  ASSERT_TRUE(WaitFor([&] { return Role(standby) == "leader"; }, 15s)) << LogOf(standby);
  ASSERT_EQ(kill(paused, SIGCONT), 0);
  ASSERT_TRUE(WaitFor([&] { return Role(leader) == "standby"; }, 15s)) << LogOf(leader);
  EXPECT_EQ(PidOf(leader), paused) << "started again in the same process";
  EXPECT_FALSE(Dead(paused));
  const std::string log = LogOf(leader);
  EXPECT_NE(log.find("no longer leading"), std::string::npos) << log;
  EXPECT_NE(log.find("starting again as a standby"), std::string::npos) << log;
  EXPECT_EQ(State(job), "RUNNING");
  const int64_t after = Submit("--gres=gpu:1 --wrap 'true'");
  EXPECT_TRUE(WaitState(after, "COMPLETED", 20s)) << State(after);
}

// `muster up --state URL` with a password: muster.yaml (every user reads it) holds the URL
// without it and names a password file only the cluster's owner reads (state/pgpass, 0600, in the
// 0700 state directory), which both controllers connect with; no log shows the password.
TEST_F(Standby, ThePasswordStaysOutOfMusterYamlAndTheControllersConnect) {
  const std::string url = muster::PgTestUrl();
  const size_t colon = url.find(':', url.find("://") + 3), at = url.find('@');
  ASSERT_LT(colon, at) << "the test server's URL holds a password";
  const std::string password = url.substr(colon + 1, at - colon - 1);
  ASSERT_GE(password.size(), 8u);
  const std::string conf = ReadFile((dir_ / "c" / "muster.yaml").string());
  EXPECT_EQ(conf.find(password), std::string::npos) << conf;
  EXPECT_NE(conf.find("  state: " + url.substr(0, colon) + "@"), std::string::npos) << conf;
  EXPECT_NE(conf.find("  state_password_file: state/pgpass"), std::string::npos) << conf;
  const std::string pgpass = (dir_ / "c" / "state" / "pgpass").string();
  struct stat st{};
  ASSERT_EQ(stat(pgpass.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(ReadFile(pgpass), "*:*:*:*:" + password + "\n");
  // Both controllers reached the store with it: one leads, the other stands by, and a job runs.
  const size_t leader = Leader();
  ASSERT_LT(leader, 2u);
  EXPECT_TRUE(WaitFor([&] { return Role(1 - leader) == "standby"; }, 10s));
  const int64_t id = Submit("-o /dev/null --wrap true");
  EXPECT_TRUE(WaitState(id, "COMPLETED", 20s)) << State(id);
  for (size_t i = 0; i < 2; ++i) EXPECT_EQ(LogOf(i).find(password), std::string::npos) << LogOf(i);
}

}  // namespace
