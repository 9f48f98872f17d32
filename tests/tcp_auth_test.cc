// The TCP + token path end to end, on a real local cluster started with `muster up --tcp`: the
// controller and the agents listen on loopback TCP and reach each other there with tokens signed
// by the cluster key; the commands run with MUSTER_SERVER=127.0.0.1:<port> and get their token
// from a local musterd. TCP speaks TLS (the cluster CA `muster up` made, in DIR/tls): a plain-HTTP
// client gets no answer. Checks what users see (exit codes, messages, squeue) and that requests
// without a valid token, or without the right, change nothing. Label "integration" in CTest.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <boost/json.hpp>

#include "local_cluster_test_util.h"
#include "test_net_util.h"
#include "net/http.h"
#include "net/key_file.h"
#include "net/token.h"

namespace {

using namespace muster_test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;
namespace bj = boost::json;

// `o` as JSON text.
std::string Text(const bj::object& o) { return bj::serialize(o); }

constexpr uint32_t kNobody = 65534;
constexpr uint32_t kDaemonUid = 1;  // another ordinary user, not an admin

int64_t Now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class TcpAuth : public LocalClusterTest {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to switch users";
    up_args_ = " --tcp";
    LocalClusterTest::SetUp();
    if (HasFatalFailure()) return;
    ctld_ = ControllerListen();
    ASSERT_EQ(ctld_.rfind("127.0.0.1:", 0), 0u) << ReadFile((dir_ / "c" / "muster.yaml").string());
    StatusOr<std::string> key = muster::LoadClusterKey((dir_ / "c" / "state" / "cluster.key").string(), false);
    ASSERT_TRUE(key.ok()) << key.status().message();
    key_ = std::make_unique<muster::TokenAuthority>(*key);
    // This process's clients (Call, Listening) verify the servers with the cluster's CA.
    ca_ = (dir_ / "c" / "tls" / "ca.crt").string();
    muster::Status tls = muster::HttpClient::SetProcessTls(muster::HttpClient::Tls{ca_});
    ASSERT_TRUE(tls.ok()) << tls.message();
  }
  void TearDown() override {
    if (IsSkipped()) return;  // no cluster was started
    EXPECT_TRUE(muster::HttpClient::SetProcessTls(std::nullopt).ok());
    LocalClusterTest::TearDown();
  }
  template <class T>
  using StatusOr = muster::StatusOr<T>;

  // A command over TCP, as the cluster's owner (root) or as `user`.
  Result Tcp(const std::string& cmd) { return Run("MUSTER_SERVER=" + ctld_ + " " + cmd); }
  Result TcpAs(const std::string& user, const std::string& cmd) {
    return RunAs(user, "MUSTER_SERVER=" + ctld_ + " " + cmd);
  }
  std::string TcpState(int64_t id) { return Trim(Tcp("squeue -h -t all -j " + std::to_string(id) + " -o %T").out); }

  // A token for `uid`, for the controllers (or another audience: "node:node1" for that agent).
  std::string Mint(uint32_t uid, int64_t issued = Now(), const std::string& aud = muster::kControllerAudience) {
    return key_->Mint(uid, uid, issued, 300, aud);
  }
  // A token for the server at `address`: the controller, or the node whose agent listens there.
  std::string MintAt(const std::string& address, uint32_t uid) {
    if (address == ctld_) return Mint(uid);
    for (const auto& [node, at] : agents_) {
      if (at == address) return Mint(uid, Now(), muster::NodeAudience(node));
    }
    ADD_FAILURE() << "no server at " << address;
    return "";
  }

  // One request straight to `address` with `token` ("" = none); status -1 when nothing answered.
  muster::HttpResponse Call(const std::string& address, const std::string& method, const std::string& target,
                            const std::string& token, const std::string& body = "") {
    StatusOr<std::unique_ptr<muster::HttpClient>> c = muster::HttpClient::Connect(address, token, 10000);
    if (!c.ok()) return muster::HttpResponse{-1, "", c.status().message()};
    StatusOr<muster::HttpResponse> r = (*c)->Request(method, target, body);
    if (!r.ok()) return muster::HttpResponse{-1, "", r.status().message()};
    return *r;
  }

  // Node name -> the address its agent registered, as an admin sees it over TCP.
  std::map<std::string, std::string> AgentAddresses() {
    muster::HttpResponse r = Call(ctld_, "GET", "/v1/nodes", Mint(0));
    EXPECT_EQ(r.status, 200) << r.body;
    return AgentAddressesOf(r.body);
  }

