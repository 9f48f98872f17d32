// A cluster of separate "machines" built out of network namespaces that the test creates
// (tests/netns_test.cc): a switch namespace holds a bridge; each host (the controllers c1[,c2],
// a login host for the commands, one per agent n1..nN) is a namespace of its own with a veth to
// the bridge and an address of its own on 10.77.0.0/24. The daemons and the commands speak TCP
// with tokens between them, as between machines; the file system stays shared (the commands get
// their token from an agent's Unix socket, the agents' jobs write into one work dir). CutLink /
// RestoreLink set the switch side of a host's veth down / up: a network cut.
// Needs root and `ip netns` (iproute2); skipped otherwise, a failure with MUSTER_REQUIRE_NETNS=1
// (tools/test.sh). Two controllers share a database of their own on the PostgreSQL test server
// (MUSTER_TEST_PG_URL), reached over its Unix socket (its 127.0.0.1 is the root namespace's).
// Touches nothing but its own namespaces, daemons and temp dir. Header-only; test code.
#pragma once

#include <libpq-fe.h>
#include <signal.h>
#include <unistd.h>

#include <map>
#include <string>
#include <vector>

#include "local_cluster_test_util.h"
#include "net/tls_certs.h"
#include "store/pg_test_util.h"

namespace muster_test {

inline bool NetnsRequired() {
  const char* v = std::getenv("MUSTER_REQUIRE_NETNS");
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

// `s` quoted for sh.
inline std::string ShQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// One statement's first value on a PostgreSQL server ("" and a test failure when refused).
inline std::string PgValue(const std::string& url, const std::string& sql) {
  PGconn* c = PQconnectdb(url.c_str());
  PQsetNoticeProcessor(c, [](void*, const char*) {}, nullptr);  // ("does not exist, skipping")
  PGresult* r = PQexec(c, sql.c_str());
  std::string out;
  const ExecStatusType st = PQresultStatus(r);
  if (st == PGRES_TUPLES_OK && PQntuples(r) > 0) {
    out = PQgetvalue(r, 0, 0);
  } else if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
    ADD_FAILURE() << sql << ": " << PQerrorMessage(c);
  }
  PQclear(r);
  PQfinish(c);
  return out;
}

class NetnsClusterTest : public ::testing::Test {
 protected:
  // Set before SetUp(): how many agents and controllers.
  int nodes_ = 2;
  int controllers_ = 1;
  int heartbeat_timeout_s_ = 4;

