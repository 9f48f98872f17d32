#include "sim/queue_bench.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "base/strings.h"
#include "sched/cluster_builder.h"
#include "sched/job_order.h"

namespace muster {

const std::vector<QueuePolicy>& AllQueuePolicies() {
  static const std::vector<QueuePolicy> all = {QueuePolicy::kFifo, QueuePolicy::kFifoBackfill, QueuePolicy::kSjfOracle,
                                               QueuePolicy::kSrtfOracle, QueuePolicy::kMuster};
  return all;
}

const char* QueuePolicyKey(QueuePolicy p) {
  switch (p) {
    case QueuePolicy::kFifo:
      return "fifo";
    case QueuePolicy::kFifoBackfill:
      return "fifo_backfill";
    case QueuePolicy::kSjfOracle:
      return "sjf_oracle";
    case QueuePolicy::kSrtfOracle:
      return "srtf_oracle";
    case QueuePolicy::kMuster:
      break;
  }
  return "muster";
}

StatusOr<QueuePolicy> ParseQueuePolicy(const std::string& key) {
  for (QueuePolicy p : AllQueuePolicies()) {
    if (key == QueuePolicyKey(p)) return p;
  }
  return Status(StatusCode::kInvalidArgument,
                "unknown policy '" + key + "' (fifo, fifo_backfill, sjf_oracle, srtf_oracle, muster)");
}

ClusterSnapshot QueueBenchCluster(const QueueCluster& c) {
  NodeTemplate t;
  t.gpus = c.gpus_per_node;
  t.model = "v100";
  t.gpu_memory_mb = 16384;
  auto name = [](int i) {
    std::string n = std::to_string(i);
    return "p" + std::string(n.size() < 3 ? 3 - n.size() : 0, '0') + n;
  };
  const std::string all = "p[" + name(1).substr(1) + "-" + name(c.nodes).substr(1) + "]";
  ClusterBuilder b;
  b.Nodes(all, t);
  for (int first = 1, leaf = 1; first <= c.nodes; first += c.nodes_per_leaf, ++leaf) {
    const int last = std::min(c.nodes, first + c.nodes_per_leaf - 1);
    b.Leaf("sw" + std::to_string(leaf), "p[" + name(first).substr(1) + "-" + name(last).substr(1) + "]");
  }
  b.Partition("philly", all, true);
  return b.Build();
}

namespace {

// Work asked (`work`, in unit-seconds) over `capacity` units for the span of the arrivals.
template <typename Job, typename Arrival, typename Work>
double LoadOver(const std::vector<Job>& jobs, int64_t capacity, Arrival arrival, Work work) {
  if (jobs.size() < 2 || capacity <= 0) return 0;
  int64_t first = arrival(jobs.front()), last = first;
  double total = 0;
  for (const Job& j : jobs) {
    first = std::min(first, arrival(j));
    last = std::max(last, arrival(j));
    total += work(j);
  }
  if (last == first) return 0;
  return total / (static_cast<double>(capacity) * static_cast<double>(last - first));
}

}  // namespace

double OfferedLoad(const std::vector<PhillyJob>& jobs, int64_t gpus) {
  return LoadOver(jobs, gpus, [](const PhillyJob& j) { return j.arrival_s; },
                  [](const PhillyJob& j) { return static_cast<double>(j.duration_s) * j.gpus; });
}

std::vector<ReplayJob> QueueJobs(const std::vector<PhillyJob>& trace, QueuePolicy policy, double overestimate) {
  std::vector<ReplayJob> out;
  out.reserve(trace.size());
  for (const PhillyJob& p : trace) {
    ReplayJob j;
    j.trace_id = p.id;
    j.arrival_s = p.arrival_s;
    j.duration_s = std::max<int64_t>(1, p.duration_s);
    j.gpus = p.gpus;
    j.vc = p.vc;
    if (policy == QueuePolicy::kFifoBackfill) {
      const double asked = std::ceil(static_cast<double>(j.duration_s) * overestimate / 60.0) * 60.0;
      j.time_limit_s = std::max<int64_t>(60, static_cast<int64_t>(asked));
    } else if (policy == QueuePolicy::kSjfOracle || policy == QueuePolicy::kSrtfOracle) {
      j.time_limit_s = j.duration_s;
    }
    out.push_back(std::move(j));
  }
  return out;
}

ClusterSnapshot CpuBenchCluster(int nodes, int cpus_per_node) {
  NodeTemplate t;
  t.cpus = cpus_per_node;
  t.memory_mb = int64_t{4096} * cpus_per_node;
  t.gpus = 0;
  auto name = [&](int i) {
    std::string n = std::to_string(i);
    const size_t width = std::max<size_t>(3, std::to_string(nodes).size());
    return std::string(n.size() < width ? width - n.size() : 0, '0') + n;
  };
  const std::string all = "n[" + name(1) + "-" + name(nodes) + "]";
  return ClusterBuilder().Nodes(all, t).Partition("swf", all, true).Build();
}

double SwfOfferedLoad(const std::vector<SwfJob>& jobs, int64_t cpus) {
  return LoadOver(jobs, cpus, [](const SwfJob& j) { return j.submit_s; }, [](const SwfJob& j) {
    return j.run_s > 0 && j.processors > 0 ? static_cast<double>(j.run_s) * j.processors : 0.0;
  });
}

std::vector<ReplayJob> SwfQueueJobs(const std::vector<SwfJob>& trace, QueuePolicy policy, int64_t max_cpus,
                                    int64_t epoch, int64_t* skipped) {
  std::vector<ReplayJob> out;
  out.reserve(trace.size());
  *skipped = 0;
  for (const SwfJob& w : trace) {
    if (w.run_s <= 0 || w.processors <= 0 || w.processors > max_cpus) {
      ++*skipped;
      continue;
    }
    ReplayJob j;
    j.trace_id = w.id;
    j.arrival_s = epoch + w.submit_s;
    j.duration_s = w.run_s;
    j.cpus = w.processors;
    j.vc = w.queue >= 0 ? "q" + std::to_string(w.queue) : "q";
    if (policy == QueuePolicy::kFifoBackfill) {
      // A job that ran past its request was let run by its site: its limit holds what it ran.
      j.time_limit_s = std::max(w.requested_s, w.run_s);
    } else if (policy == QueuePolicy::kSjfOracle || policy == QueuePolicy::kSrtfOracle) {
      j.time_limit_s = j.duration_s;
    }
    out.push_back(std::move(j));
  }
  return out;
}

ReplayOptions QueueOptions(QueuePolicy policy, const ClusterSnapshot& cluster) {
  ReplayOptions o;
  ControllerConfig& c = o.controller;
  c.cluster_name = "philly";
  c.cluster = cluster;
  c.cluster.usage.clear();
  c.cluster.running.clear();
  c.kill_wait_s = 0;
  // Ranks come from the order alone: no fair share, age or size factors in the way.
  c.priority.weights = PriorityWeights{};
  c.priority.half_life_s = 0;
  SchedPolicy policy_set;
  policy_set.preemption.grace_time_s = 0;
  switch (policy) {
    case QueuePolicy::kFifo:
      c.scheduler.strict_priority = true;
      break;
    case QueuePolicy::kFifoBackfill:
      c.scheduler.strict_priority = true;
      c.scheduler.backfill = true;
      break;
    case QueuePolicy::kSjfOracle:
      c.scheduler.strict_priority = false;
      c.priority.order = JobOrderRegistry::Create("shortest-remaining");
      break;
    case QueuePolicy::kSrtfOracle:
      c.scheduler.strict_priority = false;
      c.priority.order = JobOrderRegistry::Create("shortest-remaining");
      policy_set.preemption.by_priority = true;
      c.scheduler.policy = std::make_shared<SchedPolicy>(policy_set);
      break;
    case QueuePolicy::kMuster:
      c.scheduler.strict_priority = false;
      c.priority.order = JobOrderRegistry::Create("least-attained");  // the default queue limits
      policy_set.preemption.by_priority = true;
      policy_set.preemption.exempt_time_s = 300;  // a job runs 5 minutes before it may be stopped
      c.scheduler.policy = std::make_shared<SchedPolicy>(policy_set);
      break;
  }
  return o;
}

}  // namespace muster
