// Two controllers sharing a PostgreSQL state (`muster up --state URL --controllers 2`: controller.hosts,
// a lease with a fencing token in the store), with real daemons: the standby takes over within
// 10 s of the leader's kill -9 while the jobs run on; the commands, scontrol ping and the agents
// follow; a leader paused past its lease (SIGSTOP: as if cut off) finds itself deposed when it
// resumes and starts again as a standby, acting no more as leader. Label "integration"; needs the
// PostgreSQL test server (tools/test.sh starts one; MUSTER_TEST_PG_URL).
#include <libpq-fe.h>
#include <signal.h>

#include <boost/json.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "local_cluster_test_util.h"
#include "net/http.h"
#include "store/pg_test_util.h"

namespace {

using namespace muster_test;
using namespace std::chrono_literals;
namespace bj = boost::json;

// Runs one statement on the test server (outside any store); false (and a test failure) if refused.
bool PgRun(const std::string& url, const std::string& sql) {
  PGconn* c = PQconnectdb(url.c_str());
  PGresult* r = PQexec(c, sql.c_str());
  const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
  if (!ok) ADD_FAILURE() << sql << ": " << PQerrorMessage(c);
  PQclear(r);
  PQfinish(c);
  return ok;
}

class Standby : public LocalClusterTest {
 protected:
  void SetUp() override {
    MUSTER_PG_TEST_SERVER_OR_SKIP();
    // A database of its own on the test server, dropped at the end.
    const std::string url = muster::PgTestUrl();
    db_ = "t_standby_" + std::to_string(getpid());
    base_url_ = url.substr(0, url.rfind('/') + 1) + "postgres";
    PgRun(base_url_, "DROP DATABASE IF EXISTS " + db_);
    ASSERT_TRUE(PgRun(base_url_, "CREATE DATABASE " + db_));
    up_args_ = " --state " + url.substr(0, url.rfind('/') + 1) + db_ + " --controllers 2";
    LocalClusterTest::SetUp();
    if (HasFatalFailure()) return;
    const std::string conf = ReadFile((dir_ / "c" / "muster.yaml").string());
    const size_t at = conf.find("  hosts: [");
    ASSERT_NE(at, std::string::npos) << conf;
    std::string list = conf.substr(at + 10, conf.find(']', at) - at - 10);
    for (size_t b = 0; b < list.size();) {
      size_t e = list.find(", ", b);
      hosts_.push_back(list.substr(b, e == std::string::npos ? std::string::npos : e - b));
      b = e == std::string::npos ? list.size() : e + 2;
    }
    ASSERT_EQ(hosts_.size(), 2u) << conf;
  }
  void TearDown() override {
    if (IsSkipped()) return;
    LocalClusterTest::TearDown();
    if (!db_.empty()) PgRun(base_url_, "DROP DATABASE IF EXISTS " + db_ + " WITH (FORCE)");
  }
  // Controller i's GET /v1/ping: its role ("leader", "standby"), or "" when it does not answer.
  std::string Role(size_t i) {
    auto c = muster::HttpClient::Connect(hosts_[i], "", 2000);
    if (!c.ok()) return "";
    auto r = (*c)->Request("GET", "/v1/ping");
    if (!r.ok() || r->status != 200) return "";
    return std::string(bj::parse(r->body).as_object().at("role").as_string());
  }
  // Which controller leads (waits for one); its index.
  size_t Leader() {
    size_t found = 9;
    EXPECT_TRUE(WaitFor([&] {
      for (size_t i = 0; i < hosts_.size(); ++i) {
        if (Role(i) == "leader") found = i;
      }
      return found != 9;
    }, 15s));
    return found;
  }
  std::string PidFile(size_t i) { return (dir_ / "c" / (i == 0 ? "musterctld.pid" : "musterctld2.pid")).string(); }
  pid_t PidOf(size_t i) { return std::atoi(ReadFile(PidFile(i)).c_str()); }
  std::string LogOf(size_t i) {
    return ReadFile((dir_ / "c" / "log" / (i == 0 ? "musterctld.log" : "musterctld2.log")).string());
  }
  // Starts controller i again (as `muster up` did), its pid in its pid file.
  void Restart(size_t i) {
    const std::string c = (dir_ / "c").string();
    const std::string args = i == 0 ? "" : " --listen " + hosts_[i] + " --socket " + c + "/run/ctld2.sock";
    Result r = Sh("setsid " + BinDir() + "/musterctld --conf " + c + "/muster.yaml" + args + " >> " + c + "/log/" +
                  (i == 0 ? "musterctld.log" : "musterctld2.log") + " 2>&1 & echo $! > " + PidFile(i));
    ASSERT_EQ(r.rc, 0) << r.out;
  }

  std::string db_, base_url_;
  std::vector<std::string> hosts_;
};

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

}  // namespace
