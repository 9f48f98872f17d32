// What the agent's source files share and nobody else uses.
#pragma once

#include <nlohmann/json.hpp>

#include "net/http.h"

namespace muster {

inline HttpResponse JsonOk(const nlohmann::json& j = nlohmann::json::object()) { return HttpResponse::Json(200, j.dump()); }

// Where a job's exit report goes (queued in the outbox, sent alone or with a heartbeat).
inline constexpr char kExitPath[] = "/v1/agent/exit";

}  // namespace muster
