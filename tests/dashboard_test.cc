// The web dashboard (/ui) in a real headless Chromium against a local cluster running jobs (one
// finished, two running, one pending on resources with a planned start, one held): each view is
// loaded with a JWT from `scontrol token`, its DOM checked against the figures the API and the
// commands give, and a screenshot of it saved ($MUSTER_TEST_ARTIFACTS, else the build's
// artifacts/). Label "integration" in CTest. Needs Debian's `chromium` (tools/deps.sh).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <boost/json.hpp>
#include <regex>

#include "local_cluster_test_util.h"
#include "test_net_util.h"

namespace {

using namespace muster_test;
using namespace std::chrono_literals;
namespace bj = boost::json;

// Where Debian's chromium is ("" when it is not installed).
std::string ChromiumPath() {
  for (const char* p : {"/usr/bin/chromium", "/usr/lib/chromium/chromium"}) {
    if (access(p, X_OK) == 0) return p;
  }
  return "";
}

// Runs chromium headless with `args` in a process group of its own, its stdout into `out`;
// killed (the group: its zygote and renderers too) if it runs past `limit`. Returns its exit status.
int RunChromium(const std::vector<std::string>& args, const std::string& out, std::chrono::seconds limit) {
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    const int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int null = open("/dev/null", O_WRONLY);
    dup2(fd, 1);
    dup2(null, 2);
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  if (pid < 0) return -1;
  setpgid(pid, pid);
  int status = 0;
  const auto end = std::chrono::steady_clock::now() + limit;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > end) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      return -2;
    }
    std::this_thread::sleep_for(50ms);
  }
  // What it started and left behind in its group goes with it.
  kill(-pid, SIGKILL);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// GET on 127.0.0.1:port with headers; the body (status in *status).
std::string HttpGet(int port, const std::string& target, const std::vector<std::string>& headers, int* status) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  *status = 0;
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return "";
  }
  std::string req = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
  for (const std::string& h : headers) req += h + "\r\n";
  req += "\r\n";
  send(fd, req.data(), req.size(), MSG_NOSIGNAL);
  std::string text;
  char buf[8192];
  for (ssize_t n; (n = recv(fd, buf, sizeof buf, 0)) > 0;) text.append(buf, static_cast<size_t>(n));
  close(fd);
  if (text.rfind("HTTP/1.1 ", 0) == 0) *status = std::atoi(text.c_str() + 9);
  const size_t at = text.find("\r\n\r\n");
  return at == std::string::npos ? text : text.substr(0, at) + "\n\n" + text.substr(at + 4);
}

