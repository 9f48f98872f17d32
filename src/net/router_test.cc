#include <boost/json.hpp>

#include "base/json_test_util.h"

#include "gtest/gtest.h"
#include "net/http.h"
#include "net/url.h"

namespace muster {
namespace {

HttpRequest Req(const std::string& method, const std::string& path) {
  HttpRequest r;
  r.method = method;
  r.path = path;
  return r;
}

using test_json::Json;

std::string ErrorOf(const HttpResponse& r) { return test_json::Parse(r.body)["error"].str(); }

// A handler that answers with its name and the params it saw.
HttpHandler Named(const std::string& name) {
  return [name](const HttpRequest& r) {
    boost::json::object params;
    for (const auto& [k, v] : r.params) params[k] = v;
    boost::json::object j = {{"route", name}, {"params", params}};
    return HttpResponse::Json(200, boost::json::serialize(j));
  };
}

class RouterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    router_.Add("GET", "/v1/jobs", Named("list"));
    router_.Add("POST", "/v1/jobs", Named("submit"));
    router_.Add("GET", "/v1/jobs/{id}", Named("get"));
    router_.Add("DELETE", "/v1/jobs/{id}", Named("cancel"));
    router_.Add("GET", "/v1/jobs/stats", Named("stats"));
    router_.Add("GET", "/v1/nodes/{node}/gpus/{index}", Named("gpu"));
  }
  Json Call(const std::string& method, const std::string& path) {
    HttpResponse r = router_.Handle(Req(method, path));
    EXPECT_EQ(r.status, 200) << r.body;
    return test_json::Parse(r.body);
  }
  Router router_;
};

TEST_F(RouterTest, MatchesLiteralsAndParams) {
  EXPECT_EQ(Call("GET", "/v1/jobs")["route"], "list");
  EXPECT_EQ(Call("POST", "/v1/jobs")["route"], "submit");
  Json j = Call("GET", "/v1/jobs/42");
  EXPECT_EQ(j["route"], "get");
  EXPECT_EQ(j["params"]["id"], "42");
  EXPECT_EQ(Call("DELETE", "/v1/jobs/42")["route"], "cancel");
  j = Call("GET", "/v1/nodes/gpu-017/gpus/3");
  EXPECT_EQ(j["params"]["node"], "gpu-017");
  EXPECT_EQ(j["params"]["index"], "3");
}

TEST_F(RouterTest, LiteralSegmentBeatsParamRegardlessOfOrder) {
  EXPECT_EQ(Call("GET", "/v1/jobs/stats")["route"], "stats");
}

TEST_F(RouterTest, ParamsArePercentDecodedAndTrailingSlashIgnored) {
  Json j = Call("GET", "/v1/nodes/a%2Fb%20c/gpus/0/");
  EXPECT_EQ(j["params"]["node"], "a/b c");
}

TEST_F(RouterTest, UnknownPathIs404) {
  for (const char* path : {"/", "/v1", "/v1/jobs/1/extra", "/v2/jobs", "/v1/nodes/x/gpus"}) {
    HttpResponse r = router_.Handle(Req("GET", path));
    EXPECT_EQ(r.status, 404) << path;
    EXPECT_EQ(r.content_type, "application/json");
    EXPECT_EQ(ErrorOf(r), std::string("no such path: ") + path);
  }
}

TEST_F(RouterTest, KnownPathWithOtherMethodIs405NamingTheAllowedOnes) {
  HttpResponse r = router_.Handle(Req("PUT", "/v1/jobs/7"));
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(ErrorOf(r), "method PUT is not allowed on /v1/jobs/7 (allowed: DELETE, GET)");
  r = router_.Handle(Req("DELETE", "/v1/jobs"));
  EXPECT_EQ(r.status, 405);
  EXPECT_NE(ErrorOf(r).find("GET, POST"), std::string::npos);
}

