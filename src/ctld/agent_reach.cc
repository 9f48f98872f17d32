#include "ctld/agent_reach.h"

namespace muster {

void AgentReach::Note(const std::string& node, int64_t now_ms) {
  MutexLock l(mu_);
  last_[node] = now_ms;
}

int64_t AgentReach::Count(int64_t now_ms) {
  MutexLock l(mu_);
  for (auto it = last_.begin(); it != last_.end();) {
    it = now_ms - it->second > window_ms_ ? last_.erase(it) : std::next(it);
  }
  return static_cast<int64_t>(last_.size());
}

std::optional<ControllerView> AgentReach::Successor(int64_t heard, const std::vector<ControllerView>& views,
                                                    const std::string& self) {
  std::optional<ControllerView> best;
  for (const ControllerView& v : views) {
    if (v.address == self || v.agents <= heard) continue;
    if (!best || v.agents > best->agents) best = v;
  }
  return best;
}

}  // namespace muster
