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

}  // namespace

std::vector<const PendingJob*> QueueOrder::Order(const std::vector<const PendingJob*>& jobs,
                                                 const std::vector<RunningJob>& running, int64_t capacity,
                                                 bool by_gpus) {
  std::vector<QNode> nodes(1);  // 0: the root
  std::map<std::string, int> at;
  for (const Account& a : tree_.accounts) {
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
  for (const Account& a : tree_.accounts) {
    const int i = at[a.name];
    nodes[i].parent = a.parent.empty() ? 0 : at.at(a.parent);
  }
  // An account not in the tree (or "") is a queue of its own under the root.
  auto node_of = [&](const std::string& account) {
    auto it = at.find(account);
    if (it != at.end()) return it->second;
    const int i = static_cast<int>(nodes.size());
    QNode q;
    q.name = account;
    q.parent = 0;
    nodes.push_back(q);
    at[account] = i;
    return i;
  };
  // Jobs of an account that also has sub-accounts sit in a queue of their own beside them.
  std::map<int, int> own;
  auto leaf_of = [&](const std::string& account) {
    const int i = node_of(account);
    bool has_children = false;
    for (const Account& a : tree_.accounts) has_children = has_children || a.parent == account;
    if (!has_children || i == 0) return i;
    auto it = own.find(i);
    if (it != own.end()) return it->second;
    const int k = static_cast<int>(nodes.size());
    QNode q;
    q.name = account;
    q.parent = i;
    nodes.push_back(q);
    own[i] = k;
    return k;
  };
  auto amount_of_job = [&](const PendingJob& j) {
    return by_gpus ? static_cast<int64_t>(RequestedGpus(j.request) * 1000 + 0.5)
                   : static_cast<int64_t>(RequestedCpus(j.request) * 1000);
  };
  std::vector<int> job_leaf(jobs.size());
  for (size_t k = 0; k < jobs.size(); ++k) {
    const int leaf = leaf_of(jobs[k]->account);
    job_leaf[k] = leaf;
    nodes[leaf].jobs.push_back(k);
    for (int i = leaf; i >= 0; i = nodes[i].parent) {
      nodes[i].claim.demand += amount_of_job(*jobs[k]);
      nodes[i].pending += 1;
    }
  }
  for (const RunningJob& r : running) {
    const JobUse u = HeldBy(r);
    const int64_t amount = by_gpus ? u.gpu_milli : u.cpu_milli;
    for (int i = leaf_of(r.account); i >= 0; i = nodes[i].parent) {
      nodes[i].held += amount;
      nodes[i].claim.demand += amount;
    }
  }
  for (size_t i = 1; i < nodes.size(); ++i) nodes[nodes[i].parent].children.push_back(static_cast<int>(i));
  // Fair shares, top down (a parent precedes its children in a breadth-first walk).
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
  shares_.clear();
  for (size_t i = 1; i < nodes.size(); ++i) {
    QueueShare& s = shares_[nodes[i].name];
    // An account's own-jobs queue and the account itself share a name: keep the account's figures.
    if (s.demand == 0 && s.fair_share == 0 && s.held == 0) s = {nodes[i].held, nodes[i].claim.demand, nodes[i].fair};
  }
  // The order: walk down by the lowest share used, take the best job there.
  auto ratio = [&](const QNode& q) {
    if (q.fair <= 0) return std::numeric_limits<double>::infinity();
    return static_cast<double>(q.held + q.taken) / static_cast<double>(q.fair);
  };
  // The best (first in priority order) job left in a subtree.
  auto best = [&](int i, auto&& self) -> size_t {
    size_t b = nodes[i].jobs.empty() ? jobs.size() : nodes[i].jobs.front();
    for (int c : nodes[i].children) {
      if (nodes[c].pending > 0) b = std::min(b, self(c, self));
    }
    return b;
  };
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
        const double r = ratio(nodes[c]);
        const size_t b = best(c, best);
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
    const int64_t amount = amount_of_job(*jobs[k]);
    for (int n = i; n >= 0; n = nodes[n].parent) {
      nodes[n].taken += amount;
      nodes[n].pending -= 1;
    }
  }
  return out;
}

}  // namespace muster
