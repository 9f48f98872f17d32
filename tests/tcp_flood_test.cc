// No network client locks users out (docs/security.md, "Connections"), on real local clusters:
//   - 4,400 TCP connections that never authenticate, from 44 loopback addresses (127.0.0.2 ...
//     127.0.0.45, 100 each) and opened again as soon as the controller closes them, leave every
//     user's squeue and sbatch working, over TCP with their tokens and over the Unix socket, hold
//     only the controller's few hundred unauthenticated places, are closed once their time to
//     authenticate is over, and leave the controller's memory flat (VmRSS before, during, after);
//   - the controller raises its open-files limit to the hard limit (started here with systemd's
//     default soft limit, 1,024);
//   - on the REST listener (`rest_listen`), 64 connections that each start a large job
//     submission without a valid JWT are answered 401 before their bodies are read, and the
//     controller's memory stays flat;
//   - the REST listener speaks TLS with muster.yaml's `tls` section.
// The figures are printed (and recorded as the tests' properties). Label "integration" in CTest.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "flood_util.h"
#include "local_cluster_test_util.h"
#include "test_net_util.h"

namespace {

using namespace muster_test;
using namespace std::chrono_literals;

// The figures a test reports: printed, and recorded in the test's XML output.
void Figure(const std::string& name, int64_t value) {
  std::cout << "[figure] " << name << " = " << value << "\n";
  ::testing::Test::RecordProperty(name, std::to_string(value));
}

// Runs `fn` with this process's soft open-files limit at `soft` (what the daemons it starts
// inherit), then puts it back.
template <class Fn>
void WithSoftNofile(rlim_t soft, Fn fn) {
  rlimit was{};
  getrlimit(RLIMIT_NOFILE, &was);
  rlimit lowered = was;
  lowered.rlim_cur = std::min(soft, was.rlim_max);
  setrlimit(RLIMIT_NOFILE, &lowered);
  fn();
  setrlimit(RLIMIT_NOFILE, &was);
}

class TcpFlood : public LocalClusterTest {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to switch users";
    up_args_ = " --tcp";
    // The daemons start as systemd would start them: a soft limit of 1,024 open files.
    WithSoftNofile(1024, [this] { LocalClusterTest::SetUp(); });
    if (HasFatalFailure()) return;
    // This process holds the flood's 4,400 sockets.
    rlimit lim{};
    getrlimit(RLIMIT_NOFILE, &lim);
    ASSERT_GE(lim.rlim_max, 8192u) << "the flood needs 4,400 descriptors";
    lim.rlim_cur = lim.rlim_max;
    ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &lim), 0);
    ctld_ = ControllerListen();
    ASSERT_EQ(ctld_.rfind("127.0.0.1:", 0), 0u) << ReadFile((dir_ / "c" / "muster.yaml").string());
    pid_ = std::atoi(Pid("musterctld").c_str());
    ASSERT_GT(pid_, 0);
  }
  void TearDown() override {
    if (IsSkipped()) return;
    LocalClusterTest::TearDown();
  }
  // squeue and sbatch as `user` ("" = the cluster's owner, root), over TCP or the Unix socket,
  // within `limit_s` each; "" when both worked, else what failed. The job's id into *ids.
  std::string SqueueAndSbatch(const std::string& user, bool tcp, std::vector<int64_t>* ids, int64_t* slowest_ms) {
    const std::string via = tcp ? "MUSTER_SERVER=" + ctld_ + " " : "";
    const std::string who = user.empty() ? "root" : user;
    for (const std::string& cmd : {std::string("squeue -h -o %i"), std::string("sbatch --parsable --wrap true")}) {
      const auto began = std::chrono::steady_clock::now();
      const std::string line = "timeout 60 env " + via + cmd;
      Result r = user.empty() ? Run(line) : RunAs(user, line);
      *slowest_ms = std::max<int64_t>(
          *slowest_ms,
          std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - began).count());
      if (r.rc != 0) return who + (tcp ? " over TCP: " : " over the Unix socket: ") + cmd + ": rc " +
                            std::to_string(r.rc) + ": " + r.out;
      if (cmd.rfind("sbatch", 0) == 0) ids->push_back(std::atoll(r.out.c_str()));
    }
    return "";
  }

  std::string ctld_;
  int pid_ = 0;
};

