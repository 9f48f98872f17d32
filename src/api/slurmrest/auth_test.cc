#include <pwd.h>
#include <unistd.h>

#include "api/slurmrest/slurmrest.h"
#include "gtest/gtest.h"
#include "net/jwt.h"

namespace muster::slurmrest {
namespace {

const std::string kKey(32, 'j');
constexpr int64_t kNow = 1'800'000'000;

// A user of this machine's user database other than root (the tests' "other user"), or "".
std::string OtherUser() {
  for (uid_t uid : {65534u, 1u, 2u}) {  // nobody, daemon, bin
    if (struct passwd* pw = getpwuid(uid)) return pw->pw_name;
  }
  return "";
}

HttpRequest Request(const std::string& token, const std::string& name = "") {
  HttpRequest r;
  r.caller.via = "none";
  if (!token.empty()) r.headers["x-slurm-user-token"] = token;
  if (!name.empty()) r.headers["x-slurm-user-name"] = name;
  return r;
}

const auto kNoAdmins = [](uint32_t) { return false; };

TEST(SlurmRestAuth, TokenNamesTheUser) {
  StatusOr<Caller> c = Authenticate(Request(MintJwt(kKey, "root", kNow, 60), "root"), kKey, kNow, kNoAdmins);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->authenticated);
  EXPECT_EQ(c->uid, 0u);
  EXPECT_EQ(c->via, "jwt");
  // The name header may be left out.
  c = Authenticate(Request(MintJwt(kKey, "root", kNow, 60)), kKey, kNow, kNoAdmins);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->uid, 0u);
}

TEST(SlurmRestAuth, RefusesExpiredForgedAndMissingTokens) {
  StatusOr<Caller> c = Authenticate(Request(MintJwt(kKey, "root", kNow - 100, 60), "root"), kKey, kNow, kNoAdmins);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kUnauthenticated);
  EXPECT_EQ(c.status().message(), "JWT: token expired 40 s ago");
  c = Authenticate(Request(MintJwt(std::string(32, 'x'), "root", kNow, 60), "root"), kKey, kNow, kNoAdmins);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(), "JWT: bad signature (another key, or a changed token)");
  c = Authenticate(Request("", "root"), kKey, kNow, kNoAdmins);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(), "X-SLURM-USER-NAME without X-SLURM-USER-TOKEN");
  c = Authenticate(Request(MintJwt(kKey, "root", kNow, 60)), "", kNow, kNoAdmins);
  ASSERT_FALSE(c.ok()) << "no key configured: no token is good";
  c = Authenticate(Request(MintJwt(kKey, "no-such-user-here", kNow, 60)), kKey, kNow, kNoAdmins);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(), "unknown user 'no-such-user-here'");
}

TEST(SlurmRestAuth, AUsersTokenCannotActForAnother) {
  const std::string other = OtherUser();
  ASSERT_FALSE(other.empty()) << "no unprivileged user in this machine's user database";
  const std::string token = MintJwt(kKey, other, kNow, 60);
  StatusOr<Caller> c = Authenticate(Request(token, "root"), kKey, kNow, kNoAdmins);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(), "X-SLURM-USER-NAME 'root' is not the token's user '" + other + "'");
  // Root's (or an admin's) token may.
  c = Authenticate(Request(MintJwt(kKey, "root", kNow, 60), other), kKey, kNow, kNoAdmins);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->uid, getpwnam(other.c_str())->pw_uid);
  c = Authenticate(Request(token, "root"), kKey, kNow, [](uint32_t) { return true; });
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->uid, 0u);
}

TEST(SlurmRestAuth, UnixCallersNeedNoToken) {
  HttpRequest r = Request("");
  r.caller = Caller{true, 1234, 99, "unix", ""};
  StatusOr<Caller> c = Authenticate(r, kKey, kNow, kNoAdmins);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->uid, 1234u);
  // But a TCP caller with the cluster's own token does.
  r.caller.via = "token";
  EXPECT_FALSE(Authenticate(r, kKey, kNow, kNoAdmins).ok());
}

// The REST listener's check once a request's header is in, before its body: the same decision
// on the header fields alone, and slurmrestd's answer when it refuses.
TEST(SlurmRestAuth, HeadersAloneDecideBeforeTheBodyIsRead) {
  Caller c = AuthenticateHeaders({{"x-slurm-user-token", MintJwt(kKey, "root", kNow, 60)}}, kKey, kNow, kNoAdmins);
  EXPECT_TRUE(c.authenticated) << c.error;
  EXPECT_EQ(c.uid, 0u);
  EXPECT_EQ(c.via, "jwt");
  c = AuthenticateHeaders({}, kKey, kNow, kNoAdmins);
  EXPECT_FALSE(c.authenticated);
  EXPECT_EQ(c.via, "none");
  EXPECT_EQ(c.error, "no X-SLURM-USER-TOKEN");
  c = AuthenticateHeaders({{"x-slurm-user-token", MintJwt(std::string(32, 'x'), "root", kNow, 60)}}, kKey, kNow,
                          kNoAdmins);
  EXPECT_FALSE(c.authenticated);
  EXPECT_EQ(c.error, "JWT: bad signature (another key, or a changed token)");
  const HttpResponse refused = AuthenticationFailure();
  EXPECT_EQ(refused.status, 401);
  EXPECT_EQ(refused.content_type, "text/plain");
  EXPECT_EQ(refused.body, "Authentication failure");
}

}  // namespace
}  // namespace muster::slurmrest