class Dashboard : public LocalClusterTest {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to switch users";
    chromium_ = ChromiumPath();
    ASSERT_FALSE(chromium_.empty()) << "Debian's chromium is not installed (apt-get install chromium; tools/deps.sh)";
    port_ = FreePort();
    ASSERT_NE(port_, 0);
    up_args_ = " --rest 127.0.0.1:" + std::to_string(port_);
    up_tried_ = true;
    LocalClusterTest::SetUp();
    const char* env = std::getenv("MUSTER_TEST_ARTIFACTS");
    artifacts_ = env != nullptr && *env != '\0' ? fs::path(env) : fs::path(MUSTER_BIN_DIR) / "artifacts";
    fs::create_directories(artifacts_);
    profile_ = dir_ / "chromium-profile";
  }
  void TearDown() override {
    if (IsSkipped() || !up_tried_) return;  // (no chromium: no cluster was started)
    LocalClusterTest::TearDown();
  }
  std::string Token() {
    Result r = Run("scontrol token lifespan=900");
    EXPECT_EQ(r.rc, 0) << r.out;
    return Trim(r.out.substr(r.out.find('=') + 1));
  }
  // The API's answer for the view (as the page fetches it).
  bj::value Api(const std::string& target) {
    int status = 0;
    std::string text = HttpGet(port_, target, {"X-SLURM-USER-TOKEN: " + token_}, &status);
    EXPECT_EQ(status, 200) << text;
    boost::system::error_code ec;
    bj::value v = bj::parse(text.substr(text.find("\n\n") + 2), ec);
    EXPECT_FALSE(ec) << text;
    return v;
  }
  // The page's DOM once its script has drawn the view (chromium --dump-dom), and its screenshot.
  std::string Load(const std::string& query, const std::string& shot) {
    const std::string url = "http://127.0.0.1:" + std::to_string(port_) + "/ui?" + query + "#token=" + token_;
    const std::vector<std::string> common = {chromium_, "--headless=new", "--no-sandbox", "--disable-gpu",
                                             "--no-first-run", "--user-data-dir=" + profile_.string(),
                                             "--virtual-time-budget=5000", "--window-size=1400,900"};
    std::vector<std::string> dump = common;
    dump.push_back("--dump-dom");
    dump.push_back(url);
    const std::string out = (dir_ / "dom.html").string();
    EXPECT_EQ(RunChromium(dump, out, 60s), 0) << "chromium --dump-dom " << query;
    const std::string dom = ReadFile(out);
    std::vector<std::string> snap = common;
    const std::string png = (artifacts_ / ("dashboard-" + shot + ".png")).string();
    fs::remove(png);
    snap.push_back("--screenshot=" + png);
    snap.push_back(url);
    EXPECT_EQ(RunChromium(snap, (dir_ / "shot.log").string(), 60s), 0) << "chromium --screenshot " << query;
    EXPECT_GT(fs::exists(png) ? fs::file_size(png) : 0, 10000u) << png;
    std::ofstream(artifacts_ / ("dashboard-" + shot + ".html")) << dom;
    return dom;
  }
  std::string chromium_, token_;
  int port_ = 0;
  bool up_tried_ = false;
  fs::path artifacts_, profile_;
};

bool Has(const std::string& dom, const std::string& what) { return dom.find(what) != std::string::npos; }

