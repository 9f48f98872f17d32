// Several controllers (controller.hosts): the commands find the one that leads (GET /v1/ping's
// role), whichever order the controllers are listed in, say why when none leads, and follow a
// takeover between Submit's tries. The controllers are in-process HTTP servers playing a leader
// and a standby.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <mutex>
#include <string>
#include <vector>

#include "cli/ctld_client.h"
#include "net/http.h"
#include "net/http_test_util.h"
#include "wire/agent.h"
#include "wire/jobs.h"
#include "wire/records.h"
#include "wire/submit.h"

namespace muster {
namespace {

namespace fs = std::filesystem;

using net_test::FreePort;

// A controller: GET /v1/ping says its role; a leader answers every other request (a submission
// gets job_id), a standby answers 503 naming the leader, as musterctld does.
class FakeController {
 public:
  // `role`: "leader", "standby", or "old" (a leader whose ping has no role: an older controller).
  FakeController(std::string role, const std::string& unix_path = "") : role_(std::move(role)) {
    HttpServer::Options o;
    o.tcp_port = unix_path.empty() ? 0 : -1;
    o.unix_path = unix_path;
    StatusOr<std::unique_ptr<HttpServer>> s = HttpServer::Start(o, [this](const HttpRequest& r) { return Handle(r); });
    EXPECT_TRUE(s.ok()) << s.status().message();
    server_ = std::move(*s);
    address_ = unix_path.empty() ? "127.0.0.1:" + std::to_string(server_->tcp_port()) : "unix:" + unix_path;
  }
  const std::string& address() const { return address_; }
  void set_role(const std::string& role, const std::string& leader = "") {
    std::lock_guard<std::mutex> lock(mu_);
    role_ = role;
    leader_ = leader;
  }
  int submits() const { return submits_; }
  std::string last_authorization() const {
    std::lock_guard<std::mutex> lock(mu_);
    return authorization_;
  }

 private:
  HttpResponse Handle(const HttpRequest& r) {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto a = r.headers.find("authorization"); a != r.headers.end()) authorization_ = a->second;
    if (r.method == "GET" && r.path == "/v1/ping") {
      if (role_ == "old") return HttpResponse::Json(200, R"({"cluster":"c","authenticated":false,"uid":0})");
      PingAnswer p;
      p.cluster = "c";
      p.role = role_;
      p.address = address_;
      p.leader = role_ == "leader" ? address_ : leader_;
      return HttpResponse::Json(200, wire::Encode(p));
    }
    if (role_ == "standby") {
      ErrorAnswer e;
      e.error = "this controller stands by; the leader is " + (leader_.empty() ? std::string("none") : leader_);
      return HttpResponse::Json(503, wire::Encode(e));
    }
    if (r.method == "POST" && r.path == "/v1/jobs") {
      ++submits_;
      SubmitAnswer a;
      a.job_id = 100 + submits_;
      return HttpResponse::Json(200, wire::Encode(a));
    }
    return HttpResponse::Json(200, "{\"served_by\":\"" + address_ + "\"}");
  }

  mutable std::mutex mu_;
  std::string role_;
  std::string leader_;
  std::string authorization_;
  std::atomic<int> submits_{0};
  std::string address_;
  std::unique_ptr<HttpServer> server_;
};

std::function<StatusOr<std::string>()> Token(const std::string& t, int* asked) {
  return [t, asked]() -> StatusOr<std::string> {
    ++*asked;
    return t;
  };
}

// The connection FindLeader returned talks to `who` (its answers say whose they are).
std::string ServedBy(HttpClient& http) {
  StatusOr<HttpResponse> r = http.Request("GET", "/v1/anything");
  return r.ok() ? r->body : r.status().message();
}

TEST(FindLeaderTest, PicksTheLeaderWhicheverOrderTheyAreListedIn) {
  FakeController standby("standby"), leader("leader");
  standby.set_role("standby", leader.address());
  for (const std::vector<std::string>& order : {std::vector<std::string>{standby.address(), leader.address()},
                                                std::vector<std::string>{leader.address(), standby.address()}}) {
    int asked = 0;
    StatusOr<FoundLeader> found = FindLeader(order, Token("tok", &asked));
    ASSERT_TRUE(found.ok()) << found.status().message();
    EXPECT_EQ(found->address, leader.address());
    EXPECT_EQ(ServedBy(*found->http), "{\"served_by\":\"" + leader.address() + "\"}");
    EXPECT_EQ(asked, 1);  // one token for every TCP candidate
    EXPECT_EQ(leader.last_authorization(), "Muster tok");
  }
}

TEST(FindLeaderTest, AnOlderControllerWithoutARoleLeads) {
  FakeController standby("standby"), old("old");
  int asked = 0;
  StatusOr<FoundLeader> found = FindLeader({standby.address(), old.address()}, Token("tok", &asked));
  ASSERT_TRUE(found.ok()) << found.status().message();
  EXPECT_EQ(found->address, old.address());
}

TEST(FindLeaderTest, NoneLeadsNamesEachAddressAndWhatItSaid) {
  const std::string sock = "/tmp/muster-find-leader-" + std::to_string(getpid()) + ".sock";
  FakeController local("standby", sock);
  FakeController other("standby");
  other.set_role("standby", "ctl9:6817");
  const std::string refused = "127.0.0.1:" + std::to_string(FreePort());
  int asked = 0;
  StatusOr<FoundLeader> none = FindLeader({local.address(), other.address(), refused}, Token("tok", &asked));
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(none.status().message(), "no controller leads: unix:" + sock + ": standby (leader: none), " +
                                         other.address() + ": standby (leader: ctl9:6817), " + refused +
                                         ": Connection refused");
  EXPECT_EQ(local.last_authorization(), "");  // the Unix socket needs no token
  EXPECT_EQ(asked, 1);
}

TEST(FindLeaderTest, NoTokenForTcpIsSaidOnceForTheTcpControllers) {
  FakeController leader("leader");
  int asked = 0;
  auto no_token = [&asked]() -> StatusOr<std::string> {
    ++asked;
    return Status(StatusCode::kUnavailable, "cannot get a credential from the local musterd at /x: gone");
  };
  StatusOr<FoundLeader> none = FindLeader({leader.address(), "127.0.0.1:1"}, no_token);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(), "no controller leads: " + leader.address() +
                                         ", 127.0.0.1:1: cannot get a credential from the local musterd at /x: gone");
  EXPECT_EQ(asked, 1);
}