  bool NodeDrained(const std::string& node) {
    return Run("sinfo -h -N -o '%N %t'").out.find(node + " drain") != std::string::npos;
  }

  std::string ctld_;
  std::string ca_;  // the cluster CA's certificate
  std::unique_ptr<muster::TokenAuthority> key_;
  std::map<std::string, std::string> agents_;  // AgentAddresses(), for MintAt
};

bool Listening(const std::string& address) {
  return muster::HttpClient::Connect(address, "", 2000).ok();
}

TEST_F(TcpAuth, CommandsWorkOverTcpForRootAndAnotherUserAndJobsRunThroughAgentsOnTcp) {
  // The controller reaches its agents over TCP, and the agents the controller.
  std::map<std::string, std::string> agents = AgentAddresses();
  ASSERT_EQ(agents.size(), 2u);
  for (const auto& [node, address] : agents) {
    EXPECT_EQ(address.rfind("127.0.0.1:", 0), 0u) << node << " registered " << address;
    EXPECT_TRUE(Listening(address)) << node << " at " << address;
  }
  EXPECT_NE(ReadFile((dir_ / "c/log/musterd-node1.log").string()).find("controller at " + ctld_),
            std::string::npos);

  // Root submits, lists and sees its job running over TCP.
  Result r = Tcp("sbatch --parsable --wrap 'sleep 300'");
  ASSERT_EQ(r.rc, 0) << r.out;
  const int64_t root_job = std::atoll(r.out.c_str());
  ASSERT_TRUE(WaitFor([&] { return TcpState(root_job) == "RUNNING"; }, 15s)) << TcpState(root_job);

  // nobody submits over TCP a job whose srun runs a task on each node: srun reaches both agents
  // over TCP with nobody's token (from the local musterd of node1..2, none named like the host).
  const fs::path script = work_ / "steps.sh";
  std::ofstream(script) << "#!/bin/bash\nsrun -N 2 -l id -un\necho srun-rc=$?\n";
  fs::permissions(script, fs::perms::all);
  r = TcpAs("nobody", "sbatch --parsable -N 2 " + script.string());
  ASSERT_EQ(r.rc, 0) << r.out;
  const int64_t steps = std::atoll(r.out.c_str());
  ASSERT_TRUE(WaitFor([&] { return TcpState(steps) == "COMPLETED"; }, 30s)) << TcpState(steps);
  const std::string out = ReadFile((work_ / ("slurm-" + std::to_string(steps) + ".out")).string());
  EXPECT_NE(out.find("0: nobody\n"), std::string::npos) << out;
  EXPECT_NE(out.find("1: nobody\n"), std::string::npos) << out;
  EXPECT_NE(out.find("srun-rc=0\n"), std::string::npos) << out;

  // nobody's squeue over TCP sees both jobs.
  r = TcpAs("nobody", "squeue -h -t all -o \"%i %u %T\"");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find(std::to_string(root_job) + " root RUNNING"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(std::to_string(steps) + " nobody COMPLETED"), std::string::npos) << r.out;

  // nobody may neither cancel root's job nor drain a node; both stay as they were.
  r = TcpAs("nobody", "scancel " + std::to_string(root_job));
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out, "scancel: error: Kill job error on job id " + std::to_string(root_job) +
                       ": Access/permission denied\n");
  r = TcpAs("nobody", "scontrol update NodeName=node1 State=DRAIN Reason=x");
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out, "slurm_update error: Access/permission denied\n");
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(State(root_job), "RUNNING");
  EXPECT_FALSE(NodeDrained("node1")) << Run("sinfo -N").out;

  // nobody cancels their own job over TCP; root cancels theirs.
  r = TcpAs("nobody", "sbatch --parsable --wrap \"sleep 300\"");
  ASSERT_EQ(r.rc, 0) << r.out;
  const int64_t own = std::atoll(r.out.c_str());
  ASSERT_TRUE(WaitState(own, "RUNNING")) << State(own);
  r = TcpAs("nobody", "scancel " + std::to_string(own));
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_TRUE(WaitState(own, "CANCELLED")) << State(own);
  r = Tcp("scancel " + std::to_string(root_job));
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_TRUE(WaitState(root_job, "CANCELLED")) << State(root_job);
  // An admin drains and resumes over TCP.
  EXPECT_EQ(Tcp("scontrol update NodeName=node2 State=DRAIN Reason=maint").rc, 0);
  EXPECT_TRUE(NodeDrained("node2")) << Run("sinfo -N").out;
  EXPECT_EQ(Tcp("scontrol update NodeName=node2 State=RESUME").rc, 0);
}

