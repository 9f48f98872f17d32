// Partition: a named set of nodes with limits, as in Slurm's PartitionName= lines. Plain value type.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/limits.h"
#include "model/qos.h"

namespace muster {

// Who may use a partition: Slurm's AllowGroups=, AllowAccounts=, DenyAccounts=, AllowQos=,
// DenyQos=. An empty list is ALL (allow) or none (deny). An Allow list and a Deny list of the same
// kind are exclusive (the loaders keep at most one of them). The decision is
// CheckPartitionAccess (model/partition_access.h).
struct PartitionAccess {
  std::vector<std::string> allow_groups;
  std::vector<std::string> allow_accounts;
  std::vector<std::string> deny_accounts;
  std::vector<std::string> allow_qos;
  std::vector<std::string> deny_qos;

  bool operator==(const PartitionAccess&) const = default;
};

struct Partition {
  std::string name;
  std::vector<std::string> nodes;   // expanded node names
  bool is_default = false;
  bool up = true;                   // State=UP; DOWN/INACTIVE partitions start nothing
  int min_nodes = 0;                // MinNodes (0 = no minimum, Slurm's default)
  int64_t max_nodes = kUnlimited;   // per job
  int64_t max_time_s = kUnlimited;  // per job; over it the job stays pending (PartitionTimeLimit)
  int64_t default_time_s = kUnlimited;
  int priority_tier = 1;
  int64_t def_mem_per_cpu_mb = 0;  // DefMemPerCPU: memory for jobs that ask none (0 = none)
  bool def_mem_from_cluster = false;  // that is slurm.conf's global DefMemPerCPU (not shown on the partition)
  // How its jobs are preempted (PreemptMode=, GraceTime=): over the cluster's settings, under a
  // QOS's own.
  bool has_preempt_mode = false;
  PreemptMode preempt_mode = PreemptMode::kRequeue;
  int64_t grace_time_s = kUnlimited;
  PartitionAccess access;  // who may submit to it (checked at submission)
};

}  // namespace muster
