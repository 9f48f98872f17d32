// The controller's routes carry their request body limits (Router::Add), and a standby, which
// has no routes, takes the same ones (ControllerUnroutedBodyLimit): the figures
// HttpServer::Options::body_limit had when they lived in one function of their own.
#include "api/routes.h"

#include <gtest/gtest.h>

#include <regex>

#include "api/config_files.h"
#include "api/controller_metrics.h"
#include "api/dashboard.h"
#include "api/slurmrest/slurmrest.h"
#include "ctld/controller_test_fixture.h"

namespace muster {
namespace {

using namespace ctld_test;  // NOLINT(build/namespaces)

// The limits before they were the routes': 16 MiB for a submission and the agents' reports, 1 MiB
// for other changes, 64 KiB for reads; the REST API's paths by their own rule.
int64_t LimitOfRecord(std::string_view method, std::string_view path) {
  if (slurmrest::IsSlurmRestPath(path)) {
    if (method == "GET" || method == "HEAD" || method == "DELETE") return 64 << 10;
    if (method == "POST" && path.ends_with("/job/submit")) return 16 << 20;
    return 1 << 20;
  }
  if (method == "GET" || method == "HEAD") return 64 << 10;
  if (method == "POST" && (path == "/v1/jobs" || path.starts_with("/v1/agent/"))) return 16 << 20;
  return 1 << 20;
}

class ControllerBodyLimitTest : public ControllerTest {
 protected:
  void SetUp() override {
    ControllerTest::SetUp();
    // As musterctld builds its routers.
    AddControllerRoutes(*ctld_, router_);
    api::AddMetricsRoutes(*ctld_, router_, 4);
    api::AddConfigFileRoutes(*ctld_, router_, served_, [] { return Status::Ok(); });
    slurmrest::AddSlurmRestRoutes(*ctld_, router_, {});
    api::AddDashboardRoutes(*ctld_, router_, "");
    slurmrest::AddSlurmRestRoutes(*ctld_, rest_router_, {});
    api::AddDashboardRoutes(*ctld_, rest_router_, "");
  }
  // A path the pattern matches: each "{param}" an id.
  static std::string PathOf(const std::string& pattern) {
    return std::regex_replace(pattern, std::regex("\\{[^}]*\\}"), "7");
  }
  ServedConfig served_;
  Router router_{ControllerUnroutedBodyLimit};
  Router rest_router_{slurmrest::SlurmRestBodyLimit};
};

TEST_F(ControllerBodyLimitTest, EveryRouteTakesWhatItTookAndAStandbyTakesTheSame) {
  const std::vector<Router::RouteInfo> routes = router_.Routes();
  ASSERT_GT(routes.size(), 40u);
  for (const Router::RouteInfo& r : routes) {
    const std::string path = PathOf(r.pattern);
    EXPECT_EQ(router_.BodyLimit(r.method, path), LimitOfRecord(r.method, path)) << r.method << " " << r.pattern;
    EXPECT_EQ(ControllerUnroutedBodyLimit(r.method, path), LimitOfRecord(r.method, path)) << r.method << " " << path;
  }
  for (const Router::RouteInfo& r : rest_router_.Routes()) {
    const std::string path = PathOf(r.pattern);
    EXPECT_EQ(rest_router_.BodyLimit(r.method, path), slurmrest::SlurmRestBodyLimit(r.method, path)) << r.pattern;
  }
}

TEST_F(ControllerBodyLimitTest, TheFiguresByRouteAndForPathsNoRouteTakes) {
  const std::vector<std::tuple<std::string, std::string, int64_t>> cases = {
      {"POST", "/v1/jobs", 16 << 20},
      {"POST", "/v1/agent/heartbeat", 16 << 20},
      {"POST", "/v1/agent/exit", 16 << 20},
      {"POST", "/v1/jobs/7/steps", 1 << 20},
      {"POST", "/v1/jobs/7/hold", 1 << 20},
      {"DELETE", "/v1/jobs/7", 1 << 20},
      {"POST", "/v1/reconfigure", 1 << 20},
      {"GET", "/v1/jobs", 64 << 10},
      {"GET", "/metrics", 64 << 10},
      {"GET", "/ui/app.js", 64 << 10},
      {"POST", "/slurm/v0.0.38/job/submit", 16 << 20},
      {"POST", "/slurm/v0.0.38/job/7", 1 << 20},
      {"DELETE", "/slurm/v0.0.38/job/7", 64 << 10},
      // No route takes these (404 or 405): the rule's figures, as before.
      {"HEAD", "/v1/jobs", 64 << 10},
      {"PUT", "/v1/jobs", 1 << 20},
      {"POST", "/v1/agent/unknown", 16 << 20},
      {"POST", "/v1/unknown", 1 << 20},
      {"GET", "/v1/unknown", 64 << 10},
      {"DELETE", "/slurm/v0.0.38/unknown", 64 << 10},
      {"PUT", "/slurmdb/v0.0.38/unknown", 1 << 20},
  };
  for (const auto& [method, path, limit] : cases) {
    EXPECT_EQ(router_.BodyLimit(method, path), limit) << method << " " << path;
    EXPECT_EQ(LimitOfRecord(method, path), limit) << method << " " << path;
  }
  EXPECT_EQ(rest_router_.BodyLimit("POST", "/slurm/v0.0.38/job/submit"), 16 << 20);
  EXPECT_EQ(rest_router_.BodyLimit("GET", "/ui"), 64 << 10);
  EXPECT_EQ(rest_router_.BodyLimit("POST", "/v1/jobs"), 1 << 20);  // the REST listener has no /v1 routes
}

}  // namespace
}  // namespace muster
