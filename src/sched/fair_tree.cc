#include "sched/fair_tree.h"

#include <algorithm>
#include <limits>
#include <map>

namespace muster {
namespace {

struct Node {
  bool user = false;
  std::string name;     // account name, or user name
  std::string account;  // the user's account; the account itself for an account
  int64_t shares = 0;
  double usage = 0;     // subtree
  double level_fs = 0;
  double norm_shares = 0;
  double fairshare = 0;
  int depth = 0;
  std::vector<int> children;  // users by name, then accounts by name
};

// Slurm compares Level Fairshare values as equal when they are, to the last bit: ties come from
// equal shares and usage (typically no usage at all), not from near misses.
bool Tied(const Node& a, const Node& b) { return a.level_fs == b.level_fs; }

class Ranker {
 public:
  Ranker(std::vector<Node>& nodes, int users) : nodes_(nodes), users_(users), rnt_(users), rank_(users) {}

  void Visit(std::vector<int> siblings) {
    std::stable_sort(siblings.begin(), siblings.end(),
                     [&](int a, int b) { return nodes_[a].level_fs > nodes_[b].level_fs; });
    for (size_t i = 0; i < siblings.size();) {
      Node& n = nodes_[siblings[i]];
      if (n.user) {
        bool tied = i > 0 && nodes_[siblings[i - 1]].user && Tied(nodes_[siblings[i - 1]], n);
        if (!tied) rank_ = rnt_;
        n.fairshare = static_cast<double>(rank_) / users_;
        --rnt_;
        ++i;
        continue;
      }
      std::vector<int> merged = n.children;
      size_t j = i + 1;
      while (j < siblings.size() && !nodes_[siblings[j]].user && Tied(nodes_[siblings[j]], n)) {
        const std::vector<int>& more = nodes_[siblings[j]].children;
        merged.insert(merged.end(), more.begin(), more.end());
        ++j;
      }
      Visit(std::move(merged));
      i = j;
    }
  }

 private:
  std::vector<Node>& nodes_;
  int users_;
  int rnt_;   // the rank of the next user if it is not tied
  int rank_;  // the rank last given
};

}  // namespace

StatusOr<std::vector<FairShareRow>> ComputeFairTree(const AccountTree& tree, const UsageLedger& usage, int64_t now) {
  RETURN_IF_ERROR(tree.Validate());
  // Node 0 is the root; accounts and users follow.
  std::vector<Node> nodes(1);
  std::map<std::string, int> account_index;
  for (const Account& a : tree.accounts) {
    Node n;
    n.name = n.account = a.name;
    n.shares = a.shares;
    account_index[a.name] = static_cast<int>(nodes.size());
    nodes.push_back(std::move(n));
  }
  // Children in name order: users first, then accounts (maps iterate sorted).
  std::map<std::string, std::map<std::string, int>> users_of, accounts_of;
  for (const UserAssociation& u : tree.users) {
    Node n;
    n.user = true;
    n.name = u.user;
    n.account = u.account;
    n.shares = u.shares;
    n.usage = usage.Usage(u.account, u.user, now);
    users_of[u.account][u.user] = static_cast<int>(nodes.size());
    nodes.push_back(std::move(n));
  }
  for (const Account& a : tree.accounts) accounts_of[a.parent][a.name] = account_index[a.name];
  for (auto& [account, idx] : account_index) {
    for (const auto& [name, u] : users_of[account]) nodes[idx].children.push_back(u);
    for (const auto& [name, c] : accounts_of[account]) nodes[idx].children.push_back(c);
  }
  for (const auto& [name, u] : users_of[""]) nodes[0].children.push_back(u);
  for (const auto& [name, c] : accounts_of[""]) nodes[0].children.push_back(c);

  // Subtree usage, depth and shares, parents before children (a walk from the root).
  std::vector<int> order{0};
  for (size_t i = 0; i < order.size(); ++i) {
    for (int c : nodes[order[i]].children) {
      nodes[c].depth = order[i] == 0 ? 0 : nodes[order[i]].depth + 1;
      order.push_back(c);
    }
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    for (int c : nodes[*it].children) nodes[*it].usage += nodes[c].usage;
  }
  nodes[0].norm_shares = 1;
  for (int p : order) {
    double shares = 0, used = 0;
    for (int c : nodes[p].children) {
      shares += static_cast<double>(nodes[c].shares);
      used += nodes[c].usage;
    }
    for (int c : nodes[p].children) {
      Node& n = nodes[c];
      double s = shares > 0 ? static_cast<double>(n.shares) / shares : 0;
      double u = used > 0 ? n.usage / used : 0;
      n.norm_shares = s * nodes[p].norm_shares;
      n.level_fs = s == 0 ? 0 : u == 0 ? std::numeric_limits<double>::infinity() : s / u;
    }
  }
  const int users = static_cast<int>(tree.users.size());
  if (users > 0) Ranker(nodes, users).Visit(nodes[0].children);

  std::vector<FairShareRow> rows;
  const double total = nodes[0].usage;
  // Depth first for the rows (`order` above is breadth first).
  std::vector<int> stack(nodes[0].children.rbegin(), nodes[0].children.rend());
  while (!stack.empty()) {
    const Node& n = nodes[stack.back()];
    stack.pop_back();
    stack.insert(stack.end(), n.children.rbegin(), n.children.rend());
    FairShareRow r;
    r.account = n.account;
    if (n.user) r.user = n.name;
    r.depth = n.depth;
    r.raw_shares = n.shares;
    r.norm_shares = n.norm_shares;
    r.raw_usage = n.usage;
    r.norm_usage = total > 0 ? n.usage / total : 0;
    r.level_fs = n.level_fs;
    r.fairshare = n.fairshare;
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace muster
