// muster.yaml: listen addresses (controller.listen, agent.listen) and the address an agent
// listening on TCP registers with the controller.
#include "config/muster_config.h"

#include <gtest/gtest.h>

#include <set>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace muster {
namespace {

TEST(ParseHostPort, AcceptsHostsAddressesAndPortZero) {
  StatusOr<HostPort> a = ParseHostPort("127.0.0.1:6817", "controller.listen");
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 6817);
  StatusOr<HostPort> b = ParseHostPort("0.0.0.0:0", "agent.listen");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->host, "0.0.0.0");
  EXPECT_EQ(b->port, 0);
  StatusOr<HostPort> c = ParseHostPort("[::1]:65535", "agent.listen");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->host, "::1");
  EXPECT_EQ(c->port, 65535);
  StatusOr<HostPort> d = ParseHostPort("gpu01:6818", "agent.listen");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->host, "gpu01");
}

TEST(ParseHostPort, RefusesWhatIsNotHostColonPort) {
  for (const char* bad : {"6818", "host:", ":6818", "host:65536", "host:-1", "host:12a", "::1:6818", "[]:1",
                          "host:123456", "a b:1"}) {
    StatusOr<HostPort> r = ParseHostPort(bad, "agent.listen");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(r.status().message().find("agent.listen must be host:port, got '" + std::string(bad) + "'"),
              std::string::npos)
        << r.status().message();
  }
}

TEST(AgentAdvertisedHost, ListenHostOrTheNodeNameForAWildcard) {
  EXPECT_EQ(AgentAdvertisedHost({"127.0.0.1", 0}, "node1"), "127.0.0.1");
  EXPECT_EQ(AgentAdvertisedHost({"10.0.0.7", 6818}, "gpu07"), "10.0.0.7");
  EXPECT_EQ(AgentAdvertisedHost({"0.0.0.0", 6818}, "gpu07"), "gpu07");
  EXPECT_EQ(AgentAdvertisedHost({"::", 6818}, "gpu07"), "gpu07");
  EXPECT_EQ(AgentAdvertisedHost({"::1", 0}, "gpu07"), "::1");
  EXPECT_EQ(JoinHostPort("127.0.0.1", 41234), "127.0.0.1:41234");
  EXPECT_EQ(JoinHostPort("fe80::1", 7), "[fe80::1]:7");
  EXPECT_EQ(JoinHostPort("gpu07", 6818), "gpu07:6818");
}

class MusterConfigFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("muster_config_test_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "cluster.yaml") << "cluster: t\n"
                                            "node_types:\n"
                                            "  n: {cpus: 4, memory: 8G, gpus: 1, gpu_model: h100, gpu_memory: 80G}\n"
                                            "nodes:\n"
                                            "  - {names: \"node[1-2]\", type: n}\n"
                                            "partitions:\n"
                                            "  - {name: gpu, nodes: \"node[1-2]\", default: true}\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  StatusOr<MusterConfig> Load(const std::string& body) {
    const std::string p = (dir_ / "muster.yaml").string();
    std::ofstream(p, std::ios::trunc) << "cluster_file: cluster.yaml\n" << body;
    return LoadMusterConfig(p);
  }
  std::filesystem::path dir_;
};

// slurmrestd's REST API: its listener and the JWT key (relative to the file, as other paths).
TEST_F(MusterConfigFile, RestListenAndJwtKeyAreRead) {
  StatusOr<MusterConfig> none = Load("");
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_EQ(none->rest_listen, "");
  EXPECT_EQ(none->jwt_key, "");
  StatusOr<MusterConfig> c = Load("controller:\n  rest_listen: 127.0.0.1:6820\n  jwt_key: jwt.key\n");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->rest_listen, "127.0.0.1:6820");
  EXPECT_EQ(c->jwt_key, (dir_ / "jwt.key").string());
  StatusOr<MusterConfig> bad = Load("controller:\n  rest_listen: 6820\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("controller.rest_listen must be host:port, got '6820'"), std::string::npos)
      << bad.status().message();
}

// controller.jwt_max_lifespan: a day unless set; 0 is no limit; a negative one is refused.
TEST_F(MusterConfigFile, JwtMaxLifespanIsRead) {
  StatusOr<MusterConfig> none = Load("");
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_EQ(none->jwt_max_lifespan_s, 86400);
  StatusOr<MusterConfig> c = Load("controller:\n  jwt_max_lifespan: 600\n");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->jwt_max_lifespan_s, 600);
  c = Load("controller:\n  jwt_max_lifespan: 0\n");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->jwt_max_lifespan_s, 0);
  StatusOr<MusterConfig> bad = Load("controller:\n  jwt_max_lifespan: -5\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("jwt_max_lifespan"), std::string::npos) << bad.status().message();
}

