#include "model/partition_access.h"

#include <algorithm>

#include "model/qos.h"

namespace muster {
namespace {

bool Contains(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

bool AnyListed(const std::vector<std::string>& list, const std::vector<std::string>& names) {
  return std::any_of(names.begin(), names.end(), [&](const std::string& n) { return Contains(list, n); });
}

bool GroupAllowed(const PartitionAccess& access, const PartitionAccessRequest& request) {
  return access.allow_groups.empty() || request.privileged || AnyListed(access.allow_groups, request.groups);
}

// Slurm checks AllowAccounts when it is set, else DenyAccounts (never both). A job without an
// account fails AllowAccounts ("Job's account not known").
bool AccountAllowed(const PartitionAccess& access, const PartitionAccessRequest& request) {
  if (!access.allow_accounts.empty()) return !request.account.empty() && Contains(access.allow_accounts, request.account);
  return !Contains(access.deny_accounts, request.account);
}

bool QosAllowed(const PartitionAccess& access, const PartitionAccessRequest& request) {
  const std::string qos = request.qos.empty() ? std::string(kDefaultQosName) : request.qos;
  if (!access.allow_qos.empty()) return Contains(access.allow_qos, qos);
  return !Contains(access.deny_qos, qos);
}

}  // namespace

PartitionAccessDenial CheckPartitionAccess(const PartitionAccess& access, const PartitionAccessRequest& request) {
  if (!GroupAllowed(access, request)) return PartitionAccessDenial::kGroup;
  if (!AccountAllowed(access, request)) return PartitionAccessDenial::kAccount;
  if (!QosAllowed(access, request)) return PartitionAccessDenial::kQos;
  return PartitionAccessDenial::kNone;
}

const char* PartitionAccessMessage(PartitionAccessDenial denial) {
  switch (denial) {
    case PartitionAccessDenial::kNone: return "";
    case PartitionAccessDenial::kGroup: return "User's group not permitted to use this partition";
    case PartitionAccessDenial::kAccount: return "Invalid account or account/partition combination specified";
    case PartitionAccessDenial::kQos: return "Invalid qos specification";
  }
  return "";
}

std::string FormatAccessList(const std::vector<std::string>& names) {
  if (names.empty()) return "ALL";
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

}  // namespace muster
