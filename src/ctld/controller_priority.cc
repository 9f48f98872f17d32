// Controller: usage charging, fair share and job priorities (sched/priority_policy.h).
#include <algorithm>
#include <set>
#include <string_view>
#include <utility>

#include "ctld/controller.h"

namespace muster {

void Controller::ChargeLocked(const JobRecord& job, int64_t now) {
  double gpus = 0, cpus = 0, memory_mb = 0;
  for (const NodeAllocation& a : job.allocation) {
    gpus += GpuUnits(a);
    if (job.suspend_time == 0) cpus += a.cpu_milli / 1000.0;  // a suspended job gave its CPUs back
    memory_mb += static_cast<double>(a.memory_mb);
  }
  const double rate = BillingRate(config_.priority.billing, gpus, cpus, memory_mb);
  priority_.Charge(job.id, job.account, job.user, rate, job.start_time, now);
  if (rate > 0) usage_dirty_ = true;
}

void Controller::ChargeRunningLocked(int64_t now) {
  for (const auto& [id, job] : active_) {
    if (HoldsResources(job->state) && job->start_time > 0) ChargeLocked(*job, now);
  }
}

Status Controller::SaveUsage() {
  std::string usage;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const int64_t now = clock_->NowSeconds();
    ChargeRunningLocked(now);
    usage = priority_.Save();
    usage_saved_at_ = now;
    usage_dirty_ = false;
  }
  return store_->SetMeta(kUsageKey, usage);
}

void Controller::RefreshPriorityLocked(int64_t now) {
  priority_stale_ = false;
  // The pairs as views first: most jobs share a few, and insert copies only a new one.
  std::set<std::pair<std::string_view, std::string_view>> pairs;
  for (const auto& [id, job] : active_) pairs.insert({job->account, job->user});
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& [account, user] : pairs) seen.emplace(account, user);
  priority_.Refresh(now, seen);
  // Priorities move with age and fair share: recomputed here, every second (Slurm's
  // PriorityCalcPeriod), and for each new job at submission, not in every scheduling pass.
  factors_.clear();
  for (const auto& [id, job] : active_) {
    if (job->state == JobState::kPending) PrioritizeLocked(*job, now);
  }
}

void Controller::PrioritizeLocked(JobRecord& j, int64_t now) {
  int tier = 0;
  for (const Partition& p : config_.cluster.partitions) {
    if (p.name == j.partition) tier = p.priority_tier;
  }
  PriorityJob pj{j.eligible_time, j.account, j.user, RequestedGpus(j.request), RequestedCpus(j.request), tier};
  if (config_.scheduler.policy != nullptr) {
    for (const Qos& q : config_.scheduler.policy->qos) {
      pj.max_qos_priority = std::max<int>(pj.max_qos_priority, static_cast<int>(q.priority));
    }
    if (const Qos* q = FindQos(config_.scheduler.policy->qos, j.qos)) pj.qos_priority = static_cast<int>(q->priority);
  }
  pj.nice = j.nice;
  const PriorityFactors f = priority_.Factors(pj, max_tier_, cluster_gpus_, cluster_cpus_, now);
  j.priority = priority_.Priority(f, j.nice);
  if (config_.priority.order != JobOrder::kMultifactor) j.priority = ServiceRankLocked(j, now);
  factors_[j.id] = f;
}

int64_t Controller::ServiceRankLocked(const JobRecord& j, int64_t now, int64_t* same_below_run_s) const {
  return ServicePriority(config_.priority, RequestedGpus(j.request), j.time_limit_s, RunSeconds(j, now), same_below_run_s);
}

void Controller::RefreshIfStaleLocked() {
  if (!priority_stale_) return;
  const int64_t now = clock_->NowSeconds();
  ChargeRunningLocked(now);
  RefreshPriorityLocked(now);
}

std::vector<FairShareRow> Controller::Shares() {
  std::lock_guard<std::mutex> lock(mu_);
  RefreshIfStaleLocked();
  return priority_.shares();
}

std::vector<Controller::JobPriority> Controller::PendingPriorities() {
  std::lock_guard<std::mutex> lock(mu_);
  RefreshIfStaleLocked();
  std::vector<JobPriority> out;
  for (const auto& [id, f] : factors_) {
    auto it = active_.find(id);
    if (it == active_.end() || it->second->state != JobState::kPending) continue;
    const JobRecord& j = *it->second;
    out.push_back({id, j.partition, j.user, j.account, j.priority, f});
  }
  return out;
}

}  // namespace muster