// controller.state_password_file: relative to the file, with a PostgreSQL state only; the
// controller's check wants a file its owner alone reads (libpq ignores a looser one).
TEST_F(MusterConfigFile, StatePasswordFileIsReadAndChecked) {
  StatusOr<MusterConfig> c =
      Load("controller:\n  state: postgresql://muster@db1/muster\n  state_password_file: pgpass\n");
  ASSERT_TRUE(c.ok()) << c.status().message();
  const std::string file = (dir_ / "pgpass").string();
  EXPECT_EQ(c->state_password_file, file);
  EXPECT_NE(CheckStatePasswordFile(*c).message().find("controller.state_password_file: cannot read " + file),
            std::string::npos);
  std::ofstream(file) << "*:*:*:*:pw\n";
  ASSERT_EQ(chmod(file.c_str(), 0644), 0);
  EXPECT_NE(CheckStatePasswordFile(*c).message().find(file + " has mode 0644; a password file must be readable by its "
                                                      "owner only (chmod 600)"),
            std::string::npos)
      << CheckStatePasswordFile(*c).message();
  ASSERT_EQ(chmod(file.c_str(), 0600), 0);
  EXPECT_TRUE(CheckStatePasswordFile(*c).ok());
  StatusOr<MusterConfig> none = Load("");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(CheckStatePasswordFile(*none).ok());
  StatusOr<MusterConfig> sqlite = Load("controller:\n  state_password_file: pgpass\n");
  ASSERT_FALSE(sqlite.ok());
  EXPECT_NE(sqlite.status().message().find("controller.state_password_file goes with a PostgreSQL controller.state"),
            std::string::npos)
      << sqlite.status().message();
}

// tls: all three files or none, relative to the file; the key readable by its owner only; the
// commands need only the CA.
TEST_F(MusterConfigFile, TlsFilesAreReadAndChecked) {
  StatusOr<MusterConfig> none = Load("");
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_FALSE(none->tls());
  std::ofstream(dir_ / "ca.crt") << "ca";
  std::ofstream(dir_ / "server.crt") << "cert";
  std::ofstream(dir_ / "server.key") << "key";
  std::filesystem::permissions(dir_ / "server.key", std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  const std::string all = "tls:\n  ca_file: ca.crt\n  cert_file: server.crt\n  key_file: server.key\n";
  StatusOr<MusterConfig> c = Load(all);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_TRUE(c->tls());
  EXPECT_EQ(c->tls_ca_file, (dir_ / "ca.crt").string());
  EXPECT_EQ(c->tls_cert_file, (dir_ / "server.crt").string());
  EXPECT_EQ(c->tls_key_file, (dir_ / "server.key").string());

  StatusOr<MusterConfig> partial = Load("tls:\n  ca_file: ca.crt\n");
  ASSERT_FALSE(partial.ok());
  EXPECT_NE(partial.status().message().find("missing: tls.cert_file, tls.key_file"), std::string::npos)
      << partial.status().message();
  StatusOr<MusterConfig> unknown = Load(all + "  ciphers: x\n");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("ciphers"), std::string::npos) << unknown.status().message();

  std::filesystem::permissions(dir_ / "server.key", std::filesystem::perms::group_read, std::filesystem::perm_options::add);
  StatusOr<MusterConfig> open_key = Load(all);
  ASSERT_FALSE(open_key.ok());
  EXPECT_NE(open_key.status().message().find("tls.key_file: " + (dir_ / "server.key").string() + " has mode 0640"),
            std::string::npos) << open_key.status().message();

  std::filesystem::remove(dir_ / "server.key");
  StatusOr<MusterConfig> no_key = Load(all);
  ASSERT_FALSE(no_key.ok());
  EXPECT_NE(no_key.status().message().find("tls.key_file: cannot read " + (dir_ / "server.key").string()),
            std::string::npos) << no_key.status().message();
  std::filesystem::remove(dir_ / "ca.crt");
  StatusOr<MusterConfig> no_ca = Load("tls:\n  ca_file: ca.crt\n  cert_file: server.crt\n  key_file: server.crt\n");
  ASSERT_FALSE(no_ca.ok());
  EXPECT_NE(no_ca.status().message().find("tls.ca_file: cannot read " + (dir_ / "ca.crt").string()), std::string::npos)
      << no_ca.status().message();
  // A command reads the paths without the files (it loads the CA when it connects over TCP; the
  // host's key is the daemons').
  StatusOr<MusterConfig> command = LoadMusterConfig((dir_ / "muster.yaml").string(), ConfigReader::kCommand);
  ASSERT_TRUE(command.ok()) << command.status().message();
  EXPECT_EQ(command->tls_ca_file, (dir_ / "ca.crt").string());
}

