// The environment of a job's processes, as Slurm sets it, so that torchrun, Lightning and submitit
// find what they read. Pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/gpu.h"
#include "model/job_record.h"

namespace muster {

struct TaskPlacement {
  int node_index = 0;   // SLURM_NODEID: position of this node in the allocation
  int procid = -1;      // SLURM_PROCID (tasks of steps); -1 for the batch script
  int localid = -1;     // SLURM_LOCALID
  int step_id = -1;     // SLURM_STEP_ID; -1 for the batch script
  int step_ntasks = 0;
  std::vector<std::string> step_nodes;
  // The step's GPUs on this node (nullopt: the job's), and how many of them each task sees (0:
  // all; N: the task with local id L sees the L-th N of them, Slurm's --gpu-bind=per_task:N).
  std::optional<std::vector<int>> step_gpus;
  int gpu_bind_per_task = 0;
  // --gpu-bind=map_gpu/mask_gpu: the task sees entry localid % size, indexes among step_gpus (an
  // entry naming none of them binds nothing: all of them, as Slurm gives); single:N: the
  // (localid / N)-th of them.
  std::vector<std::vector<int>> gpu_bind_map;
  int gpu_bind_single = 0;
  // The step runs in a cgroup of its own that shows only step_gpus (with devices_constrained):
  // CUDA numbers them from 0, as under Slurm's step cgroup.
  bool step_cgroup = false;
  // Per GPU index of the node: a MIG slice's "MIG-..." UUID, "" for a whole GPU (or empty). CUDA
  // finds a slice only by its UUID: CUDA_VISIBLE_DEVICES names a job's slices so.
  std::vector<std::string> mig_uuids;
  // srun's address as this node reached it: SLURM_LAUNCH_NODE_IPADDR and SLURM_SRUN_COMM_HOST (an
  // IP address; 127.0.0.1 for srun's Unix socket on this machine), SLURM_SRUN_COMM_PORT and
  // SLURM_STEP_LAUNCHER_PORT (its TCP port; not set for a Unix socket). Empty/0: not set.
  std::string srun_host;
  int srun_port = 0;
  int cpus_per_task = 0;  // srun -c (0: not given, the job's stands)
};

// Slurm's counts list: "2(x3),1" for {2,2,2,1}.
std::string CompressCounts(const std::vector<int64_t>& values);

// The mig_uuids of a node's GPUs.
std::vector<std::string> MigUuids(const std::vector<Gpu>& gpus);

// Full environment: the job's exported submit environment (sbatch --export=ALL), then Slurm's
// variables (SLURM_JOB_ID, SLURM_JOB_NAME, SLURM_JOB_NODELIST/SLURM_NODELIST, SLURM_JOB_NUM_NODES/
// SLURM_NNODES, SLURM_NTASKS/SLURM_NPROCS, SLURM_CPUS_ON_NODE, SLURM_GPUS_ON_NODE, SLURM_JOB_GPUS,
// SLURM_SUBMIT_DIR, SLURM_SUBMIT_HOST, SLURM_JOB_PARTITION, SLURM_NODEID, SLURMD_NODENAME,
// SLURM_JOB_USER, SLURM_JOB_UID, SLURM_JOB_GID, SLURM_JOB_ACCOUNT, SLURM_TASKS_PER_NODE,
// SLURM_JOB_CPUS_PER_NODE, SLURM_MEM_PER_NODE, SLURM_CLUSTER_NAME, SLURM_RESTART_COUNT, and for
// steps SLURM_STEP_ID, SLURM_PROCID, SLURM_LOCALID, SLURM_STEP_NODELIST, SLURM_STEP_NUM_TASKS ...)
// and CUDA_VISIBLE_DEVICES / GPU_DEVICE_ORDINAL listing only the allocated GPUs of this node: their
// node indexes, or with `devices_constrained` (the job's cgroup hides the node's other GPUs, so
// CUDA numbers the ones left from 0) 0..n-1, as Slurm renumbers under ConstrainDevices=yes.
// A MIG slice appears in CUDA_VISIBLE_DEVICES as its "MIG-..." UUID (where.mig_uuids), which is
// how CUDA selects a slice. SLURM_JOB_GPUS / SLURM_STEP_GPUS keep the node indexes either way. A step's tasks see the
// step's GPUs (step_gpus), each bound to its share with gpu_bind_per_task; renumbered, they are
// numbered among the step's GPUs in a step cgroup, else among the job's. A step without GPUs
// gets none of these variables, even when srun's environment had them.
std::vector<std::string> BuildJobEnvironment(const JobRecord& job, const std::string& node_name,
                                             const TaskPlacement& where, const std::string& cluster_name,
                                             bool devices_constrained = false);

// A heterogeneous job's variables, for its batch script and steps: SLURM_HET_SIZE and, for each
// component K (its records in offset order, each with its allocation), the component's
// SLURM_JOB_ID, _NAME, _NODELIST, _NUM_NODES, _CPUS_PER_NODE, _PARTITION, _ACCOUNT, _QOS,
// SLURM_NTASKS/NPROCS, SLURM_TASKS_PER_NODE and SLURM_MEM_PER_* as its own job would have them,
// named with the suffix _HET_GROUP_K; and Slurm's older names (SLURM_PACK_SIZE, _PACK_GROUP_K),
// which Slurm 22.05 sets too.
std::vector<std::string> HetJobEnvironment(const std::vector<JobRecord>& components, const std::string& cluster_name);

// Slurm's filename patterns for -o/-e: %j job id, %x job name, %u user, %N first node (short
// name), %n node index, %t task id, %A array master id, %a array index, %s step, %J job.step, %% percent;
// a number between % and the letter zero-pads ("%4j"). Relative results are relative to workdir.
std::string ExpandOutputPattern(const std::string& pattern, const JobRecord& job, const std::string& node_name,
                                const TaskPlacement& where);

// srun's -o/-e/-i values: a file name pattern, as opposed to "" (the stream goes to srun), "none"
// or a task id (only that task's stream goes to srun).
bool IsStepFilePattern(const std::string& how);
// The task such a value names (only its stream goes to or comes from srun); nullopt for "",
// "none", a file pattern, or an id of 10 digits or more (no task has it).
std::optional<int> StepStreamTask(const std::string& how);
// Whether a pattern names the task or the node (%t, %n, %N): each node then writes files of its
// own (truncated there), else the whole step shares one (truncated once, by srun).
bool PatternPerTaskOrNode(const std::string& pattern);

}  // namespace muster
