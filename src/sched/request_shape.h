// RequestShape: a JobRequest resolved into what the placer needs: resources every chosen node
// must give (`per_node`), a number of interchangeable units (tasks or GPUs) spread over the nodes,
// and the allowed node count. Pure function of the request and the partition.
//
//   -N 2 --gres=gpu:4             -> per_node{gpus=4, cpu=1 task}, 2 units (1 per node), nodes 2..2
//   --gpus=16                     -> units of 1 GPU, 16 units, nodes 1..inf (fewest nodes wins)
//   -n 8 -c 4 --gpus-per-task=1   -> units of {4 cpu, 1 gpu}, 8 units, nodes 1..inf
//   -n 8 --ntasks-per-node=4      -> units of 1 task, at most 4 per node, nodes 2..inf
//   --gpu-fraction=0.5            -> per_node{one shared GPU slice of 500 milli}, 1 node
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"
#include "model/job_request.h"
#include "model/partition.h"

namespace muster {

struct ResourceVector {
  int64_t cpu_milli = 0;
  int64_t memory_mb = 0;
  int gpus = 0;  // whole GPUs
  friend bool operator==(const ResourceVector&, const ResourceVector&) = default;
};

struct RequestShape {
  ResourceVector per_node;      // fixed part on every node of the allocation
  ResourceVector unit;          // one unit (task or GPU)
  int units = 1;                // total units to place
  int max_units_per_node = 0;   // 0 = no cap
  int tasks_per_unit = 1;       // 1 when units are tasks; 0 when units are GPUs
  int tasks_per_node_fixed = 0; // tasks counted in per_node (when units are GPUs)
  int min_nodes = 1;
  int max_nodes = 0;            // 0 = no limit
  int gpu_milli = 0;            // > 0: one shared GPU slice per node, this fraction
  int64_t gpu_memory_mb = 0;    // > 0: one shared GPU slice per node, sized by memory
  std::string gpu_type;         // "" = any whole (non-MIG) GPU
  bool exclusive = false;

  bool fractional() const { return gpu_milli > 0 || gpu_memory_mb > 0; }
  // Shapes interchangeable for placement (the scheduler's per-cycle memos of what fits and what
  // failed) compare equal here and hash alike: all fields but the tasks per unit and node.
  friend bool SamePlacement(const RequestShape& a, const RequestShape& b);
  size_t PlacementHash() const;
};

// Resolves `req` against `partition` (for DefMemPerCPU). Errors are requests that can never be
// valid (e.g. "--gpus=2 is less than the node count 4").
StatusOr<RequestShape> ResolveShape(const JobRequest& req, const Partition& partition);

}  // namespace muster
