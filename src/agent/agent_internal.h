// What the agent's source files share and nobody else uses.
#pragma once

#include "net/http.h"
#include "net/json_body.h"
#include "wire/codec.h"

namespace muster {

inline HttpResponse JsonOk() { return HttpResponse::Json(200, "{}"); }
template <wire::Record T>
HttpResponse JsonOk(const T& answer) {
  return HttpResponse::Json(200, wire::Encode(answer));
}

// A request's body (net/json_body.h's rules: integers only, bounded depth) read as `T`.
template <wire::Record T>
StatusOr<T> ReadBody(const std::string& body) {
  ASSIGN_OR_RETURN(const wire::bj::value v, ParseRequestBody(body));
  return wire::FromValue<T>(v);
}

// Where a job's exit report goes (queued in the outbox, sent alone or with a heartbeat).
inline constexpr char kExitPath[] = "/v1/agent/exit";

}  // namespace muster
