// Whether a job may use a partition, by the partition's AllowGroups=, AllowAccounts=,
// DenyAccounts=, AllowQos= and DenyQos=, as slurmctld decides at submission (job_mgr.c's
// _part_access_check, partition_mgr.c's validate_group, part_policy_valid_acct and
// part_policy_valid_qos). A pure function: the caller resolves the submitter's groups and the
// account's parents. Thread-safe.
#pragma once

#include <string>
#include <vector>

#include "model/partition.h"

namespace muster {

// The facts the decision needs about a job and its submitter.
struct PartitionAccessRequest {
  // The names of the submitter's groups, primary and supplementary.
  std::vector<std::string> groups;
  // Root or a cluster admin (Slurm's root and SlurmUser): AllowGroups does not apply to them.
  bool privileged = false;
  // The job's account ("": none). Slurm 22.05 matches the name itself (its parents do not count).
  std::string account;
  std::string qos;  // the job's QOS ("" counts as "normal")
};

enum class PartitionAccessDenial {
  kNone,
  kGroup,    // ESLURM_JOB_MISSING_REQUIRED_PARTITION_GROUP
  kAccount,  // ESLURM_INVALID_ACCOUNT
  kQos,      // ESLURM_INVALID_QOS
};

// The first rule the job breaks, checked in Slurm's order: groups, accounts, QOS.
PartitionAccessDenial CheckPartitionAccess(const PartitionAccess& access, const PartitionAccessRequest& request);

// Slurm's text for the denial (slurm_errno.c), e.g. "User's group not permitted to use this
// partition"; "" for kNone.
const char* PartitionAccessMessage(PartitionAccessDenial denial);

// "ALL" for an empty list, else the names joined by ',' (scontrol show partition's form).
std::string FormatAccessList(const std::vector<std::string>& names);

}  // namespace muster
