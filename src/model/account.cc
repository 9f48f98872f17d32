#include "model/account.h"

#include <map>
#include <set>
#include <utility>

namespace muster {

Status AccountTree::Validate() const {
  std::map<std::string, std::string> parent;
  for (const Account& a : accounts) {
    if (a.name.empty()) return InvalidArgument("an account has an empty name");
    if (a.shares < 0) return InvalidArgument("account '" + a.name + "': shares must be 0 or more");
    if (!parent.emplace(a.name, a.parent).second) return InvalidArgument("account '" + a.name + "' is defined twice");
    if (!(a.over_quota_weight >= 0)) return InvalidArgument("account '" + a.name + "': over_quota_weight must be 0 or more");
    const std::pair<const char*, std::pair<int64_t, int64_t>> res[] = {
        {"gpu", {a.quota.gpus, a.limit.gpus}}, {"cpu", {a.quota.cpus, a.limit.cpus}}, {"memory", {a.quota.memory_mb, a.limit.memory_mb}}};
    for (const auto& [what, ql] : res) {
      if (ql.first < kUnlimited || ql.second < kUnlimited) return InvalidArgument("account '" + a.name + "': negative " + what + " quota or limit");
      if (ql.first != kUnlimited && ql.second != kUnlimited && ql.first > ql.second) {
        return InvalidArgument("account '" + a.name + "': " + what + " quota " + std::to_string(ql.first) +
                               " is over its limit " + std::to_string(ql.second));
      }
    }
  }
  for (const Account& a : accounts) {
    if (!a.parent.empty() && !parent.count(a.parent)) {
      return InvalidArgument("account '" + a.name + "': parent account '" + a.parent + "' is not defined");
    }
    // Walking up must reach the root within as many steps as there are accounts.
    std::string at = a.parent;
    for (size_t steps = 0; !at.empty(); ++steps) {
      if (at == a.name || steps > accounts.size()) {
        return InvalidArgument("account '" + a.name + "' is its own ancestor");
      }
      at = parent.at(at);
    }
  }
  std::set<std::pair<std::string, std::string>> seen;
  for (const UserAssociation& u : users) {
    if (u.user.empty()) {
      return InvalidArgument((u.account.empty() ? std::string("the root") : "account '" + u.account + "'") +
                             " has a user with an empty name");
    }
    if (!u.account.empty() && !parent.count(u.account)) {
      return InvalidArgument("user '" + u.user + "': account '" + u.account + "' is not defined");
    }
    if (u.shares < 0) return InvalidArgument("user '" + u.user + "' in account '" + u.account + "': shares must be 0 or more");
    if (!seen.emplace(u.user, u.account).second) {
      return InvalidArgument("user '" + u.user + "' is in account '" + u.account + "' twice");
    }
  }
  return Status::Ok();
}

const Account* AccountTree::Find(const std::string& name) const {
  for (const Account& a : accounts) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

std::vector<const Account*> AccountTree::Path(const std::string& account) const {
  std::vector<const Account*> path;
  for (const Account* a = Find(account); a != nullptr && path.size() <= accounts.size(); a = Find(a->parent)) {
    path.push_back(a);
  }
  return path;
}

std::string AccountTree::DefaultAccount(const std::string& user) const {
  for (const UserAssociation& u : users) {
    if (u.user == user) return u.account;
  }
  return "";
}

bool AccountTree::MayUse(const std::string& user, const std::string& account) const {
  bool any = false;
  for (const UserAssociation& u : users) {
    if (u.user != user) continue;
    if (u.account == account) return true;
    any = true;
  }
  return !any;
}

}  // namespace muster