TEST_F(MusterConfigFile, AgentListenIsReadAndChecked) {
  StatusOr<MusterConfig> none = Load("");
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_EQ(none->agent_listen, "");
  EXPECT_EQ(none->ctld_listen, "");
  StatusOr<MusterConfig> c = Load("controller:\n  listen: 127.0.0.1:6817\nagent:\n  listen: 127.0.0.1:0\n");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->ctld_listen, "127.0.0.1:6817");
  EXPECT_EQ(c->agent_listen, "127.0.0.1:0");
  StatusOr<MusterConfig> bad = Load("agent:\n  listen: 6818\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("agent.listen must be host:port, got '6818'"), std::string::npos)
      << bad.status().message();
  StatusOr<MusterConfig> bad_ctld = Load("controller:\n  listen: host:99999\n");
  ASSERT_FALSE(bad_ctld.ok());
  EXPECT_NE(bad_ctld.status().message().find("controller.listen must be host:port"), std::string::npos)
      << bad_ctld.status().message();
}

// controller.state: a SQLite file beside muster.yaml by default, a path (or sqlite:PATH) relative
// to it, or a PostgreSQL URL kept as written.
TEST_F(MusterConfigFile, StateIsASqliteFileOrAPostgresUrl) {
  StatusOr<MusterConfig> none = Load("");
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_EQ(none->state_path, (dir_ / "state.db").string());
  StatusOr<MusterConfig> rel = Load("controller:\n  state: sqlite:db/s.db\n");
  ASSERT_TRUE(rel.ok()) << rel.status().message();
  EXPECT_EQ(rel->state_path, (dir_ / "db/s.db").string());
  StatusOr<MusterConfig> pg = Load("controller:\n  state: postgresql://muster@127.0.0.1:5432/muster\n");
  ASSERT_TRUE(pg.ok()) << pg.status().message();
  EXPECT_EQ(pg->state_path, "postgresql://muster@127.0.0.1:5432/muster");
  StatusOr<MusterConfig> empty = Load("controller:\n  state: \"sqlite:\"\n");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("controller.state: empty SQLite path"), std::string::npos)
      << empty.status().message();
}

// controller.hosts: the controllers in order, each by its listen address; several share a
// PostgreSQL state (a SQLite file cannot be shared between hosts).
TEST_F(MusterConfigFile, ControllerHostsAreOrderedListenAddressesSharingPostgres) {
  StatusOr<MusterConfig> one = Load("controller:\n  listen: 127.0.0.1:6817\n");
  ASSERT_TRUE(one.ok()) << one.status().message();
  EXPECT_TRUE(one->ctld_hosts.empty());
  EXPECT_EQ(ControllerAddresses(*one), std::vector<std::string>{"127.0.0.1:6817"});
  EXPECT_EQ(one->ctld_lease_s, 6);
  StatusOr<MusterConfig> two = Load(
      "controller:\n  state: postgresql://muster@127.0.0.1/m\n  hosts: [ctl1:6817, \"[::1]:6818\"]\n  lease: 4\n");
  ASSERT_TRUE(two.ok()) << two.status().message();
  EXPECT_EQ(ControllerAddresses(*two), (std::vector<std::string>{"ctl1:6817", "[::1]:6818"}));
  EXPECT_EQ(two->ctld_lease_s, 4);
  StatusOr<MusterConfig> sqlite = Load("controller:\n  hosts: [ctl1:6817, ctl2:6817]\n");
  ASSERT_FALSE(sqlite.ok());
  EXPECT_NE(sqlite.status().message().find("controller.hosts lists 2 controllers, which share one state: "
                                           "controller.state must be a PostgreSQL URL"),
            std::string::npos)
      << sqlite.status().message();
  StatusOr<MusterConfig> twice =
      Load("controller:\n  state: postgresql://h/m\n  hosts: [ctl1:6817, ctl1:6817]\n");
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("controller.hosts[1]: 'ctl1:6817' is listed twice"), std::string::npos)
      << twice.status().message();
  StatusOr<MusterConfig> no_port = Load("controller:\n  hosts: [ctl1:0]\n");
  ASSERT_FALSE(no_port.ok());
  EXPECT_NE(no_port.status().message().find("controller.hosts[0]: 'ctl1:0' needs a port other than 0"),
            std::string::npos)
      << no_port.status().message();
  StatusOr<MusterConfig> short_lease = Load("controller:\n  lease: 1\n");
  ASSERT_FALSE(short_lease.ok());
  EXPECT_NE(short_lease.status().message().find("lease"), std::string::npos) << short_lease.status().message();
}

