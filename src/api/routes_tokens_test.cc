// POST /v1/jwt (`scontrol token`): the lifespan a token gets, controller.jwt_max_lifespan's bound
// on it (Slurm's max_token_lifespan: users are refused beyond it, root and admins are not).
#include <gtest/gtest.h>

#include "api/routes.h"
#include "ctld/controller_test_fixture.h"
#include "net/jwt.h"
#include "wire/jobs.h"

namespace muster {
namespace {

using namespace ctld_test;  // NOLINT(build/namespaces)

const std::string kKey(32, 'k');

class JwtRouteTest : public ControllerTest {
 protected:
  void Routes(int64_t max_lifespan_s) {
    router_ = Router();
    api::AddTokenRoutes(*ctld_, router_, kKey, max_lifespan_s);
  }
  HttpResponse Ask(const Caller& who, int64_t lifespan_s) {
    HttpRequest req;
    req.method = "POST";
    req.path = "/v1/jwt";
    req.caller = who;
    JwtRequest ask;
    ask.lifespan_s = lifespan_s;
    req.body = wire::Encode(ask);
    return router_.Handle(req);
  }
  // The lifespan of the token an answer carries (its exp less its iat), or -1.
  static int64_t Lifespan(const HttpResponse& r) {
    StatusOr<JwtAnswer> a = wire::Decode<JwtAnswer>(r.body);
    if (!a.ok()) return -1;
    StatusOr<JwtClaims> claims = VerifyJwt(kKey, a->token, 0);
    return claims.ok() ? claims->exp - claims->iat : -1;
  }
  Router router_;
};

TEST_F(JwtRouteTest, UsersAreBoundByTheMaximumRootAndAdminsAreNot) {
  config_.admin_uids = {kBob.uid};
  Open();
  Routes(3600);
  HttpResponse r = Ask(kAlice, 0);  // Slurm's default lifespan, under the maximum
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Lifespan(r), kDefaultJwtLifespanSeconds);
  r = Ask(kAlice, 3600);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Lifespan(r), 3600);
  // One second more: refused, with Slurm's words for ESLURM_INVALID_TIME_LIMIT and the setting.
  r = Ask(kAlice, 3601);
  EXPECT_EQ(r.status, 400) << r.body;
  EXPECT_NE(r.body.find("Requested time limit is invalid (missing or exceeds some limit): lifespan 3601 s is over "
                        "controller.jwt_max_lifespan (3600 s)"),
            std::string::npos)
      << r.body;
  // scontrol's lifespan=infinite (INT_MAX - 1): refused for a user, given to root and an admin.
  EXPECT_EQ(Ask(kAlice, 2147483646).status, 400);
  for (const Caller& who : {kAdmin, kBob}) {
    r = Ask(who, 2147483646);
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(Lifespan(r), 2147483646);
  }
  // Beyond what anyone gets, and nonsense: refused for all.
  EXPECT_EQ(Ask(kAdmin, kLongestJwtLifespanSeconds + 1).status, 400);
  EXPECT_EQ(Ask(kAdmin, -5).status, 400);
}

TEST_F(JwtRouteTest, ADefaultLifespanOverTheMaximumIsTheMaximum) {
  Routes(600);
  HttpResponse r = Ask(kAlice, 0);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Lifespan(r), 600);  // as slurmctld: MIN(DEFAULT_AUTH_TOKEN_LIFESPAN, max_lifespan)
}

TEST_F(JwtRouteTest, NoMaximumBindsNobody) {
  Routes(0);
  HttpResponse r = Ask(kAlice, 30 * 86400);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Lifespan(r), 30 * 86400);
  // The built-in default bounds users to a day.
  Routes(kDefaultJwtMaxLifespanSeconds);
  EXPECT_EQ(Ask(kAlice, 86400).status, 200);
  EXPECT_EQ(Ask(kAlice, 86401).status, 400);
}

}  // namespace
}  // namespace muster
