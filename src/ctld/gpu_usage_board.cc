#include "ctld/gpu_usage_board.h"

namespace muster {

void GpuUsageBoard::Set(const std::string& node, int64_t at, const std::optional<std::vector<GpuUtilization>>& gpus) {
  MutexLock lock(mu_);
  if (!gpus) {
    nodes_.erase(node);
    return;
  }
  nodes_[node] = NodeGpuUsage{at, *gpus};
}

std::map<std::string, NodeGpuUsage> GpuUsageBoard::Recent(int64_t now, int64_t max_age_s) const {
  MutexLock lock(mu_);
  std::map<std::string, NodeGpuUsage> out;
  for (const auto& [node, u] : nodes_) {
    if (now - u.at <= max_age_s) out.emplace(node, u);
  }
  return out;
}

}  // namespace muster
