// The controller API's request decoders (docs/api.md): JSON bodies into the Controller's request
// types. Pure: no controller, no I/O. Errors are InvalidArgument naming the field. Kept apart from
// the routes so that they can be fuzzed alone (fuzz/fuzz_api_decode.cc).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "base/status.h"
#include "ctld/controller.h"
#include "model/policy_ops.h"

namespace muster {

// Reads j[key] into `out` when present and not null; false (with `err` naming the field) when it
// has the wrong type.
template <typename T>
bool Get(const nlohmann::json& j, const char* key, T& out, Status& err) {
  if (!j.is_object() || !j.contains(key) || j[key].is_null()) return true;
  try {
    out = j[key].get<T>();
    return true;
  } catch (const nlohmann::json::exception&) {
    err = InvalidArgument(std::string("field '") + key + "' has the wrong type");
    return false;
  }
}

// POST /v1/jobs/{id}/steps (srun -w/-x hostlists expanded here).
StatusOr<StepRequest> DecodeStepRequest(const nlohmann::json& body);

}  // namespace muster
