#include "api/routes.h"

namespace muster {

void AddControllerRoutes(Controller& controller, Router& router, const std::string& jwt_key,
                         int64_t jwt_max_lifespan_s) {
  api::AddJobRoutes(controller, router);
  api::AddTokenRoutes(controller, router, jwt_key, jwt_max_lifespan_s);
  api::AddStepRoutes(controller, router);
  api::AddNodeRoutes(controller, router);
  api::AddAccountRoutes(controller, router);
}

int64_t ControllerBodyLimit(std::string_view method, std::string_view path) {
  if (method == "GET" || method == "HEAD") return 64 << 10;
  if (method == "POST" && (path == "/v1/jobs" || path.starts_with("/v1/agent/"))) return 16 << 20;
  return 1 << 20;
}

}  // namespace muster
