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

}  // namespace muster
