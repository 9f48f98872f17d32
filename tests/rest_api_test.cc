// slurmrestd's REST API (/slurm/v0.0.38) end to end on a real local cluster started with
// `muster up --rest`: JWTs from `scontrol token`, a job submitted, read, listed, updated and
// cancelled over TCP, and what a request without a token, or with another user's, may not do.
// Label "integration" in CTest.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <boost/json.hpp>

#include "local_cluster_test_util.h"
#include "test_net_util.h"

namespace {

using namespace muster_test;
using namespace std::chrono_literals;
namespace bj = boost::json;

struct Reply {
  int status = 0;
  std::string body;
  bj::value json() const {
    boost::system::error_code ec;
    bj::value v = bj::parse(body, ec);
    return ec ? bj::value() : v;
  }
};

// One HTTP/1.1 request (Connection: close), as a REST client sends it, on a connected socket.
Reply Exchange(int fd, const std::string& method, const std::string& target, const std::string& body,
               const std::vector<std::string>& headers) {
  Reply r;
  std::string req = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
  for (const std::string& h : headers) req += h + "\r\n";
  if (!body.empty()) req += "Content-Type: application/json\r\n";
  req += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  for (size_t sent = 0; sent < req.size();) {
    const ssize_t n = send(fd, req.data() + sent, req.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  std::string text;
  char buf[8192];
  for (ssize_t n; (n = recv(fd, buf, sizeof buf, 0)) > 0;) text.append(buf, static_cast<size_t>(n));
  close(fd);
  if (text.rfind("HTTP/1.1 ", 0) == 0) r.status = std::atoi(text.c_str() + 9);
  const size_t at = text.find("\r\n\r\n");
  if (at != std::string::npos) r.body = text.substr(at + 4);
  return r;
}

// To 127.0.0.1:port.
Reply Http(int port, const std::string& method, const std::string& target, const std::string& body,
           const std::vector<std::string>& headers) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return Reply();
  }
  return Exchange(fd, method, target, body, headers);
}

// To the controller's Unix socket, where peer credentials say who calls.
Reply UnixHttp(const std::string& path, const std::string& method, const std::string& target,
               const std::vector<std::string>& headers = {}) {
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::snprintf(a.sun_path, sizeof a.sun_path, "%s", path.c_str());
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return Reply();
  }
  return Exchange(fd, method, target, "", headers);
}

class SlurmRest : public LocalClusterTest {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to switch users";
    port_ = FreePort();
    ASSERT_NE(port_, 0);
    up_args_ = " --rest 127.0.0.1:" + std::to_string(port_);
    LocalClusterTest::SetUp();
  }
  void TearDown() override {
    if (IsSkipped()) return;
    LocalClusterTest::TearDown();
  }
  // `scontrol token`'s JWT, for the cluster's owner or (`user`) another user.
  std::string Token(const std::string& user = "") {
    Result r = user.empty() ? Run("scontrol token lifespan=600") : RunAs(user, "scontrol token");
    EXPECT_EQ(r.rc, 0) << r.out;
    EXPECT_EQ(r.out.rfind("SLURM_JWT=eyJ", 0), 0u) << r.out;
    return Trim(r.out.substr(r.out.find('=') + 1));
  }
  Reply As(const std::string& user, const std::string& token, const std::string& method, const std::string& target,
           const std::string& body = "") {
    return Http(port_, method, target, body, {"X-SLURM-USER-NAME: " + user, "X-SLURM-USER-TOKEN: " + token});
  }
  int port_ = 0;
};

