#include "sched/limit_gate.h"

namespace muster {

namespace {

bool Over(int64_t used, int64_t add, int64_t limit) { return limit != kUnlimited && used + add > limit; }
bool OverGpus(int64_t used_milli, int64_t add_milli, int64_t limit_gpus) {
  return limit_gpus != kUnlimited && used_milli + add_milli > limit_gpus * 1000;
}
bool OverTime(int64_t time_limit_s, int64_t max_s) {
  return max_s != kUnlimited && (time_limit_s == kUnlimited || time_limit_s <= 0 || time_limit_s > max_s);
}

}  // namespace

LimitGate::LimitGate(const AccountTree& accounts, const std::vector<Qos>& qos)
    : accounts_(accounts), qos_(qos), totals_only_(accounts.accounts.empty() && qos.empty()) {}

void LimitGate::AddToTree(const JobUse& use, const std::string& account, const std::string& user,
                          const std::string& qos, int sign) {
  auto add = [&](UseTotals& t) {
    t.gpu_milli += sign * use.gpu_milli;
    t.cpu_milli += sign * use.cpu_milli;
    t.memory_mb += sign * use.memory_mb;
    t.jobs += sign;
  };
  for (const Account* a : accounts_.Path(account)) {
    add(account_[a->name]);
    add(user_use_[{a->name, user}]);
  }
  const std::string q = qos.empty() ? kDefaultQosName : qos;
  add(qos_use_[q]);
  add(qos_user_[{q, user}]);
}

UseTotals LimitGate::AccountUse(const std::string& account) const {
  if (account.empty()) return cluster_;
  auto it = account_.find(account);
  return it == account_.end() ? UseTotals{} : it->second;
}

PendingReason LimitGate::CheckAs(const JobUse& job, const std::string& account, const std::string& user,
                                 const std::string& qos, int64_t time_limit_s) const {
  for (const Account* a : accounts_.Path(account)) {
    const UseTotals u = AccountUse(a->name);
    auto it = user_use_.find({a->name, user});
    const UseTotals mine = it == user_use_.end() ? UseTotals{} : it->second;
    if (OverTime(time_limit_s, a->max_wall_s)) return PendingReason::kAssocMaxWallDurationPerJobLimit;
    if (Over(mine.jobs, 1, a->max_jobs)) return PendingReason::kAssocMaxJobsLimit;
    if (Over(u.jobs, 1, a->grp_jobs)) return PendingReason::kAssocGrpJobsLimit;
    if (OverGpus(u.gpu_milli, job.gpu_milli, a->limit.gpus)) return PendingReason::kAssocGrpGRES;
    if (OverGpus(mine.gpu_milli, job.gpu_milli, a->max_gpus_per_user)) return PendingReason::kAssocGrpGRES;
    if (a->limit.cpus != kUnlimited && u.cpu_milli + job.cpu_milli > a->limit.cpus * 1000) {
      return PendingReason::kAssocGrpCpuLimit;
    }
    if (Over(u.memory_mb, job.memory_mb, a->limit.memory_mb)) return PendingReason::kAssocGrpMemLimit;
  }
  const Qos* q = FindQos(qos_, qos);
  if (q == nullptr) return PendingReason::kNone;
  if (OverTime(time_limit_s, q->max_wall_s)) return PendingReason::kQOSMaxWallDurationPerJobLimit;
  if (OverGpus(0, job.gpu_milli, q->max_gpus_per_job)) return PendingReason::kQOSMaxGRESPerJob;
  auto qu = qos_user_.find({q->name, user});
  const UseTotals mine = qu == qos_user_.end() ? UseTotals{} : qu->second;
  if (Over(mine.jobs, 1, q->max_jobs_per_user)) return PendingReason::kQOSMaxJobsPerUserLimit;
  if (OverGpus(mine.gpu_milli, job.gpu_milli, q->max_gpus_per_user)) return PendingReason::kQOSMaxGRESPerUser;
  auto qa = qos_use_.find(q->name);
  if (OverGpus(qa == qos_use_.end() ? 0 : qa->second.gpu_milli, job.gpu_milli, q->grp_gpus)) {
    return PendingReason::kQOSGrpGRES;
  }
  return PendingReason::kNone;
}

}  // namespace muster
