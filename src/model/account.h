// Accounts: the tree that fair share (and later team quotas) divide the cluster along, as Slurm's
// associations define it. Accounts nest under a parent (none = directly under the root); users
// belong to accounts, each (user, account) pair an association with its own shares. Plain values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace muster {

struct Account {
  std::string name;
  std::string parent;  // "" = a child of the root
  int64_t shares = 1;  // Fairshare=: weight among its siblings (0 = only what others leave)
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
  // cycle; shares >= 0; each (user, account) once. Errors name the account or user.
  Status Validate() const;
};

}  // namespace muster
