// PolicyState: accounts, QOS and the sacctmgr changes; usage charging, fair share and job
// priorities (sched/priority_policy.h).
#include "ctld/policy_state.h"

#include <algorithm>
#include <set>
#include <string_view>

#include "ctld/usage_json.h"

namespace muster {

PolicyState::PolicyState(PrioritySettings settings, std::shared_ptr<const SchedPolicy> policy,
                         const ClusterSnapshot& cluster, int64_t usage_save_s)
    : settings_(std::move(settings)),
      usage_save_s_(usage_save_s),
      accounts_(std::make_shared<const AccountTree>(settings_.accounts)),
      policy_(std::move(policy)),
      base_accounts_(settings_.accounts),
      priority_(settings_) {
  for (const Node& n : cluster.nodes) {
    cluster_gpus_ += static_cast<double>(n.gpus.size());
    cluster_cpus_ += n.cpus;
  }
  for (const Partition& p : cluster.partitions) {
    max_tier_ = std::max(max_tier_, p.priority_tier);
    tiers_.emplace_back(p.name, p.priority_tier);
  }
  if (policy_ != nullptr) base_qos_ = policy_->qos;
}

PolicyState::InForce PolicyState::in_force() const {
  MutexLock lock(mu_);
  return InForce{accounts_, policy_};
}

std::shared_ptr<const SchedPolicy> PolicyState::scheduler_policy() const {
  MutexLock lock(mu_);
  return policy_;
}

SchedPolicy PolicyState::Policy() const {
  MutexLock lock(mu_);
  SchedPolicy p;
  if (policy_ != nullptr) p = *policy_;
  p.accounts = *accounts_;
  return p;
}

std::vector<std::string> PolicyState::warnings() const {
  MutexLock lock(mu_);
  return warnings_;
}

void PolicyState::InstallLocked(const AccountTree& tree, const std::vector<Qos>& qos) {
  auto policy = std::make_shared<SchedPolicy>();
  policy->accounts = tree;
  policy->qos = qos;
  if (policy_ != nullptr) policy->preemption = policy_->preemption;
  policy_ = std::move(policy);
  accounts_ = std::make_shared<const AccountTree>(tree);
  priority_.SetAccounts(tree);
}

Status PolicyState::Change(const PolicyOp& op, const std::function<Status(const std::string& stored)>& save) {
  MutexLock lock(mu_);
  AccountTree tree = *accounts_;
  std::vector<Qos> qos = policy_ != nullptr ? policy_->qos : std::vector<Qos>{};
  RETURN_IF_ERROR(ApplyPolicyOp(op, &tree, &qos));
  std::vector<PolicyOp> ops = ops_;
  ops.push_back(op);
  // Durable before it takes effect (a rare admin action: under the lock, in order).
  RETURN_IF_ERROR(save(PolicyOpsToJson(ops)));
  ops_ = std::move(ops);
  InstallLocked(tree, qos);
  return Status::Ok();
}

Status PolicyState::Replay(const std::string& stored) {
  StatusOr<std::vector<PolicyOp>> ops = PolicyOpsFromJson(stored);
  if (!ops.ok()) return ops.status();
  MutexLock lock(mu_);
  AccountTree tree = base_accounts_;
  std::vector<Qos> qos = base_qos_;
  ops_.clear();
  for (const PolicyOp& op : *ops) {
    Status st = ApplyPolicyOp(op, &tree, &qos);
    if (!st.ok()) {
      warnings_.push_back("stored change '" + op.verb + " " + op.entity + " " + op.name +
                          "' no longer applies to muster.yaml: " + st.message() + "; dropped");
      continue;
    }
    ops_.push_back(op);
  }
  InstallLocked(tree, qos);
  return Status::Ok();
}

void PolicyState::ChargeLocked(const JobRecord& job, int64_t now) {
  double gpus = 0, cpus = 0, memory_mb = 0;
  for (const NodeAllocation& a : job.allocation) {
    gpus += GpuUnits(a);
    if (job.suspend_time == 0) cpus += a.cpu_milli / 1000.0;  // a suspended job gave its CPUs back
    memory_mb += static_cast<double>(a.memory_mb);
  }
  const double rate = BillingRate(settings_.billing, gpus, cpus, memory_mb);
  priority_.Charge(job.id, job.account, job.user, rate, job.start_time, now);
  if (rate > 0) usage_dirty_ = true;
}

void PolicyState::ChargeRunningLocked(const ActiveJobs& active, int64_t now) {
  for (const auto& [id, job] : active) {
    if (HoldsResources(job->state) && job->start_time > 0) ChargeLocked(*job, now);
  }
}

void PolicyState::Charge(const JobRecord& job, int64_t now) {
  MutexLock lock(mu_);
  ChargeLocked(job, now);
}

void PolicyState::Ended(const JobRecord& job) {
  MutexLock lock(mu_);
  if (job.start_time > 0) ChargeLocked(job, job.end_time);
  priority_.Forget(job.id);
  factors_.erase(job.id);
}

void PolicyState::Requeued(const JobRecord& job, int64_t now) {
  MutexLock lock(mu_);
  if (job.start_time > 0) ChargeLocked(job, now);  // the run so far counts
  priority_.Forget(job.id);
}

Status PolicyState::RestoreUsage(const std::string& saved) {
  MutexLock lock(mu_);
  ASSIGN_OR_RETURN(PriorityPolicy::Saved usage, ParseUsageJson(saved));
  priority_.Restore(usage);
  return Status::Ok();
}

std::string PolicyState::SaveUsage(const ActiveJobs& active, int64_t now) {
  MutexLock lock(mu_);
  ChargeRunningLocked(active, now);
  usage_saved_at_ = now;
  usage_dirty_ = false;
  return UsageJson(priority_.Save());
}

void PolicyState::UsageSaveFailed() {
  MutexLock lock(mu_);
  usage_dirty_ = true;
  usage_saved_at_ = 0;
}

std::string PolicyState::Tick(const ActiveJobs& active, int64_t now) {
  MutexLock lock(mu_);
  std::string usage;
  // Running jobs are charged when their usage is read, as Slurm's decay thread does: every
  // PriorityCalcPeriod for fair share, and when it is saved (and each job as it ends).
  const bool refresh = now - calc_at_ >= settings_.calc_period_s;
  const bool save = now - usage_saved_at_ >= usage_save_s_;
  if (refresh || save) ChargeRunningLocked(active, now);
  if (refresh) {
    // Under an order that does not rank by the multifactor priority a waiting job's priority is
    // its rank alone: the factors and the fair-share tree are read only by sprio and sshare,
    // which refresh them when asked (most of a Tick's time in a Philly replay).
    if (settings_.order->ranks_by_multifactor()) {
      RefreshLocked(active, now);
    } else {
      for (const auto& [id, job] : active) {
        if (job->state == JobState::kPending) job->priority = job->held ? 0 : Rank(*job, now);
      }
      stale_ = true;
    }
    calc_at_ = now;
  }
  if (save) {  // (every usage_save_s, charged or not: else an idle spell would charge every Tick)
    if (usage_dirty_) usage = UsageJson(priority_.Save());
    usage_saved_at_ = now;
    usage_dirty_ = false;
  }
  return usage;
}

void PolicyState::RefreshPriorities(const ActiveJobs& active, int64_t now) {
  MutexLock lock(mu_);
  RefreshLocked(active, now);
}

void PolicyState::RefreshLocked(const ActiveJobs& active, int64_t now) {
  stale_ = false;
  // The pairs as views first: most jobs share a few, and insert copies only a new one.
  std::set<std::pair<std::string_view, std::string_view>> pairs;
  for (const auto& [id, job] : active) pairs.insert({job->account, job->user});
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& [account, user] : pairs) seen.emplace(account, user);
  priority_.Refresh(now, seen);
  // Priorities move with age and fair share: recomputed here, every second (Slurm's
  // PriorityCalcPeriod), and for each new job at submission, not in every scheduling pass.
  factors_.clear();
  for (const auto& [id, job] : active) {
    if (job->state == JobState::kPending) PrioritizeLocked(*job, now);
  }
}

