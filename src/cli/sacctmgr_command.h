// sacctmgr: accounts (team queues), user associations and QOS, changed and shown as with Slurm's
// sacctmgr (model/policy_ops.h lists the keys). Changes need an administrator; they apply at once
// (-i is accepted: there is no confirmation prompt) and survive controller restarts.
//
//   sacctmgr add account vision Parent=research Fairshare=4 Quota=gres/gpu=8 GrpTRES=gres/gpu=16
//   sacctmgr add user alice Account=vision
//   sacctmgr add qos high Priority=100 Preempt=normal MaxTRESPerUser=gres/gpu=16
//   sacctmgr modify account where name=vision set MaxJobs=50
//   sacctmgr delete qos high
//   sacctmgr show account|assoc|qos [-P|-p] [-n]
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace muster {

int SacctmgrMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace muster