TEST(RouterBodyLimit, TheRouteHandleWouldChooseGivesIt) {
  Router router;
  const HttpHandler ok = [](const HttpRequest&) { return HttpResponse::Json(200, "{}"); };
  router.Add("POST", "/v1/jobs", 16 << 20, ok);
  router.Add("POST", "/v1/jobs/{id}/steps", 8 << 20, ok);
  router.Add("POST", "/v1/jobs/{id}/{verb}", 1 << 20, ok);
  router.Add("POST", "/v1/jobs/{id}/hold", 2 << 20, ok);
  router.Add("GET", "/v1/jobs/{id}", ok);
  EXPECT_EQ(router.BodyLimit("POST", "/v1/jobs"), 16 << 20);
  EXPECT_EQ(router.BodyLimit("POST", "/v1/jobs/"), 16 << 20);  // as Handle: a trailing slash is ignored
  // Param routes, and the most specific of those that match, whatever the order they were added in.
  EXPECT_EQ(router.BodyLimit("POST", "/v1/jobs/7/steps"), 8 << 20);
  EXPECT_EQ(router.BodyLimit("POST", "/v1/jobs/7/release"), 1 << 20);
  EXPECT_EQ(router.BodyLimit("POST", "/v1/jobs/7/hold"), 2 << 20);
  EXPECT_EQ(router.BodyLimit("GET", "/v1/jobs/7"), Router::kDefaultBodyLimit);
  EXPECT_EQ(Router::kDefaultBodyLimit, 64 << 10);
  // No route takes these (404 and 405): the default.
  EXPECT_EQ(router.BodyLimit("POST", "/v1/nothing"), Router::kDefaultBodyLimit);
  EXPECT_EQ(router.BodyLimit("PUT", "/v1/jobs"), Router::kDefaultBodyLimit);
  EXPECT_EQ(router.BodyLimit("HEAD", "/v1/jobs/7"), Router::kDefaultBodyLimit);
}

TEST(RouterBodyLimit, RequestsNoRouteTakesGetTheUnroutedRule) {
  std::vector<std::pair<std::string, std::string>> asked;
  Router router([&asked](std::string_view method, std::string_view path) -> int64_t {
    asked.emplace_back(method, path);
    return method == "GET" ? 100 : 200;
  });
  router.Add("POST", "/v1/agent/register", 300, [](const HttpRequest&) { return HttpResponse::Json(200, "{}"); });
  EXPECT_EQ(router.BodyLimit("POST", "/v1/agent/register"), 300);
  EXPECT_TRUE(asked.empty());
  EXPECT_EQ(router.BodyLimit("GET", "/v1/agent/register"), 100);  // a known path, another method
  EXPECT_EQ(router.BodyLimit("POST", "/v1/agent/other"), 200);
  EXPECT_EQ(asked, (std::vector<std::pair<std::string, std::string>>{{"GET", "/v1/agent/register"},
                                                                     {"POST", "/v1/agent/other"}}));
}

TEST(RouterHandle, TheHandlerSeesTheRequestItselfWithItsParams) {
  Router router;
  const HttpRequest* seen = nullptr;
  std::map<std::string, std::string> params;
  router.Add("POST", "/v1/jobs/{id}/steps/{step}", [&](const HttpRequest& r) {
    seen = &r;
    params = r.params;
    return HttpResponse::Json(200, "{}");
  });
  HttpRequest request = Req("POST", "/v1/jobs/7/steps/a%20b");
  request.body = std::string(1 << 20, 'x');
  const char* body = request.body.data();
  EXPECT_EQ(router.Handle(request).status, 200);
  EXPECT_EQ(seen, &request);  // not a copy: the body (megabytes, maybe) is not copied either
  EXPECT_EQ(request.body.data(), body);
  EXPECT_EQ(params, (std::map<std::string, std::string>{{"id", "7"}, {"step", "a b"}}));
  EXPECT_EQ(request.params, params);
}

TEST(HttpResponseTest, ErrorIsEscapedJson) {
  std::string nasty = "bad \"name\"\\ with\nnewline and \x01 control, \xff invalid utf-8";
  HttpResponse r = HttpResponse::Error(400, nasty);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.content_type, "application/json");
  Json j = test_json::Parse(r.body);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j.size(), 1u);
  EXPECT_EQ(j["error"].get<std::string>().substr(0, 35), nasty.substr(0, 35));
}

