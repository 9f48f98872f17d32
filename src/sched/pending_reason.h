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
  // Limits (sched/limit_gate.h): the job would take its account or QOS over a limit.
  kAssocGrpGRES,                     // account (or the user in it) GPU limit
  kAssocGrpCpuLimit,                 // account CPU limit
  kAssocGrpMemLimit,                 // account memory limit
  kAssocMaxJobsLimit,                // running jobs of the user in the account
  kAssocGrpJobsLimit,                // running jobs of the account
  kAssocMaxWallDurationPerJobLimit,  // time limit over the account's MaxWall
  kQOSMaxGRESPerUser,                // the user's GPUs in the QOS
  kQOSMaxGRESPerJob,                 // the job's GPUs over the QOS's per-job limit
  kQOSMaxJobsPerUserLimit,           // the user's running jobs in the QOS
  kQOSMaxWallDurationPerJobLimit,    // time limit over the QOS's MaxWall
  kQOSGrpGRES,                       // the QOS's GPUs
  // Admission (sched/admission.h): before any placement is tried.
  kBeginTime,                 // --begin in the future
  kDependency,                // --dependency not satisfied yet
  kDependencyNeverSatisfied,  // --dependency that cannot be any more
  kJobArrayTaskLimit,         // the array's '%' limit of running tasks
  // Held (the job's `held` flag): never scheduled until released.
  kJobHeldUser,               // sbatch --hold, or scontrol hold by its owner
  kJobHeldAdmin,              // scontrol hold by an admin: only an admin may release it
  kLaunchFailedRequeuedHeld,  // its node could not launch it (Slurm's "launch failed requeued held")
};

// The name squeue prints ("Resources", "Priority", ...).
const char* PendingReasonName(PendingReason r);

}  // namespace muster
