// What Prometheus' scrapes of musterctld's GET /metrics cost (issue 34, point 6: a scrape of a
// 1,000-node cluster with 10,000 jobs under 50 ms, and the scheduling pass slowed by under 2%).
// A controller over a simulated cluster (NODES nodes of 64 CPUs and 8 GPUs, one partition, backfill
// on; the store SQLite on /dev/shm; no agents) gets JOBS one-GPU jobs (time limits of 1 to 5 h): the first
// pass starts as many as there are GPUs and the rest wait. musterctld's routes serve /metrics on a
// loopback TCP port, and a client scrapes it as Prometheus does (one kept-alive connection).
//   1. the scrape alone: SCRAPES GETs one after another, each timed end to end (request to last
//      byte) and its rendering alone (ControllerMetricsText);
//   2. the scheduling pass (Controller::ScheduleOnce, the cluster full and the queue waiting) in
//      blocks of PASSES passes, alternately without scraping, with a scraper thread scraping every
//      second (Prometheus' interval in tests/prometheus_test.cc; its default is 1 min), and with
//      one scraping back to back (the worst case); ROUNDS rounds of the three, the medians of the
//      passes of each kind compared as ratios against the run without scraping: in wall time, and in
//      the pass's thread's CPU time (which leaves out waits for a CPU on a loaded machine).
// Prints JSON.
//   metrics_cost [NODES] [JOBS] [SCRAPES] [PASSES] [ROUNDS]
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "api/controller_metrics.h"
#include "base/check.h"
#include "ctld/controller.h"
#include "net/http.h"
#include "sched/cluster_builder.h"
#include "store/sqlite_store.h"

namespace {

using namespace muster;
using Steady = std::chrono::steady_clock;

class NoAgents : public AgentClient {
 public:
  Status LaunchJob(const NodeRecord&, const JobRecord&) override { return Status::Ok(); }
  Status SignalJob(const NodeRecord&, const JobRun&, int, int64_t, const std::string&) override { return Status::Ok(); }
};

double Ms(Steady::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// This thread's CPU time (ms): what a pass or a rendering cost apart from waiting for a CPU on a
// loaded machine (a wait for a lock is in neither).
double ThreadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

struct Stats {
  double median = 0, p90 = 0, max = 0, mean = 0;
  size_t n = 0;
};
Stats Summarize(std::vector<double> v) {
  Stats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.n = v.size();
  s.median = v[v.size() / 2];
  s.p90 = v[std::min(v.size() - 1, v.size() * 9 / 10)];
  s.max = v.back();
  for (double x : v) s.mean += x;
  s.mean /= static_cast<double>(v.size());
  return s;
}
std::string Json(const Stats& s) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "{\"n\": %zu, \"median_ms\": %.3f, \"p90_ms\": %.3f, \"max_ms\": %.3f, \"mean_ms\": %.3f}",
                s.n, s.median, s.p90, s.max, s.mean);
  return buf;
}

