#include "sched/preemption.h"

#include <algorithm>
#include <string_view>

namespace muster {

namespace {

std::string QosName(const std::string& q) { return q.empty() ? kDefaultQosName : q; }
std::string_view QosNameView(const std::string& q) { return q.empty() ? std::string_view(kDefaultQosName) : std::string_view(q); }
std::string AccountName(const std::string& a) { return a.empty() ? "root" : a; }

// Quotas are compared on GPUs for a job that asks for GPUs (as the queue order divides them),
// on CPUs and memory for one that does not: a queue file with `cpu: {quota: 0}` beside its GPU
// quota must not stop its GPU jobs from reclaiming.
TresAmounts Dimensions(const TresAmounts& quota, bool gpus) {
  TresAmounts q = quota;
  if (gpus) {
    q.cpus = q.memory_mb = kUnlimited;
  } else {
    q.gpus = kUnlimited;
  }
  return q;
}

// Whether adding `add` to `used` keeps every resource `quota` sets within it (quota in whole
// units, usage in milli for GPUs and CPUs).
bool WithinQuota(const UseTotals& used, const JobUse& add, const TresAmounts& quota) {
  if (quota.gpus != kUnlimited && used.gpu_milli + add.gpu_milli > quota.gpus * 1000) return false;
  if (quota.cpus != kUnlimited && used.cpu_milli + add.cpu_milli > quota.cpus * 1000) return false;
  if (quota.memory_mb != kUnlimited && used.memory_mb + add.memory_mb > quota.memory_mb) return false;
  return true;
}

// Whether taking `victim` away leaves `used` at or above `quota` on every resource the victim
// holds that has a quota, and `used` is over the quota on at least one of them (it borrows).
bool BorrowsBeyond(const UseTotals& used, const JobUse& victim, const TresAmounts& quota) {
  bool borrows = false;
  auto check = [&](int64_t q, int64_t u, int64_t v) {
    if (q == kUnlimited || v <= 0) return true;
    if (u - v < q) return false;
    borrows = true;
    return true;
  };
  return check(quota.gpus == kUnlimited ? kUnlimited : quota.gpus * 1000, used.gpu_milli, victim.gpu_milli) &&
         check(quota.cpus == kUnlimited ? kUnlimited : quota.cpus * 1000, used.cpu_milli, victim.cpu_milli) &&
         check(quota.memory_mb, used.memory_mb, victim.memory_mb) && borrows;
}

}  // namespace

PreemptionPolicy::PreemptionPolicy(const SchedPolicy& policy) : policy_(policy) {
  for (const Account& a : policy.accounts.accounts) any_quota_ = any_quota_ || a.quota.any();
  bool qos_rules = false;
  for (const Qos& q : policy.qos) qos_rules = qos_rules || !q.preempt.empty();
  const PreemptionSettings& s = policy.preemption;
  other_rules_ = (s.by_qos && qos_rules) || s.by_partition_tier || (s.reclaim_quota && any_quota_);
  enabled_ = other_rules_ || s.by_priority;
}

PreemptMode PreemptionPolicy::ModeOf(const std::string& victim_qos, const Partition* partition) const {
  const Qos* q = FindQos(policy_.qos, victim_qos);
  if (q != nullptr && q->has_preempt_mode) return q->preempt_mode;
  if (partition != nullptr && partition->has_preempt_mode) return partition->preempt_mode;
  return policy_.preemption.mode;
}

int64_t PreemptionPolicy::GraceOf(const std::string& victim_qos, const Partition* partition) const {
  const Qos* q = FindQos(policy_.qos, victim_qos);
  if (q != nullptr && q->grace_time_s != kUnlimited) return q->grace_time_s;
  if (partition != nullptr && partition->grace_time_s != kUnlimited) return partition->grace_time_s;
  return policy_.preemption.grace_time_s;
}

int64_t PreemptionPolicy::ExemptOf(const std::string& victim_qos) const {
  const Qos* q = FindQos(policy_.qos, victim_qos);
  return q != nullptr && q->preempt_exempt_time_s != kUnlimited ? q->preempt_exempt_time_s
                                                                : policy_.preemption.exempt_time_s;
}

bool PreemptionPolicy::MayPreemptAny(const PreemptParty& p, const LimitGate& usage, int min_tier,
                                     int64_t min_priority) const {
  if (!enabled_) return false;
  const PreemptionSettings& s = policy_.preemption;
  if (s.by_priority && p.priority > min_priority) return true;
  if (s.by_qos) {
    const Qos* q = FindQos(policy_.qos, p.use.qos);
    if (q != nullptr && !q->preempt.empty()) return true;
  }
  if (s.by_partition_tier && p.partition_tier > min_tier) return true;
  if (!s.reclaim_quota || !any_quota_) return false;
  // Reclaim needs some queue over its quota, and the job's own branch within its quota.
  const bool gpus = p.use.gpu_milli > 0;
  bool someone_borrows = false;
  for (const Account& a : policy_.accounts.accounts) {
    const TresAmounts q = Dimensions(a.quota, gpus);
    if (!q.any()) continue;
    const UseTotals u = usage.AccountUse(a.name);
    if ((q.gpus != kUnlimited && u.gpu_milli > q.gpus * 1000) || (q.cpus != kUnlimited && u.cpu_milli > q.cpus * 1000) ||
        (q.memory_mb != kUnlimited && u.memory_mb > q.memory_mb)) {
      someone_borrows = true;
      break;
    }
  }
  if (!someone_borrows) return false;
  for (const Account* a : policy_.accounts.Path(p.use.account)) {
    const TresAmounts q = Dimensions(a->quota, gpus);
    if (q.any() && !WithinQuota(usage.AccountUse(a->name), p.use, q)) return false;
  }
  return true;
}

bool PreemptionPolicy::May(const PreemptParty& p, const PreemptParty& v, const LimitGate& usage, int64_t now) const {
  return Exposed(v, now) && MayExposed(p, v, usage);
}

bool PreemptionPolicy::Exposed(const PreemptParty& v, int64_t now) const {
  return enabled_ && Exposed(ModeOf(v.use.qos, v.partition), ExemptOf(v.use.qos), v.start_time, now);
}

const Qos* PreemptionPolicy::PreemptorQos(const PreemptParty& p) const {
  return policy_.preemption.by_qos ? FindQos(policy_.qos, p.use.qos) : nullptr;
}

bool PreemptionPolicy::MayExposedByOthers(const PreemptParty& p, const PreemptParty& v, const LimitGate& usage,
                                          const Qos* pq) const {
  const PreemptionSettings& s = policy_.preemption;
  if (s.by_partition_tier && p.partition_tier > v.partition_tier) return true;
  if (s.by_qos && pq != nullptr && !pq->preempt.empty() &&
      std::find(pq->preempt.begin(), pq->preempt.end(), QosNameView(v.use.qos)) != pq->preempt.end()) {
    return true;
  }
  if (s.reclaim_quota && any_quota_) return !ReclaimWhy(p.use, v.use, usage).empty();
  return false;
}

std::string PreemptionPolicy::Why(const PreemptParty& p, const PreemptParty& v, const LimitGate& usage,
                                  int64_t now) const {
  if (!enabled_) return "";
  if (ModeOf(v.use.qos, v.partition) == PreemptMode::kOff) return "";
  if (now - v.start_time < ExemptOf(v.use.qos)) return "";
  const PreemptionSettings& s = policy_.preemption;
  if (s.by_qos) {
    const Qos* pq = FindQos(policy_.qos, p.use.qos);
    const std::string vq = QosName(v.use.qos);
    if (pq != nullptr && std::find(pq->preempt.begin(), pq->preempt.end(), vq) != pq->preempt.end()) {
      return "QOS " + pq->name + " preempts QOS " + vq;
    }
  }
  if (s.by_partition_tier && p.partition_tier > v.partition_tier) {
    return "partition tier " + std::to_string(p.partition_tier) + " preempts tier " +
           std::to_string(v.partition_tier);
  }
  if (s.by_priority && p.priority > v.priority) {
    return "priority " + std::to_string(p.priority) + " preempts priority " + std::to_string(v.priority);
  }
  if (s.reclaim_quota && any_quota_) return ReclaimWhy(p.use, v.use, usage);
  return "";
}

std::string PreemptionPolicy::ReclaimWhy(const JobUse& p, const JobUse& v, const LimitGate& usage) const {
  using Path = LimitGate::AccountPath;
  // (The gate's index of the tree when it was built over this policy's, as the scheduler's are.)
  const bool indexed = &usage.accounts() == &policy_.accounts;
  auto tree_path = [&](const std::string& account) {
    const std::vector<const Account*> path = policy_.accounts.Path(account);
    return Path(path.begin(), path.end());
  };
  const Path p_path = indexed ? usage.Path(p.account) : tree_path(p.account);
  const Path v_path = indexed ? usage.Path(v.account) : tree_path(v.account);
  // Paths run nearest first, so the common ancestors are a suffix of both. Below them each side
  // has its own branch (its first accounts, up to the common ones); the tops of the two branches
  // are siblings, and it is between them that quota is lent and reclaimed.
  auto branch_size = [](const Path& path, const Path& other) {
    size_t n = path.size();
    while (n > 0 && std::find(other.begin(), other.end(), path[n - 1]) != other.end()) --n;
    return n;
  };
  const size_t mine = branch_size(p_path, v_path);
  const size_t branch = branch_size(v_path, p_path);
  if (mine == 0 || branch == 0) return "";
  const Account* my_top = p_path[mine - 1];
  const Account* their_top = v_path[branch - 1];
  const bool gpus = p.gpu_milli > 0;
  const TresAmounts my_quota = Dimensions(my_top->quota, gpus), their_quota = Dimensions(their_top->quota, gpus);
  if (!my_quota.any() || !their_quota.any()) return "";
  for (size_t i = 0; i < mine; ++i) {
    const Account* a = p_path[i];
    const TresAmounts q = Dimensions(a->quota, gpus);
    if (q.any() && !WithinQuota(usage.AccountUse(a->name), p, q)) return "";
  }
  if (!BorrowsBeyond(usage.AccountUse(their_top->name), v, their_quota)) return "";
  return "quota reclaim: account " + AccountName(my_top->name) + " is within its quota, account " +
         AccountName(their_top->name) + " is over its quota";
}

}  // namespace muster