void PolicyState::RefreshIfStaleLocked(const ActiveJobs& active, int64_t now) {
  if (!stale_) return;
  ChargeRunningLocked(active, now);
  RefreshLocked(active, now);
}

void PolicyState::Prioritize(JobRecord& job, int64_t now) {
  MutexLock lock(mu_);
  PrioritizeLocked(job, now);
}

void PolicyState::PrioritizeLocked(JobRecord& j, int64_t now) {
  if (j.held) {  // Slurm's mark of a held job, which sprio leaves out
    j.priority = 0;
    factors_.erase(j.id);
    return;
  }
  int tier = 0;
  for (const auto& [name, t] : tiers_) {
    if (name == j.partition) tier = t;
  }
  PriorityJob pj{j.eligible_time, j.account, j.user, RequestedGpus(j.request), RequestedCpus(j.request), tier};
  if (policy_ != nullptr) {
    for (const Qos& q : policy_->qos) {
      pj.max_qos_priority = std::max<int>(pj.max_qos_priority, static_cast<int>(q.priority));
    }
    if (const Qos* q = FindQos(policy_->qos, j.qos)) pj.qos_priority = static_cast<int>(q->priority);
  }
  pj.nice = j.nice;
  const PriorityFactors f = priority_.Factors(pj, max_tier_, cluster_gpus_, cluster_cpus_, now);
  j.priority = priority_.Priority(f, j.nice);
  j.priority = Rank(j, now);
  factors_[j.id] = f;
}

std::vector<FairShareRow> PolicyState::Shares(const ActiveJobs& active, int64_t now) {
  MutexLock lock(mu_);
  RefreshIfStaleLocked(active, now);
  return priority_.shares();
}

std::map<int64_t, PriorityFactors> PolicyState::PendingFactors(const ActiveJobs& active, int64_t now) {
  MutexLock lock(mu_);
  RefreshIfStaleLocked(active, now);
  return factors_;
}

int64_t PolicyState::Rank(const JobRecord& j, int64_t now, int64_t* same_below_run_s) const {
  const OrderedJob job{j.priority, RequestedGpus(j.request), j.time_limit_s, RunSeconds(j, now)};
  return settings_.order->Rank(settings_, job, same_below_run_s);
}

}  // namespace muster