TEST_F(TcpFlood, UnauthenticatedConnectionsFromManyAddressesLockNoUserOutAndLeaveMemoryFlat) {
  // The controller raised its soft open-files limit to the hard one.
  const std::string nofile = ProcLimit(pid_, "Max open files");
  std::istringstream fields(nofile.substr(std::string("Max open files").size()));
  std::string soft, hard;
  fields >> soft >> hard;
  EXPECT_EQ(soft, hard) << nofile;
  EXPECT_NE(soft, "1024") << nofile;
  EXPECT_NE(ReadFile((dir_ / "c/log/musterctld.log").string()).find("open files limit raised from 1024 to " + hard),
            std::string::npos);

  const std::vector<std::string> users = {"", "nobody", "daemon"};
  std::vector<int64_t> ids;
  int64_t slowest_ms = 0;
  for (const std::string& u : users) {
    for (bool tcp : {true, false}) EXPECT_EQ(SqueueAndSbatch(u, tcp, &ids, &slowest_ms), "") << "before the flood";
  }
  const int sockets_before = SocketCount(pid_);
  const int64_t rss_before = VmRssKb(pid_);
  Figure("controller_sockets_before", sockets_before);
  Figure("controller_vmrss_kb_before", rss_before);

  constexpr int kAddresses = 44, kPerAddress = 100;
  ConnectionFlood flood(ctld_, kAddresses, kPerAddress);
  flood.Start();
  ASSERT_TRUE(WaitFor([&] { return flood.connected() >= kAddresses * kPerAddress; }, 60s))
      << flood.connected() << " connected, " << flood.failed() << " failed";
  const int64_t rss_flooded = VmRssKb(pid_);  // once all 4,400 have connected
  int64_t rss_during = rss_flooded;
  int sockets_during = SocketCount(pid_);

  // Every user's squeue and sbatch, over TCP and the Unix socket, while the flood goes on.
  slowest_ms = 0;
  const int64_t connected_at_start = flood.connected();
  for (const std::string& u : users) {
    for (bool tcp : {true, false}) {
      EXPECT_EQ(SqueueAndSbatch(u, tcp, &ids, &slowest_ms), "") << "during the flood";
      rss_during = std::max(rss_during, VmRssKb(pid_));
      sockets_during = std::max(sockets_during, SocketCount(pid_));
    }
  }
  const int64_t churn = flood.connected() - connected_at_start;
  EXPECT_GE(flood.open(), kAddresses * kPerAddress / 2) << "the flood went on";
  Figure("flood_connections_opened", flood.connected());
  Figure("flood_connections_closed_by_the_controller", flood.closed_by_server());
  Figure("flood_connections_opened_while_the_commands_ran", churn);
  Figure("commands_during_flood_slowest_ms", slowest_ms);
  Figure("controller_sockets_during_max", sockets_during);
  Figure("controller_vmrss_kb_once_flooded", rss_flooded);
  Figure("controller_vmrss_kb_during_max", rss_during);
  // The flood holds no more than the unauthenticated places (256, and at most as many being
  // closed) and what the cluster uses.
  EXPECT_LE(sockets_during, sockets_before + 2 * 256 + 32);
  EXPECT_GT(flood.closed_by_server(), 0);

  // Its connections are closed once their time to authenticate (5 s) is over.
  flood.StopReopening();
  const auto stopped_reopening = std::chrono::steady_clock::now();
  EXPECT_TRUE(WaitFor([&] { return flood.open() == 0; }, 20s)) << flood.open() << " still open";
  Figure("flood_all_closed_after_ms", std::chrono::duration_cast<std::chrono::milliseconds>(
                                          std::chrono::steady_clock::now() - stopped_reopening)
                                          .count());
  flood.Stop();
  EXPECT_TRUE(WaitFor([&] { return SocketCount(pid_) <= sockets_before + 4; }, 10s))
      << SocketCount(pid_) << " sockets, " << sockets_before << " before";
  // The jobs all went in.
  for (const std::string& u : users) {
    for (bool tcp : {true, false}) EXPECT_EQ(SqueueAndSbatch(u, tcp, &ids, &slowest_ms), "") << "after the flood";
  }
  const int64_t rss_after = VmRssKb(pid_);
  Figure("controller_vmrss_kb_after", rss_after);
  // Flat: bounded by the unauthenticated places (about 90 KiB a held TLS connection, for 256 held
  // and at most 256 being closed), whatever the flood's size or length.
  EXPECT_LE(rss_during, rss_before + 96 * 1024) << "KiB";
  EXPECT_LE(rss_during, rss_flooded + 48 * 1024) << "KiB: grew while the flood went on";
  EXPECT_LE(rss_after, rss_before + 96 * 1024) << "KiB";
  const std::string listed = Run("squeue -h -t all -o %i").out;
  ASSERT_EQ(ids.size(), 3u * users.size() * 2);
  for (int64_t id : ids) EXPECT_NE(listed.find(std::to_string(id)), std::string::npos) << id << " in\n" << listed;
}

