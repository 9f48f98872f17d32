// A real Prometheus (Debian's `prometheus`, installed by tools/deps.sh) scrapes a local cluster
// (`muster up --tcp`: the controller and the agents on loopback TCP) every second; the test runs
// jobs, asks Prometheus' HTTP API (`/api/v1/query`) what it scraped, and compares the answers with
// what squeue says: the GPUs allocated, the running jobs' GPU series (dcgm-exporter's names with
// the job's id in `hpc_job`) and the idle GPUs' (no job), the pending jobs by reason, and `up` for
// every target. Label "integration" in CTest.
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cctype>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "net/url.h"
#include "local_cluster_test_util.h"
#include "test_net_util.h"
#include "net/http.h"

extern char** environ;

namespace {

using namespace muster_test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;
namespace bj = boost::json;

// Where Debian installs it; PROMETHEUS overrides (a build of one's own).
std::string PrometheusBinary() {
  const char* p = std::getenv("PROMETHEUS");
  return p != nullptr && *p != '\0' ? std::string(p) : std::string("/usr/bin/prometheus");
}

// A TCP port on 127.0.0.1 that is free now (the kernel's pick), or 0.
int FreeLoopbackPort() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  close(fd);
  return port;
}


// GET `target` from `address` ("host:port" or "unix:/path"), no token; status -1 when nothing answered.
muster::HttpResponse Get(const std::string& address, const std::string& target) {
  muster::StatusOr<std::unique_ptr<muster::HttpClient>> c = muster::HttpClient::Connect(address, "", 10000);
  if (!c.ok()) return muster::HttpResponse{-1, "", c.status().message()};
  muster::StatusOr<muster::HttpResponse> r = (*c)->Request("GET", target, "");
  if (!r.ok()) return muster::HttpResponse{-1, "", r.status().message()};
  return *r;
}

// The Prometheus server the test started: its own child, stopped (by its pid, SIGTERM, then
// SIGKILL if it lingers) and reaped when this goes, the test failed or not.
class PrometheusServer {
 public:
  // Starts `prometheus` with `config`, its data and log under `dir`, on 127.0.0.1:`port`.
  PrometheusServer(const fs::path& config, const fs::path& dir, int port)
      : address_("127.0.0.1:" + std::to_string(port)), log_(dir / "prometheus.log") {
    fs::create_directories(dir / "data");
    const std::vector<std::string> args = {PrometheusBinary(),
                                           "--config.file=" + config.string(),
                                           "--storage.tsdb.path=" + (dir / "data").string(),
                                           "--web.listen-address=" + address_,
                                           "--log.level=warn"};
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    posix_spawn_file_actions_t files;
    posix_spawn_file_actions_init(&files);
    posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&files, 1, log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&files, 1, 2);
    const int rc = posix_spawn(&pid_, argv[0], &files, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&files);
    if (rc != 0) {
      pid_ = -1;
      error_ = std::string("cannot start ") + argv[0] + ": " + std::strerror(rc);
    }
  }
  ~PrometheusServer() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    if (!WaitFor([&] { return waitpid(pid_, nullptr, WNOHANG) == pid_; }, 10s)) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  PrometheusServer(const PrometheusServer&) = delete;
  PrometheusServer& operator=(const PrometheusServer&) = delete;

  const std::string& error() const { return error_; }
  const std::string& address() const { return address_; }
  std::string Log() const { return ReadFile(log_.string()); }
  // Whether it still runs (it exits at once on a bad configuration).
  bool Running() { return pid_ > 0 && waitpid(pid_, nullptr, WNOHANG) == 0; }
  bool Ready() { return Get(address_, "/-/ready").status == 200; }

  // The instant vector `promql` evaluates to now: each series' labels and value. Empty (and
  // `*error` set) when Prometheus does not answer with success.
  struct Sample {
    std::map<std::string, std::string> labels;
    double value = 0;
  };
  std::vector<Sample> Query(const std::string& promql, std::string* error) {
    std::vector<Sample> out;
    muster::HttpResponse r = Get(address_, "/api/v1/query?query=" + muster::PercentEncode(promql));
    boost::system::error_code ec;
    const bj::value j = bj::parse(r.body, ec);
    const bj::object* o = !ec && j.is_object() ? &j.get_object() : nullptr;
    const bj::value* status = o != nullptr ? o->if_contains("status") : nullptr;
    const bj::value* data = o != nullptr ? o->if_contains("data") : nullptr;
    const bj::value* result = data != nullptr && data->is_object() ? data->get_object().if_contains("result") : nullptr;
    if (r.status != 200 || status == nullptr || *status != "success" || result == nullptr || !result->is_array()) {
      *error = promql + ": HTTP " + std::to_string(r.status) + ": " + r.body;
      return out;
    }
    for (const bj::value& series : result->get_array()) {
      Sample s;
      const bj::object& so = series.get_object();
      for (const auto& [k, v] : so.at("metric").get_object()) s.labels[std::string(k)] = std::string(v.get_string());
      // "value": [<unix time>, "<value>"]
      s.value = std::stod(std::string(so.at("value").get_array().at(1).get_string()));
      out.push_back(std::move(s));
    }
    error->clear();
    return out;
  }

 private:
  std::string address_;
  fs::path log_;
  pid_t pid_ = -1;
  std::string error_;
};

