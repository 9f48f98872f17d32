// PolicyState: the controller's policy part. It owns the accounts and QOS in force (muster.yaml's,
// with the sacctmgr changes applied on top, in order), the usage ledger and fair share
// (PriorityPolicy), the pending jobs' priority factors, and when the usage was last charged,
// refreshed and saved.
//
// Locking: one mutex of its own, taken by every public method; it calls nothing outside itself
// but the callback its caller passes to Change. It is last in the controller's lock order
// (jobs, nodes, steps, policy): a caller may hold any of the others while calling in, and it
// never calls up into them. Methods that take jobs read them (and Prioritize and
// RefreshPriorities write their `priority`) while the caller holds the lock that guards them.
#pragma once

#include <boost/container/flat_map.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"
#include "ctld/job_table.h"  // ActiveJobs
#include "model/job_record.h"
#include "model/policy_ops.h"
#include "sched/cluster_snapshot.h"
#include "sched/job_order.h"
#include "sched/preemption.h"
#include "sched/priority_policy.h"

namespace muster {

class PolicyState {
 public:
  // `settings`: the configured priority settings (its accounts: muster.yaml's tree); `policy`:
  // the configured accounts, QOS and preemption the scheduler enforces (null: none, until a
  // change installs one); `cluster`: its nodes' GPUs and CPUs and its partitions' tiers, for the
  // job-size and partition factors. Usage is due to be saved every `usage_save_s` seconds.
  PolicyState(PrioritySettings settings, std::shared_ptr<const SchedPolicy> policy, const ClusterSnapshot& cluster,
              int64_t usage_save_s);

  // --- the accounts and QOS in force ---
  // Consistent copies, taken under the lock and never changed after: a reader keeps using its
  // copy while a change installs a new one.
  struct InForce {
    std::shared_ptr<const AccountTree> accounts;  // never null
    std::shared_ptr<const SchedPolicy> policy;    // null: no limits, QOS or preemption
  };
  InForce in_force() const;
  // What the scheduler enforces (InForce::policy).
  std::shared_ptr<const SchedPolicy> scheduler_policy() const;
  // The accounts, QOS and preemption settings in force, as one value (`sacctmgr show`).
  SchedPolicy Policy() const;
  // The stored changes Replay dropped because they no longer apply.
  std::vector<std::string> warnings() const;
  // Applies `op` on top of what is in force, all or nothing: `save` is given the stored form of
  // every change in force with it (PolicyOpsToJson), and the change takes effect only once
  // `save` succeeded. Changes are saved and installed one at a time, in order. Call
  // RefreshPriorities afterwards: the jobs' priorities depend on the QOS and the tree.
  Status Change(const PolicyOp& op, const std::function<Status(const std::string& stored)>& save);
  // Installs muster.yaml's accounts and QOS with the stored changes (PolicyOpsToJson) applied on
  // top; a change that no longer applies is dropped and named in warnings().
  Status Replay(const std::string& stored);

  // --- usage and fair share ---
  // Charges a job for the resources it holds (a suspended job: without its CPUs) from its last
  // charge up to `now`.
  void Charge(const JobRecord& job, int64_t now);
  // A job that ended (its end_time set; its suspend_time not yet cleared): charged up to its
  // end if it ran, then forgotten (its last charge and its factors).
  void Ended(const JobRecord& job);
  // A running job put back to waiting: charged up to `now` if it ran, its last charge forgotten
  // (the next run is charged from its own start).
  void Requeued(const JobRecord& job, int64_t now);
  // Restores the usage the store kept (PriorityPolicy::Save's form).
  Status RestoreUsage(const std::string& saved);
  // Charges every job in `active` holding resources up to `now` and returns the usage to store;
  // it counts as saved from `now`.
  std::string SaveUsage(const ActiveJobs& active, int64_t now);
  // Storing what Tick or SaveUsage returned failed: it is due again at the next Tick.
  void UsageSaveFailed();

  // --- priorities ---
  // The periodic part: every PriorityCalcPeriod the running jobs are charged and fair share and
  // the pending jobs' priorities recomputed (under a service order only their ranks: the factors
  // wait for Shares or PendingFactors); every usage_save_s the usage is charged and, if it
  // changed, returned for the caller to store ("" = nothing to store).
  std::string Tick(const ActiveJobs& active, int64_t now);
  // Fair share over the accounts and users of `active`, then every pending job's priority.
  void RefreshPriorities(const ActiveJobs& active, int64_t now);
  // The job's priority (written to it) and factors at `now`.
  void Prioritize(JobRecord& job, int64_t now);
  // sshare's rows and sprio's factors (pending jobs, as last prioritized); recomputed first when
  // a Tick under a service order left them stale.
  std::vector<FairShareRow> Shares(const ActiveJobs& active, int64_t now);
  std::map<int64_t, PriorityFactors> PendingFactors(const ActiveJobs& active, int64_t now);
  // The job's rank under the configured order (JobOrderPolicy::Rank, `same_below_run_s` as
  // there), from its priority as it stands and the service it has attained up to `now`. Reads
  // only the job and the configured settings: takes no lock.
  int64_t Rank(const JobRecord& job, int64_t now, int64_t* same_below_run_s = nullptr) const;
  const JobOrderPolicy& order() const { return *settings_.order; }

 private:
  void InstallLocked(const AccountTree& tree, const std::vector<Qos>& qos) REQUIRES(mu_);
  void ChargeLocked(const JobRecord& job, int64_t now) REQUIRES(mu_);
  void ChargeRunningLocked(const ActiveJobs& active, int64_t now) REQUIRES(mu_);
  void RefreshLocked(const ActiveJobs& active, int64_t now) REQUIRES(mu_);
  void RefreshIfStaleLocked(const ActiveJobs& active, int64_t now) REQUIRES(mu_);
  void PrioritizeLocked(JobRecord& job, int64_t now) REQUIRES(mu_);

  // Set at construction, never changed (Rank reads them without the lock).
  const PrioritySettings settings_;
  const int64_t usage_save_s_;
  double cluster_gpus_ = 0, cluster_cpus_ = 0;
  int max_tier_ = 0;
  std::vector<std::pair<std::string, int>> tiers_;  // each partition's priority tier

  mutable Mutex mu_{"policy", LockRank::kPolicy};
  std::shared_ptr<const AccountTree> accounts_ GUARDED_BY(mu_);
  std::shared_ptr<const SchedPolicy> policy_ GUARDED_BY(mu_);
  AccountTree base_accounts_ GUARDED_BY(mu_);   // muster.yaml's
  std::vector<Qos> base_qos_ GUARDED_BY(mu_);   // muster.yaml's
  std::vector<PolicyOp> ops_ GUARDED_BY(mu_);   // the changes in force, in order
  std::vector<std::string> warnings_ GUARDED_BY(mu_);
  PriorityPolicy priority_ GUARDED_BY(mu_);
  std::map<int64_t, PriorityFactors> factors_ GUARDED_BY(mu_);  // pending jobs, as last prioritized
  // Under a service order a Tick leaves fair share and the factors to Shares and PendingFactors.
  bool stale_ GUARDED_BY(mu_) = false;
  int64_t calc_at_ GUARDED_BY(mu_) = INT64_MIN / 2;  // the last Tick that recomputed priorities
  int64_t usage_saved_at_ GUARDED_BY(mu_) = 0;
  bool usage_dirty_ GUARDED_BY(mu_) = false;
};

}  // namespace muster