class RestFlood : public LocalClusterTest {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to switch users";
    port_ = FreePort();
    ASSERT_NE(port_, 0);
    up_args_ = up_extra_ + " --rest 127.0.0.1:" + std::to_string(port_);
    LocalClusterTest::SetUp();
    if (HasFatalFailure()) return;
    pid_ = std::atoi(Pid("musterctld").c_str());
    ASSERT_GT(pid_, 0);
  }
  void TearDown() override {
    if (IsSkipped()) return;
    LocalClusterTest::TearDown();
  }
  std::string Jwt(const std::string& user = "") {
    Result r = user.empty() ? Run("scontrol token lifespan=600") : RunAs(user, "scontrol token");
    EXPECT_EQ(r.rc, 0) << r.out;
    return Trim(r.out.substr(r.out.find('=') + 1));
  }
  std::string up_extra_;
  int port_ = 0;
  int pid_ = 0;
};

// 64 connections, each starting a 16,000,000-byte job submission (under the route's 16 MiB limit)
// without a valid JWT (none, or a forged one): each is answered 401 as soon as its header is in,
// and the controller's memory does not grow by their bodies.
TEST_F(RestFlood, LargeBodiesWithoutAValidJwtAreRefusedBeforeTheyAreRead) {
  const std::string target = "127.0.0.1:" + std::to_string(port_);
  constexpr int kConnections = 64;
  constexpr int64_t kBody = 16'000'000;
  const std::string forged = Jwt() + "x";
  const int sockets_before = SocketCount(pid_);
  const int64_t rss_before = VmRssKb(pid_);
  int64_t rss_peak = rss_before;
  const auto began = std::chrono::steady_clock::now();
  BodyFloodResult flood = FloodWithBodies(
      target, kConnections,
      [&](int i) {
        return std::string("POST /slurm/v0.0.38/job/submit HTTP/1.1\r\nHost: 127.0.0.1\r\n") +
               "Content-Type: application/json\r\nConnection: close\r\n" +
               (i % 2 ? "X-SLURM-USER-NAME: root\r\nX-SLURM-USER-TOKEN: " + forged + "\r\n" : "") +
               "Content-Length: " + std::to_string(kBody) + "\r\n\r\n";
      },
      kBody, [&] { rss_peak = std::max(rss_peak, VmRssKb(pid_)); }, 120);
  const int64_t took_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - began).count();
  EXPECT_TRUE(WaitFor([&] { return SocketCount(pid_) <= sockets_before; }, 10s))
      << SocketCount(pid_) << " sockets, " << sockets_before << " before";
  const int64_t rss_after = VmRssKb(pid_);
  Figure("rest_controller_vmrss_kb_before", rss_before);
  Figure("rest_controller_vmrss_kb_peak", rss_peak);
  Figure("rest_controller_vmrss_kb_after", rss_after);
  Figure("rest_body_bytes_sent", flood.body_bytes_sent);
  Figure("rest_flood_ms", took_ms);
  EXPECT_TRUE(flood.finished);
  ASSERT_EQ(flood.answers.size(), static_cast<size_t>(kConnections));
  for (int i = 0; i < kConnections; ++i) {
    const std::string& a = flood.answers[i];
    EXPECT_EQ(a.rfind("HTTP/1.1 401", 0), 0u) << i << ": " << a.substr(0, 200);
    EXPECT_NE(a.find("\r\n\r\nAuthentication failure"), std::string::npos) << i << ": " << a.substr(0, 200);
  }
  // Far less than one body per connection was taken in.
  EXPECT_LT(flood.body_bytes_sent, kConnections * kBody / 4);
  EXPECT_LE(rss_peak, rss_before + 64 * 1024) << "KiB";
  // A valid JWT's submission is read and served as before.
  const std::string submit = R"({"script": "#!/bin/sh\ntrue\n", "job": {"name": "rest1", "tasks": 1,
      "current_working_directory": ")" + work_.string() + R"(", "environment": {"PATH": "/bin:/usr/bin"}}})";
  Result ok = Run("curl -sS --max-time 20 -H 'X-SLURM-USER-NAME: root' -H 'X-SLURM-USER-TOKEN: " + Jwt() +
                  "' -H 'Content-Type: application/json' --data-binary '" + submit + "' http://" + target +
                  "/slurm/v0.0.38/job/submit");
  EXPECT_EQ(ok.rc, 0) << ok.out;
  EXPECT_NE(ok.out.find("\"job_id\""), std::string::npos) << ok.out;
}