// CtldClient::Connect with controller.hosts reads muster.yaml ($MUSTER_CONF), takes a token from
// the local agent (a fake one on its Unix socket), and Submit follows a takeover between tries.
class SeveralControllersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("muster_find_leader_test_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    HttpServer::Options o;
    o.tcp_port = -1;
    o.unix_path = (dir_ / "musterd-node1.sock").string();
    StatusOr<std::unique_ptr<HttpServer>> agent = HttpServer::Start(o, [](const HttpRequest& r) {
      if (r.path != "/v1/token") return HttpResponse::Json(404, "{}");
      // The commands ask for a token for the controllers (its audience).
      if (r.query.count("aud") == 0 || r.query.at("aud") != "controller") return HttpResponse::Json(400, "{}");
      TokenAnswer t;
      t.token = "agent-token";
      return HttpResponse::Json(200, wire::Encode(t));
    });
    ASSERT_TRUE(agent.ok()) << agent.status().message();
    agent_ = std::move(*agent);
    if (const char* c = getenv("MUSTER_CONF")) saved_conf_ = c;
    if (const char* s = getenv("MUSTER_SERVER")) saved_server_ = s;
    unsetenv("MUSTER_SERVER");
  }
  void TearDown() override {
    if (saved_conf_) setenv("MUSTER_CONF", saved_conf_->c_str(), 1); else unsetenv("MUSTER_CONF");
    if (saved_server_) setenv("MUSTER_SERVER", saved_server_->c_str(), 1);
    agent_.reset();
    fs::remove_all(dir_);
  }
  void WriteConf(const std::vector<std::string>& hosts) {
    const std::string path = (dir_ / "muster.yaml").string();
    std::ofstream out(path);
    out << "cluster: c\ncluster_file: cluster.yaml\ncontroller:\n  socket: " << (dir_ / "ctld.sock").string()
        << "\n  state: postgresql://muster@127.0.0.1/m\n  hosts: [";
    for (size_t i = 0; i < hosts.size(); ++i) out << (i ? ", " : "") << hosts[i];
    out << "]\nagent:\n  socket_dir: " << dir_.string() << "\n";
    out.close();
    setenv("MUSTER_CONF", path.c_str(), 1);
  }
  fs::path dir_;
  std::unique_ptr<HttpServer> agent_;
  std::optional<std::string> saved_conf_, saved_server_;
};

TEST_F(SeveralControllersTest, SubmitGoesToTheLeaderAndFollowsATakeover) {
  FakeController a("standby"), b("leader");
  a.set_role("standby", b.address());
  WriteConf({a.address(), b.address()});
  StatusOr<std::unique_ptr<CtldClient>> c = CtldClient::Connect();
  ASSERT_TRUE(c.ok()) << c.status().message();
  StatusOr<int64_t> first = (*c)->Submit(JobSpec{}, 10);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(b.submits(), 1);
  EXPECT_EQ(a.submits(), 0);
  EXPECT_EQ(b.last_authorization(), "Muster agent-token");
  // A takes over: B stands by (503), and the retry finds A.
  a.set_role("leader");
  b.set_role("standby", a.address());
  StatusOr<int64_t> second = (*c)->Submit(JobSpec{}, 10);
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_EQ(a.submits(), 1);
  EXPECT_EQ(b.submits(), 1);
}

TEST_F(SeveralControllersTest, ConnectFailsWhenNoneLeads) {
  FakeController a("standby"), b("standby");
  WriteConf({a.address(), b.address()});
  StatusOr<std::unique_ptr<CtldClient>> c = CtldClient::Connect();
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(c.status().message(), "no controller leads: " + a.address() + ": standby (leader: none), " +
                                      b.address() + ": standby (leader: none)");
}

TEST_F(SeveralControllersTest, SubmitGivesUpInTimeWhenNoneLeads) {
  FakeController a("standby"), b("leader");
  WriteConf({a.address(), b.address()});
  StatusOr<std::unique_ptr<CtldClient>> c = CtldClient::Connect();
  ASSERT_TRUE(c.ok()) << c.status().message();
  b.set_role("standby");  // the leader is gone and nobody took over
  StatusOr<int64_t> r = (*c)->Submit(JobSpec{}, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(r.status().message(), "no controller leads: " + a.address() + ": standby (leader: none), " +
                                      b.address() + ": standby (leader: none)");
}

}  // namespace
}  // namespace muster