TEST_F(Dashboard, EveryViewShowsTheApisFiguresInChromium) {
  ASSERT_TRUE(RestartControllerWith("accounts:\n"
                                    "  - {name: vision, shares: 3, quota: {gpu: 4}, users: [root]}\n"
                                    "  - {name: nlp, shares: 1, quota: {gpu: 2}, limit: {gpu: 6}, users: [root]}\n"));
  const int64_t done = Submit("-A nlp -J prep --gres=gpu:1 --wrap 'true'");
  ASSERT_TRUE(WaitState(done, "COMPLETED")) << State(done);
  const int64_t train = Submit("-A vision -J train -N1 --gres=gpu:4 -t 10 --wrap 'srun -n1 sleep 300'");
  ASSERT_TRUE(WaitState(train, "RUNNING"));
  const int64_t tune = Submit("-A nlp -J tune --gres=gpu:2 -t 10 --wrap 'sleep 300'");
  ASSERT_TRUE(WaitState(tune, "RUNNING"));
  const std::string train_node = Trim(Run("squeue -h -j " + std::to_string(train) + " -o %N").out);
  std::string other;
  std::istringstream node_names(Run("sinfo -h -N -o %N").out);
  for (std::string n; node_names >> n;) {
    if (n != train_node) other = n;
  }
  Result drain = Run("scontrol update nodename=" + other + " state=drain reason=cooling");
  ASSERT_EQ(drain.rc, 0) << train_node << ": " << drain.out;
  const int64_t big = Submit("-A vision -J big --gres=gpu:4 -t 10 --wrap 'sleep 300'");
  const int64_t held = Submit("-A nlp -J later -H --gres=gpu:1 --wrap 'sleep 300'");
  // The waiting job has its reason and, once a pass planned it, its expected start (squeue --start).
  std::string start;
  ASSERT_TRUE(WaitFor([&] {
    start = Trim(Run("squeue -h --start -j " + std::to_string(big) + " -o %S").out);
    return State(big) == "PENDING" && !start.empty() && start != "N/A";
  }, 15s)) << start;
  const std::string reason = Trim(Run("squeue -h -j " + std::to_string(big) + " -o %r").out);
  ASSERT_TRUE(WaitFor([&] { return Run("squeue -h -s -j " + std::to_string(train) + " -o %i").out.find(".0") !=
                                   std::string::npos; }, 15s));
  token_ = Token();

  // Without a token the data is refused, and the page says so.
  int status = 0;
  EXPECT_NE(HttpGet(port_, "/v1/ui/cluster", {}, &status).find("scontrol token"), std::string::npos);
  EXPECT_EQ(status, 401);
  const std::string page = HttpGet(port_, "/ui", {}, &status);
  EXPECT_EQ(status, 200);
  EXPECT_TRUE(Has(page, "Content-Security-Policy: default-src 'self'")) << page;

  // Each GPU's utilization comes with its agent's heartbeats: the fake GPUs' formula
  // (docs/metrics.md), GPU i at i % 50, plus 50 while a job holds it, once the heartbeats have seen
  // the jobs.
  bj::value cluster;
  std::string util_seen;
  ASSERT_TRUE(WaitFor([&] {
    cluster = Api("/v1/ui/cluster");
    util_seen.clear();
    bool all = true;
    for (const bj::value& n : cluster.at("nodes").as_array()) {
      for (const bj::value& g : n.at("gpus").as_array()) {
        const int64_t i = g.at("index").as_int64();
        const bool held = !g.at("jobs").as_array().empty();
        const bj::value* u = g.as_object().if_contains("util_pct");
        util_seen += " " + std::string(n.at("name").as_string()) + ":" + std::to_string(i) + "=" +
                     (u == nullptr ? "none" : std::to_string(u->to_number<double>()));
        all = all && u != nullptr && u->to_number<double>() == static_cast<double>(i % 50 + (held ? 50 : 0));
      }
    }
    return all;
  }, 30s)) << util_seen;

  // Cluster: the totals and each GPU's state, holder and utilization, as the API gives them.
  std::string dom = Load("view=cluster", "cluster");
  ASSERT_TRUE(Has(dom, "data-ready=\"cluster\"")) << dom;
  const bj::object& totals = cluster.at("totals").as_object();
  EXPECT_EQ(totals.at("gpus").as_int64(), 8);
  EXPECT_EQ(totals.at("allocated").as_int64(), 6);
  EXPECT_EQ(totals.at("drained").as_int64(), 2);
  for (const char* k : {"gpus", "allocated", "idle", "drained", "unhealthy"}) {
    EXPECT_TRUE(Has(dom, "data-stat=\"" + std::string(k) + "\"><div class=\"value\">" +
                             std::to_string(totals.at(k).as_int64()) + "<")) << k;
  }
  int train_gpus = 0;
  for (const bj::value& n : cluster.at("nodes").as_array()) {
    for (const bj::value& g : n.at("gpus").as_array()) {
      const std::string cell = std::string(n.at("name").as_string()) + ":" + std::to_string(g.at("index").as_int64());
      EXPECT_TRUE(Has(dom, "data-gpu=\"" + cell + "\" data-state=\"" + std::string(g.at("state").as_string()) + "\""))
          << cell;
      const std::string util = std::to_string(static_cast<int64_t>(g.at("util_pct").to_number<double>()));
      EXPECT_TRUE(Has(dom, "data-util=\"" + util + "\">util " + util + "%")) << cell;
      for (const bj::value& j : g.at("jobs").as_array()) train_gpus += j.at("id").as_int64() == train;
    }
  }
  EXPECT_EQ(train_gpus, 4);
  EXPECT_TRUE(Has(dom, "data-job=\"" + std::to_string(train) + "\""));
  EXPECT_TRUE(Has(dom, "cooling"));

  // Queue: the pending jobs in order with squeue's reason and expected start; the running ones.
  const bj::value queue = Api("/v1/ui/queue");
  dom = Load("view=queue", "queue");
  ASSERT_TRUE(Has(dom, "data-ready=\"queue\"")) << dom;
  EXPECT_EQ(queue.at("pending").as_array().size(), 2u);
  EXPECT_EQ(queue.at("pending").at(0).at("id").as_int64(), big);
  EXPECT_TRUE(Has(dom, "data-pending=\"" + std::to_string(big) + "\"><td class=\"num\">1</td>")) << dom;
  EXPECT_TRUE(Has(dom, "data-pending=\"" + std::to_string(held) + "\"><td class=\"num\">2</td>"));
  EXPECT_TRUE(Has(dom, "data-reason=\"" + reason + "\">" + reason)) << reason;
  EXPECT_TRUE(Has(dom, "data-reason=\"JobHeldUser\""));
  EXPECT_TRUE(Has(dom, ">" + start)) << "squeue --start says " << start;
  EXPECT_TRUE(Has(dom, "data-running=\"" + std::to_string(train) + "\""));
  EXPECT_TRUE(Has(dom, "data-running=\"" + std::to_string(tune) + "\""));
  EXPECT_TRUE(Has(dom, "data-gpus=\"4\">4<"));
  EXPECT_FALSE(Has(dom, "data-running=\"" + std::to_string(done) + "\""));

  // Teams: each account's GPUs now, fair share and GPU-hours, as the API gives them.
  const bj::value teams = Api("/v1/ui/teams");
  dom = Load("view=teams", "teams");
  ASSERT_TRUE(Has(dom, "data-ready=\"teams\"")) << dom;
  std::set<std::string> names;
  for (const bj::value& a : teams.at("accounts").as_array()) {
    const std::string name(a.at("name").as_string());
    names.insert(name);
    EXPECT_TRUE(Has(dom, "data-account=\"" + name + "\"")) << name;
    EXPECT_TRUE(Has(dom, "data-chart=\"" + name + "\"")) << name;
  }
  EXPECT_TRUE(names.count("vision") && names.count("nlp"));
  EXPECT_TRUE(Has(dom, "data-gpus-now=\"4\""));  // vision's running job
  EXPECT_TRUE(Has(dom, "data-gpus-now=\"2\""));  // nlp's
  EXPECT_TRUE(Has(dom, "<svg"));

  // A job: its timeline, placement (GPU indexes as the API gives them), steps and output paths.
  const bj::value job = Api("/v1/ui/jobs/" + std::to_string(train));
  dom = Load("view=job&id=" + std::to_string(train), "job");
  ASSERT_TRUE(Has(dom, "data-ready=\"job\"")) << dom;
  for (const char* e : {"submit", "eligible", "start"}) EXPECT_TRUE(Has(dom, "data-event=\"" + std::string(e) + "\"")) << e;
  std::string indexes;
  for (const bj::value& g : job.at("placement").at(0).at("gpus").as_array()) {
    indexes += (indexes.empty() ? "" : ",") + std::to_string(g.at("index").as_int64());
  }
  EXPECT_EQ(indexes, "0,1,2,3");
  EXPECT_TRUE(Has(dom, "data-placed=\"" + train_node + "\""));
  EXPECT_TRUE(Has(dom, "data-gpu-indexes=\"" + indexes + "\""));
  EXPECT_TRUE(Has(dom, "data-step=\"0\""));
  const std::string stdout_path = work_.string() + "/slurm-" + std::to_string(train) + ".out";
  EXPECT_TRUE(Has(dom, "data-field=\"stdout\">" + stdout_path + "<")) << stdout_path;
  EXPECT_TRUE(Has(Trim(Run("scontrol show job " + std::to_string(train)).out), "StdOut=" + stdout_path));

  // The waiting job's page: its reason and squeue --start's time, and where to ask why.
  dom = Load("view=job&id=" + std::to_string(big), "job-pending");
  EXPECT_TRUE(Has(dom, "data-field=\"reason\">" + reason)) << dom;
  EXPECT_TRUE(Has(dom, "data-field=\"expected_start\">" + start)) << start;
  EXPECT_TRUE(Has(dom, "muster why " + std::to_string(big)));

  // The finished job's page: its end in the timeline.
  dom = Load("view=job&id=" + std::to_string(done), "job-finished");
  EXPECT_TRUE(Has(dom, "data-event=\"end\"")) << dom;
  EXPECT_TRUE(Has(dom, "COMPLETED"));
  fs::remove_all(profile_);
}

}  // namespace
