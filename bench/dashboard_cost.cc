// The dashboard's views on a large cluster (issue 34, point 6: each data route answers under
// 100 ms on 1,000 nodes with 10,000 jobs): builds the cluster, queue and teams views (api/dashboard.h)
// on 1,000 nodes of 8 GPUs, 2,000 running jobs (the cluster full) and 8,000 pending ones, 7 times
// each, and prints the median and the worst, with their ratio to the JSON serialization of the
// same records' squeue-sized answer as a baseline in the same process. Run by bench/dashboard_cost.sh
// on the release build. The routes add a copy of the records under the controller's lock.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "api/dashboard.h"
#include "model/record_json.h"

namespace muster {
namespace {

namespace bj = wire::bj;

struct Timing {
  double median_ms = 0, max_ms = 0;
  size_t bytes = 0;
};

Timing Time(const std::function<std::string()>& fn, int runs = 7) {
  std::vector<double> ms;
  Timing t;
  for (int i = 0; i < runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    t.bytes = fn().size();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  t.median_ms = ms[ms.size() / 2];
  t.max_ms = ms.back();
  return t;
}

int Main() {
  std::vector<NodeRecord> nodes(1000);
  for (size_t i = 0; i < nodes.size(); ++i) {
    nodes[i].node.name = "n" + std::to_string(i + 1);
    nodes[i].node.cpus = 128;
    nodes[i].node.memory_mb = 1 << 20;
    for (int g = 0; g < 8; ++g) nodes[i].node.gpus.push_back(Gpu{.index = g, .model = "h100"});
  }
  std::vector<JobRecord> jobs(10000);
  for (size_t i = 0; i < jobs.size(); ++i) {
    JobRecord& j = jobs[i];
    j.id = static_cast<int64_t>(i + 1);
    j.user = "u" + std::to_string(i % 50);
    j.account = "team" + std::to_string(i % 10);
    j.submit_time = 1000 + static_cast<int64_t>(i);
    j.priority = static_cast<int64_t>(i % 97);
    j.request.gpus_per_node = 4;
    if (i < 2000) {  // 2 jobs per node, 4 GPUs each: the cluster is full
      j.state = JobState::kRunning;
      j.start_time = 5000;
      NodeAllocation a{.node = nodes[i / 2].node.name, .cpu_milli = 8000, .memory_mb = 1024};
      for (int g = 0; g < 4; ++g) a.gpus.push_back(GpuShare{.index = static_cast<int>(i % 2) * 4 + g});
      j.allocation.push_back(a);
    } else {
      j.reason = "Priority";
      j.expected_start = 9000;
    }
  }
  std::vector<const JobRecord*> ptrs;
  for (const JobRecord& j : jobs) ptrs.push_back(&j);
  AccountTree tree;
  for (int t = 0; t < 10; ++t) tree.accounts.push_back(Account{.name = "team" + std::to_string(t)});

  // Baseline: every job record as JSON (what a full job listing serializes).
  const Timing base = Time([&] {
    bj::array all;
    for (const JobRecord& j : jobs) all.push_back(ToJson(j));
    return bj::serialize(all);
  });
  const Timing cluster = Time([&] { return bj::serialize(api::ClusterView(nodes, ptrs)); });
  const Timing queue = Time([&] { return bj::serialize(api::QueueView(ptrs, 8000)); });
  const Timing teams = Time([&] { return bj::serialize(api::TeamsView(jobs, tree, {}, 8000, 8000 + 3600 * 24, 24)); });
  std::printf("dashboard views on 1000 nodes x 8 GPUs, 10000 jobs (7 runs each)\n");
  std::printf("%-22s %10s %10s %10s %12s\n", "view", "median_ms", "max_ms", "bytes", "x_baseline");
  auto row = [&](const char* name, const Timing& t) {
    std::printf("%-22s %10.2f %10.2f %10zu %12.2f\n", name, t.median_ms, t.max_ms, t.bytes,
                base.median_ms > 0 ? t.median_ms / base.median_ms : 0.0);
  };
  row("baseline: all jobs", base);
  row("cluster", cluster);
  row("queue", queue);
  row("teams (24 h)", teams);
  const bool met = cluster.max_ms < 100 && queue.max_ms < 100 && teams.max_ms < 100;
  std::printf("target: every view under 100 ms (worst run): %s\n", met ? "met" : "missed");
  return 0;
}

}  // namespace
}  // namespace muster

int main() { return muster::Main(); }
