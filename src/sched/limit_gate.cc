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
    : accounts_(accounts), qos_(qos), totals_only_(accounts.accounts.empty() && qos.empty()) {
  const std::vector<Account>& all = accounts.accounts;
  index_.reserve(all.size());
  for (size_t i = 0; i < all.size(); ++i) index_.emplace(all[i].name, static_cast<int>(i));  // the first of a name
  parent_.assign(all.size(), -1);
  for (size_t i = 0; i < all.size(); ++i) {
    auto it = index_.find(std::string_view(all[i].parent));
    if (it != index_.end()) parent_[i] = it->second;
  }
  account_.resize(all.size());
}

namespace {

void AddTo(UseTotals& t, const JobUse& use, int sign) {
  t.gpu_milli += sign * use.gpu_milli;
  t.cpu_milli += sign * use.cpu_milli;
  t.memory_mb += sign * use.memory_mb;
  t.jobs += sign;
}

// The totals of `name` in `map`, made when there are none yet (a copy of the name only then).
template <typename Map>
auto& Entry(Map& map, const std::string& name) {
  auto it = map.find(std::string_view(name));
  if (it == map.end()) it = map.emplace(name, typename Map::mapped_type{}).first;
  return it->second;
}

const UseTotals kNoUse;

}  // namespace

void LimitGate::AddToTree(const JobUse& use, const std::string& account, const std::string& user,
                          const std::string& qos, int sign) {
  ForPath(account, [&](int i) {
    Totals& t = account_[i];
    AddTo(t.all, use, sign);
    AddTo(Entry(t.by_user, user), use, sign);
  });
  static const std::string kDefault = kDefaultQosName;
  Totals& q = Entry(qos_use_, qos.empty() ? kDefault : qos);
  AddTo(q.all, use, sign);
  AddTo(Entry(q.by_user, user), use, sign);
}

UseTotals LimitGate::AccountUse(const std::string& account) const {
  if (account.empty()) return cluster_;
  auto it = index_.find(std::string_view(account));
  return it == index_.end() ? UseTotals{} : account_[it->second].all;
}

PendingReason LimitGate::CheckAs(const JobUse& job, const std::string& account, const std::string& user,
                                 const std::string& qos, int64_t time_limit_s) const {
  PendingReason over = PendingReason::kNone;
  ForPath(account, [&](int i) {
    if (over != PendingReason::kNone) return;
    const Account* a = &accounts_.accounts[i];
    const UseTotals& u = account_[i].all;
    auto it = account_[i].by_user.find(std::string_view(user));
    const UseTotals& mine = it == account_[i].by_user.end() ? kNoUse : it->second;
    if (OverTime(time_limit_s, a->max_wall_s)) {
      over = PendingReason::kAssocMaxWallDurationPerJobLimit;
    } else if (Over(mine.jobs, 1, a->max_jobs)) {
      over = PendingReason::kAssocMaxJobsLimit;
    } else if (Over(u.jobs, 1, a->grp_jobs)) {
      over = PendingReason::kAssocGrpJobsLimit;
    } else if (OverGpus(u.gpu_milli, job.gpu_milli, a->limit.gpus) ||
               OverGpus(mine.gpu_milli, job.gpu_milli, a->max_gpus_per_user)) {
      over = PendingReason::kAssocGrpGRES;
    } else if (a->limit.cpus != kUnlimited && u.cpu_milli + job.cpu_milli > a->limit.cpus * 1000) {
      over = PendingReason::kAssocGrpCpuLimit;
    } else if (Over(u.memory_mb, job.memory_mb, a->limit.memory_mb)) {
      over = PendingReason::kAssocGrpMemLimit;
    }
  });
  if (over != PendingReason::kNone) return over;
  const Qos* q = FindQos(qos_, qos);
  if (q == nullptr) return PendingReason::kNone;
  if (OverTime(time_limit_s, q->max_wall_s)) return PendingReason::kQOSMaxWallDurationPerJobLimit;
  if (OverGpus(0, job.gpu_milli, q->max_gpus_per_job)) return PendingReason::kQOSMaxGRESPerJob;
  auto qt = qos_use_.find(std::string_view(q->name));
  const Totals* totals = qt == qos_use_.end() ? nullptr : &qt->second;
  const UseTotals* mine = &kNoUse;
  if (totals != nullptr) {
    auto qu = totals->by_user.find(std::string_view(user));
    if (qu != totals->by_user.end()) mine = &qu->second;
  }
  if (Over(mine->jobs, 1, q->max_jobs_per_user)) return PendingReason::kQOSMaxJobsPerUserLimit;
  if (OverGpus(mine->gpu_milli, job.gpu_milli, q->max_gpus_per_user)) return PendingReason::kQOSMaxGRESPerUser;
  if (OverGpus(totals == nullptr ? 0 : totals->all.gpu_milli, job.gpu_milli, q->grp_gpus)) {
    return PendingReason::kQOSGrpGRES;
  }
  return PendingReason::kNone;
}

}  // namespace muster
