#include "net/jwt.h"

#include <string>

#include "gtest/gtest.h"
#include "net/token.h"

namespace muster {
namespace {

const std::string kKey(32, 'k');
constexpr int64_t kNow = 1'700'000'000;

// Made by another implementation (Python's PyJWT 2.6, Debian's python3-jwt) with kKey:
// jwt.encode({"exp": 1700003600, "iat": 1700000000, "sun": "alice"}, "k" * 32, algorithm="HS256").
const char kPyJwtToken[] =
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJleHAiOjE3MDAwMDM2MDAsImlhdCI6MTcwMDAwMDAwMCwic3VuIjoiYWxpY2UifQ."
    "Cn_9G72PZqDJzQ56ZclnJNan0BDk4eDdfgO_qakEBhA";

TEST(JwtTest, MintThenVerify) {
  const std::string token = MintJwt(kKey, "alice", kNow, 60);
  EXPECT_EQ(token.rfind("eyJ", 0), 0u) << token;  // what `scontrol token` users look for
  StatusOr<JwtClaims> c = VerifyJwt(kKey, token, kNow + 59);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->user, "alice");
  EXPECT_EQ(c->exp, kNow + 60);
  EXPECT_EQ(c->iat, kNow);
}

TEST(JwtTest, TakesAnotherImplementationsToken) {
  StatusOr<JwtClaims> c = VerifyJwt(kKey, kPyJwtToken, kNow);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->user, "alice");
  EXPECT_EQ(c->exp, 1'700'003'600);
  // And what we mint for the same claims is byte for byte the same token.
  EXPECT_EQ(MintJwt(kKey, "alice", kNow, 3600), kPyJwtToken);
}

TEST(JwtTest, RefusesExpired) {
  const std::string token = MintJwt(kKey, "alice", kNow, 60);
  StatusOr<JwtClaims> c = VerifyJwt(kKey, token, kNow + 60);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kUnauthenticated);
  EXPECT_EQ(c.status().message(), "JWT: token expired 0 s ago");
}

TEST(JwtTest, RefusesAnotherKeyAndChangedTokens) {
  const std::string token = MintJwt(kKey, "alice", kNow, 60);
  StatusOr<JwtClaims> c = VerifyJwt(std::string(32, 'x'), token, kNow);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(), "JWT: bad signature (another key, or a changed token)");
  // Another user's name in the payload, the signature kept: refused.
  const size_t a = token.find('.'), b = token.rfind('.');
  const std::string payload = Base64UrlEncode(R"({"exp":1700000060,"iat":1700000000,"sun":"root"})");
  c = VerifyJwt(kKey, token.substr(0, a + 1) + payload + token.substr(b), kNow);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(), "JWT: bad signature (another key, or a changed token)");
}

TEST(JwtTest, RefusesOtherAlgorithmsAndMalformedTokens) {
  // alg "none" with no signature: the classic forgery.
  const std::string none = Base64UrlEncode(R"({"alg":"none","typ":"JWT"})") + "." +
                           Base64UrlEncode(R"({"exp":1800000000,"sun":"root"})") + ".";
  StatusOr<JwtClaims> c = VerifyJwt(kKey, none, kNow);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(), "JWT: unsupported algorithm (only HS256 is accepted)");
  for (const std::string bad : {"", "abc", "a.b", "a.b.c.d", "!!.e30.xx"}) {
    c = VerifyJwt(kKey, bad, kNow);
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_EQ(c.status().code(), StatusCode::kUnauthenticated) << bad;
  }
  EXPECT_FALSE(VerifyJwt("", MintJwt(kKey, "alice", kNow, 60), kNow).ok());
}

TEST(JwtTest, RefusesATokenWithoutUserOrExpiry) {
  const std::string header = Base64UrlEncode(R"({"alg":"HS256","typ":"JWT"})");
  auto sign = [&](const std::string& payload) {
    const std::string s = header + "." + Base64UrlEncode(payload);
    return s + "." + Base64UrlEncode(HmacSha256(kKey, s));
  };
  StatusOr<JwtClaims> c = VerifyJwt(kKey, sign(R"({"exp":1800000000})"), kNow);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(), "JWT: token names no user ('sun')");
  c = VerifyJwt(kKey, sign(R"({"sun":"alice"})"), kNow);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(), "JWT: token has no expiry ('exp')");
}

}  // namespace
}  // namespace muster
