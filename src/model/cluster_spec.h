// ClusterSpec: a cluster as configured: its nodes, partitions and network topology, as the
// cluster file (or slurm.conf) describes them. Every process reads it (the agents find their own
// node in it); the scheduler's view of a moment (sched/cluster_snapshot.h) is one with usage and
// running jobs added.
#pragma once

#include <cstdint>
#include <vector>

#include "base/status.h"
#include "model/node.h"
#include "model/partition.h"
#include "model/topology.h"

namespace muster {

// What running jobs hold of one GPU, in thousandths.
struct GpuUsage {
  int milli = 0;  // 0..1000 of the GPU in use (1000 = whole GPU)
  friend bool operator==(const GpuUsage&, const GpuUsage&) = default;
};

// What running jobs already hold on a node.
struct NodeUsage {
  int64_t cpu_milli = 0;
  int64_t memory_mb = 0;
  std::vector<GpuUsage> gpus;  // empty = all GPUs free; else one entry per GPU
  int jobs = 0;                // number of jobs on the node (an --exclusive job needs 0)
  bool exclusive = false;      // held whole by an --exclusive job
  friend bool operator==(const NodeUsage&, const NodeUsage&) = default;
};

struct ClusterSpec {
  std::vector<Node> nodes;
  std::vector<Partition> partitions;
  Topology topology;

  // Checks internal consistency (unique names, CPUs, GPU indexes and link matrices sized to the
  // GPUs, at most 64 GPUs a node, partitions naming known nodes). Errors name the node or
  // partition.
  Status Validate() const;
};

}  // namespace muster