std::string Describe(const std::vector<PrometheusServer::Sample>& samples) {
  std::string out;
  for (const auto& s : samples) {
    out += "{";
    for (const auto& [k, v] : s.labels) out += k + "=\"" + v + "\",";
    out += "} " + std::to_string(s.value) + "\n";
  }
  return out;
}

class PrometheusScrape : public LocalClusterTest {
 protected:
  void SetUp() override {
    nodes_ = 2;  // 4 fake GPUs each
    up_args_ = " --tcp";
    LocalClusterTest::SetUp();
  }

  // Node name -> the TCP address its agent registered (GET /v1/nodes on the controller's socket,
  // as root).
  std::map<std::string, std::string> AgentAddresses() {
    muster::HttpResponse r = Get("unix:" + (dir_ / "c/run/ctld.sock").string(), "/v1/nodes");
    EXPECT_EQ(r.status, 200) << r.body;
    return AgentAddressesOf(r.body);
  }
  // prometheus.yml: every second, the controller as scrape job "musterctld", the agents as "musterd",
  // over TLS (muster up --tcp's ports speak only TLS), trusting the cluster CA.
  fs::path WriteConfig(const std::string& controller, const std::map<std::string, std::string>& agents) {
    std::string targets;
    for (const auto& [node, address] : agents) targets += (targets.empty() ? "'" : ", '") + address + "'";
    const fs::path config = dir_ / "prometheus.yml";
    const std::string tls = "    scheme: https\n    tls_config: {ca_file: '" + (dir_ / "c/tls/ca.crt").string() + "'}\n";
    std::ofstream(config) << "global:\n"
                             "  scrape_interval: 1s\n"
                             "  scrape_timeout: 1s\n"
                             "scrape_configs:\n"
                             "  - job_name: musterctld\n"
                          << tls
                          << "    static_configs:\n"
                             "      - targets: ['"
                          << controller
                          << "']\n"
                             "  - job_name: musterd\n"
                          << tls
                          << "    static_configs:\n"
                             "      - targets: ["
                          << targets << "]\n";
    return config;
  }
};

