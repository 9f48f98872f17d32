// Where the tasks of a job step go: which of the job's nodes run the step and how many tasks
// each runs (Slurm's block distribution: the tasks split as evenly as possible, the first nodes
// taking one more when they do not divide). Pure functions; the controller answers srun with
// the result and the agents' SLURM_* variables (agent/job_env.h) follow the same rule.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/job_record.h"

namespace muster {

// What srun asks for; 0 = not given.
struct StepShapeRequest {
  int ntasks = 0;           // -n
  int nnodes = 0;           // -N
  int ntasks_per_node = 0;  // --ntasks-per-node
  std::vector<std::string> nodelist;  // -w: these of the job's nodes (and as many as -N asks)
  std::vector<std::string> exclude;   // -x: not these
  // Nodes where the job's running steps leave no room for this one: the others are taken first
  // (so that `srun -n1 --exclusive` steps spread over the job's nodes, as in Slurm).
  std::vector<std::string> busy;
};

struct StepLayout {
  std::vector<std::string> nodes;  // the step's nodes, in Slurm's node order
  std::vector<int> tasks;          // tasks per node (same order); task ids run in blocks
  int ntasks = 0;
  std::string warning;  // e.g. "can't run 1 processes on 2 nodes, setting nnodes to 1"

  int first_task(size_t node_index) const;  // the global task id (SLURM_PROCID) of its first task
};

// tasks / nodes each, the first (tasks % nodes) nodes one more. Empty for nodes <= 0.
std::vector<int> BlockTaskCounts(int ntasks, int nnodes);

// The step's layout on a running job's allocation. Defaults follow srun inside an allocation:
// no -N: every node of the job; no -n: --ntasks-per-node times the nodes when given, else the
// job's tasks on those nodes (at least one per node). More nodes than tasks: fewer nodes (with a
// warning when -N was given). Errors (InvalidArgument, Slurm's words) for a -N beyond the
// allocation or -n beyond what --ntasks-per-node allows. With -w the step runs on those nodes
// (-N more: the job's others fill up), never on the -x ones; the nodes it picks itself are the
// first in the job's order that are not busy, then busy ones. A -w node outside the job, or on
// -x too: "Requested node configuration is not available".
StatusOr<StepLayout> PlanStepLayout(const std::vector<NodeAllocation>& allocation, const StepShapeRequest& request);

// The GPUs a step asks for (srun --gres=gpu:N, --gpus-per-node, -G/--gpus, --gpus-per-task,
// --gres=none). Not given: all the job's GPUs on each of the step's nodes (Slurm's default).
struct StepGpuRequest {
  bool given = false;
  int per_node = 0;
  int total = 0;     // spread over the step's nodes, the first ones taking one more
  int per_task = 0;  // times the step's tasks on each node
  friend bool operator==(const StepGpuRequest&, const StepGpuRequest&) = default;
};

// The job's GPUs on `node` (whole ones and a fractional job's shared one), by index.
std::vector<int> JobGpusOn(const std::vector<NodeAllocation>& allocation, const std::string& node);

// Which of the job's GPUs the step takes on each of its nodes (layout order), lowest indexes
// first among those `held(node, gpu)` does not name (the job's running steps'; pass nullptr for
// an --overlap step, which shares them). More than the job has on a node: InvalidArgument
// "Invalid generic resource (gres) specification"; more than are free: Unavailable "Requested
// nodes are busy" (srun waits), as Slurm says.
StatusOr<std::vector<std::vector<int>>> PlanStepGpus(
    const std::vector<NodeAllocation>& allocation, const StepLayout& layout, const StepGpuRequest& request,
    const std::function<bool(const std::string& node, int gpu)>& held);

}  // namespace muster
