// A configless agent's fetch: past a standby's 503 and an address where nothing listens to the
// controller that serves the files, with a token minted from the cluster key (verified by the
// in-process controllers here); every address's failure named when none serves them.
#include "agent/config_fetch.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>

#include "net/http_test_util.h"
#include "wire/codec.h"

namespace muster {
namespace {

const ServedConfig kServed{"ab12", "cluster_file: c.yaml\n", {{"c.yaml", "nodes: []\n"}}};

// Answers GET /v1/config/files: the files to an admin (uid 0 or this process's), 503 while it
// stands by, 403 to anyone else.
std::unique_ptr<HttpServer> Controller(const TokenAuthority* tokens, bool leads) {
  HttpServer::Options o;
  o.tcp_port = 0;
  o.tokens = tokens;
  StatusOr<std::unique_ptr<HttpServer>> s = HttpServer::Start(o, [leads](const HttpRequest& r) {
    if (!leads) return HttpResponse::Json(503, R"({"error":"this controller stands by"})");
    if (!r.caller.authenticated || (r.caller.uid != 0 && r.caller.uid != geteuid())) {
      return HttpResponse::Error(403, "Access/permission denied");
    }
    if (r.path != "/v1/config/files") return HttpResponse::Error(404, "no such path");
    return HttpResponse::Json(200, wire::Encode(kServed));
  });
  EXPECT_TRUE(s.ok()) << s.status().message();
  return std::move(*s);
}

std::string At(const HttpServer& s) { return "127.0.0.1:" + std::to_string(s.tcp_port()); }

TEST(ConfigFetchTest, MovesOnToTheControllerThatServes) {
  // The controllers take only tokens for them (net/token.h's audiences); the agent mints them.
  TokenAuthority key("the cluster key"), controllers("the cluster key", kControllerAudience);
  std::unique_ptr<HttpServer> standby = Controller(&controllers, false), leader = Controller(&controllers, true);
  const std::string nobody = "127.0.0.1:" + std::to_string(net_test::FreePort());
  std::string from;
  StatusOr<ServedConfig> got = FetchServedConfig({At(*standby), nobody, At(*leader)}, &key, 2000, &from);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(*got, kServed);
  EXPECT_EQ(from, At(*leader));
}

TEST(ConfigFetchTest, NamesEachFailure) {
  TokenAuthority key("the cluster key"), other("another key"), controllers("the cluster key", kControllerAudience);
  std::unique_ptr<HttpServer> standby = Controller(&controllers, false), leader = Controller(&controllers, true);
  // A token from another cluster's key is not this cluster's agent.
  StatusOr<ServedConfig> got = FetchServedConfig({At(*standby), At(*leader)}, &other, 2000);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kUnavailable);
  const std::string& m = got.status().message();
  EXPECT_EQ(m.rfind("no controller served the configuration (" + At(*standby) + ": answered 503 (standing by): ", 0), 0u)
      << m;
  EXPECT_NE(m.find("; " + At(*leader) + ": answered 403: "), std::string::npos) << m;
  EXPECT_EQ(FetchServedConfig({}, &key, 2000).status().message(), "no controller to fetch the configuration from");
}

}  // namespace
}  // namespace muster