TEST_F(TcpAuth, RequestsWithoutAValidTokenOrTheRightChangeNothing) {
  // nobody's job, running on node1; its script's pid tells whether it still runs.
  Result r = TcpAs("nobody", "sbatch --parsable -w node1 --wrap \"echo \\$\\$ > job.pid; sleep 300\"");
  ASSERT_EQ(r.rc, 0) << r.out;
  const int64_t id = std::atoll(r.out.c_str());
  const std::string sid = std::to_string(id);
  ASSERT_TRUE(WaitState(id, "RUNNING")) << State(id);
  ASSERT_TRUE(WaitFor([&] { return !Trim(ReadFile((work_ / "job.pid").string())).empty(); }, 10s));
  const pid_t pid = std::atoi(ReadFile((work_ / "job.pid").string()).c_str());
  ASSERT_GT(pid, 0);
  agents_ = AgentAddresses();
  const std::string agent = agents_["node1"];
  ASSERT_EQ(agent.rfind("127.0.0.1:", 0), 0u) << agent;
  const std::string jobs_before = Run("squeue -h -t all -o '%i %T'").out;

  const std::string submit =
      Text({{"resource_args", bj::array()}, {"script", "#!/bin/sh\ntrue\n"}, {"workdir", work_.string()}});
  const std::string signal = Text({{"job_id", id}, {"signal", 9}, {"kill_after", 0}, {"why", "cancel"}});
  const std::string step = Text({{"job_id", id},
                                 {"step_id", 7},
                                 {"restart_count", 0},
                                 {"tasks", bj::array{bj::object{{"procid", 0}, {"localid", 0}}}},
                                 {"ntasks", 1},
                                 {"step_nodes", bj::array{"node1"}},
                                 {"argv", bj::array{"/bin/true"}},
                                 {"env", bj::array()},
                                 {"cwd", "/"},
                                 {"io", "127.0.0.1:1"},
                                 {"io_key", "k"}});
  const std::string signal_step = Text({{"job_id", id}, {"step_id", 0}, {"signal", 9}});
  const std::string launch = Text({{"job", bj::object()}});

  // Real token halves: a root payload under the signature of nobody's token.
  const std::string root_token = Mint(0), nobody_token = Mint(kNobody);
  const std::string tampered =
      root_token.substr(0, root_token.find('.')) + nobody_token.substr(nobody_token.find('.'));
  const struct {
    const char* what;
    std::string token;
    const char* says;
  } bad[] = {
      {"no token", "", "no credentials"},
      {"garbage", "not-a-token", "malformed token"},
      {"wrong key", muster::TokenAuthority(std::string(32, 'w')).Mint(0, 0, Now(), 300), "bad token signature"},
      {"tampered uid", tampered, "bad token signature"},
      {"expired", Mint(0, Now() - 1000), "expired"},
  };
  for (const auto& b : bad) {
    SCOPED_TRACE(b.what);
    const std::vector<std::tuple<std::string, std::string, std::string, std::string>> requests = {
        {ctld_, "POST", "/v1/jobs", submit},
        {ctld_, "DELETE", "/v1/jobs/" + sid, ""},
        {ctld_, "POST", "/v1/jobs/" + sid + "/hold", ""},
        {ctld_, "POST", "/v1/nodes/node1", Text({{"state", "DRAIN"}, {"reason", "x"}})},
        {ctld_, "GET", "/v1/jobs", ""},
        {agent, "POST", "/v1/signal", signal},
        {agent, "POST", "/v1/launch", launch},
        {agent, "POST", "/v1/step", step},
        {agent, "POST", "/v1/signal-step", signal_step},
    };
    for (const auto& [address, method, target, body] : requests) {
      muster::HttpResponse resp = Call(address, method, target, b.token, body);
      EXPECT_EQ(resp.status, 401) << method << " " << target << " on " << address << ": " << resp.body;
      EXPECT_NE(resp.body.find(b.says), std::string::npos) << method << " " << target << ": " << resp.body;
    }
  }
  // The commands, too, stop when they cannot get a token, and say where they looked.
  fs::create_directories(dir_ / "c" / "empty");
  std::string conf = ReadFile((dir_ / "c" / "muster.yaml").string());
  conf.replace(conf.find("socket_dir: run"), 15, "socket_dir: empty");
  std::ofstream((dir_ / "c" / "nosock.yaml").string()) << conf;
  r = TcpAs("nobody", "MUSTER_CONF=" + (dir_ / "c" / "nosock.yaml").string() + " scancel " + sid);
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out.rfind("scancel: error: cannot get a credential from the local musterd at " +
                            (dir_ / "c" / "empty").string() + "/musterd-",
                        0),
            0u)
      << r.out;
  r = TcpAs("nobody", "MUSTER_CONF=" + (dir_ / "c" / "nosock.yaml").string() + " sbatch --wrap true");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("cannot get a credential from the local musterd at "), std::string::npos) << r.out;

  // A valid token of another, non-admin user: 403, and still nothing changes.
  const std::vector<std::tuple<std::string, std::string, std::string, std::string>> forbidden = {
      {ctld_, "DELETE", "/v1/jobs/" + sid, ""},
      {ctld_, "POST", "/v1/jobs/" + sid + "/hold", ""},
      {ctld_, "POST", "/v1/nodes/node1", Text({{"state", "DRAIN"}, {"reason", "x"}})},
      {ctld_, "POST", "/v1/jobs/" + sid + "/steps", Text({{"ntasks", 1}})},
      {agent, "POST", "/v1/signal", signal},
      {agent, "POST", "/v1/launch", launch},
      {agent, "POST", "/v1/step", step},
      {agent, "POST", "/v1/signal-step", signal_step},
  };
  for (const auto& [address, method, target, body] : forbidden) {
    muster::HttpResponse resp = Call(address, method, target, MintAt(address, kDaemonUid), body);  // a token per connection
    EXPECT_EQ(resp.status, 403) << method << " " << target << " on " << address << ": " << resp.body;
  }
  // The job's own user may not signal through the agent either (that is the controller's), nor
  // fetch tokens over TCP.
  EXPECT_EQ(Call(agent, "POST", "/v1/signal", MintAt(agent, kNobody), signal).status, 403);
  EXPECT_EQ(Call(agent, "GET", "/v1/token", MintAt(agent, kNobody)).status, 403);

  std::this_thread::sleep_for(500ms);
  EXPECT_EQ(State(id), "RUNNING");
  EXPECT_EQ(kill(pid, 0), 0) << "the job's script is gone";
  EXPECT_EQ(Run("squeue -h -t all -o '%i %T'").out, jobs_before);
  EXPECT_FALSE(NodeDrained("node1")) << Run("sinfo -N").out;
  EXPECT_EQ(Trim(Run("squeue -h -j " + sid + " -o %R").out), "node1");  // not held

  // A token captured on its way (here: the owner's, used once already) is refused on a connection
  // of its own, at the controller and at an agent: it opens one connection, never a second.
  // (Each server remembers the tokens it took: a token is taken once by each.)
  const std::string captured = Mint(kNobody);
  EXPECT_EQ(Call(ctld_, "GET", "/v1/jobs", captured).status, 200);
  muster::HttpResponse replay = Call(ctld_, "DELETE", "/v1/jobs/" + sid, captured);
  EXPECT_EQ(replay.status, 401) << replay.body;
  EXPECT_NE(replay.body.find("token already used"), std::string::npos) << replay.body;
  const std::string at_agent = MintAt(agent, kNobody);
  EXPECT_EQ(Call(agent, "GET", "/v1/token", at_agent).status, 403);
  replay = Call(agent, "POST", "/v1/signal-step", at_agent, signal_step);
  EXPECT_EQ(replay.status, 401) << replay.body;
  EXPECT_NE(replay.body.find("token already used"), std::string::npos) << replay.body;
  // A token is for one audience: one for the controllers (captured on its way there, never used)
  // is refused at an agent, one for node2's agent at node1's, and one that names none anywhere.
  const struct {
    const char* what;
    std::string token;
    std::string says;
  } elsewhere[] = {
      {"the controllers'", Mint(kNobody), "token for controller, not for node:node1"},
      {"node2's", Mint(kNobody, Now(), "node:node2"), "token for node:node2, not for node:node1"},
      {"no audience", key_->Mint(kNobody, kNobody, Now(), 300), "token names no audience (this is node:node1)"},
  };
  for (const auto& e : elsewhere) {
    SCOPED_TRACE(e.what);
    muster::HttpResponse resp = Call(agent, "POST", "/v1/signal-step", e.token, signal_step);
    EXPECT_EQ(resp.status, 401) << resp.body;
    EXPECT_NE(resp.body.find(e.says), std::string::npos) << resp.body;
  }
  muster::HttpResponse for_agent = Call(ctld_, "DELETE", "/v1/jobs/" + sid, MintAt(agent, kNobody));
  EXPECT_EQ(for_agent.status, 401) << for_agent.body;
  EXPECT_NE(for_agent.body.find("token for node:node1, not for controller"), std::string::npos) << for_agent.body;
  EXPECT_EQ(State(id), "RUNNING");

  // The owner's own valid token does cancel.
  muster::HttpResponse resp = Call(ctld_, "DELETE", "/v1/jobs/" + sid, Mint(kNobody));
  EXPECT_EQ(resp.status, 200) << resp.body;
  EXPECT_TRUE(WaitState(id, "CANCELLED")) << State(id);
  EXPECT_TRUE(WaitFor([&] { return Dead(pid); }, 10s));
}

