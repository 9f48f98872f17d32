// A node agent with several controllers follows the leader: a standby's 503 and a refused
// connection move it on, and an exit report it holds (a run that ended while the agent was
// away, as a restarted agent finds it in its spool) stays until the leader acknowledges it.
// The controllers are in-process HTTP servers; the agent runs in process, with no jobs running.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "agent/agent.h"
#include "base/clock.h"
#include "base/test_util.h"
#include "net/http_test_util.h"
#include "wire/agent.h"
#include "wire/records.h"

namespace muster {
namespace {

namespace fs = std::filesystem;

using net_test::FreePort;

// How long a WaitFor here waits at most, and how often it looks.
constexpr std::chrono::milliseconds kWait{20000}, kPoll{20};

// What a controller heard: each request's path, and the job ids of the exits they carried.
struct Heard {
  std::mutex mu;
  std::vector<std::string> paths;
  std::vector<int64_t> exits;
  int count() {
    std::lock_guard<std::mutex> lock(mu);
    return static_cast<int>(paths.size());
  }
  bool HasExit(int64_t id) {
    std::lock_guard<std::mutex> lock(mu);
    return std::find(exits.begin(), exits.end(), id) != exits.end();
  }
};

std::unique_ptr<HttpServer> StartController(int port, bool leads, Heard* heard, int64_t leader_token = 0) {
  HttpServer::Options o;
  o.tcp_port = port;
  StatusOr<std::unique_ptr<HttpServer>> s = HttpServer::Start(o, [leads, heard, leader_token](const HttpRequest& r) {
    std::lock_guard<std::mutex> lock(heard->mu);
    heard->paths.push_back(r.path);
    if (!leads) return HttpResponse::Json(503, R"({"error":"this controller stands by; the leader is none"})");
    if (r.path == "/v1/agent/register") {
      StatusOr<Registration> reg = wire::Decode<Registration>(r.body, "registration");
      if (reg.ok()) {
        for (const RunExit& e : reg->report.exits) heard->exits.push_back(e.job_id);
      }
    } else if (r.path == "/v1/agent/heartbeat") {
      StatusOr<Heartbeat> beat = wire::Decode<Heartbeat>(r.body, "heartbeat");
      if (beat.ok()) {
        for (const RunExit& e : beat->report.exits) heard->exits.push_back(e.job_id);
      }
    } else if (r.path == "/v1/agent/exit") {
      StatusOr<ExitNotice> exit = wire::Decode<ExitNotice>(r.body, "exit");
      if (exit.ok()) heard->exits.push_back(exit->exit.job_id);
      return HttpResponse::Json(200, "{}");
    }
    NodeOrders orders;
    orders.leader_token = leader_token;
    return HttpResponse::Json(200, wire::Encode(orders));
  });
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? std::move(*s) : nullptr;
}

// The runs' directory holds what shepherds run as root: below a directory others may write to
// (not sticky), the agent refuses to start, naming it.
TEST(AgentFollowTest, RefusesARunsDirectoryBelowOneOthersMayWrite) {
  const fs::path dir = fs::temp_directory_path() / ("muster_agent_runs_test_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "open");
  fs::permissions(dir / "open", fs::perms::all);  // 0777, no sticky bit
  AgentOptions opt;
  opt.node.name = "n1";
  opt.node.cpus = 1;
  opt.cluster_name = "c";
  opt.ctld_addresses = {"127.0.0.1:" + std::to_string(FreePort())};
  opt.socket_path = (dir / "musterd-n1.sock").string();
  opt.spool_dir = (dir / "spool").string();
  opt.script_dir = (dir / "open" / "scripts").string();
  opt.shepherd_exe = "/bin/false";
  SystemClock clock;
  Agent agent(std::move(opt), &clock);
  const Status st = agent.Start();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "'" + (dir / "open").string() +
                              "' is writable by others: the runs' directory and those above it may not be");
  agent.Stop();
  fs::remove_all(dir);
}

TEST(AgentFollowTest, ExitReportSurvivesTheSwitchAndReachesTheLeader) {
  const fs::path dir = fs::temp_directory_path() / ("muster_agent_follow_test_" + std::to_string(getpid()));
  fs::remove_all(dir);
  const fs::path run_dir = dir / "spool" / "runs" / "7.0";
  fs::create_directories(run_dir);
  {
    // Job 7's run ended while the agent was away: its record and its unacknowledged exit report.
    SavedRun saved;
    saved.job = FullJob{};
    saved.job->job.id = 7;
    saved.batch = true;
    std::ofstream(run_dir / "job.json") << wire::Encode(saved);
    ExitNotice exit;
    exit.node = "n1";
    exit.exit.job_id = 7;
    exit.exit.report.exit_code = 3;
    std::ofstream(run_dir / "report.json") << wire::Encode(exit);
  }
  Heard standby_heard, leader_heard;
  std::unique_ptr<HttpServer> standby = StartController(0, false, &standby_heard);
  ASSERT_NE(standby, nullptr);
  const int refused_port = FreePort();
  const int leader_port = FreePort();

  AgentOptions opt;
  opt.node.name = "n1";
  opt.node.cpus = 1;
  opt.cluster_name = "c";
  opt.ctld_addresses = {"127.0.0.1:" + std::to_string(standby->tcp_port()),
                        "127.0.0.1:" + std::to_string(refused_port), "127.0.0.1:" + std::to_string(leader_port)};
  opt.socket_path = (dir / "musterd-n1.sock").string();
  opt.spool_dir = (dir / "spool").string();
  // Runs are kept beside the scripts now; job 7's was left in the spool by an earlier version.
  opt.script_dir = (dir / "scripts").string();
  opt.heartbeat_interval_s = 1;
  opt.shepherd_exe = "/bin/false";  // no run starts here
  SystemClock clock;
  Agent agent(std::move(opt), &clock);
  ASSERT_TRUE(agent.Start().ok());
  EXPECT_TRUE(fs::is_directory(dir / "scripts" / "runs"));

  // No controller leads yet: the standby answers 503 again and again, the report stays.
  ASSERT_TRUE(WaitFor([&] { return standby_heard.count() >= 3; }, kWait, kPoll)) << standby_heard.count();
  EXPECT_TRUE(fs::exists(run_dir / "report.json"));
  EXPECT_FALSE(leader_heard.HasExit(7));

  // The leader comes up at the third address: the agent registers there, with job 7's exit, and
  // once acknowledged the run's directory goes.
  std::unique_ptr<HttpServer> leader = StartController(leader_port, true, &leader_heard);
  ASSERT_NE(leader, nullptr);
  EXPECT_TRUE(WaitFor([&] { return leader_heard.HasExit(7); }, kWait, kPoll));
  EXPECT_TRUE(WaitFor([&] { return !fs::exists(run_dir); }, kWait, kPoll)) << run_dir;
  {
    std::lock_guard<std::mutex> lock(leader_heard.mu);
    ASSERT_FALSE(leader_heard.paths.empty());
    EXPECT_EQ(leader_heard.paths.front(), "/v1/agent/register");
  }
  // Heartbeats follow, to the leader only.
  const int standby_before = standby_heard.count();
  EXPECT_TRUE(WaitFor([&] {
    std::lock_guard<std::mutex> lock(leader_heard.mu);
    return std::count(leader_heard.paths.begin(), leader_heard.paths.end(), "/v1/agent/heartbeat") >= 2;
  }, kWait, kPoll));
  EXPECT_EQ(standby_heard.count(), standby_before);
  agent.Stop();
  fs::remove_all(dir);
}

// Orders carry the sending controller's lease token: once the agent heard a leader with token 5, an
// order with token 4 (a deposed leader's, late) is refused 409, also after the agent restarts.
TEST(AgentFollowTest, OrdersOfADeposedLeaderAreRefused) {
  const fs::path dir = fs::temp_directory_path() / ("muster_agent_leader_test_" + std::to_string(getpid()));
  fs::remove_all(dir);
  Heard heard;
  std::unique_ptr<HttpServer> leader = StartController(0, true, &heard, /*leader_token=*/5);
  ASSERT_NE(leader, nullptr);
  const int leader_port = leader->tcp_port();
  auto options = [&] {
    AgentOptions opt;
    opt.node.name = "n1";
    opt.node.cpus = 1;
    opt.cluster_name = "c";
    opt.ctld_addresses = {"127.0.0.1:" + std::to_string(leader_port)};
    opt.socket_path = (dir / "musterd-n1.sock").string();
    opt.spool_dir = (dir / "spool").string();
    opt.heartbeat_interval_s = 1;
    opt.shepherd_exe = "/bin/false";
    return opt;
  };
  auto signal = [&](int64_t token) {
    StatusOr<std::unique_ptr<HttpClient>> c = HttpClient::Connect("unix:" + (dir / "musterd-n1.sock").string());
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    SignalOrder order;
    order.job_id = 99;
    order.signal = 0;
    order.leader_token = token;
    StatusOr<HttpResponse> r = (*c)->Request("POST", "/v1/signal", wire::Encode(order));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : HttpResponse{};
  };
  SystemClock clock;
  for (int incarnation = 0; incarnation < 2; ++incarnation) {
    Agent agent(options(), &clock);
    ASSERT_TRUE(agent.Start().ok());
    if (incarnation == 0) {
      // The leader's answers tell the agent its token (kept in the spool).
      ASSERT_TRUE(WaitFor([&] { return fs::exists(dir / "spool" / "leader_token"); }, kWait, kPoll));
    }
    // (Restarted, the agent hears no controller at all: what it refuses, it read from its spool.)
    HttpResponse late = signal(4);
    EXPECT_EQ(late.status, 409) << late.body;
    EXPECT_NE(late.body.find("no longer leads (lease token 4, the leader's is 5)"), std::string::npos) << late.body;
    HttpResponse current = signal(5);
    EXPECT_EQ(current.body.find("no longer leads"), std::string::npos) << current.body;
    agent.Stop();
    leader.reset();
  }
  EXPECT_GE(heard.count(), 1);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace muster
