#include "api/decode.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "model/hostlist.h"

namespace muster {

using nlohmann::json;

StatusOr<StepRequest> DecodeStepRequest(const json& body) {
  StepRequest s;
  Status err;
  if (!Get(body, "name", s.name, err) || !Get(body, "ntasks", s.shape.ntasks, err) ||
      !Get(body, "nnodes", s.shape.nnodes, err) || !Get(body, "ntasks_per_node", s.shape.ntasks_per_node, err) ||
      !Get(body, "overlap", s.overlap, err) || !Get(body, "exact", s.exact, err) ||
      !Get(body, "cpus_per_task", s.cpus_per_task, err) || !Get(body, "overcommit", s.overcommit, err) ||
      !Get(body, "mem_mb", s.mem_mb, err) || !Get(body, "mem_per_cpu_mb", s.mem_per_cpu_mb, err) ||
      !Get(body, "mem_per_gpu_mb", s.mem_per_gpu_mb, err) || !Get(body, "constraint", s.constraint, err) ||
      !Get(body, "time_limit_s", s.time_limit_s, err)) {
    return err;
  }
  // "nodelist" / "exclude": srun -w / -x, hostlist expressions.
  for (auto [key, out] : {std::pair{"nodelist", &s.shape.nodelist}, std::pair{"exclude", &s.shape.exclude}}) {
    std::string expr;
    if (!Get(body, key, expr, err)) return err;
    if (expr.empty()) continue;
    StatusOr<std::vector<std::string>> names = ExpandHostlist(expr);
    if (!names.ok()) return InvalidArgument("Invalid node name specified: " + expr);
    *out = std::move(*names);
  }
  // "gpus": {"per_node": N, "total": N, "per_task": N} when srun named the step's GPUs.
  if (body.contains("gpus") && !body["gpus"].is_null()) {
    const json& g = body["gpus"];
    s.gpus.given = true;
    if (!g.is_object() || !Get(g, "per_node", s.gpus.per_node, err) || !Get(g, "total", s.gpus.total, err) ||
        !Get(g, "per_task", s.gpus.per_task, err)) {
      return err.ok() ? InvalidArgument("field 'gpus' must be an object") : err;
    }
    if (s.gpus.per_node < 0 || s.gpus.total < 0 || s.gpus.per_task < 0) {
      return InvalidArgument("Invalid generic resource (gres) specification");
    }
  }
  return s;
}

}  // namespace muster
