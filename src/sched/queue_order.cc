#include "sched/queue_order.h"

#include <algorithm>
#include <deque>
#include <limits>

#include "sched/priority_policy.h"
#include "sched/scheduler.h"

namespace muster {

std::vector<int64_t> DivideCapacity(int64_t capacity, const std::vector<QueueClaim>& claims) {
  const size_t n = claims.size();
  std::vector<double> got(n, 0), want(n, 0);
  double quotas = 0;
  for (size_t i = 0; i < n; ++i) {
    want[i] = static_cast<double>(claims[i].limit == kUnlimited ? claims[i].demand
                                                                : std::min(claims[i].demand, claims[i].limit));
    got[i] = claims[i].quota == kUnlimited ? 0 : std::min(want[i], static_cast<double>(claims[i].quota));
    quotas += got[i];
  }
  double left = static_cast<double>(capacity);
  if (quotas > left && quotas > 0) {
    // Quotas beyond the capacity (some of it down): each gets the same part of what it is owed.
    for (double& g : got) g *= left / quotas;
    left = 0;
  } else {
    left -= quotas;
  }
  while (left > 0.5) {
    double weights = 0;
    for (size_t i = 0; i < n; ++i) {
      if (got[i] < want[i] && claims[i].weight > 0) weights += claims[i].weight;
    }
    if (weights <= 0) break;
    double given = 0;
    for (size_t i = 0; i < n; ++i) {
      if (got[i] >= want[i] || claims[i].weight <= 0) continue;
      const double give = std::min(want[i] - got[i], left * claims[i].weight / weights);
      got[i] += give;
      given += give;
    }
    left -= given;
    if (given <= 0.5) break;
  }
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<int64_t>(got[i] + 0.5);
  return out;
}

QueueOrder::QueueOrder(const AccountTree& tree) : tree_(tree) {
  for (const Account& a : tree.accounts) active_ = active_ || a.quota.any();
}

namespace {

struct QNode {
  std::string name;
  int parent = -1;
  std::vector<int> children;
  QueueClaim claim;
  int64_t held = 0;
  int64_t fair = 0;
  int64_t taken = 0;
  std::deque<size_t> jobs;  // indexes into the priority order
  int64_t pending = 0;      // jobs left in the subtree
};

// A cycle's queues: the tree's accounts, and those made for other accounts and for own jobs.
struct QueueTree {
  std::vector<QNode> nodes = std::vector<QNode>(1);  // 0: the root
  std::map<std::string, int> at;                     // an account's queue
  std::map<int, int> own;                            // an account's queue -> that of its own jobs
};

// A queue for each account of `tree`, under its parent's, its quota and limit in the order's unit.
void AddAccounts(QueueTree& t, const AccountTree& tree, bool by_gpus) {
  std::vector<QNode>& nodes = t.nodes;
  std::map<std::string, int>& at = t.at;
  for (const Account& a : tree.accounts) {
    at[a.name] = static_cast<int>(nodes.size());
    QNode q;
    q.name = a.name;
    q.claim.quota = by_gpus ? (a.quota.gpus == kUnlimited ? kUnlimited : a.quota.gpus * 1000)
                            : (a.quota.cpus == kUnlimited ? kUnlimited : a.quota.cpus * 1000);
    q.claim.limit = by_gpus ? (a.limit.gpus == kUnlimited ? kUnlimited : a.limit.gpus * 1000)
                            : (a.limit.cpus == kUnlimited ? kUnlimited : a.limit.cpus * 1000);
    q.claim.weight = a.over_quota_weight;
    nodes.push_back(q);
  }
  for (const Account& a : tree.accounts) {
    const int i = at[a.name];
    nodes[i].parent = a.parent.empty() ? 0 : at.at(a.parent);
  }
}

// An account's queue: one not in the tree (or "") is a queue of its own under the root.
int NodeOf(QueueTree& t, const std::string& account) {
  auto it = t.at.find(account);
  if (it != t.at.end()) return it->second;
  const int i = static_cast<int>(t.nodes.size());
  QNode q;
  q.name = account;
  q.parent = 0;
  t.nodes.push_back(q);
  t.at[account] = i;
  return i;
}

// The queue an account's jobs wait in: beside its sub-accounts' queues, when it has any.
int LeafOf(QueueTree& t, const AccountTree& tree, const std::string& account) {
  const int i = NodeOf(t, account);
  bool has_children = false;
  for (const Account& a : tree.accounts) has_children = has_children || a.parent == account;
  if (!has_children || i == 0) return i;
  auto it = t.own.find(i);
  if (it != t.own.end()) return it->second;
  const int k = static_cast<int>(t.nodes.size());
  QNode q;
  q.name = account;
  q.parent = i;
  t.nodes.push_back(q);
  t.own[i] = k;
  return k;
}

// What a job asks for, in the order's unit.
int64_t AmountOf(const PendingJob& j, bool by_gpus) {
  return by_gpus ? static_cast<int64_t>(RequestedGpus(j.request) * 1000 + 0.5)
                 : static_cast<int64_t>(RequestedCpus(j.request) * 1000);
}

// Each job into its queue; its ask, and what running jobs hold, counted on every queue above.
void CountDemand(QueueTree& t, const AccountTree& tree, const std::vector<const PendingJob*>& jobs,
                 const std::vector<RunningJob>& running, bool by_gpus) {
  std::vector<QNode>& nodes = t.nodes;
  std::vector<int> job_leaf(jobs.size());
  for (size_t k = 0; k < jobs.size(); ++k) {
    const int leaf = LeafOf(t, tree, jobs[k]->account);
    job_leaf[k] = leaf;
    nodes[leaf].jobs.push_back(k);
    for (int i = leaf; i >= 0; i = nodes[i].parent) {
      nodes[i].claim.demand += AmountOf(*jobs[k], by_gpus);
      nodes[i].pending += 1;
    }
  }
  for (const RunningJob& r : running) {
    const JobUse u = HeldBy(r);
    const int64_t amount = by_gpus ? u.gpu_milli : u.cpu_milli;
    for (int i = LeafOf(t, tree, r.account); i >= 0; i = nodes[i].parent) {
      nodes[i].held += amount;
      nodes[i].claim.demand += amount;
    }
  }
}

// Every queue's fair share of `capacity`, top down (breadth first: a parent's before its children's).
void DivideFairShares(std::vector<QNode>& nodes, int64_t capacity) {
  for (size_t i = 1; i < nodes.size(); ++i) nodes[nodes[i].parent].children.push_back(static_cast<int>(i));
  nodes[0].fair = capacity;
  std::vector<int> walk = {0};
  for (size_t w = 0; w < walk.size(); ++w) {
    const QNode& p = nodes[walk[w]];
    std::vector<QueueClaim> claims;
    for (int c : p.children) claims.push_back(nodes[c].claim);
    const std::vector<int64_t> fair = DivideCapacity(p.fair, claims);
    for (size_t k = 0; k < p.children.size(); ++k) {
      nodes[p.children[k]].fair = fair[k];
      walk.push_back(p.children[k]);
    }
  }
}

// How much of its fair share a queue uses, this cycle's takes included; one without a share goes last.
double ShareUsed(const QNode& q) {
  if (q.fair <= 0) return std::numeric_limits<double>::infinity();
  return static_cast<double>(q.held + q.taken) / static_cast<double>(q.fair);
}

// The best (first in priority order) job left in a subtree; `none` when it has none of its own.
size_t BestJob(const std::vector<QNode>& nodes, int i, size_t none) {
  size_t b = nodes[i].jobs.empty() ? none : nodes[i].jobs.front();
  for (int c : nodes[i].children) {
    if (nodes[c].pending > 0) b = std::min(b, BestJob(nodes, c, none));
  }
  return b;
}

// The jobs in the cycle's order: each from the queue reached by walking down by the lowest share used.
std::vector<const PendingJob*> TakeByShare(std::vector<QNode>& nodes, const std::vector<const PendingJob*>& jobs,
                                           bool by_gpus) {
  std::vector<const PendingJob*> out;
  out.reserve(jobs.size());
  while (nodes[0].pending > 0) {
    int i = 0;
    while (nodes[i].jobs.empty()) {
      int pick = -1;
      double pick_ratio = 0;
      size_t pick_best = 0;
      for (int c : nodes[i].children) {
        if (nodes[c].pending == 0) continue;
        const double r = ShareUsed(nodes[c]);
        const size_t b = BestJob(nodes, c, jobs.size());
        if (pick < 0 || r < pick_ratio || (r == pick_ratio && b < pick_best)) {
          pick = c;
          pick_ratio = r;
          pick_best = b;
        }
      }
      i = pick;
    }
    const size_t k = nodes[i].jobs.front();
    nodes[i].jobs.pop_front();
    out.push_back(jobs[k]);
    const int64_t amount = AmountOf(*jobs[k], by_gpus);
    for (int n = i; n >= 0; n = nodes[n].parent) {
      nodes[n].taken += amount;
      nodes[n].pending -= 1;
    }
  }
  return out;
}

}  // namespace

std::vector<const PendingJob*> QueueOrder::Order(const std::vector<const PendingJob*>& jobs,
                                                 const std::vector<RunningJob>& running, int64_t capacity,
                                                 bool by_gpus) {
  QueueTree t;
  AddAccounts(t, tree_, by_gpus);
  CountDemand(t, tree_, jobs, running, by_gpus);
  std::vector<QNode>& nodes = t.nodes;
  DivideFairShares(nodes, capacity);
  shares_.clear();
  for (size_t i = 1; i < nodes.size(); ++i) {
    QueueShare& s = shares_[nodes[i].name];
    // An account's own-jobs queue and the account itself share a name: keep the account's figures.
    if (s.demand == 0 && s.fair_share == 0 && s.held == 0) s = {nodes[i].held, nodes[i].claim.demand, nodes[i].fair};
  }
  return TakeByShare(nodes, jobs, by_gpus);
}

}  // namespace muster
