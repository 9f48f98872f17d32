#include "model/cluster_spec.h"

#include <string>
#include <unordered_set>

namespace muster {

Status ClusterSpec::Validate() const {
  std::unordered_set<std::string> names;
  for (const Node& n : nodes) {
    if (n.name.empty()) return InvalidArgument("a node has no name");
    if (!names.insert(n.name).second) return InvalidArgument("node '" + n.name + "' is defined twice");
    if (n.cpus <= 0) return InvalidArgument("node '" + n.name + "' has no CPUs");
    if (n.memory_mb < 0) return InvalidArgument("node '" + n.name + "' has negative memory");
    if (n.gpus.size() > 64) return InvalidArgument("node '" + n.name + "' has more than 64 GPUs");
    for (size_t g = 0; g < n.gpus.size(); ++g) {
      if (n.gpus[g].index != static_cast<int>(g)) {
        return InvalidArgument("node '" + n.name + "': GPU " + std::to_string(g) + " has index " +
                               std::to_string(n.gpus[g].index));
      }
    }
    if (n.links.size() != 0 && n.links.size() != static_cast<int>(n.gpus.size())) {
      return InvalidArgument("node '" + n.name + "': link matrix is " + std::to_string(n.links.size()) + "x" +
                             std::to_string(n.links.size()) + " for " + std::to_string(n.gpus.size()) + " GPUs");
    }
  }
  std::unordered_set<std::string> pnames;
  for (const Partition& p : partitions) {
    if (!pnames.insert(p.name).second) return InvalidArgument("partition '" + p.name + "' is defined twice");
    for (const std::string& n : p.nodes) {
      if (!names.count(n)) return InvalidArgument("partition '" + p.name + "' names unknown node '" + n + "'");
    }
  }
  return Status::Ok();
}

}  // namespace muster