TEST_F(MusterConfigFile, LaunchFailureHoldsByDefaultOrRequeues) {
  StatusOr<MusterConfig> none = Load("");
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_EQ(none->launch_failure, "hold") << "Slurm's: launch failed requeued held";
  StatusOr<MusterConfig> requeue = Load("controller:\n  launch_failure: requeue\n");
  ASSERT_TRUE(requeue.ok()) << requeue.status().message();
  EXPECT_EQ(requeue->launch_failure, "requeue");
  StatusOr<MusterConfig> bad = Load("controller:\n  launch_failure: retry\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("launch_failure"), std::string::npos) << bad.status().message();
}

TEST_F(MusterConfigFile, GpuHealthAndHealthCheckAreReadAndChecked) {
  StatusOr<MusterConfig> none = Load("");
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_EQ(none->gpu_health.interval_ms, 10000);
  EXPECT_EQ(none->gpu_health.recover_checks, 3);
  EXPECT_EQ(none->gpu_health.critical_xids, (std::set<int>{48, 63, 64, 74, 79, 92, 94, 95, 119, 120}));
  EXPECT_EQ(none->health_check_program, "");
  EXPECT_EQ(none->nvml_library, "libnvidia-ml.so.1");
  StatusOr<MusterConfig> c = Load(
      "agent:\n  nvml_library: lib/fake.so\n  gpu_health: {interval: 2, recover_checks: 5, critical_xids: [79, 48]}\n"
      "  health_check: {program: /usr/sbin/nhc, interval: 30}\n");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->gpu_health.interval_ms, 2000);
  EXPECT_EQ(c->gpu_health.recover_checks, 5);
  EXPECT_EQ(c->gpu_health.critical_xids, (std::set<int>{48, 79}));
  EXPECT_EQ(c->health_check_program, "/usr/sbin/nhc");
  EXPECT_EQ(c->health_check_interval_s, 30);
  EXPECT_EQ(c->nvml_library, (dir_ / "lib/fake.so").string());
  for (const auto& [body, what] : std::vector<std::pair<std::string, std::string>>{
           {"agent:\n  gpu_health: {critical_xids: [79, x]}\n", "'x' is not an Xid number"},
           {"agent:\n  gpu_health: {interval: 0}\n", "interval"},
           {"agent:\n  gpu_health: {every: 3}\n", "every"},
           {"agent:\n  health_check: {program: nhc}\n", "must be an absolute path"}}) {
    StatusOr<MusterConfig> bad = Load(body);
    ASSERT_FALSE(bad.ok()) << body;
    EXPECT_NE(bad.status().message().find(what), std::string::npos) << bad.status().message();
  }
}

TEST_F(MusterConfigFile, GpuDevicesIsADirectoryBesideTheFile) {
  StatusOr<MusterConfig> none = Load("");
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_EQ(none->gpu_devices, "") << "NVML's /dev";
  StatusOr<MusterConfig> rel = Load("agent:\n  gpus: fake\n  gpu_devices: devs\n");
  ASSERT_TRUE(rel.ok()) << rel.status().message();
  EXPECT_EQ(rel->gpu_devices, (dir_ / "devs").string());
  StatusOr<MusterConfig> abs = Load("agent:\n  gpu_devices: /tmp/d\n");
  ASSERT_TRUE(abs.ok()) << abs.status().message();
  EXPECT_EQ(abs->gpu_devices, "/tmp/d");
}

TEST_F(MusterConfigFile, TheSchedulingSectionsAreAcceptedAndLeftToTheController) {
  // musterd and the commands read the file too: a scheduling section is no error for them, and
  // not read (a wrong value in it is the controller's to report: scheduling_config_test.cc).
  StatusOr<MusterConfig> c = Load("scheduler:\n  backfill_depth: 0\npriority:\n  weigths: {}\n");
  ASSERT_TRUE(c.ok()) << c.status().message();
  StatusOr<MusterConfig> typo = Load("schedular:\n  backfill: true\n");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("unknown field 'schedular'"), std::string::npos) << typo.status().message();
}

}  // namespace
}  // namespace muster
