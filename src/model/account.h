// Accounts: the tree that fair share (and later team quotas) divide the cluster along, as Slurm's
// associations define it. Accounts nest under a parent (none = directly under the root); users
// belong to accounts, each (user, account) pair an association with its own shares. Plain values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/limits.h"

namespace muster {

// An amount per resource, for team quotas and limits; kUnlimited (-1) where not set.
struct TresAmounts {
  int64_t gpus = kUnlimited;       // whole GPUs
  int64_t cpus = kUnlimited;
  int64_t memory_mb = kUnlimited;
  bool any() const { return gpus != kUnlimited || cpus != kUnlimited || memory_mb != kUnlimited; }
  friend bool operator==(const TresAmounts&, const TresAmounts&) = default;
};

// An account is also a queue, as KAI's and Run:ai's queues define one: a quota it is guaranteed
// (its jobs may reclaim it from queues borrowing it), a weight for dividing what quotas leave idle,
// and a limit it never exceeds; plus Slurm's association limits. Each applies to the account's
// whole subtree.
struct Account {
  std::string name;
  std::string parent;  // "" = a child of the root
  int64_t shares = 1;  // Fairshare=: weight among its siblings (0 = only what others leave)
  TresAmounts quota;               // guaranteed (deserved); unset = nothing guaranteed
  double over_quota_weight = 1;    // share of the idle capacity beyond quotas among siblings
  TresAmounts limit;               // hard cap (Slurm's GrpTRES): AssocGrpGRES, AssocGrpCpuLimit, ...
  int64_t max_jobs = kUnlimited;           // running jobs of each user (MaxJobs): AssocMaxJobsLimit
  int64_t grp_jobs = kUnlimited;           // running jobs of the subtree (GrpJobs): AssocGrpJobsLimit
  int64_t max_wall_s = kUnlimited;         // per job (MaxWall): AssocMaxWallDurationPerJobLimit
  int64_t max_gpus_per_user = kUnlimited;  // GPUs of one user's running jobs in the subtree
  // The QOS its jobs may name (-q); empty: as its parent (none on the way up: any QOS).
  std::vector<std::string> qos;
};

struct UserAssociation {
  std::string user;
  std::string account;  // "" = directly under the root (as Slurm's root account holds users)
  int64_t shares = 1;
};

struct AccountTree {
  std::vector<Account> accounts;
  std::vector<UserAssociation> users;

  // Unique, non-empty account names; parents and users' accounts known ("" = the root); no
  // cycle; shares >= 0; each (user, account) once; quotas within limits, and a parent's limit
  // no less than a child's quota. Errors name the account or user.
  Status Validate() const;

  const Account* Find(const std::string& name) const;
  // `account` and its ancestors, nearest first ("" or unknown: empty).
  std::vector<const Account*> Path(const std::string& account) const;

  // The account a job of `user` is charged to when it names none: the user's first configured
  // association's, else "" (the root).
  std::string DefaultAccount(const std::string& user) const;
  // Whether `user` may charge `account`: a user with configured associations only to those; any
  // other user to any account.
  bool MayUse(const std::string& user, const std::string& account) const;
};

}  // namespace muster
