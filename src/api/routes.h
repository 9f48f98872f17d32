// The controller's HTTP/JSON API (docs/api.md), by resource: routes that decode requests, call
// the Controller with the authenticated caller, and encode the answers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ctld/controller.h"
#include "net/http.h"
#include "net/jwt.h"

namespace muster::api {

void AddJobRoutes(Controller& c, Router& r);      // routes_jobs.cc
void AddStepRoutes(Controller& c, Router& r);     // routes_steps.cc
void AddNodeRoutes(Controller& c, Router& r);     // routes_nodes.cc
void AddAccountRoutes(Controller& c, Router& r);  // routes_accounts.cc
// POST /v1/jwt (routes_tokens.cc); `jwt_key` "" = none configured (the route says so);
// `max_lifespan_s`: controller.jwt_max_lifespan (0 = no limit), for users other than root and admins.
void AddTokenRoutes(Controller& c, Router& r, const std::string& jwt_key,
                    int64_t max_lifespan_s = kDefaultJwtMaxLifespanSeconds);

}  // namespace muster::api

namespace muster {

// Adds every /v1 route of the controller to `router` (`jwt_key` and `jwt_max_lifespan_s`:
// controller.jwt_key and controller.jwt_max_lifespan, for POST /v1/jwt).
void AddControllerRoutes(Controller& controller, Router& router, const std::string& jwt_key = "",
                         int64_t jwt_max_lifespan_s = kDefaultJwtMaxLifespanSeconds);

// The body limit of a request no route of the controller's takes (each route has its own,
// api/route_util.h): an unknown path's (answered 404 or 405), and every request of a standby's,
// which answers them all before any route exists. The REST API's rule on its paths, else the
// routes' families': reads 64 KiB, submissions and the agents' reports 16 MiB, other changes
// 1 MiB; so a standby takes what the leader's routes take (routes_test.cc holds them to it).
int64_t ControllerUnroutedBodyLimit(std::string_view method, std::string_view path);

}  // namespace muster