class RestTls : public RestFlood {
 protected:
  void SetUp() override {
    up_extra_ = " --tcp";
    RestFlood::SetUp();
  }
};

// With muster.yaml's `tls` (here `muster up --tcp`'s), rest_listen speaks TLS with the same
// certificate: curl trusting the cluster CA is served; plain HTTP and curl without the CA are not.
TEST_F(RestTls, TheRestListenerSpeaksTlsWithTheTlsSection) {
  const std::string target = "127.0.0.1:" + std::to_string(port_);
  const std::string ca = (dir_ / "c" / "tls" / "ca.crt").string();
  const std::string jwt = Jwt("nobody");
  const std::string headers = " -H 'X-SLURM-USER-NAME: nobody' -H 'X-SLURM-USER-TOKEN: " + jwt + "'";
  Result ping = Run("curl -sS --max-time 10 --cacert " + ca + headers + " https://" + target + "/slurm/v0.0.38/ping");
  EXPECT_EQ(ping.rc, 0) << ping.out;
  EXPECT_NE(ping.out.find("\"ping\""), std::string::npos) << ping.out;
  Result jobs = Run("curl -sS --max-time 10 -o /dev/null -w '%{http_code}' --cacert " + ca + headers + " https://" +
                    target + "/slurm/v0.0.38/jobs");
  EXPECT_EQ(jobs.out, "200") << jobs.out;
  // Without a JWT, 401 over TLS too, before the body (curl waits for 100 Continue, which never comes).
  ASSERT_EQ(Run("head -c 16000000 /dev/zero > big.json").rc, 0);
  Result anon = Run("curl -sS --max-time 10 -w ' %{http_code}' --cacert " + ca +
                    " -H 'Content-Type: application/json' --data-binary @big.json https://" + target +
                    "/slurm/v0.0.38/job/submit");
  EXPECT_NE(anon.out.find("Authentication failure 401"), std::string::npos) << anon.out;
  Result plain = Run("curl -sS --max-time 10 http://" + target + "/slurm/v0.0.38/ping");
  EXPECT_NE(plain.rc, 0) << plain.out;
  Result untrusted = Run("curl -sS --max-time 10 https://" + target + "/slurm/v0.0.38/ping");
  EXPECT_NE(untrusted.rc, 0) << untrusted.out;
  EXPECT_NE(ReadFile((dir_ / "c/log/musterctld.log").string()).find("slurmrestd's REST API (v0.0.38) on tcp port " +
                                                                     std::to_string(port_) + " (TLS)"),
            std::string::npos);
}

}  // namespace
