// Synthetic clusters and queues for benchmarks: realistic 8-GPU nodes (NVSwitch H100, DGX-1 V100
// hybrid cube-mesh, A100 pairs of NVLink islands) under a 2-level switch tree, and queues of
// mixed job shapes from 1 GPU to 64-GPU gangs, plus fractions. Deterministic for a seed.
#pragma once

#include <cstdint>
#include <vector>

#include "sched/cluster_snapshot.h"

namespace muster::bench {

// `nodes` nodes named node00001..., `nodes_per_leaf` per leaf switch, 16 leaves per spine.
ClusterSnapshot SyntheticCluster(int nodes, int nodes_per_leaf = 32);

// `count` jobs of mixed shapes with ids starting at `first_id`, random priorities.
std::vector<PendingJob> SyntheticQueue(int count, uint64_t seed, int64_t first_id = 1);

// Fills the cluster to about `fraction` of its GPUs by scheduling a synthetic queue and keeping
// the started jobs as running usage and running jobs (ending within a day; accounts team0-3).
void Preload(ClusterSnapshot& cluster, double fraction, uint64_t seed);

}  // namespace muster::bench
