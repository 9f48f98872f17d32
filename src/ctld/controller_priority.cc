// Controller: the priority queries (sshare, sprio) and saving the usage; the policy part
// (ctld/policy_state.h) does the work over the controller's jobs.
#include "ctld/controller.h"

namespace muster {

Status Controller::SaveUsage() {
  std::string usage;
  {
    std::lock_guard<std::mutex> lock(mu_);
    usage = policy_.SaveUsage(active_, clock_->NowSeconds());
  }
  return store_->SetMeta(kUsageKey, usage);
}

std::vector<FairShareRow> Controller::Shares() {
  std::lock_guard<std::mutex> lock(mu_);
  return policy_.Shares(active_, clock_->NowSeconds());
}

std::vector<Controller::JobPriority> Controller::PendingPriorities() {
  std::lock_guard<std::mutex> lock(mu_);
  const std::map<int64_t, PriorityFactors> factors = policy_.PendingFactors(active_, clock_->NowSeconds());
  std::vector<JobPriority> out;
  for (const auto& [id, f] : factors) {
    auto it = active_.find(id);
    if (it == active_.end() || it->second->state != JobState::kPending) continue;
    const JobRecord& j = *it->second;
    out.push_back({id, j.partition, j.user, j.account, j.priority, f});
  }
  return out;
}

}  // namespace muster