TEST(UrlTest, PercentEncodeKeepsOnlyTheUnreservedAndDecodesBack) {
  EXPECT_EQ(PercentEncode("10.0.0.1:6817"), "10.0.0.1%3A6817");
  EXPECT_EQ(PercentEncode("[::1]:6817 a/b&c=d"), "%5B%3A%3A1%5D%3A6817%20a%2Fb%26c%3Dd");
  EXPECT_EQ(PercentEncode("A-z_0.9~"), "A-z_0.9~");
  const std::string all = "\x01\xff x%";
  EXPECT_EQ(PercentDecode(PercentEncode(all)), all);
  EXPECT_EQ(ParseQuery("unreachable=" + PercentEncode("[::1]:6817")).at("unreachable"), "[::1]:6817");
}

TEST(UrlTest, PercentDecode) {
  EXPECT_EQ(PercentDecode("a%20b%2fc"), "a b/c");
  EXPECT_EQ(PercentDecode("a+b"), "a+b");
  EXPECT_EQ(PercentDecode("a+b", true), "a b");
  EXPECT_EQ(PercentDecode("100%"), "100%");
  EXPECT_EQ(PercentDecode("%zz%4"), "%zz%4");
  EXPECT_EQ(PercentDecode("%E2%9C%93"), "\xE2\x9C\x93");
}

TEST(UrlTest, ParseQuery) {
  auto q = ParseQuery("state=PENDING&user=al%69ce&name=a+b%26c&flag&&x=1&x=2&=empty");
  EXPECT_EQ(q.size(), 6u);
  EXPECT_EQ(q["state"], "PENDING");
  EXPECT_EQ(q["user"], "alice");
  EXPECT_EQ(q["name"], "a b&c");
  EXPECT_EQ(q["flag"], "");
  EXPECT_EQ(q["x"], "2");
  EXPECT_EQ(q[""], "empty");
  EXPECT_TRUE(ParseQuery("").empty());
}

TEST(UrlTest, CommaSetDropsEmptyItems) {
  auto q = ParseQuery("users=bob,,alice,bob,&none=");
  EXPECT_EQ(CommaSet(q, "users"), (std::set<std::string>{"alice", "bob"}));
  EXPECT_TRUE(CommaSet(q, "none").empty());
  EXPECT_TRUE(CommaSet(q, "absent").empty());
}

TEST(UrlTest, QueryEpochSecondsNamesTheKeyOfABadValue) {
  auto q = ParseQuery("start=1700000000&end=12x&neg=-5&empty=&huge=99999999999999999999");
  auto start = QueryEpochSeconds(q, "start");
  ASSERT_TRUE(start.ok());
  EXPECT_EQ(*start, std::optional<int64_t>(1700000000));
  auto absent = QueryEpochSeconds(q, "absent");
  ASSERT_TRUE(absent.ok());
  EXPECT_FALSE(absent->has_value());
  for (const char* key : {"end", "neg", "empty", "huge"}) {
    auto bad = QueryEpochSeconds(q, key);
    ASSERT_FALSE(bad.ok()) << key;
    EXPECT_EQ(bad.status().message(),
              std::string(key) + ": expected seconds since the epoch, got '" + q[key] + "'");
  }
}

}  // namespace
}  // namespace muster

namespace muster {
namespace {

TEST(RouterObserver, SeesThePatternNotThePathAndOnlyAnsweredRoutes) {
  Router router;
  router.Add("GET", "/v1/jobs/{id}", [](const HttpRequest&) { return HttpResponse::Json(200, "{}"); });
  std::vector<std::pair<std::string, std::string>> seen;
  std::vector<double> seconds;
  router.SetObserver([&](const HttpRequest& request, const std::string& pattern, double s) {
    seen.emplace_back(request.method, pattern);
    seconds.push_back(s);
  });
  EXPECT_EQ(router.Handle(Req("GET", "/v1/jobs/7")).status, 200);
  EXPECT_EQ(router.Handle(Req("GET", "/v1/jobs/8")).status, 200);
  EXPECT_EQ(router.Handle(Req("GET", "/v1/nothing")).status, 404);
  EXPECT_EQ(router.Handle(Req("POST", "/v1/jobs/7")).status, 405);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], std::make_pair(std::string("GET"), std::string("/v1/jobs/{id}")));
  EXPECT_EQ(seen[1], seen[0]);
  for (double s : seconds) EXPECT_GE(s, 0.0);
}

}  // namespace
}  // namespace muster
