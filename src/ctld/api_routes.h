// The controller's HTTP/JSON API (docs/api.md): routes that decode requests, call the Controller
// with the authenticated caller, and encode the answers. Status codes: 400 bad request (with
// Slurm's message), 401 unauthenticated, 403 not allowed, 404 unknown id/name, 409 wrong state.
#pragma once

#include "ctld/controller.h"
#include "net/http.h"

namespace muster {

// Adds every /v1 route of the controller to `router`.
void AddControllerRoutes(Controller& controller, Router& router);

// The largest request body each route takes (HttpServer::Options::body_limit): a submission (its
// script, at most ControllerConfig::max_script_bytes, escaped in JSON, with its environment) and
// the agents' reports 16 MiB; other changes 1 MiB; reads 64 KiB.
int64_t ControllerBodyLimit(std::string_view method, std::string_view path);

// Maps a Status to an HTTP error response ({"error": message}).
// {"error": message} with the HTTP status for the code; `user_msg` (what Slurm tells a submitter
// before the error: "Memory specification can not be satisfied") goes beside it as "user_msg".
HttpResponse ErrorResponse(const Status& status, const std::string& user_msg = "");

}  // namespace muster
