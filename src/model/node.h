// Node: a compute node as the scheduler sees it (capacity, not usage). Plain value type.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/gpu.h"
#include "model/gpu_links.h"

namespace muster {

// Slurm's base node states (flags such as DRAIN are kept separately).
enum class NodeState { kIdle, kMixed, kAllocated, kCompleting, kDown, kFuture, kUnknown };

const char* NodeStateName(NodeState s);  // "idle", "mix", "alloc", ... as sinfo prints them

struct Node {
  std::string name;
  int cpus = 1;
  int sockets = 1;
  int cores_per_socket = 1;
  int threads_per_core = 1;
  int numa_nodes = 1;            // CPUs split evenly across NUMA nodes in index order
  int64_t memory_mb = 0;         // schedulable real memory
  int64_t tmp_disk_mb = 0;       // temporary disk (slurm.conf TmpDisk=): what --tmp asks for
  std::vector<std::string> features;  // for --constraint
  NodeState state = NodeState::kIdle;
  bool drain = false;            // DRAIN flag: no new work
  std::string reason;            // why down/drained
  std::string reason_user;       // who set the reason (sinfo -R USER); "" = unknown
  int64_t reason_time = 0;       // when (sinfo -R TIMESTAMP); 0 = unknown
  std::vector<Gpu> gpus;
  GpuLinkMatrix links;           // size() == gpus.size() (or 0: treated as PCIe only)

  // True when new work may be placed on the node.
  bool schedulable() const {
    return !drain && state != NodeState::kDown && state != NodeState::kFuture && state != NodeState::kUnknown;
  }
  bool has_feature(const std::string& f) const;

  friend bool operator==(const Node&, const Node&) = default;
};

// A --constraint expression: features joined by '&' (and) and '|' (or; '&' binds tighter), as
// the OR of its AND-terms ("a&b|c" -> {{a, b}, {c}}); "" -> {} (no constraint). Errors for
// syntax Muster does not support (brackets, counts) and empty names.
StatusOr<std::vector<std::vector<std::string>>> ParseConstraint(const std::string& expr);
// Whether `node` satisfies parsed `terms` (no terms: it does).
bool SatisfiesConstraint(const Node& node, const std::vector<std::vector<std::string>>& terms);

}  // namespace muster
