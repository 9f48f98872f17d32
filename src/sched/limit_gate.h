// LimitGate: the team quotas' hard caps and Slurm's association and QOS limits, checked before a
// job starts. Built once a cycle from what runs (Add per running job), then asked per pending job
// (Check) and told of every start (Add), so the limits hold within a cycle too. Usage counts for
// an account and every ancestor (a limit caps the whole subtree). Pure; not thread-safe.
//
// Limits and the reasons a job waits with (Slurm's names):
//   account  limit.gpus / .cpus / .memory   AssocGrpGRES / AssocGrpCpuLimit / AssocGrpMemLimit
//            max_gpus_per_user              AssocGrpGRES (the user's association's GrpTRES)
//            max_jobs (running, per user)   AssocMaxJobsLimit
//            grp_jobs (running, all)        AssocGrpJobsLimit
//            max_wall (time limit)          AssocMaxWallDurationPerJobLimit
//   QOS      max_gpus_per_user              QOSMaxGRESPerUser
//            max_gpus_per_job               QOSMaxGRESPerJob
//            max_jobs_per_user (running)    QOSMaxJobsPerUserLimit
//            max_wall                       QOSMaxWallDurationPerJobLimit
//            grp_gpus                       QOSGrpGRES
// The job's own account is checked from itself up to the root, then its QOS.
#pragma once

#include <boost/container/small_vector.hpp>
#include <boost/unordered/unordered_flat_map.hpp>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "model/account.h"
#include "model/qos.h"
#include "sched/pending_reason.h"

namespace muster {

// What a job holds (running) or would hold (pending).
struct JobUse {
  std::string account;  // "" = the root
  std::string user;
  std::string qos;      // "" = "normal"
  int64_t gpu_milli = 0;
  int64_t cpu_milli = 0;
  int64_t memory_mb = 0;
};

struct UseTotals {
  int64_t gpu_milli = 0;
  int64_t cpu_milli = 0;
  int64_t memory_mb = 0;
  int64_t jobs = 0;
  friend bool operator==(const UseTotals&, const UseTotals&) = default;
};

class LimitGate {
 public:
  // Both must outlive the gate.
  LimitGate(const AccountTree& accounts, const std::vector<Qos>& qos);

  // Adds (sign +1) or removes (-1) a job's use.
  void Add(const JobUse& use, int sign = 1) { AddAs(use, use.account, use.user, use.qos, sign); }
  // The same for the amounts of `use` owned as named (its own owner fields unread): no copies
  // of the names for each running job every pass.
  void AddAs(const JobUse& use, const std::string& account, const std::string& user, const std::string& qos,
             int sign = 1) {
    // (Inline: every running job is added at the start of every cycle, and without accounts or
    // QOS the cluster's totals are all there is to count.)
    cluster_.gpu_milli += sign * use.gpu_milli;
    cluster_.cpu_milli += sign * use.cpu_milli;
    cluster_.memory_mb += sign * use.memory_mb;
    cluster_.jobs += sign;
    if (!totals_only_) AddToTree(use, account, user, qos, sign);
  }
  // kNone when `job` (with `time_limit_s`, kUnlimited = none) may start as things stand; else
  // the first limit it would break.
  PendingReason Check(const JobUse& job, int64_t time_limit_s) const {
    return CheckAs(job, job.account, job.user, job.qos, time_limit_s);
  }
  // The same for the amounts of `job` owned as named (its own owner fields unread).
  PendingReason CheckAs(const JobUse& job, const std::string& account, const std::string& user,
                        const std::string& qos, int64_t time_limit_s) const;

  // The running totals of `account`'s subtree ("" = the whole cluster).
  UseTotals AccountUse(const std::string& account) const;
  const AccountTree& accounts() const { return accounts_; }
  // accounts().Path(account), found through the gate's index of the tree rather than by name at
  // each level, and held inline for a tree of usual depth.
  using AccountPath = boost::container::small_vector<const Account*, 8>;
  AccountPath Path(const std::string& account) const {
    AccountPath path;
    ForPath(account, [&](int i) { path.push_back(&accounts_.accounts[i]); });
    return path;
  }

 private:
  // Strings hashed as views: a job's user is looked up without a copy of it.
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  template <typename V>
  using ByName = boost::unordered_flat_map<std::string, V, NameHash, std::equal_to<>>;
  // The totals of a subtree (an account's, or a QOS's jobs), and of each user in it.
  struct Totals {
    UseTotals all;
    ByName<UseTotals> by_user;
  };
  // Calls fn(index) for the account named `account` and each ancestor, up to the root: the path
  // AccountTree::Path walks (a cycle in the tree stops it where Path stops).
  template <typename Fn>
  void ForPath(const std::string& account, Fn fn) const {
    auto it = index_.find(std::string_view(account));
    int i = it == index_.end() ? -1 : it->second;
    for (size_t steps = 0; i >= 0 && steps <= accounts_.accounts.size(); ++steps) {
      fn(i);
      i = parent_[i];
    }
  }
  void AddToTree(const JobUse& use, const std::string& account, const std::string& user, const std::string& qos,
                 int sign);

  const AccountTree& accounts_;
  const std::vector<Qos>& qos_;
  // With no account and no QOS configured, nothing but the whole cluster's totals is ever read
  // (Check has nothing to check): Add keeps only those.
  bool totals_only_ = false;
  UseTotals cluster_;  // AccountUse("")
  // The accounts by position in accounts_.accounts, found by name once (the first of a name, as
  // AccountTree::Find finds it), each with its parent's position (-1: none) and its subtree's totals.
  ByName<int> index_;
  std::vector<int> parent_;
  std::vector<Totals> account_;
  ByName<Totals> qos_use_;  // by QOS name ("" counted as kDefaultQosName)
};

}  // namespace muster