// Scrapes `port`'s /metrics until stopped: back to back (`interval_ms` 0) or every `interval_ms`.
class Scraper {
 public:
  Scraper(int port, int interval_ms) : thread_([this, port, interval_ms] { Run(port, interval_ms); }) {}
  ~Scraper() {
    {
      std::lock_guard<std::mutex> l(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  int scrapes() const { return scrapes_.load(); }

 private:
  void Run(int port, int interval_ms) {
    std::unique_ptr<HttpClient> client = HttpClient::Connect("127.0.0.1:" + std::to_string(port)).value();
    std::unique_lock<std::mutex> l(mu_);
    while (!stop_) {
      l.unlock();
      const Steady::time_point next = Steady::now() + std::chrono::milliseconds(interval_ms);
      StatusOr<HttpResponse> r = client->Request("GET", "/metrics");
      MUSTER_CHECK(r.ok() && r->status == 200) << "scrape";
      ++scrapes_;
      l.lock();
      if (interval_ms > 0) cv_.wait_until(l, next, [&] { return stop_; });
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::atomic<int> scrapes_{0};
  std::thread thread_;
};

}  // namespace

int main(int argc, char** argv) {
  const int nodes = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int jobs = argc > 2 ? std::atoi(argv[2]) : 10000;
  const int scrapes = argc > 3 ? std::atoi(argv[3]) : 30;
  const int passes = argc > 4 ? std::atoi(argv[4]) : 5;
  const int rounds = argc > 5 ? std::atoi(argv[5]) : 3;

  const char* shm = std::filesystem::exists("/dev/shm") ? "/dev/shm" : "/tmp";
  const std::filesystem::path dir = std::filesystem::path(shm) / ("muster-metrics-cost-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  ControllerConfig config;
  config.cluster_name = "bench";
  config.log_events = false;
  config.scheduler.backfill = true;
  NodeTemplate t;
  t.cpus = 64;
  t.memory_mb = 512000;
  t.gpus = 8;
  const std::string all = "node[0001-" + std::to_string(nodes) + "]";
  ClusterBuilder b;
  b.Nodes(all, t);
  for (int first = 1, leaf = 0; first <= nodes; first += 32, ++leaf) {
    char hosts[64];
    std::snprintf(hosts, sizeof hosts, "node[%04d-%04d]", first, std::min(nodes, first + 31));
    b.Leaf("leaf" + std::to_string(leaf), hosts);
  }
  config.cluster = b.Partition("gpu", all, true).Build();
  std::unique_ptr<Store> store = OpenSqliteStore((dir / "state.db").string()).value();
  NoAgents agents;
  ManualClock clock;
  auto ctld = std::make_unique<Controller>(config, store.get(), &agents, &clock);
  MUSTER_CHECK(ctld->Recover().ok()) << "recover";
  const Caller admin{true, 0, 0, "unix", ""};
  for (const Node& n : config.cluster.nodes) {
    NodeRecord r;
    r.node = n;
    r.agent_address = "unix:/nowhere";
    MUSTER_CHECK(ctld->RegisterNode(r, {}, admin).ok()) << "register";
  }
  const auto t_submit = Steady::now();
  for (int i = 0; i < jobs; ++i) {
    JobSpec s;
    MUSTER_CHECK(SetResourceOptions(s, {"-n1", "--gres=gpu:1", "-t", std::to_string(60 + i % 240)}).ok()) << "options";
    s.script = "#!/bin/sh\ntrue\n";
    s.workdir = "/tmp";
    const Caller user{true, 1000, 1000, "unix", ""};
    MUSTER_CHECK(ctld->Submit(s, user).ok()) << "submit";
  }
  const double submit_s = Ms(Steady::now() - t_submit) / 1000;
  const int started = ctld->ScheduleOnce();

  // musterctld's metrics routes on a loopback port.
  Router router;
  api::AddMetricsRoutes(*ctld, router, 4);
  HttpServer::Options o;
  o.tcp_port = 0;
  o.threads = 4;
  std::unique_ptr<HttpServer> server =
      HttpServer::Start(o, [&router](const HttpRequest& r) { return router.Handle(r); }).value();
  const int port = server->tcp_port();

  // 1. The scrape alone.
  std::vector<double> scrape_ms, render_ms, render_cpu_ms;
  size_t bytes = 0;
  {
    std::unique_ptr<HttpClient> client = HttpClient::Connect("127.0.0.1:" + std::to_string(port)).value();
    for (int i = 0; i < scrapes; ++i) {
      const auto t0 = Steady::now();
      StatusOr<HttpResponse> r = client->Request("GET", "/metrics");
      scrape_ms.push_back(Ms(Steady::now() - t0));
      MUSTER_CHECK(r.ok() && r->status == 200) << "scrape";
      bytes = r->body.size();
      const auto t1 = Steady::now();
      const double c1 = ThreadCpuMs();
      StatusOr<std::string> text = api::ControllerMetricsText(*ctld);
      render_cpu_ms.push_back(ThreadCpuMs() - c1);
      render_ms.push_back(Ms(Steady::now() - t1));
      MUSTER_CHECK(text.ok()) << "render";
    }
  }

  // 2. Passes without scraping, with a scrape every second, and with scrapes back to back.
  std::vector<double> quiet, every_second, back_to_back;           // wall
  std::vector<double> quiet_cpu, every_second_cpu, back_to_back_cpu;  // the pass's thread's CPU
  int scrapes_1s = 0, scrapes_b2b = 0;
  const auto block = [&](std::vector<double>* out, std::vector<double>* cpu) {
    for (int i = 0; i < passes; ++i) {
      const auto t0 = Steady::now();
      const double c0 = ThreadCpuMs();
      ctld->ScheduleOnce();
      cpu->push_back(ThreadCpuMs() - c0);
      out->push_back(Ms(Steady::now() - t0));
    }
  };
  ctld->ScheduleOnce();  // warm
  for (int r = 0; r < rounds; ++r) {
    block(&quiet, &quiet_cpu);
    {
      Scraper s(port, 1000);
      block(&every_second, &every_second_cpu);
      scrapes_1s += s.scrapes();
    }
    {
      Scraper s(port, 0);
      block(&back_to_back, &back_to_back_cpu);
      scrapes_b2b += s.scrapes();
    }
  }
  server->Stop();
  const Stats q = Summarize(quiet), s1 = Summarize(every_second), sb = Summarize(back_to_back);
  const Stats qc = Summarize(quiet_cpu), s1c = Summarize(every_second_cpu), sbc = Summarize(back_to_back_cpu);
  std::printf(
      "{\"nodes\": %d, \"gpus\": %d, \"jobs\": %d, \"running\": %d, \"pending\": %d, \"submit_s\": %.1f, "
      "\"metrics_bytes\": %zu, \"scrape\": %s, \"render\": %s, \"render_cpu\": %s, "
      "\"pass_without_scraping\": %s, \"pass_scraped_every_1s\": %s, \"pass_scraped_back_to_back\": %s, "
      "\"scrapes_during_1s_blocks\": %d, \"scrapes_during_back_to_back_blocks\": %d, "
      "\"pass_ratio_scraped_every_1s\": %.4f, \"pass_ratio_scraped_back_to_back\": %.4f, "
      "\"pass_cpu_without_scraping\": %s, \"pass_cpu_scraped_every_1s\": %s, \"pass_cpu_scraped_back_to_back\": %s, "
      "\"pass_cpu_ratio_scraped_every_1s\": %.4f, \"pass_cpu_ratio_scraped_back_to_back\": %.4f}\n",
      nodes, nodes * 8, jobs, started, jobs - started, submit_s, bytes, Json(Summarize(scrape_ms)).c_str(),
      Json(Summarize(render_ms)).c_str(), Json(Summarize(render_cpu_ms)).c_str(), Json(q).c_str(), Json(s1).c_str(),
      Json(sb).c_str(), scrapes_1s, scrapes_b2b, s1.median / q.median, sb.median / q.median, Json(qc).c_str(),
      Json(s1c).c_str(), Json(sbc).c_str(), s1c.median / qc.median, sbc.median / qc.median);
  ctld.reset();
  store.reset();
  std::filesystem::remove_all(dir);
  return 0;
}
