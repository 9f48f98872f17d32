// Why a job did not start in a cycle, in Slurm's vocabulary (squeue's NODELIST(REASON) column).
#pragma once

namespace muster {

enum class PendingReason {
  kNone,                // started (or not evaluated)
  kPriority,            // a higher-priority job in the same partition is waiting for resources
  kResources,           // the job fits the partition but not the free resources now
  kPartitionNodeLimit,  // node count outside the partition's MinNodes/MaxNodes
  kPartitionConfig,     // time limit over the partition's MaxTime (Slurm 22.05 prints PartitionConfig)
  kPartitionDown,       // the partition is not UP
  kReqNodeNotAvail,     // the nodes it could use are DOWN or DRAINED
  kBadConstraints,      // the nodes with the requested features are all unavailable
};

// The name squeue prints ("Resources", "Priority", ...).
const char* PendingReasonName(PendingReason r);

}  // namespace muster
