// musterctld's GET /metrics and sdiag on a real local cluster: the figures a scrape shows agree
// with what squeue says (jobs pending by reason, GPUs held by the running jobs), and sdiag prints
// Slurm's layout from the same counters; sreport's figures agree with sacct's for the same jobs.
// Label "integration" in CTest.
#include <time.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "local_cluster_test_util.h"

namespace {

using namespace muster_test;
using namespace std::chrono_literals;

// The sum of the values of `text`'s series lines that start with `prefix` and contain `part`.
double Sum(const std::string& text, const std::string& prefix, const std::string& part = "") {
  double sum = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with(prefix) || line.find(part) == std::string::npos) continue;
    sum += std::atof(line.substr(line.rfind(' ') + 1).c_str());
  }
  return sum;
}

class CtldMetrics : public LocalClusterTest {
 protected:
  void SetUp() override {
    nodes_ = 1;  // 4 GPUs
    LocalClusterTest::SetUp();
  }
  Result Scrape() { return Run("curl -sf --unix-socket " + (dir_ / "c/run/ctld.sock").string() + " http://x/metrics"); }
};

TEST_F(CtldMetrics, ScrapeAgreesWithSqueueAndSdiagPrintsSlurmsLayout) {
  const int64_t a = Submit("--gres=gpu:3 -o /dev/null --wrap 'sleep 300'");
  const int64_t b = Submit("--gres=gpu:3 -o /dev/null --wrap 'sleep 300'");  // waits: 1 GPU left
  const int64_t c = Submit("-H --gres=gpu:1 -o /dev/null --wrap 'sleep 300'");  // held
  ASSERT_TRUE(WaitState(a, "RUNNING")) << State(a);
  ASSERT_TRUE(WaitFor([&] { return Trim(Run("squeue -h -j " + std::to_string(b) + " -o %r").out) == "Resources"; }, 15s))
      << Run("squeue").out;

  // squeue's pending jobs by reason, and the GPUs its running jobs hold (%b: "gres:gpu:3").
  std::map<std::string, int> by_reason;
  int held_gpus = 0;
  {
    std::istringstream in(Run("squeue -h -o '%T %r %b'").out);
    for (std::string state, reason, tres; in >> state >> reason >> tres;) {
      if (state == "PENDING") ++by_reason[reason];
      if (state == "RUNNING") held_gpus += std::atoi(tres.substr(tres.rfind(':') + 1).c_str());
    }
  }
  ASSERT_EQ(by_reason.size(), 2u) << Run("squeue").out;
  EXPECT_EQ(held_gpus, 3);

  const Result scrape = Scrape();
  ASSERT_EQ(scrape.rc, 0) << scrape.out;
  const std::string& m = scrape.out;
  for (const auto& [reason, n] : by_reason) {
    EXPECT_EQ(Sum(m, "muster_jobs{state=\"pending\"", "reason=\"" + reason + "\""), n) << reason << "\n" << m;
  }
  EXPECT_EQ(Sum(m, "muster_jobs_running{"), 1) << m;
  EXPECT_EQ(Sum(m, "muster_gpus{state=\"allocated\"}"), held_gpus) << m;
  EXPECT_EQ(Sum(m, "muster_gpus{state=\"idle\"}"), 4 - held_gpus) << m;
  EXPECT_EQ(Sum(m, "muster_jobs_submitted_total "), 3) << m;
  EXPECT_EQ(Sum(m, "muster_jobs_started_total "), 1) << m;
  EXPECT_GE(Sum(m, "muster_scheduler_pass_seconds_count "), 1) << m;
  // Requests are labelled by their route's pattern, not the path: squeue -j asked GET /v1/jobs...
  EXPECT_GE(Sum(m, "muster_api_request_seconds_count{", "route=\"/v1/jobs\",method=\"POST\""), 3) << m;
  EXPECT_NE(m.find("# TYPE muster_api_request_seconds histogram\n"), std::string::npos);

  const Result sdiag = Run("sdiag");
  ASSERT_EQ(sdiag.rc, 0) << sdiag.out;
  const std::string& s = sdiag.out;
  for (const char* line : {"*******************************************************\nsdiag output at ",
                           "\nJobs submitted: 3\nJobs started:   1\n", "\nJobs pending:   2\nJobs running:   1\n",
                           "\nMain schedule statistics (microseconds):\n\tLast cycle:   ", "\nBackfilling stats\n",
                           "\nRemote Procedure Call statistics by message type\n", "\n\tPOST /v1/jobs ",
                           "\nPending RPC statistics\n\tNo pending RPCs\n"}) {
    EXPECT_NE(s.find(line), std::string::npos) << line << "\n" << s;
  }
  // -r: an admin's (the cluster's owner here); the counters start again.
  EXPECT_EQ(Run("sdiag -r").out, "Reset scheduling statistics\n");
  EXPECT_NE(Run("sdiag").out.find("\nJobs submitted: 0\n"), std::string::npos);
  Run("scancel " + std::to_string(a) + " " + std::to_string(b) + " " + std::to_string(c));
}

