#include "api/decode.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "model/hostlist.h"

namespace muster {

StatusOr<StepRequest> ToStepRequest(const StepCreate& c) {
  StepRequest s;
  s.name = c.name;
  s.shape.ntasks = c.ntasks;
  s.shape.nnodes = c.nnodes;
  s.shape.ntasks_per_node = c.ntasks_per_node;
  s.overlap = c.overlap;
  s.exact = c.exact;
  s.cpus_per_task = c.cpus_per_task;
  s.overcommit = c.overcommit;
  s.mem_mb = c.mem_mb;
  s.mem_per_cpu_mb = c.mem_per_cpu_mb;
  s.mem_per_gpu_mb = c.mem_per_gpu_mb;
  s.constraint = c.constraint;
  s.time_limit_s = c.time_limit_s;
  // srun -w / -x: hostlist expressions.
  for (auto [expr, out] : {std::pair{&c.nodelist, &s.shape.nodelist}, std::pair{&c.exclude, &s.shape.exclude}}) {
    if (expr->empty()) continue;
    StatusOr<std::vector<std::string>> names = ExpandHostlist(*expr);
    if (!names.ok()) return InvalidArgument("Invalid node name specified: " + *expr);
    *out = std::move(*names);
  }
  if (c.gpus) {
    if (c.gpus->per_node < 0 || c.gpus->total < 0 || c.gpus->per_task < 0) {
      return InvalidArgument("Invalid generic resource (gres) specification");
    }
    s.gpus = {true, c.gpus->per_node, c.gpus->total, c.gpus->per_task};
  }
  return s;
}

}  // namespace muster
