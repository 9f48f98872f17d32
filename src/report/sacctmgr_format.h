// sacctmgr show account|assoc|qos, as Slurm prints them. Pure: the policy in, text out.
#pragma once

#include <string>
#include <vector>

#include "model/account.h"
#include "model/qos.h"

namespace muster {

struct SacctmgrOptions {
  bool header = true;  // -n: none
  int parsable = 0;    // -P: 1 ('|' between fields), -p: 2 (and a trailing '|'); 0: aligned columns
};

// `what`: "account", "assoc" (every account, then its users; users of the root last) or "qos".
// Aligned: right-aligned columns of at least 10, a dashed line under the header.
std::string FormatSacctmgrShow(const std::string& what, const std::vector<Account>& accounts,
                               const std::vector<UserAssociation>& users, const std::vector<Qos>& qos,
                               const SacctmgrOptions& options);

}  // namespace muster
