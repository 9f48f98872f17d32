// musterctld's GET /metrics and sdiag on a real local cluster: the figures a scrape shows agree
// with what squeue says (jobs pending by reason, GPUs held by the running jobs), and sdiag prints
// Slurm's layout from the same counters. Label "integration" in CTest.
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>

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

}  // namespace
