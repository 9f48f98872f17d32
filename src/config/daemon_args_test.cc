#include "config/daemon_args.h"

#include <gtest/gtest.h>

#include "config/muster_config.h"

namespace muster {
namespace {

TEST(DaemonArgsTest, ReadsEveryOptionInBothSpellings) {
  StatusOr<DaemonArgs> a = ParseDaemonArgs(Daemon::kAgent, {"--node", "n1", "--conf=/etc/m.yaml", "--end-jobs-on-stop",
                                                             "--log-file", "/var/log/d.log", "--log-level=debug"});
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->node, "n1");
  EXPECT_EQ(a->conf_path, "/etc/m.yaml");
  EXPECT_TRUE(a->end_jobs_on_stop);
  EXPECT_EQ(a->log.file, "/var/log/d.log");
  EXPECT_EQ(a->log.level, LogLevel::kDebug);
  EXPECT_EQ(a->log.process, "musterd");
  EXPECT_FALSE(a->log.syslog);

  StatusOr<DaemonArgs> c = ParseDaemonArgs(Daemon::kController, {"--syslog", "-h"});
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->log.syslog);
  EXPECT_TRUE(c->help);
  EXPECT_EQ(c->log.process, "musterctld");
  EXPECT_EQ(c->log.level, LogLevel::kInfo);
}

TEST(DaemonArgsTest, BadArgumentsAreNamed) {
  EXPECT_EQ(ParseDaemonArgs(Daemon::kController, {"--node", "n1"}).status().message(),
            "unknown argument '--node' (see --help)");  // the controller serves no node
  EXPECT_EQ(ParseDaemonArgs(Daemon::kAgent, {"--bogus"}).status().message(), "unknown argument '--bogus' (see --help)");
  EXPECT_EQ(ParseDaemonArgs(Daemon::kAgent, {"--log-level"}).status().message(), "--log-level needs a value");
  EXPECT_EQ(ParseDaemonArgs(Daemon::kAgent, {"--syslog=yes"}).status().message(), "--syslog takes no value");
  EXPECT_EQ(ParseDaemonArgs(Daemon::kAgent, {"--log-level", "loud"}).status().message(),
            "invalid log level 'loud' (debug, info, warning or error)");
}

TEST(DaemonArgsTest, ListenIsEachDaemonsOwnAddress) {
  // musterd --listen: this agent's TCP address instead of agent.listen (and the host it advertises).
  StatusOr<DaemonArgs> a = ParseDaemonArgs(Daemon::kAgent, {"--node", "n1", "--listen", "10.0.0.2:6818"});
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->listen, "10.0.0.2:6818");
  EXPECT_EQ(a->socket, "");
  StatusOr<DaemonArgs> c = ParseDaemonArgs(Daemon::kController, {"--listen=10.0.0.1:6817"});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->listen, "10.0.0.1:6817");
  EXPECT_EQ(ParseDaemonArgs(Daemon::kAgent, {}).value().listen, "");  // agent.listen holds
  EXPECT_EQ(ParseDaemonArgs(Daemon::kAgent, {"--listen", "10.0.0.2"}).status().message(),
            "--listen must be host:port, got '10.0.0.2' (no port)");
  EXPECT_EQ(ParseDaemonArgs(Daemon::kAgent, {"--listen"}).status().message(), "--listen needs a value");
  // --socket stays the controller's.
  EXPECT_EQ(ParseDaemonArgs(Daemon::kAgent, {"--socket", "/x.sock"}).status().message(),
            "unknown argument '--socket' (see --help)");
  EXPECT_NE(DaemonUsage(Daemon::kAgent).find("  --listen HOST:PORT    listen on TCP there instead of at agent.listen"),
            std::string::npos)
      << DaemonUsage(Daemon::kAgent);
  EXPECT_NE(DaemonUsage(Daemon::kController).find("instead of at controller.listen"), std::string::npos);
  EXPECT_EQ(DaemonUsage(Daemon::kController).find("agent.listen"), std::string::npos);
}

TEST(DaemonArgsTest, ConfServerTakesControllersInOrder) {
  StatusOr<DaemonArgs> a = ParseDaemonArgs(
      Daemon::kAgent, {"--conf-server", "ctl1:6817,[::1]:6817", "--key-file=/k", "--conf-cache", "/c", "--node", "n"});
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->conf_servers, (std::vector<std::string>{"ctl1:6817", "[::1]:6817"}));
  EXPECT_EQ(a->key_file, "/k");
  EXPECT_EQ(a->conf_cache, "/c");
  StatusOr<DaemonArgs> d = ParseDaemonArgs(Daemon::kAgent, {});
  EXPECT_TRUE(d->conf_servers.empty());
  EXPECT_EQ(d->key_file, "/etc/muster/cluster.key");
  EXPECT_EQ(d->conf_cache, "/var/spool/muster/conf-cache");
  EXPECT_EQ(ParseDaemonArgs(Daemon::kAgent, {"--conf-server", "ctl1:6817,"}).status().message(),
            ParseHostPort("", "--conf-server").status().message());
  EXPECT_EQ(ParseDaemonArgs(Daemon::kAgent, {"--conf", "/m.yaml", "--conf-server", "c:1"}).status().message(),
            "--conf and --conf-server exclude each other (a configless agent has no local muster.yaml)");
  EXPECT_EQ(ParseDaemonArgs(Daemon::kController, {"--conf-server", "c:1"}).status().message(),
            "unknown argument '--conf-server' (see --help)");
}

TEST(DaemonArgsTest, TheUsageListsEachDaemonsOptions) {
  const std::string ctld = DaemonUsage(Daemon::kController);
  EXPECT_EQ(ctld.rfind("usage: musterctld [options]\n", 0), 0u) << ctld;
  EXPECT_EQ(ctld.find("--node"), std::string::npos);
  EXPECT_NE(ctld.find("  --log-level LEVEL     debug, info (default), warning or error\n"), std::string::npos) << ctld;
  const std::string agent = DaemonUsage(Daemon::kAgent);
  EXPECT_EQ(agent.rfind("usage: musterd --node NAME [options]\n", 0), 0u) << agent;
  EXPECT_NE(agent.find("--end-jobs-on-stop"), std::string::npos);
}

TEST(DaemonArgsTest, StartDaemonStopsOnABadArgumentAndGoesOnWithGoodOnes) {
  DaemonArgs args;
  char prog[] = "musterd", bad[] = "--bogus", node[] = "--node", n1[] = "n1";
  char* bad_argv[] = {prog, bad, nullptr};
  EXPECT_EQ(StartDaemon(Daemon::kAgent, 2, bad_argv, &args), std::optional<int>(1));
  char* good_argv[] = {prog, node, n1, nullptr};
  EXPECT_EQ(StartDaemon(Daemon::kAgent, 3, good_argv, &args), std::nullopt);
  EXPECT_EQ(args.node, "n1");
  EXPECT_EQ(args.log.process, "musterd");
}

}  // namespace
}  // namespace muster
