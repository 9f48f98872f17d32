// scontrol ping with several controllers: Slurm's lines, one per controller in order, its exit
// code and root's banner; and PingControllers against in-process controllers (a standby is UP).
#include "cli/scontrol_ping.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>

#include "net/http.h"
#include "wire/jobs.h"

namespace muster {
namespace {

TEST(SlurmPingTextTest, PrimaryAndBackupAsSlurmPrintsThem) {
  const std::vector<ControllerPing> two = {{"ctl1", true}, {"ctl2", false}};
  EXPECT_EQ(SlurmPingText(two, false), "Slurmctld(primary) at ctl1 is UP\nSlurmctld(backup) at ctl2 is DOWN\n");
  EXPECT_EQ(SlurmPingExitCode(two), 0);
  EXPECT_EQ(SlurmPingText(two, true),
            "Slurmctld(primary) at ctl1 is UP\nSlurmctld(backup) at ctl2 is DOWN\n"
            "*****************************************\n"
            "** RESTORE SLURMCTLD DAEMON TO SERVICE **\n"
            "*****************************************\n");
}

TEST(SlurmPingTextTest, ThreeOrMoreAreNumberedBackups) {
  const std::vector<ControllerPing> three = {{"ctl1", false}, {"ctl2", true}, {"ctl3", true}};
  EXPECT_EQ(SlurmPingText(three, false),
            "Slurmctld(primary) at ctl1 is DOWN\nSlurmctld(backup1) at ctl2 is UP\nSlurmctld(backup2) at ctl3 is UP\n");
  EXPECT_EQ(SlurmPingExitCode(three), 0);
}

TEST(SlurmPingTextTest, AllDownExitsOneAndAllUpHasNoBanner) {
  const std::vector<ControllerPing> down = {{"ctl1", false}, {"ctl2", false}};
  EXPECT_EQ(SlurmPingExitCode(down), 1);
  const std::vector<ControllerPing> up = {{"ctl1", true}};
  EXPECT_EQ(SlurmPingText(up, true), "Slurmctld(primary) at ctl1 is UP\n");
  EXPECT_EQ(SlurmPingExitCode(up), 0);
}

TEST(PingControllersTest, AStandbyIsUpAndNobodyListeningIsDown) {
  HttpServer::Options o;
  o.tcp_port = 0;
  StatusOr<std::unique_ptr<HttpServer>> standby = HttpServer::Start(o, [](const HttpRequest& r) {
    if (r.path != "/v1/ping") return HttpResponse::Json(503, R"({"error":"standing by"})");
    PingAnswer p;
    p.role = "standby";
    return HttpResponse::Json(200, wire::Encode(p));
  });
  ASSERT_TRUE(standby.ok()) << standby.status().message();
  StatusOr<std::unique_ptr<HttpServer>> broken =
      HttpServer::Start(o, [](const HttpRequest&) { return HttpResponse::Json(500, R"({"error":"no"})"); });
  ASSERT_TRUE(broken.ok()) << broken.status().message();
  // A port nobody listens on: bound, read, closed.
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len), 0);
  close(fd);
  const std::vector<std::string> hosts = {"127.0.0.1:" + std::to_string((*standby)->tcp_port()),
                                          "127.0.0.1:" + std::to_string(ntohs(a.sin_port)),
                                          "127.0.0.1:" + std::to_string((*broken)->tcp_port())};
  const std::vector<ControllerPing> pings = PingControllers(hosts, 2000);
  ASSERT_EQ(pings.size(), 3u);
  EXPECT_EQ(pings[0].host, "127.0.0.1");
  EXPECT_TRUE(pings[0].up);
  EXPECT_FALSE(pings[1].up);
  EXPECT_FALSE(pings[2].up);
  EXPECT_EQ(SlurmPingText(pings, false),
            "Slurmctld(primary) at 127.0.0.1 is UP\nSlurmctld(backup1) at 127.0.0.1 is DOWN\n"
            "Slurmctld(backup2) at 127.0.0.1 is DOWN\n");
}

}  // namespace
}  // namespace muster