TEST_F(SlurmRest, SubmitGetListUpdateAndCancelWithJwts) {
  const std::string root = Token();
  const std::string nobody = Token("nobody");
  const std::string v = "/slurm/v0.0.38";

  // Only root and admins mint tokens for others: Slurm's words otherwise.
  Result other = RunAs("nobody", "scontrol token username=root");
  EXPECT_EQ(other.rc, 1) << other.out;
  EXPECT_NE(other.out.find("scontrol: error: slurm_fetch_token: error with request: Invalid user id"),
            std::string::npos)
      << other.out;

  const std::string submit = R"({"script": "#!/bin/sh\nsleep 300\n", "job": {"name": "rest1", "time_limit": 5,
      "tasks": 1, "current_working_directory": ")" + work_.string() + R"(", "environment": {"PATH": "/bin:/usr/bin"}}})";
  Reply r = As("root", root, "POST", v + "/job/submit", submit);
  ASSERT_EQ(r.status, 200) << r.body;
  const bj::value sub = r.json();
  ASSERT_TRUE(sub.is_object()) << r.body;
  const int64_t id = sub.at("job_id").to_number<int64_t>();
  EXPECT_GT(id, 0);
  EXPECT_EQ(sub.at("step_id"), "BATCH");
  EXPECT_EQ(sub.at("errors"), bj::array());
  EXPECT_EQ(sub.at("meta").at("plugin").at("type"), "openapi/v0.0.38");
  const std::string job = v + "/job/" + std::to_string(id);

  r = As("root", root, "GET", job);
  ASSERT_EQ(r.status, 200) << r.body;
  const bj::value got = r.json().at("jobs").as_array().at(0);
  EXPECT_EQ(got.at("job_id").to_number<int64_t>(), id);
  EXPECT_EQ(got.at("name"), "rest1");
  EXPECT_EQ(got.at("time_limit"), 5);
  EXPECT_EQ(got.at("user_name"), "root");
  EXPECT_EQ(std::string(got.at("current_working_directory").as_string()), work_.string());
  EXPECT_TRUE(WaitState(id, "RUNNING"));

  r = As("root", root, "GET", v + "/jobs");
  ASSERT_EQ(r.status, 200) << r.body;
  bool listed = false;
  const bj::value list = r.json();
  for (const bj::value& j : list.at("jobs").as_array()) listed = listed || j.at("job_id").to_number<int64_t>() == id;
  EXPECT_TRUE(listed) << r.body;

  // The owner lowers the time limit and sets a comment.
  r = As("root", root, "POST", job, R"({"time_limit": 3, "comment": "from rest"})");
  ASSERT_EQ(r.status, 200) << r.body;
  r = As("root", root, "GET", job);
  EXPECT_EQ(r.json().at("jobs").at(0).at("time_limit"), 3) << r.body;
  EXPECT_EQ(r.json().at("jobs").at(0).at("comment"), "from rest") << r.body;

  // Without a token, with a forged one, or with another user's token in root's name: 401.
  r = Http(port_, "DELETE", job, "", {});
  EXPECT_EQ(r.status, 401) << r.body;
  EXPECT_EQ(r.body, "Authentication failure");
  r = Http(port_, "GET", v + "/jobs", "", {"X-SLURM-USER-NAME: root"});
  EXPECT_EQ(r.status, 401) << r.body;
  r = As("root", root + "x", "DELETE", job);
  EXPECT_EQ(r.status, 401) << r.body;
  r = As("root", nobody, "DELETE", job);
  EXPECT_EQ(r.status, 401) << r.body;
  // Another user's own token may not cancel root's job.
  r = As("nobody", nobody, "DELETE", job);
  EXPECT_EQ(r.status, 500) << r.body;
  ASSERT_TRUE(r.json().is_object()) << r.body;
  EXPECT_EQ(r.json().at("errors").at(0).at("error"), "Access/permission denied") << r.body;
  EXPECT_EQ(r.json().at("errors").at(0).at("error_number"), 2002) << r.body;
  EXPECT_EQ(State(id), "RUNNING");

  // On the Unix socket a JWT still decides who calls: nobody's may not cancel it either.
  const std::string sock = (dir_ / "c" / "run" / "ctld.sock").string();
  r = UnixHttp(sock, "DELETE", job, {"X-SLURM-USER-NAME: nobody", "X-SLURM-USER-TOKEN: " + nobody});
  EXPECT_EQ(r.status, 500) << r.body;
  EXPECT_EQ(State(id), "RUNNING");
  // Without one, peer credentials (root's here) stand in for it (slurmrestd's rest_auth/local).
  r = UnixHttp(sock, "GET", job);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json().at("jobs").at(0).at("job_state"), "RUNNING") << r.body;

  // The owner cancels it.
  r = As("root", root, "DELETE", job);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(WaitState(id, "CANCELLED"));
  r = As("root", root, "GET", job);
  EXPECT_EQ(r.json().at("jobs").at(0).at("job_state"), "CANCELLED") << r.body;

  // An unknown job: Slurm's error entry, HTTP 500, whatever the verb.
  for (const auto& [method, body] : {std::pair<std::string, std::string>{"GET", ""}, {"POST", "{}"}, {"DELETE", ""}}) {
    r = As("root", root, method, v + "/job/999999", body);
    EXPECT_EQ(r.status, 500) << method << " " << r.body;
    EXPECT_EQ(r.json().at("errors").at(0).at("error_number"), 2017) << method << " " << r.body;
  }
}

