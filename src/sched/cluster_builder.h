// ClusterBuilder: builds ClusterSnapshots and pending jobs from short, Slurm-like descriptions,
// for tests, benchmarks and demos:
//
//   ClusterSnapshot c = ClusterBuilder()
//       .Nodes("gpu[01-08]", {.gpus = 8, .layout = "nvswitch"})
//       .Leaf("leaf1", "gpu[01-04]").Leaf("leaf2", "gpu[05-08]").Spine("spine", "leaf[1-2]")
//       .Partition("gpu", "gpu[01-08]", /*is_default=*/true)
//       .Build();
//   PendingJob j = MakeJob(7, "-N 2 --gres=gpu:8");
//
// Misuse (bad hostlists, unknown layouts) CHECK-fails: inputs are the programmer's, not a user's.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sched/cluster_snapshot.h"

namespace muster {

struct NodeTemplate {
  int cpus = 64;
  int sockets = 2;
  int64_t memory_mb = 512 * 1024;
  int gpus = 8;
  std::string model = "h100";
  int64_t gpu_memory_mb = 81920;
  std::string layout = "nvswitch";  // GpuLinkMatrix::Parse spec
  int numa_nodes = 2;               // GPUs split evenly across NUMA nodes in index order
  std::vector<std::string> features;
  std::vector<std::string> mig_profiles;  // non-empty: the node's GPUs are these MIG slices instead
  int64_t mig_memory_mb = 0;              // memory of each slice
};

// A DGX-like node: 64 CPUs, 1 TiB, 8 GPUs linked as `layout` (the tests' usual node).
NodeTemplate DgxNode(std::string layout = "nvswitch");

class ClusterBuilder {
 public:
  ClusterBuilder& Nodes(const std::string& hostlist, const NodeTemplate& t);
  ClusterBuilder& Leaf(const std::string& name, const std::string& node_hostlist);
  ClusterBuilder& Spine(const std::string& name, const std::string& switch_hostlist);
  ClusterBuilder& Partition(const std::string& name, const std::string& node_hostlist, bool is_default = false);
  ClusterBuilder& SetPartition(const std::string& name, const std::function<void(muster::Partition&)>& edit);
  // Marks a node down or drained.
  ClusterBuilder& Down(const std::string& node);
  ClusterBuilder& Drain(const std::string& node);
  // Existing usage: CPUs, memory and per-GPU milli (index -> milli) of already running work.
  ClusterBuilder& Use(const std::string& node, int cpus, int64_t memory_mb, const std::vector<int>& gpu_milli);
  ClusterSnapshot Build() const;

 private:
  ClusterSnapshot c_;
  std::string topology_;
};

// A pending job from sbatch-style options split on spaces, e.g. "-N 2 --gres=gpu:8 -p gpu".
PendingJob MakeJob(int64_t id, const std::string& options, int64_t priority = 0, int64_t submit_time = 0);

}  // namespace muster
