#include "synthetic_cluster.h"

#include <cstdio>
#include <random>
#include <string>

#include "sched/cluster_builder.h"
#include "sched/scheduler.h"

namespace muster::bench {

namespace {


std::string Range(int first, int last) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "node[%05d-%05d]", first, last);
  return buf;
}

}  // namespace

ClusterSnapshot SyntheticCluster(int nodes, int nodes_per_leaf) {
  ClusterBuilder b;
  const char* layouts[] = {"nvswitch", "dgx1", "islands:2"};
  const char* models[] = {"h100", "v100", "a100"};
  const int leaves = (nodes + nodes_per_leaf - 1) / nodes_per_leaf;
  for (int l = 0; l < leaves; ++l) {
    const int first = l * nodes_per_leaf + 1;
    const int last = std::min(nodes, first + nodes_per_leaf - 1);
    NodeTemplate t;
    t.cpus = 128;
    t.memory_mb = 2048 * 1024;
    t.gpus = 8;
    t.layout = layouts[(l / 4) % 3];  // groups of 4 leaves share a hardware generation
    t.model = models[(l / 4) % 3];
    b.Nodes(Range(first, last), t);
    b.Leaf("leaf" + std::to_string(l + 1), Range(first, last));
  }
  const int spines = (leaves + 15) / 16;
  for (int s = 0; s < spines; ++s) {
    const int first = s * 16 + 1, last = std::min(leaves, first + 15);
    b.Spine("spine" + std::to_string(s + 1),
            "leaf[" + std::to_string(first) + "-" + std::to_string(last) + "]");
  }
  b.Partition("gpu", Range(1, nodes), true);
  return b.Build();
}

std::vector<PendingJob> SyntheticQueue(int count, uint64_t seed, int64_t first_id) {
  // Shares roughly as seen in GPU cluster traces (Philly/Helios: most jobs use 1 GPU, a few large).
  struct Shape {
    const char* opts;
    int weight;
  };
  static const Shape kShapes[] = {
      {"--gres=gpu:1 -c 8 --mem=64G", 40},  {"--gres=gpu:2 -c 16 --mem=128G", 12},
      {"--gres=gpu:4 -c 32 --mem=256G", 12}, {"--gres=gpu:8 -c 64 --mem=512G", 10},
      {"-N 2 --gres=gpu:8 -c 64", 4},        {"-N 4 --gres=gpu:8 -c 64", 3},
      {"-N 8 --gres=gpu:8 -c 64", 2},        {"--gpus=12", 2},
      {"--gpu-fraction=0.25 -c 2", 8},       {"--gpu-fraction=0.5 -c 4", 5},
      {"--gpu-memory=20G -c 2", 2},
  };
  std::vector<PendingJob> templates;
  std::vector<int> weights;
  for (const Shape& s : kShapes) {
    templates.push_back(MakeJob(0, s.opts));
    weights.push_back(s.weight);
  }
  std::mt19937_64 rng(seed);
  std::discrete_distribution<int> shape(weights.begin(), weights.end());
  std::uniform_int_distribution<int> prio(0, 1000);
  std::vector<PendingJob> out;
  out.reserve(count);
  for (int i = 0; i < count; ++i) {
    PendingJob j = templates[shape(rng)];
    j.id = first_id + i;
    j.priority = prio(rng);
    j.submit_time = i;
    out.push_back(std::move(j));
  }
  return out;
}

void Preload(ClusterSnapshot& cluster, double fraction, uint64_t seed) {
  int total = 0;
  for (const Node& n : cluster.nodes) total += static_cast<int>(n.gpus.size());
  // About 3 GPUs per job on average: ask for enough jobs to reach the fraction, then keep starts
  // until it is reached.
  std::vector<PendingJob> q = SyntheticQueue(static_cast<int>(total * fraction / 2.0) + 1, seed, 1000000000);
  std::vector<Decision> ds = RunCycle(cluster, q, SchedulerOptions{.strict_priority = false});
  double used = 0;
  std::mt19937_64 rng(seed + 1);
  std::uniform_int_distribution<int64_t> hours(1, 24);
  for (const Decision& d : ds) {
    if (d.kind != DecisionKind::kStart) continue;
    if (used >= total * fraction) break;
    ApplyAllocation(cluster, d.nodes);
    // As running jobs too (for backfill, limits and preemption): ends within a day, four teams.
    RunningJob r;
    r.id = d.job_id;
    r.start_time = cluster.now - 3600;
    r.end_time = cluster.now + hours(rng) * 3600;
    r.allocation = d.nodes;
    r.account = "team" + std::to_string(d.job_id % 4);
    r.user = "user" + std::to_string(d.job_id % 64);
    r.partition = cluster.partitions.empty() ? "" : cluster.partitions[0].name;
    cluster.running.push_back(std::move(r));
    for (const NodeAllocation& a : d.nodes) {
      for (const GpuShare& g : a.gpus) used += g.milli / 1000.0;
    }
  }
}

}  // namespace muster::bench