TEST_F(SlurmRest, ReadsTheClusterAndItsAccounting) {
  const std::string root = Token();
  Reply r = As("root", root, "GET", "/slurm/v0.0.38/ping");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json().at("pings").at(0).at("ping"), "UP");
  r = As("root", root, "GET", "/slurm/v0.0.38/nodes");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json().at("nodes").as_array().size(), 2u) << r.body;
  EXPECT_EQ(r.json().at("nodes").at(0).at("state"), "idle") << r.body;
  r = As("root", root, "GET", "/slurm/v0.0.38/partitions");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_FALSE(r.json().at("partitions").as_array().empty()) << r.body;
  r = As("root", root, "GET", "/slurm/v0.0.38/diag");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_TRUE(r.json().at("statistics").as_object().contains("jobs_running")) << r.body;

  const int64_t id = Submit("-o /dev/null --wrap true");
  EXPECT_TRUE(WaitState(id, "COMPLETED"));
  r = As("root", root, "GET", "/slurmdb/v0.0.38/job/" + std::to_string(id));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json().at("meta").at("plugin").at("type"), "openapi/dbv0.0.38");
  EXPECT_EQ(r.json().at("jobs").at(0).at("state").at("current"), "COMPLETED") << r.body;
  r = As("root", root, "GET", "/slurmdb/v0.0.38/jobs?users=root");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_FALSE(r.json().at("jobs").as_array().empty()) << r.body;
  r = As("root", root, "GET", "/slurmdb/v0.0.38/associations");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.json().at("associations").at(0).at("account"), "root") << r.body;
}

// A user's `scontrol token` is bound by controller.jwt_max_lifespan (a day by default; Slurm's
// max_token_lifespan), root's is not. Rotating the key revokes every token it signed: a new key
// file, then `scontrol reconfigure` (the controller starts again in place with it): the old key's
// tokens are refused, the new key's taken (docs/security.md, "Revoking JWTs").
TEST_F(SlurmRest, LifespansAreBoundAndRotatingTheKeyRevokesTokens) {
  Result longer = RunAs("nobody", "scontrol token lifespan=86401");
  EXPECT_EQ(longer.rc, 1) << longer.out;
  EXPECT_NE(longer.out.find("scontrol: error: slurm_fetch_token: error with request: Requested time limit is invalid "
                            "(missing or exceeds some limit): lifespan 86401 s is over controller.jwt_max_lifespan "
                            "(86400 s)"),
            std::string::npos)
      << longer.out;
  EXPECT_EQ(RunAs("nobody", "scontrol token lifespan=86400").rc, 0);
  EXPECT_EQ(Run("scontrol token lifespan=infinite").rc, 0);  // root: Slurm's SlurmUser

  const std::string old = Token();
  const std::string jobs = "/slurm/v0.0.38/jobs";
  ASSERT_EQ(As("root", old, "GET", jobs).status, 200);
  const std::string pid = Pid("musterctld");
  const std::string key = (dir_ / "c" / "state" / "jwt_hs256.key").string();
  Result rotate = Run("umask 077 && head -c 32 /dev/urandom > " + key + ".new && mv " + key + ".new " + key +
                      " && scontrol reconfigure");
  ASSERT_EQ(rotate.rc, 0) << rotate.out;
  // Until the controller has started again the old key may still answer; then it never does.
  ASSERT_TRUE(WaitFor([&] { return As("root", old, "GET", jobs).status == 401; }, 30s))
      << ReadFile((dir_ / "c" / "log" / "musterctld.log").string());
  EXPECT_EQ(Pid("musterctld"), pid);  // the same process, started again
  const std::string fresh = Token();
  EXPECT_NE(fresh, old);
  EXPECT_EQ(As("root", fresh, "GET", jobs).status, 200);
  EXPECT_EQ(As("root", old, "GET", jobs).status, 401);
}

}  // namespace
