// sacctmgr's changes to accounts (queues), user associations and QOS, as values: the controller
// applies them to what muster.yaml defines, stores them, and replays them after a restart.
//
//   add account NAME [Parent=P] [Fairshare=N] [Quota=TRES] [OverQuotaWeight=W] [GrpTRES=TRES]
//                    [MaxJobs=N] [GrpJobs=N] [MaxWall=TIME] [MaxTRESPerUser=gres/gpu=N] [QOS=q1,q2]
//   add user NAME Account=A [Fairshare=N]
//   add qos NAME [Priority=N] [Preempt=q1,q2] [PreemptMode=requeue|cancel|suspend|off]
//                [GraceTime=SECONDS] [PreemptExemptTime=TIME] [MaxTRESPerUser=gres/gpu=N]
//                [MaxTRESPerJob=gres/gpu=N] [MaxJobsPerUser=N] [MaxWall=TIME] [GrpTRES=gres/gpu=N]
//   modify account|qos NAME set Key=Value ...;  modify user NAME Account=A set Fairshare=N
//   delete account NAME;  delete user NAME [Account=A];  delete qos NAME
//
// TRES lists are Slurm's: "gres/gpu=8,cpu=64,mem=512G"; -1 clears a value. Keys are
// case-insensitive. Pure values and functions.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "model/account.h"
#include "model/qos.h"

namespace muster {

struct PolicyOp {
  std::string verb;     // "add", "modify", "delete"
  std::string entity;   // "account", "user", "qos"
  std::string name;
  std::vector<std::pair<std::string, std::string>> fields;  // Key=Value in the order given
  friend bool operator==(const PolicyOp&, const PolicyOp&) = default;
};

// Applies `op` to the tree and the QOS list, all or nothing; errors name what is wrong
// ("account 'x' already exists", "unknown key 'Fairshar' for an account", ...).
Status ApplyPolicyOp(const PolicyOp& op, AccountTree* tree, std::vector<Qos>* qos);

// Whether a job charged to `account` may name QOS `qos` ("" = the default: always): the nearest
// account on the way up with a QOS list decides; with none, any QOS may be named.
bool MayUseQos(const AccountTree& tree, const std::string& account, const std::string& qos);
// Every account's QOS list names a known QOS ("normal" always is one).
Status ValidateQosAccess(const AccountTree& tree, const std::vector<Qos>& qos);

// "gres/gpu=8,cpu=64,mem=512G" -> amounts (others unset; -1 = unset).
StatusOr<TresAmounts> ParseTres(const std::string& text);
std::string FormatTres(const TresAmounts& t);  // "cpu=64,mem=512G,gres/gpu=8" ("" when none)

// The stored form: a JSON array of ops.
std::string PolicyOpsToJson(const std::vector<PolicyOp>& ops);
StatusOr<std::vector<PolicyOp>> PolicyOpsFromJson(const std::string& json);

}  // namespace muster
