// Queue order: with team quotas, a cycle takes jobs across queues (accounts) by how far each queue
// is below its fair share, as KAI and Run:ai divide a cluster, not by priority alone.
//
//   Fair share: at each level of the account tree, the capacity of the level (the cluster's at the
//   top, the parent's fair share below) is divided among the siblings: each first gets its quota
//   (at most what it wants: what it holds plus what it waits for), then what is left goes to those
//   wanting more in proportion to their over-quota weights, capped by what they want and by their
//   limit, again and again until nothing is left or nobody wants more (water-filling).
//   Order: the next job comes from the queue reached by walking down from the root, taking at each
//   level the child with the lowest (held + taken this cycle) / fair share (a child without a fair
//   share goes last; ties: the child whose best job ranks first by priority). Within an account,
//   jobs keep their priority order.
//
// Measured in GPUs (thousandths); on a cluster without GPUs, in CPUs. Accounts not in the tree
// (and "") are queues under the root without quota, with weight 1. Pure and deterministic.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/account.h"
#include "sched/cluster_snapshot.h"

namespace muster {

// One sibling for DivideCapacity: amounts in the order's unit; kUnlimited = not set.
struct QueueClaim {
  int64_t quota = kUnlimited;
  int64_t limit = kUnlimited;
  double weight = 1;
  int64_t demand = 0;
};

// The fair shares of siblings dividing `capacity` (same order as `claims`).
std::vector<int64_t> DivideCapacity(int64_t capacity, const std::vector<QueueClaim>& claims);

struct QueueShare {
  int64_t held = 0;        // running jobs (the subtree's)
  int64_t demand = 0;      // held plus pending
  int64_t fair_share = 0;
};

class QueueOrder {
 public:
  explicit QueueOrder(const AccountTree& tree);
  // Whether any account has a quota: only then does the order differ from priority.
  bool active() const { return active_; }

  // `jobs` in priority order (highest first); `capacity` the schedulable cluster's GPUs (milli),
  // or its CPUs (milli) when `by_gpus` is false. Returns the same jobs in the cycle's order.
  std::vector<const PendingJob*> Order(const std::vector<const PendingJob*>& jobs,
                                       const std::vector<RunningJob>& running, int64_t capacity, bool by_gpus);
  // Per account, as of the last Order ("" = jobs without an account).
  const std::map<std::string, QueueShare>& shares() const { return shares_; }

 private:
  const AccountTree& tree_;
  bool active_ = false;
  std::map<std::string, QueueShare> shares_;
};

}  // namespace muster