// An agent's metrics are read without a token over TCP, as Prometheus scrapes (docs/metrics.md),
// while its POSTs still need one.
TEST_F(TcpAuth, MetricsAreOpenWithoutATokenAndPostsAreNot) {
  const std::string agent = AgentAddresses()["node1"];
  ASSERT_EQ(agent.rfind("127.0.0.1:", 0), 0u) << agent;
  muster::HttpResponse metrics = Call(agent, "GET", "/metrics", "");
  EXPECT_EQ(metrics.status, 200) << metrics.body;
  EXPECT_EQ(metrics.content_type.rfind("text/plain; version=0.0.4", 0), 0u) << metrics.content_type;
  EXPECT_NE(metrics.body.find("\nDCGM_FI_DEV_GPU_UTIL{gpu=\"0\","), std::string::npos) << metrics.body;
  EXPECT_EQ(Call(agent, "POST", "/v1/signal", "", "{}").status, 401);
}

// The controller's metrics too (docs/metrics.md, "Controller metrics"); sdiag's figures and
// every other route still need a token.
TEST_F(TcpAuth, ControllerMetricsAreOpenWithoutATokenAndDiagIsNot) {
  muster::HttpResponse metrics = Call(ctld_, "GET", "/metrics", "");
  EXPECT_EQ(metrics.status, 200) << metrics.body;
  EXPECT_EQ(metrics.content_type.rfind("text/plain; version=0.0.4", 0), 0u) << metrics.content_type;
  EXPECT_NE(metrics.body.find("\nmuster_gpus{state=\"idle\"} 8\n"), std::string::npos) << metrics.body;
  EXPECT_EQ(Call(ctld_, "GET", "/v1/diag", "").status, 401);
  EXPECT_EQ(Call(ctld_, "POST", "/v1/diag/reset", "", "{}").status, 401);
}

