// JSON Web Tokens as Slurm's auth/jwt makes and takes them (slurmrestd's rest_auth/jwt, `scontrol
// token`): HS256 (HMAC-SHA256) over base64url(header) "." base64url(payload), header
// {"alg":"HS256","typ":"JWT"}, payload {"exp", "iat", "sun"} (expiry, issue time, the user's name),
// signed with the key of slurm.conf's AuthAltParameters=jwt_key=PATH (muster.yaml
// controller.jwt_key). Written on net/token.h's HMAC and base64url rather than with libjwt: the
// same OpenSSL primitives the cluster tokens use, no second JSON library (libjwt parses with
// jansson), and one algorithm to accept, so no "alg" confusion.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace muster {

// Slurm's default lifespan of a token `scontrol token` asks for (auth/jwt's 1800 s).
inline constexpr int64_t kDefaultJwtLifespanSeconds = 1800;
// The longest lifespan `scontrol token` gives a user other than root and the admins, unless
// controller.jwt_max_lifespan says (a day; Slurm's AuthAltParameters=max_token_lifespan= has no
// default). MusterConfig::jwt_max_lifespan_s holds the same default (config/ sits below net/).
inline constexpr int64_t kDefaultJwtMaxLifespanSeconds = 86400;
// The longest lifespan anyone gets (root's `lifespan=infinite` is Slurm's INT_MAX - 1).
inline constexpr int64_t kLongestJwtLifespanSeconds = int64_t{1} << 31;

struct JwtClaims {
  std::string user;  // "sun"
  int64_t exp = 0;   // seconds since the epoch
  int64_t iat = 0;   // 0 when the token has none
};

// A token for `user`, issued at `now`, valid `lifespan_s` seconds.
std::string MintJwt(const std::string& key, const std::string& user, int64_t now, int64_t lifespan_s);

// The claims of a token signed with `key`, or Unauthenticated naming what is wrong: malformed
// (not three base64url parts, not JSON), an algorithm other than HS256, a bad signature, expired
// (exp <= now), no user name.
StatusOr<JwtClaims> VerifyJwt(const std::string& key, std::string_view token, int64_t now);

}  // namespace muster
