// The GPUs' utilization the agents' heartbeats last carried (model/node_report.h GpuUtilization), kept in
// memory only, for the dashboard's cluster view. Thread-safe, its own lock.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "model/node_report.h"

namespace muster {

struct NodeGpuUsage {
  int64_t at = 0;  // when the heartbeat came, seconds since the epoch
  std::vector<GpuUtilization> gpus;
};

class GpuUsageBoard {
 public:
  // A heartbeat's figures replace the node's; a heartbeat without any drops them.
  void Set(const std::string& node, int64_t at, const std::optional<std::vector<GpuUtilization>>& gpus);
  // Every node's, as of now; those older than `max_age_s` at `now` are left out.
  std::map<std::string, NodeGpuUsage> Recent(int64_t now, int64_t max_age_s) const;

 private:
  mutable Mutex mu_{"gpu usage board", LockRank::kStats};
  std::map<std::string, NodeGpuUsage> nodes_ GUARDED_BY(mu_);
};

}  // namespace muster
