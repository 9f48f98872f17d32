#include "api/decode.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "model/hostlist.h"

namespace muster {

using nlohmann::json;

StatusOr<SubmitRequest> DecodeSubmitRequest(const json& b) { return SubmitRequestFromJson(b); }

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

StatusOr<std::map<std::string, std::string>> DecodeUpdateFields(const json& body) {
  if (!body.is_object()) return InvalidArgument("the body must be an object of fields");
  std::map<std::string, std::string> fields;
  for (const auto& [k, v] : body.items()) {
    if (!v.is_string()) return InvalidArgument("field '" + k + "' must be a string");
    fields[k] = v.get<std::string>();
  }
  return fields;
}

StatusOr<PolicyOp> DecodePolicyOp(const json& b) {
  PolicyOp op;
  Status err;
  if (!Get(b, "verb", op.verb, err) || !Get(b, "entity", op.entity, err) || !Get(b, "name", op.name, err)) return err;
  if (b.contains("fields")) {
    if (!b["fields"].is_array()) return InvalidArgument("fields: expected [[key, value], ...]");
    for (const json& f : b["fields"]) {
      if (!f.is_array() || f.size() != 2 || !f[0].is_string() || !f[1].is_string()) {
        std::string got = f.dump(-1, ' ', false, json::error_handler_t::replace);
        if (got.size() > 80) got = got.substr(0, 77) + "...";
        return InvalidArgument("fields: expected [[key, value], ...], got " + got);
      }
      op.fields.emplace_back(f[0].get<std::string>(), f[1].get<std::string>());
    }
  }
  return op;
}

}  // namespace muster
