#include "sched/priority_policy.h"

#include <algorithm>

namespace muster {

double RequestedGpus(const JobRequest& r) {
  const int nodes = std::max(1, r.min_nodes);
  const int tasks = std::max(1, r.ntasks);
  if (r.wants_fraction()) return r.gpu_milli > 0 ? r.gpu_milli / static_cast<double>(kMilliPerGpu) : 1.0;
  if (r.gpus_total > 0) return r.gpus_total;
  if (r.gpus_per_node > 0) return static_cast<double>(r.gpus_per_node) * nodes;
  if (r.gpus_per_task > 0) return static_cast<double>(r.gpus_per_task) * tasks;
  return 0;
}

double RequestedCpus(const JobRequest& r) {
  int tasks = r.ntasks;
  if (tasks <= 0) tasks = std::max(1, r.min_nodes) * std::max(1, r.ntasks_per_node);
  return static_cast<double>(tasks) * std::max(1, r.cpus_per_task);
}

PriorityPolicy::PriorityPolicy(PrioritySettings settings)
    : settings_(std::move(settings)), usage_(settings_.half_life_s) {}

void PriorityPolicy::Charge(int64_t job_id, const std::string& account, const std::string& user, double rate,
                            int64_t start, int64_t now) {
  auto [it, fresh] = charged_through_.try_emplace(job_id, start);
  const int64_t from = std::max(it->second, start);
  if (now > from && rate > 0) usage_.Charge(account, user, rate * static_cast<double>(now - from), now);
  it->second = std::max(from, now);
}

void PriorityPolicy::Forget(int64_t job_id) { charged_through_.erase(job_id); }

void PriorityPolicy::Refresh(int64_t now, const std::set<std::pair<std::string, std::string>>& seen) {
  AccountTree tree = settings_.accounts;
  std::set<std::string> accounts;
  std::set<std::pair<std::string, std::string>> members;
  for (const Account& a : tree.accounts) accounts.insert(a.name);
  for (const UserAssociation& u : tree.users) members.emplace(u.account, u.user);
  std::set<std::pair<std::string, std::string>> all = seen;
  for (const UsageLedger::Entry& e : usage_.Entries(now)) all.emplace(e.account, e.user);
  for (const auto& [account, user] : all) {
    if (user.empty() || members.count({account, user})) continue;
    if (!account.empty() && accounts.insert(account).second) tree.accounts.push_back({account, "", 1});
    tree.users.push_back({user, account, 1});
    members.emplace(account, user);
  }
  StatusOr<std::vector<FairShareRow>> rows = ComputeFairTree(tree, usage_, now);
  // The configured tree was validated when read; implicit additions cannot break it.
  rows_ = rows.ok() ? std::move(*rows) : std::vector<FairShareRow>();
  factor_.clear();
  for (const FairShareRow& r : rows_) {
    if (!r.user.empty()) factor_[{r.account, r.user}] = r.fairshare;
  }
}

double PriorityPolicy::FairShare(const std::string& account, const std::string& user) const {
  auto it = factor_.find({account, user});
  return it == factor_.end() ? 1.0 : it->second;
}

PriorityFactors PriorityPolicy::Factors(const PriorityJob& job, int max_partition_tier, double cluster_gpus,
                                        double cluster_cpus, int64_t now) const {
  PriorityInputs in;
  in.eligible_time = job.eligible_time;
  in.fairshare = FairShare(job.account, job.user);
  in.gpus = job.gpus;
  in.cpus = job.cpus;
  in.cluster_gpus = cluster_gpus;
  in.cluster_cpus = cluster_cpus;
  in.partition_tier = job.partition_tier;
  in.max_partition_tier = max_partition_tier;
  in.qos_priority = job.qos_priority;
  in.max_qos_priority = job.max_qos_priority;
  return ComputeFactors(in, settings_.weights, now);
}

int64_t PriorityPolicy::Priority(const PriorityFactors& f, int64_t nice) const {
  PriorityInputs in;
  in.nice = nice;
  return CombinePriority(f, settings_.weights, in);
}

PriorityPolicy::Saved PriorityPolicy::Save() const {
  Saved out;
  out.usage = usage_.Save();
  out.charged_through.assign(charged_through_.begin(), charged_through_.end());
  std::sort(out.charged_through.begin(), out.charged_through.end());
  return out;
}

void PriorityPolicy::Restore(const Saved& saved) {
  usage_.Restore(saved.usage);
  charged_through_.clear();
  charged_through_.insert(saved.charged_through.begin(), saved.charged_through.end());
}

}  // namespace muster
