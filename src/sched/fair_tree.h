// Fair Tree fair share (Slurm's default algorithm since 19.05): every association's Level
// Fairshare is S / U, its share of its siblings' shares over its share of their decayed usage
// (+inf without usage). Walking the account tree depth first, siblings in descending Level
// Fairshare, users are ranked in the order met; a user's fair-share factor is rank / users, so the
// first user gets 1 and the last 1/users. Every user of an account that beats a sibling account
// therefore ranks above every user of that sibling, at any depth. Ties: sibling users with equal
// Level Fairshare share one rank; tied sibling accounts have their children ranked together.
// Pure and deterministic (equal Level Fairshare is ordered by name for the walk).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/account.h"
#include "sched/usage_ledger.h"

namespace muster {

// One association as `sshare -l` shows it.
struct FairShareRow {
  std::string account;
  std::string user;          // "" on an account's own row
  int depth = 0;             // 0 = a child of the root
  int64_t raw_shares = 0;
  double norm_shares = 0;    // share of the whole cluster: of its siblings, times its parent's
  double raw_usage = 0;      // decayed billing-seconds (an account: its whole subtree)
  double norm_usage = 0;     // raw_usage over the whole cluster's usage (0 when nothing was used)
  double level_fs = 0;       // S / U among its siblings; +inf with no usage, 0 with no shares
  double fairshare = 0;      // users: the factor in (0, 1]; accounts: 0
};

// Rows depth first from the root; under an account (and under the root, for users of account ""),
// its users by name, then its sub-accounts by name. Errors: the tree does not validate (AccountTree::Validate).
StatusOr<std::vector<FairShareRow>> ComputeFairTree(const AccountTree& tree, const UsageLedger& usage, int64_t now);

}  // namespace muster
