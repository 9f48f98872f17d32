#include "sched/request_shape.h"

#include <algorithm>
#include <charconv>
#include <functional>

namespace muster {

bool SamePlacement(const RequestShape& a, const RequestShape& b) {
  return a.per_node == b.per_node && a.unit == b.unit && a.units == b.units &&
         a.max_units_per_node == b.max_units_per_node && a.min_nodes == b.min_nodes && a.max_nodes == b.max_nodes &&
         a.gpu_milli == b.gpu_milli && a.gpu_memory_mb == b.gpu_memory_mb && a.gpu_type == b.gpu_type &&
         a.exclusive == b.exclusive;
}

size_t RequestShape::PlacementHash() const {
  const int64_t fields[] = {per_node.cpu_milli, per_node.memory_mb, per_node.gpus, unit.cpu_milli, unit.memory_mb,
                            unit.gpus, units, max_units_per_node, min_nodes, max_nodes, gpu_milli, gpu_memory_mb,
                            exclusive ? 1 : 0};
  uint64_t h = std::hash<std::string>{}(gpu_type);
  for (int64_t f : fields) h = (h ^ static_cast<uint64_t>(f)) * 0x100000001b3ull;
  return static_cast<size_t>(h ^ (h >> 31));
}

namespace {

// What the job's units are (GPUs with --gpus, else tasks with -n, else one per node), how many,
// what each holds and how they spread over nodes; `cpt`: CPUs per task.
Status ResolveUnits(const JobRequest& req, int cpt, bool nodes_given, RequestShape& s) {
  if (req.gpus_total > 0) {
    // Units are GPUs, spread over as few nodes as possible; every node also runs its tasks.
    s.units = req.gpus_total;
    s.tasks_per_unit = 0;
    s.unit.gpus = 1;
    s.unit.cpu_milli = int64_t{req.cpus_per_gpu} * 1000;
    int tasks_per_node = req.ntasks_per_node > 0 ? req.ntasks_per_node : 1;
    if (req.ntasks > 0) tasks_per_node = std::max(tasks_per_node, (req.ntasks + s.min_nodes - 1) / s.min_nodes);
    s.tasks_per_node_fixed = tasks_per_node;
    if (req.cpus_per_gpu == 0) s.per_node.cpu_milli = int64_t{tasks_per_node} * cpt * 1000;
    if (s.units < s.min_nodes) {
      return InvalidArgument("--gpus=" + std::to_string(req.gpus_total) + " is less than the node count " +
                             std::to_string(s.min_nodes));
    }
  } else if (req.ntasks > 0) {
    // Units are tasks.
    s.units = req.ntasks;
    s.unit.cpu_milli = int64_t{cpt} * 1000;
    s.unit.gpus = req.gpus_per_task;
    if (req.cpus_per_gpu > 0 && req.gpus_per_task > 0) {
      s.unit.cpu_milli = std::max<int64_t>(s.unit.cpu_milli, int64_t{req.gpus_per_task} * req.cpus_per_gpu * 1000);
    }
    s.max_units_per_node = req.ntasks_per_node;
    if (req.overcommit) {
      // -O: the CPUs of one task on each node, which all its tasks share (Slurm's overcommit);
      // the tasks then cost nothing alone, and fill as few nodes as -N allows.
      s.unit.cpu_milli = 0;
      s.per_node.cpu_milli = std::max<int64_t>(s.per_node.cpu_milli, int64_t{cpt} * 1000);
    }
    if (s.max_units_per_node > 0 && !nodes_given) {
      s.min_nodes = (s.units + s.max_units_per_node - 1) / s.max_units_per_node;
    }
    if (s.units < s.min_nodes) {
      return InvalidArgument("-n " + std::to_string(req.ntasks) + " tasks cannot run on " +
                             std::to_string(s.min_nodes) + " nodes (at least one task per node)");
    }
    if (s.max_units_per_node > 0 && s.max_nodes > 0 &&
        int64_t{s.max_units_per_node} * s.max_nodes < s.units) {
      return InvalidArgument("-n " + std::to_string(req.ntasks) + " tasks do not fit " +
                             std::to_string(s.max_nodes) + " nodes at --ntasks-per-node=" +
                             std::to_string(s.max_units_per_node));
    }
  } else {
    // One unit per node: the node's tasks (one unless --ntasks-per-node) and their GPUs.
    const int k = req.ntasks_per_node > 0 ? req.ntasks_per_node : 1;
    s.units = s.min_nodes;
    s.max_units_per_node = 1;
    s.tasks_per_unit = k;
    s.unit.cpu_milli = int64_t{k} * cpt * 1000;
    s.unit.gpus = req.gpus_per_task * k;
    s.max_nodes = s.min_nodes;
  }
  return Status::Ok();
}

}  // namespace

StatusOr<RequestShape> ResolveShape(const JobRequest& req, const Partition& partition) {
  RequestShape s;
  s.gpu_type = req.gpu_type;
  s.exclusive = req.exclusive;
  s.gpu_milli = req.gpu_milli;
  s.gpu_memory_mb = req.gpu_memory_mb;
  const int cpt = req.cpus_per_task > 0 ? req.cpus_per_task : 1;
  const bool nodes_given = req.min_nodes > 0;
  s.min_nodes = nodes_given ? req.min_nodes : 1;
  s.max_nodes = req.max_nodes > 0 ? req.max_nodes : (nodes_given ? req.min_nodes : 0);
  if (s.max_nodes > 0 && s.max_nodes < s.min_nodes) {
    return InvalidArgument("node count range " + std::to_string(s.min_nodes) + "-" + std::to_string(s.max_nodes) +
                           " is empty");
  }
  if (req.gpus_total > 0 && (req.gpus_per_node > 0 || req.gpus_per_task > 0)) {
    return InvalidArgument("--gpus cannot be combined with --gpus-per-node/--gres=gpu or --gpus-per-task");
  }
  s.per_node.gpus = req.gpus_per_node;

  RETURN_IF_ERROR(ResolveUnits(req, cpt, nodes_given, s));
  if (req.cpus_per_gpu > 0 && s.per_node.gpus > 0) {
    s.per_node.cpu_milli += int64_t{s.per_node.gpus} * req.cpus_per_gpu * 1000;
  }
  // --mincpus: every node of the job holds at least one unit, so a fixed part of N CPUs less one
  // unit's gives each node at least N (more where several units share it).
  if (req.min_cpus_per_node > 0) {
    s.per_node.cpu_milli = std::max(s.per_node.cpu_milli, int64_t{req.min_cpus_per_node} * 1000 - s.unit.cpu_milli);
  }

  // Memory: per node, or per CPU (explicit or the partition's DefMemPerCPU), or per GPU.
  auto cpus = [](const ResourceVector& r) { return r.cpu_milli / 1000; };
  if (req.mem_per_node_mb > 0) {
    s.per_node.memory_mb = req.mem_per_node_mb;
  } else if (req.mem_per_gpu_mb > 0) {
    s.per_node.memory_mb = int64_t{s.per_node.gpus} * req.mem_per_gpu_mb;
    s.unit.memory_mb = int64_t{s.unit.gpus} * req.mem_per_gpu_mb;
  } else {
    const int64_t per_cpu = req.mem_per_cpu_mb > 0 ? req.mem_per_cpu_mb : partition.def_mem_per_cpu_mb;
    s.per_node.memory_mb = cpus(s.per_node) * per_cpu;
    s.unit.memory_mb = cpus(s.unit) * per_cpu;
  }

  if (s.fractional()) {
    if (s.per_node.gpus > 0 || s.unit.gpus > 0) {
      return InvalidArgument("a fractional GPU request cannot also ask for whole GPUs");
    }
    if (req.gpu_milli < 0 || req.gpu_milli >= kMilliPerGpu) {
      return InvalidArgument("--gpu-fraction must be above 0 and below 1");
    }
  }
  return s;
}

}  // namespace muster
