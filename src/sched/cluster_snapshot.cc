#include "sched/cluster_snapshot.h"

#include <unordered_set>

namespace muster {

Status ClusterSnapshot::Validate() const {
  RETURN_IF_ERROR(ClusterSpec::Validate());
  if (!usage.empty()) {
    if (usage.size() != nodes.size()) return InvalidArgument("usage must list every node or none");
    for (size_t i = 0; i < nodes.size(); ++i) {
      const Node& n = nodes[i];
      const NodeUsage& u = usage[i];
      if (u.cpu_milli < 0 || u.cpu_milli > int64_t{n.cpus} * 1000) {
        return InvalidArgument("node '" + n.name + "': CPU usage out of range");
      }
      if (u.memory_mb < 0 || u.memory_mb > n.memory_mb) {
        return InvalidArgument("node '" + n.name + "': memory usage out of range");
      }
      if (u.gpus.size() > n.gpus.size()) return InvalidArgument("node '" + n.name + "': usage for unknown GPUs");
      for (const GpuUsage& g : u.gpus) {
        if (g.milli < 0 || g.milli > 1000) return InvalidArgument("node '" + n.name + "': GPU usage out of range");
      }
    }
  }
  return Status::Ok();
}

}  // namespace muster

#include <unordered_map>

#include "sched/decision.h"

namespace muster {

void ApplyAllocation(ClusterSnapshot& snapshot, const std::vector<NodeAllocation>& allocation) {
  if (snapshot.usage.empty()) snapshot.usage.resize(snapshot.nodes.size());
  for (const NodeAllocation& a : allocation) {
    size_t i = 0;
    while (i < snapshot.nodes.size() && snapshot.nodes[i].name != a.node) ++i;
    MUSTER_CHECK(i < snapshot.nodes.size()) << "allocation on unknown node " << a.node;
    NodeUsage& u = snapshot.usage[i];
    u.cpu_milli += a.cpu_milli;
    u.memory_mb += a.memory_mb;
    u.jobs += 1;
    u.exclusive = u.exclusive || a.exclusive;
    if (u.gpus.size() < snapshot.nodes[i].gpus.size()) u.gpus.resize(snapshot.nodes[i].gpus.size());
    for (const GpuShare& g : a.gpus) u.gpus[g.index].milli += g.milli;
  }
}

}  // namespace muster