// "2026-12-05T21:30:00" (local time, as sacct and sreport print it) in seconds since the epoch.
int64_t LocalSeconds(const std::string& iso) {
  struct tm tm {};
  if (strptime(iso.c_str(), "%Y-%m-%dT%H:%M:%S", &tm) == nullptr) return -1;
  tm.tm_isdst = -1;
  return static_cast<int64_t>(mktime(&tm));
}

std::vector<std::string> Fields(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string f; std::getline(in, f, '|');) out.push_back(f);
  return out;
}

// The sum of a JSON answer's integer values of `key` ("cpu_s": 120).
int64_t JsonSum(const std::string& json, const std::string& key) {
  int64_t sum = 0;
  const std::regex re("\"" + key + "\":([0-9]+)");
  for (auto it = std::sregex_iterator(json.begin(), json.end(), re); it != std::sregex_iterator(); ++it) {
    sum += std::stoll((*it)[1].str());
  }
  return sum;
}

struct SacctJob {
  int64_t start = 0, end = 0, cpus = 0, gpus = 0;
};

// sreport's usage against sacct's records of the same jobs: the controller's report route over an
// exact period, and the sreport command over the hours it rounds the period to.
TEST_F(CtldMetrics, SreportAgreesWithSacct) {
  const int64_t a = Submit("-n 2 --gres=gpu:2 -o /dev/null --wrap 'sleep 3'");
  const int64_t b = Submit("-n 1 -o /dev/null --wrap 'sleep 2'");
  ASSERT_TRUE(WaitState(a, "COMPLETED", 30s)) << State(a);
  ASSERT_TRUE(WaitState(b, "COMPLETED", 30s)) << State(b);

  const Result sacct = Run("sacct -n -P -X -S now-3hours -o jobidraw,start,end,alloccpus,alloctres,cputimeraw");
  ASSERT_EQ(sacct.rc, 0) << sacct.out;
  std::vector<SacctJob> jobs;
  int64_t cpu_s = 0, gpu_s = 0;
  {
    std::istringstream in(sacct.out);
    for (std::string line; std::getline(in, line);) {
      const std::vector<std::string> f = Fields(line);
      ASSERT_EQ(f.size(), 6u) << line;
      SacctJob j{LocalSeconds(f[1]), LocalSeconds(f[2]), std::stoll(f[3]), 0};
      if (size_t g = f[4].find("gres/gpu="); g != std::string::npos) j.gpus = std::atoll(f[4].c_str() + g + 9);
      EXPECT_EQ(std::stoll(f[5]), (j.end - j.start) * j.cpus) << line;
      cpu_s += std::stoll(f[5]);
      gpu_s += (j.end - j.start) * j.gpus;
      jobs.push_back(j);
    }
  }
  ASSERT_EQ(jobs.size(), 2u) << sacct.out;
  ASSERT_GT(cpu_s, 0);
  ASSERT_GT(gpu_s, 0);

  // The route, over a period holding both jobs: the same CPU- and GPU-seconds, per association
  // and for the cluster; the cluster's TRES are its CPUs (sinfo) and its 4 GPUs. From the epoch:
  // what it measures begins where the cluster's records do (measured_start).
  const int64_t to = std::max(jobs[0].end, jobs[1].end) + 3600;
  const Result usage = Run("curl -sf --unix-socket " + (dir_ / "c/run/ctld.sock").string() +
                           " 'http://x/v1/reports/usage?start=1&end=" + std::to_string(to) + "'");
  ASSERT_EQ(usage.rc, 0) << usage.out;
  EXPECT_EQ(JsonSum(usage.out, "cpu_s"), cpu_s) << usage.out;
  EXPECT_EQ(JsonSum(usage.out, "gpu_s"), gpu_s) << usage.out;
  const int64_t node_cpus = std::stoll(Trim(Run("sinfo -h -o %c").out));
  const std::regex cpu_row("\\{\"tres\":\"cpu\",\"count\":([0-9]+),\"alloc_s\":([0-9]+)");
  const std::regex gpu_row("\\{\"tres\":\"gres/gpu\",\"count\":([0-9]+),\"alloc_s\":([0-9]+)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(usage.out, m, cpu_row)) << usage.out;
  EXPECT_EQ(std::stoll(m[1].str()), node_cpus);
  EXPECT_EQ(std::stoll(m[2].str()), cpu_s);
  ASSERT_TRUE(std::regex_search(usage.out, m, gpu_row)) << usage.out;
  EXPECT_EQ(std::stoll(m[1].str()), 4);
  EXPECT_EQ(std::stoll(m[2].str()), gpu_s);
  ASSERT_TRUE(std::regex_search(usage.out, m, std::regex("\"measured_start\":([0-9]+)"))) << usage.out;
  const int64_t since = std::stoll(m[1].str());
  EXPECT_LE(since, std::min(jobs[0].start, jobs[1].start)) << usage.out;

  // The command rounds its period to hours (as Slurm's): what it shows is sacct's jobs clipped to
  // the period its banner names.
  const Result top = Run("sreport -t seconds -P user topusage group start=now-3hours end=now");
  ASSERT_EQ(top.rc, 0) << top.out;
  std::smatch period;
  ASSERT_TRUE(std::regex_search(top.out, period,
                                std::regex("Top 10 Users ([0-9T:-]+) - ([0-9T:-]+) \\(([0-9]+) secs\\)")))
      << top.out;
  const int64_t p0 = LocalSeconds(period[1].str()), p1 = LocalSeconds(period[2].str()) + 1;
  EXPECT_EQ(p1 - p0, std::stoll(period[3].str()));
  int64_t clipped_cpu = 0, clipped_gpu = 0;
  for (const SacctJob& j : jobs) {
    const int64_t s = std::max<int64_t>(0, std::min(j.end, p1) - std::max(j.start, p0));
    clipped_cpu += s * j.cpus;
    clipped_gpu += s * j.gpus;
  }
  EXPECT_NE(top.out.find("\nUsage reported in CPU Seconds\n"), std::string::npos) << top.out;
  EXPECT_NE(top.out.find("\nCluster|Login|Proper Name|Account|Used|Energy\n"), std::string::npos) << top.out;
  if (clipped_cpu > 0) {
    EXPECT_NE(top.out.find("|" + std::to_string(clipped_cpu) + "|0\n"), std::string::npos) << top.out;
  }
  const Result util = Run("sreport -n -P -t seconds -T cpu,gres/gpu cluster utilization start=now-3hours end=now "
                          "format=tresname,count,allocated");
  ASSERT_EQ(util.rc, 0) << util.out;
  // Nothing at all when the cluster's records begin after the period (it started this hour, and
  // the period ends at the hour's start).
  EXPECT_EQ(util.out, p1 <= since ? "" : "cpu|" + std::to_string(node_cpus) + "|" + std::to_string(clipped_cpu) +
                                             "\ngres/gpu|4|" + std::to_string(clipped_gpu) + "\n");
}

}  // namespace
