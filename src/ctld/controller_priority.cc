// Controller: the priority queries (sshare, sprio) and saving the usage; the policy part
// (ctld/policy_state.h) does the work over the controller's jobs.
#include "ctld/controller.h"

namespace muster {

Status Controller::SaveUsage() {
  std::string usage;
  {
    JobsLock lock(this);
    usage = policy_.SaveUsage(jobs_.active(), clock_->NowSeconds());
  }
  return store_->SetMeta(kUsageKey, usage);
}

std::vector<FairShareRow> Controller::Shares() {
  JobsLock lock(this);
  return policy_.Shares(jobs_.active(), clock_->NowSeconds());
}

std::vector<Controller::JobPriority> Controller::PendingPriorities() {
  JobsLock lock(this);
  const int64_t now = clock_->NowSeconds();
  const std::map<int64_t, PriorityFactors> factors = policy_.PendingFactors(jobs_.active(), now);
  std::vector<JobPriority> out;
  for (const auto& [id, f] : factors) {
    const JobRecord* active = jobs_.FindActive(id);
    if (active == nullptr || active->state != JobState::kPending) continue;
    const JobRecord& j = *active;
    // As Slurm's sprio: not a held job (priority 0), nor one not yet eligible (--begin ahead).
    if (j.held || j.begin_time > now) continue;
    out.push_back({id, j.partition, j.user, j.account, j.priority, f});
  }
  return out;
}

}  // namespace muster