TEST_F(PrometheusScrape, WhatPrometheusScrapedAgreesWithSqueue) {
  ASSERT_TRUE(fs::exists(PrometheusBinary()))
      << PrometheusBinary() << " is not installed: this test needs Debian's prometheus package "
      << "(tools/deps.sh installs it; or set PROMETHEUS to a prometheus binary)";
  const std::string controller = ControllerListen();
  ASSERT_EQ(controller.rfind("127.0.0.1:", 0), 0u) << ReadFile((dir_ / "c/muster.yaml").string());
  std::map<std::string, std::string> agents;
  ASSERT_TRUE(WaitFor(
      [&] {
        agents = AgentAddresses();
        return agents.size() == 2 && agents.begin()->second.starts_with("127.0.0.1:") &&
               agents.rbegin()->second.starts_with("127.0.0.1:");
      },
      10s))
      << agents.size();
  const int port = FreeLoopbackPort();
  ASSERT_GT(port, 0);
  PrometheusServer prometheus(WriteConfig(controller, agents), dir_ / "prometheus", port);
  ASSERT_EQ(prometheus.error(), "");
  ASSERT_TRUE(WaitFor([&] { return prometheus.Ready() || !prometheus.Running(); }, 30s) && prometheus.Running())
      << "prometheus did not become ready:\n"
      << prometheus.Log();

  // Two jobs running with GPUs (2 and 3 of the 8), one waiting for GPUs, one held, one waiting on
  // a dependency, one on its begin time. Each running job records where it runs and on which GPUs.
  const auto holder = [&](int gpus, const std::string& name) {
    return Submit("--gres=gpu:" + std::to_string(gpus) + " -o /dev/null --wrap 'echo $SLURMD_NODENAME $SLURM_JOB_GPUS > " +
                  (work_ / name).string() + "; exec sleep 300'");
  };
  const int64_t a = holder(2, "a");
  const int64_t b = holder(3, "b");
  ASSERT_TRUE(WaitState(a, "RUNNING")) << State(a);
  ASSERT_TRUE(WaitState(b, "RUNNING")) << State(b);
  const int64_t resources = Submit("--gres=gpu:4 -o /dev/null --wrap 'sleep 300'");  // 3 GPUs left, on two nodes
  const int64_t held = Submit("-H --gres=gpu:1 -o /dev/null --wrap 'sleep 300'");
  const int64_t dependent = Submit("--dependency=afterok:" + std::to_string(a) + " -o /dev/null --wrap 'sleep 300'");
  const int64_t later = Submit("--begin=now+1hour -o /dev/null --wrap 'sleep 300'");
  const std::map<int64_t, std::string> expected = {
      {resources, "Resources"}, {held, "JobHeldUser"}, {dependent, "Dependency"}, {later, "BeginTime"}};
  for (const auto& [id, reason] : expected) {
    EXPECT_TRUE(WaitFor([&] { return Trim(Run("squeue -h -j " + std::to_string(id) + " -o %r").out) == reason; }, 15s))
        << id << " " << reason << "\n" << Run("squeue").out;
  }
  // Where the running jobs' GPUs are: node -> GPU indices, from the jobs themselves.
  std::map<int64_t, std::pair<std::string, std::set<std::string>>> placed;
  for (const auto& [id, name] : {std::pair{a, "a"}, std::pair{b, "b"}}) {
    std::string line;
    ASSERT_TRUE(WaitFor([&] { return !(line = Trim(ReadFile((work_ / name).string()))).empty(); }, 15s)) << name;
    std::istringstream in(line);
    std::string node, gpus;
    in >> node >> gpus;
    std::set<std::string> indices;
    std::istringstream list(gpus);
    for (std::string g; std::getline(list, g, ',');) indices.insert(g);
    placed[id] = {node, indices};
  }
  ASSERT_EQ(placed[a].second.size(), 2u) << placed[a].first;
  ASSERT_EQ(placed[b].second.size(), 3u) << placed[b].first;

  // What squeue says now: pending jobs by reason, the running jobs and the GPUs they hold
  // (%D nodes of %b "gres:gpu:N" each).
  std::map<std::string, int> pending_by_reason;
  std::set<std::string> running;
  int squeue_gpus = 0;
  {
    std::istringstream in(Run("squeue -h -o '%i %T %r %D %b'").out);
    for (std::string id, state, reason, nodes, tres; in >> id >> state >> reason >> nodes >> tres;) {
      if (state == "PENDING") ++pending_by_reason[reason];
      if (state == "RUNNING") {
        running.insert(id);
        if (tres != "N/A") squeue_gpus += std::atoi(nodes.c_str()) * std::atoi(tres.substr(tres.rfind(':') + 1).c_str());
      }
    }
  }
  EXPECT_EQ(squeue_gpus, 5) << Run("squeue").out;
  EXPECT_EQ(running, (std::set<std::string>{std::to_string(a), std::to_string(b)})) << Run("squeue").out;
  EXPECT_EQ(pending_by_reason, (std::map<std::string, int>{
                                   {"Resources", 1}, {"JobHeldUser", 1}, {"Dependency", 1}, {"BeginTime", 1}}))
      << Run("squeue").out;

  // Wait until Prometheus has scraped every target since that state held (a sample's timestamp is
  // when its scrape began), and each scrape succeeded.
  const double settled = static_cast<double>(std::time(nullptr)) + 1;  // whole seconds: round up
  std::string error;
  std::vector<PrometheusServer::Sample> ups;
  ASSERT_TRUE(WaitFor(
      [&] {
        ups = prometheus.Query("timestamp(up == 1)", &error);
        if (ups.size() != 3) return false;
        for (const auto& s : ups) {
          if (s.value < settled) return false;
        }
        return true;
      },
      30s))
      << error << "\n" << Describe(prometheus.Query("up", &error)) << Describe(ups) << prometheus.Log();

  // `up` is 1 for the controller and both agents.
  std::vector<PrometheusServer::Sample> up = prometheus.Query("up", &error);
  EXPECT_EQ(error, "");
  std::map<std::string, double> up_by_instance;
  for (const auto& s : up) up_by_instance[s.labels.at("job") + " " + s.labels.at("instance")] = s.value;
  std::map<std::string, double> want_up = {{"musterctld " + controller, 1}};
  for (const auto& [node, address] : agents) want_up["musterd " + address] = 1;
  EXPECT_EQ(up_by_instance, want_up) << Describe(up);

  // The GPUs allocated, by the controller's gauge, are those the running jobs hold by squeue;
  // allocated and idle add up to the cluster's 8.
  std::vector<PrometheusServer::Sample> allocated = prometheus.Query("sum(muster_gpus{state=\"allocated\"})", &error);
  ASSERT_EQ(allocated.size(), 1u) << error << Describe(allocated);
  EXPECT_EQ(allocated[0].value, squeue_gpus);
  std::vector<PrometheusServer::Sample> idle = prometheus.Query("muster_gpus{state=\"idle\"}", &error);
  ASSERT_EQ(idle.size(), 1u) << error << Describe(idle);
  EXPECT_EQ(idle[0].value, 8 - squeue_gpus);
  std::vector<PrometheusServer::Sample> jobs_running = prometheus.Query("sum(muster_jobs_running)", &error);
  ASSERT_EQ(jobs_running.size(), 1u) << error;
  EXPECT_EQ(jobs_running[0].value, static_cast<double>(running.size()));

  // Pending jobs by reason, as squeue -t PD groups them.
  std::vector<PrometheusServer::Sample> pending =
      prometheus.Query("sum by (reason) (muster_jobs{state=\"pending\"})", &error);
  EXPECT_EQ(error, "");
  std::map<std::string, int> prometheus_by_reason;
  for (const auto& s : pending) {
    if (s.value != 0) prometheus_by_reason[s.labels.at("reason")] = static_cast<int>(s.value);
  }
  std::map<std::string, int> squeue_pd;
  {
    std::istringstream in(Run("squeue -h -t PD -o %r").out);
    for (std::string reason; in >> reason;) ++squeue_pd[reason];
  }
  EXPECT_EQ(squeue_pd, pending_by_reason) << "squeue changed meanwhile\n" << Run("squeue").out;
  EXPECT_EQ(prometheus_by_reason, squeue_pd) << Describe(pending);

  // Each running job's GPUs: the agents' dcgm-exporter series carry its id (hpc_job), on the node
  // and GPU indices the job was given; the idle GPUs' series carry no job.
  for (const auto& [id, where] : placed) {
    std::vector<PrometheusServer::Sample> series =
        prometheus.Query("DCGM_FI_DEV_GPU_UTIL{hpc_job=\"" + std::to_string(id) + "\"}", &error);
    EXPECT_EQ(error, "");
    std::set<std::string> gpus;
    for (const auto& s : series) {
      EXPECT_EQ(s.labels.at("Hostname"), where.first) << Describe(series);
      EXPECT_EQ(s.labels.at("job"), "musterd") << Describe(series);  // the scrape job's label, untouched
      EXPECT_EQ(s.labels.at("instance"), agents.at(where.first)) << Describe(series);
      gpus.insert(s.labels.at("gpu"));
      // Fake GPUs' utilization while held: index % 50 + 50 (docs/metrics.md).
      EXPECT_EQ(s.value, std::stoi(s.labels.at("gpu")) % 50 + 50) << Describe(series);
    }
    EXPECT_EQ(gpus, where.second) << id << "\n" << Describe(series);
  }
  std::vector<PrometheusServer::Sample> free = prometheus.Query("DCGM_FI_DEV_GPU_UTIL{hpc_job=\"\"}", &error);
  EXPECT_EQ(error, "");
  std::set<std::string> free_gpus;  // "node:gpu"
  for (const auto& s : free) free_gpus.insert(s.labels.at("Hostname") + ":" + s.labels.at("gpu"));
  std::set<std::string> want_free;
  for (const std::string node : {"node1", "node2"}) {
    for (int g = 0; g < 4; ++g) want_free.insert(node + ":" + std::to_string(g));
  }
  for (const auto& [id, where] : placed) {
    for (const std::string& g : where.second) want_free.erase(where.first + ":" + g);
  }
  EXPECT_EQ(free_gpus, want_free) << Describe(free);
  EXPECT_EQ(free.size(), want_free.size()) << Describe(free);
  std::vector<PrometheusServer::Sample> all = prometheus.Query("count(DCGM_FI_DEV_GPU_UTIL)", &error);
  ASSERT_EQ(all.size(), 1u) << error;
  EXPECT_EQ(all[0].value, 8) << "one series per GPU: no series of a GPU before its job went stale";

  for (const int64_t id : {a, b, resources, held, dependent, later}) Run("scancel " + std::to_string(id));
}

}  // namespace