// What a plain-HTTP client gets from a TLS port ("127.0.0.1:PORT"): the bytes the server sent
// before it closed the connection; *closed: it did close it (within 10 s).
std::string PlainHttpGet(const std::string& address, bool* closed) {
  *closed = false;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(std::atoi(address.substr(address.rfind(':') + 1).c_str())));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  timeval tv{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::string got;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return "connect failed";
  }
  const std::string req = "GET /v1/ping HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  if (::send(fd, req.data(), req.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(req.size())) {
    char buf[4096];
    for (;;) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        *closed = n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
        break;
      }
      got.append(buf, static_cast<size_t>(n));
    }
  }
  ::close(fd);
  return got;
}

// TCP speaks TLS only: plain HTTP to the controller's or an agent's port gets no HTTP answer,
// while the commands (which verify the servers with the cluster CA) work, and curl with that CA
// is answered.
TEST_F(TcpAuth, PlainHttpIsRefusedWhileTheCommandsAndCurlWithTheCaAreServed) {
  const std::string agent = AgentAddresses()["node1"];
  ASSERT_EQ(agent.rfind("127.0.0.1:", 0), 0u) << agent;
  for (const std::string& address : {ctld_, agent}) {
    bool closed = false;
    const std::string got = PlainHttpGet(address, &closed);
    EXPECT_TRUE(closed) << address;
    EXPECT_EQ(got.find("HTTP/"), std::string::npos) << address << " answered plain HTTP: " << got;
    EXPECT_EQ(got.find("leader"), std::string::npos) << address << ": " << got;
    Result curl = Run("curl -sS --max-time 10 http://" + address + "/v1/ping");
    EXPECT_NE(curl.rc, 0) << address << ": " << curl.out;
  }
  Result sq = TcpAs("nobody", "squeue -h -o %i");
  EXPECT_EQ(sq.rc, 0) << sq.out;
  Result ping = Run("curl -sS --max-time 10 --cacert " + ca_ + " https://" + ctld_ + "/v1/ping");
  EXPECT_EQ(ping.rc, 0) << ping.out;
  EXPECT_NE(ping.out.find("\"role\":\"leader\""), std::string::npos) << ping.out;
  Result agent_metrics = Run("curl -sS --max-time 10 --cacert " + ca_ + " https://" + agent + "/metrics");
  EXPECT_EQ(agent_metrics.rc, 0) << agent_metrics.out;
  EXPECT_NE(agent_metrics.out.find("DCGM_FI_DEV_GPU_UTIL"), std::string::npos) << agent_metrics.out;
  // Without the CA, curl does not trust the controller.
  Result untrusted = Run("curl -sS --max-time 10 https://" + ctld_ + "/v1/ping");
  EXPECT_NE(untrusted.rc, 0) << untrusted.out;
  // The controller logged the plain client's failed handshake.
  EXPECT_TRUE(WaitFor([&] {
    return ReadFile((dir_ / "c" / "log" / "musterctld.log").string()).find("TLS handshake from 127.0.0.1:") !=
           std::string::npos;
  }, 5s));
}