  void SetUp() override {
    if (geteuid() != 0) return Unavailable("the network-namespace tests need root (ip netns, veth)");
    prefix_ = "mu" + std::to_string(getpid()) + "t" + std::to_string(counter_++) + "_";
    const std::string probe = prefix_ + "probe";
    Result r = Sh("ip netns add " + probe + " && ip netns exec " + probe + " ip link set lo up && ip netns del " + probe);
    if (r.rc != 0) return Unavailable("`ip netns` does not work here: " + Trim(r.out));
    if (controllers_ > 1) {
      if (muster::PgTestUrl().empty()) {
        if (muster::PgTestServerRequired()) FAIL() << "MUSTER_TEST_PG_URL is not set (tools/test.sh starts a server)";
        GTEST_SKIP() << "two controllers need the PostgreSQL test server: set MUSTER_TEST_PG_URL "
                        "(tools/pg-test-server.sh start DIR prints it; tools/test.sh does both)";
      }
    }
    dir_ = fs::temp_directory_path() / (prefix_ + "cluster");
    fs::remove_all(dir_);
    work_ = dir_ / "work";
    for (const char* d : {"run", "log", "spool", "state", "scripts", "work", "pid"}) fs::create_directories(dir_ / d);
    // Others reach it but write only in work/: the agents refuse a runs' directory (under
    // scripts/) below a directory others may write to.
    fs::permissions(dir_, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
    fs::permissions(work_, fs::perms::all);
    // The hosts: c1[,c2], the login host, n1..nN.
    for (int i = 1; i <= controllers_; ++i) hosts_.push_back({"c" + std::to_string(i), "10.77.0." + std::to_string(i)});
    hosts_.push_back({"lg", "10.77.0.9"});
    for (int i = 1; i <= nodes_; ++i) hosts_.push_back({"n" + std::to_string(i), "10.77.0." + std::to_string(10 + i)});
    ASSERT_NO_FATAL_FAILURE(BuildNetwork());
    ASSERT_NO_FATAL_FAILURE(WriteConfig());
    for (int i = 1; i <= controllers_; ++i) ASSERT_NO_FATAL_FAILURE(StartController(i));
    for (int i = 1; i <= nodes_; ++i) ASSERT_NO_FATAL_FAILURE(StartAgent(i));
    if (controllers_ > 1) {
      ASSERT_NE(Leader(), 0) << "no controller leads";
    }
    // Every node registered over TCP and idle.
    const bool up = WaitFor([&] {
      Result s = Run("sinfo -h -N -o '%N %t'");
      size_t idle = 0;
      for (size_t at = s.out.find(" idle"); at != std::string::npos; at = s.out.find(" idle", at + 1)) ++idle;
      return s.rc == 0 && idle == static_cast<size_t>(nodes_);
    }, 30s);
    ASSERT_TRUE(up) << Run("sinfo -N").out << "\n" << LogOf("musterctld1");
  }

  void TearDown() override {
    if (prefix_.empty() || dir_.empty()) return;
    // The daemons, by pid: SIGTERM, a wait, then SIGKILL.
    for (const auto& [name, pid] : pids_) {
      if (!Dead(pid)) kill(pid, SIGTERM);
    }
    for (const auto& [name, pid] : pids_) {
      if (!WaitFor([&] { return Dead(pid); }, 10s)) {
        ADD_FAILURE() << name << " (pid " << pid << ") ignored SIGTERM";
        kill(pid, SIGKILL);
        WaitFor([&] { return Dead(pid); }, 5s);
      }
    }
    // Whatever still runs in our namespaces (a job's process the test left) is ours too.
    for (const std::string& ns : namespaces_) {
      for (std::istringstream pids(Sh("ip netns pids " + ns).out); ;) {
        pid_t p = 0;
        if (!(pids >> p)) break;
        ADD_FAILURE() << "pid " << p << " still runs in " << ns << ": "
                      << ReadFile("/proc/" + std::to_string(p) + "/cmdline");
        kill(p, SIGKILL);
      }
    }
    for (const std::string& ns : namespaces_) {
      Result r = Sh("ip netns del " + ns);
      EXPECT_EQ(r.rc, 0) << ns << ": " << r.out;
    }
    if (HasFailure() || std::getenv("MUSTER_KEEP_NETNS_LOGS") != nullptr) {
      const fs::path kept = fs::temp_directory_path() / (prefix_ + (HasFailure() ? "failed_logs" : "logs"));
      std::error_code ec;
      fs::remove_all(kept, ec);
      fs::copy(dir_ / "log", kept, fs::copy_options::recursive, ec);
      for (const auto& e : fs::directory_iterator(work_, ec)) fs::copy_file(e.path(), kept / e.path().filename(), ec);
      std::cerr << "the cluster's logs: " << kept.string() << "\n";
    }
    std::error_code ec;
    fs::remove_all(dir_, ec);
    if (!db_.empty()) PgValue(admin_url_, "DROP DATABASE IF EXISTS " + db_ + " WITH (FORCE)");
  }

  // A command run on the login host (as root, from the shared work dir), over TCP with a token.
  Result Run(const std::string& cmd) {
    return Sh("cd " + work_.string() + " && ip netns exec " + Ns("lg") + " env PATH=" + BinDir() +
              ":$PATH MUSTER_CONF=" + Conf() + " sh -c " + ShQuote(cmd));
  }
  int64_t Submit(const std::string& args) {
    Result r = Run("sbatch --parsable " + args);
    EXPECT_EQ(r.rc, 0) << r.out;
    return std::atoll(r.out.c_str());
  }
  std::string Squeue(int64_t id, const std::string& format) {
    return Trim(Run("squeue -h -t all -j " + std::to_string(id) + " -o '" + format + "'").out);
  }
  std::string State(int64_t id) { return Squeue(id, "%T"); }
  // scontrol show job's FIELD=value.
  std::string JobField(int64_t id, const std::string& field) {
    const std::string out = Run("scontrol show job " + std::to_string(id)).out;
    const size_t at = out.find(" " + field + "=");
    if (at == std::string::npos) return "";
    const size_t b = at + field.size() + 2;
    return out.substr(b, out.find_first_of(" \n", b) - b);
  }
  std::string NodeState(const std::string& node) { return Trim(Run("sinfo -h -n " + node + " -o %t").out); }

  // The switch side of a host's link down (a cut cable) / up again.
  void CutLink(const std::string& host) { SetLink(host, "down"); }
  void RestoreLink(const std::string& host) { SetLink(host, "up"); }

  // Controller i's (1-based) GET /v1/ping from the login host: its role, "" when it does not answer.
  std::string Role(int i) {
    const std::string body =
        Run("curl -s -m 2 --cacert " + CaFile() + " https://" + Ip("c" + std::to_string(i)) + ":6817/v1/ping").out;
    for (const char* role : {"leader", "standby"}) {
      if (body.find(std::string("\"role\":\"") + role + "\"") != std::string::npos) return role;
    }
    return "";
  }
  // Which controller leads (1-based; waits for one), 0 if none does within 20 s.
  int Leader() {
    int found = 0;
    WaitFor([&] {
      for (int i = 1; i <= controllers_; ++i) {
        if (Role(i) == "leader") found = i;
      }
      return found != 0;
    }, 20s);
    return found;
  }
  // The log and pid of a daemon: "musterctld1", "musterctld2", "musterd1", ...
  std::string LogOf(const std::string& daemon) { return ReadFile((dir_ / "log" / (daemon + ".log")).string()); }
  pid_t PidOf(const std::string& daemon) { return pids_.count(daemon) ? pids_.at(daemon) : 0; }
  std::string Ns(const std::string& host) { return prefix_ + host; }
  std::string Ip(const std::string& host) {
    for (const auto& h : hosts_) {
      if (h.name == host) return h.ip;
    }
    ADD_FAILURE() << "no host " << host;
    return "";
  }
  std::string Conf() { return (dir_ / "muster.yaml").string(); }
  std::string CaFile() { return (dir_ / "tls" / "ca.crt").string(); }

  // Starts (or restarts) controller i in its namespace.
  void StartController(int i) {
    const std::string c = "c" + std::to_string(i);
    std::string args = " --socket " + (dir_ / "run" / ("ctld" + std::to_string(i) + ".sock")).string();
    if (controllers_ > 1) args += " --listen " + Ip(c) + ":6817";
    Spawn("musterctld" + std::to_string(i), c, BinDir() + "/musterctld --conf " + Conf() + args);
  }
  // Starts (or restarts) agent i (node<i>) in its namespace, on its own address.
  void StartAgent(int i) {
    const std::string n = "n" + std::to_string(i);
    Spawn("musterd" + std::to_string(i), n,
          BinDir() + "/musterd --conf " + Conf() + " --node node" + std::to_string(i) + " --listen " + Ip(n) +
              ":6818 --end-jobs-on-stop");
  }

  struct Host {
    std::string name, ip;
  };
  static inline int counter_ = 0;
  std::string prefix_;
  fs::path dir_, work_;
  std::vector<Host> hosts_;
  std::vector<std::string> namespaces_;  // the ones we created, to delete
  std::map<std::string, pid_t> pids_;
  std::string db_, admin_url_;

 private:
  void Unavailable(const std::string& why) {
    if (NetnsRequired()) {
      FAIL() << why << " (MUSTER_REQUIRE_NETNS=1 requires these tests)";
    }
    GTEST_SKIP() << why;
  }

  void NsAdd(const std::string& ns) {
    Result r = Sh("ip netns add " + ns);
    ASSERT_EQ(r.rc, 0) << ns << ": " << r.out;
    namespaces_.push_back(ns);
    r = Sh("ip netns exec " + ns + " ip link set lo up");
    ASSERT_EQ(r.rc, 0) << r.out;
  }

  void BuildNetwork() {
    const std::string sw = Ns("sw");
    ASSERT_NO_FATAL_FAILURE(NsAdd(sw));
    Result r = Sh("ip -n " + sw + " link add br0 type bridge && ip -n " + sw + " link set br0 up");
    ASSERT_EQ(r.rc, 0) << r.out;
    for (const Host& h : hosts_) {
      const std::string ns = Ns(h.name);
      ASSERT_NO_FATAL_FAILURE(NsAdd(ns));
      // Both ends made inside the namespaces: nothing of ours appears in the root namespace.
      r = Sh("ip link add eth0 netns " + ns + " type veth peer name p_" + h.name + " netns " + sw + " && ip -n " + sw +
             " link set p_" + h.name + " master br0 && ip -n " + sw + " link set p_" + h.name + " up && ip -n " + ns +
             " addr add " + h.ip + "/24 dev eth0 && ip -n " + ns + " link set eth0 up");
      ASSERT_EQ(r.rc, 0) << h.name << ": " << r.out;
    }
    // (No ping here: that the hosts reach each other shows when every agent registers over TCP.)
  }

  void SetLink(const std::string& host, const std::string& updown) {
    Result r = Sh("ip -n " + Ns("sw") + " link set p_" + host + " " + updown);
    ASSERT_EQ(r.rc, 0) << r.out;
  }

  // A database of its own on the test server, reached over the server's Unix socket.
  std::string PgStateUrl() {
    const std::string url = muster::PgTestUrl();  // postgresql://USER:PW@127.0.0.1:PORT/DB
    const size_t at = url.rfind('@'), colon = url.find(':', at), slash = url.find('/', at);
    if (at == std::string::npos || colon == std::string::npos || slash == std::string::npos) {
      ADD_FAILURE() << "cannot read MUSTER_TEST_PG_URL " << url;
      return "";
    }
    const std::string port = url.substr(colon + 1, slash - colon - 1);
    admin_url_ = url.substr(0, slash + 1) + "postgres";
    std::string sock = PgValue(url, "SHOW unix_socket_directories");
    sock = sock.substr(0, sock.find(','));
    if (sock.empty()) {
      ADD_FAILURE() << "the PostgreSQL test server has no Unix socket";
      return "";
    }
    db_ = "t_" + prefix_ + "state";
    PgValue(admin_url_, "DROP DATABASE IF EXISTS " + db_);
    PgValue(admin_url_, "CREATE DATABASE " + db_);
    return url.substr(0, at + 1) + "/" + db_ + "?host=" + sock + "&port=" + port;
  }

  void WriteConfig() {
    std::string ctld_hosts;
    for (int i = 1; i <= controllers_; ++i) {
      ctld_hosts += (i > 1 ? ", " : "") + Ip("c" + std::to_string(i)) + ":6817";
    }
    std::string state = (dir_ / "state" / "state.db").string();
    if (controllers_ > 1) {
      state = PgStateUrl();
      ASSERT_FALSE(state.empty());
    }
    // The cluster key, as `muster up` makes it (mode 0600), before any daemon starts.
    {
      std::ifstream rnd("/dev/urandom", std::ios::binary);
      std::string key(32, '\0');
      rnd.read(key.data(), static_cast<std::streamsize>(key.size()));
      std::ofstream out((dir_ / "state" / "cluster.key").string(), std::ios::binary);
      out << key;
    }
    fs::permissions(dir_ / "state" / "cluster.key", fs::perms::owner_read | fs::perms::owner_write);
    // TLS between the hosts, as `muster up --tcp` sets it up: a cluster CA, and one certificate for
    // every host's address (each host would hold its own at the same path; here they share a file
    // system, so one certificate names them all).
    const std::string tls = (dir_ / "tls").string();
    fs::create_directories(tls);
    fs::permissions(tls, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                             fs::perms::others_read | fs::perms::others_exec);
    muster::Status ca = muster::WriteTlsCa(tls + "/ca.crt", tls + "/ca.key", "netns test CA");
    ASSERT_TRUE(ca.ok()) << ca.message();
    std::vector<std::string> sans;
    for (const Host& h : hosts_) sans.push_back(h.ip);
    muster::Status cert = muster::WriteTlsServerCert(tls + "/ca.crt", tls + "/ca.key", tls + "/server.crt",
                                                     tls + "/server.key", sans);
    ASSERT_TRUE(cert.ok()) << cert.message();
    std::ofstream conf(Conf());
    conf << "# Written by tests/netns_test_util.h: one muster.yaml for every host of the namespaces.\n"
         << "cluster: netns\ncluster_file: cluster.yaml\ncontroller:\n"
         // No controller socket at this path: the commands and agents go over TCP.
         << "  socket: " << (dir_ / "run" / "no-controller-on-this-host.sock").string() << "\n"
         << (controllers_ > 1 ? "  hosts: [" + ctld_hosts + "]\n  lease: 3\n" : "  listen: " + ctld_hosts + "\n")
         << "  state: \"" << state << "\"\n"
         << "  key_file: " << (dir_ / "state" / "cluster.key").string() << "\n"
         << "  heartbeat_timeout: " << heartbeat_timeout_s_ << "\n  kill_wait: 2\n  admins: [0]\n"
         << "  allow_root_jobs: true\n"
         << "agent:\n  socket_dir: " << (dir_ / "run").string() << "\n  listen: 0.0.0.0:6818\n"
         << "  spool_dir: " << (dir_ / "spool").string() << "\n  script_dir: " << (dir_ / "scripts").string() << "\n"
         << "  heartbeat_interval: 1\n  gpus: fake\n  cgroups: auto\n"
         << "tls:\n  ca_file: " << tls << "/ca.crt\n  cert_file: " << tls << "/server.crt\n  key_file: " << tls
         << "/server.key\n";
    std::ofstream cluster((dir_ / "cluster.yaml").string());
    cluster << "cluster: netns\nnode_types:\n"
            << "  ns: {cpus: 8, memory: 16G, gpus: 4, gpu_model: h100, gpu_memory: 80G, links: nvswitch}\n"
            << "nodes:\n  - {names: \"node[1-" << nodes_ << "]\", type: ns}\n"
            << "partitions:\n  - {name: gpu, nodes: \"node[1-" << nodes_ << "]\", default: true}\n";
  }

  // `cmd` in host's namespace, in a session of its own, its stdout and stderr in log/<name>.log;
  // `ip netns exec` execs, so the pid is the daemon's. It ends with the test process
  // (MUSTER_STOP_WITH_PID, local_cluster_test_util.h).
  void Spawn(const std::string& name, const std::string& host, const std::string& cmd) {
    ASSERT_TRUE(kDaemonsStopWithTheTest);
    Result r = Sh("setsid ip netns exec " + Ns(host) + " " + cmd + " >> " + (dir_ / "log" / (name + ".log")).string() +
                  " 2>&1 < /dev/null & echo $!");
    ASSERT_EQ(r.rc, 0) << r.out;
    const pid_t pid = std::atoi(r.out.c_str());
    ASSERT_GT(pid, 0) << r.out;
    pids_[name] = pid;
  }
};

}  // namespace muster_test
