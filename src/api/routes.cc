#include "api/routes.h"

#include "api/route_util.h"
#include "api/slurmrest/slurmrest.h"

namespace muster {

void AddControllerRoutes(Controller& controller, Router& router, const std::string& jwt_key,
                         int64_t jwt_max_lifespan_s) {
  api::AddJobRoutes(controller, router);
  api::AddTokenRoutes(controller, router, jwt_key, jwt_max_lifespan_s);
  api::AddStepRoutes(controller, router);
  api::AddNodeRoutes(controller, router);
  api::AddAccountRoutes(controller, router);
}

int64_t ControllerUnroutedBodyLimit(std::string_view method, std::string_view path) {
  if (slurmrest::IsSlurmRestPath(path)) return slurmrest::SlurmRestBodyLimit(method, path);
  if (method == "GET" || method == "HEAD") return Router::kDefaultBodyLimit;
  if (method == "POST" && (path == "/v1/jobs" || path.starts_with("/v1/agent/"))) return api::kLargeBodyLimit;
  return api::kChangeBodyLimit;
}

}  // namespace muster