// A token used once stays used when the controller restarts: its nonce is in the store, not only
// in the memory of the process that took it. A token minted before the restart but not yet used is
// good after it (a command on its way is not turned away), and the agents and the commands, which
// present a new token on each connection, work on.
TEST_F(TcpAuth, ATokenUsedBeforeARestartIsRefusedAfterIt) {
  const std::string captured = Mint(kNobody);
  const std::string unused = Mint(kNobody);
  ASSERT_EQ(Call(ctld_, "GET", "/v1/jobs", captured).status, 200);
  const std::string before = Pid("musterctld");
  ASSERT_TRUE(RestartControllerWith("")) << ReadFile((dir_ / "c" / "log" / "musterctld.log").string());
  ASSERT_NE(Pid("musterctld"), before);
  muster::HttpResponse replay = Call(ctld_, "GET", "/v1/jobs", captured);
  EXPECT_EQ(replay.status, 401) << replay.body;
  EXPECT_NE(replay.body.find("token already used"), std::string::npos) << replay.body;
  EXPECT_EQ(Call(ctld_, "GET", "/v1/jobs", unused).status, 200);
  replay = Call(ctld_, "GET", "/v1/jobs", unused);
  EXPECT_EQ(replay.status, 401) << replay.body;
  Result sq = TcpAs("nobody", "squeue -h -o %i");
  EXPECT_EQ(sq.rc, 0) << sq.out;
  Result sub = Tcp("sbatch --parsable -o /dev/null --wrap true");
  ASSERT_EQ(sub.rc, 0) << sub.out;
  const int64_t id = std::atoll(sub.out.c_str());
  EXPECT_TRUE(WaitFor([&] { return TcpState(id) == "COMPLETED"; }, 20s)) << TcpState(id);
}

TEST_F(TcpAuth, DownStopsEveryDaemonAndClosesTheirPorts) {
  std::map<std::string, std::string> agents = AgentAddresses();
  ASSERT_EQ(agents.size(), 2u);
  const std::vector<std::string> pids = {Pid("musterctld"), Pid("musterd-node1"), Pid("musterd-node2")};
  Result down = Run("muster down --dir " + (dir_ / "c").string());
  EXPECT_EQ(down.rc, 0) << down.out;
  EXPECT_NE(down.out.find("stopped 3 daemons"), std::string::npos) << down.out;
  for (const std::string& p : pids) EXPECT_TRUE(WaitFor([&] { return Dead(std::atoi(p.c_str())); }, 5s)) << p;
  EXPECT_FALSE(Listening(ctld_)) << ctld_;
  for (const auto& [node, address] : agents) EXPECT_FALSE(Listening(address)) << node << " at " << address;
  Result r = Tcp("squeue");
  EXPECT_EQ(r.rc, 1) << r.out;
}

}  // namespace
