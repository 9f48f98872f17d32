// Signed, expiring credentials bound to a uid: the role munge plays for Slurm. The node agent
// mints one for a local caller it identified by peer credentials; the controller verifies it.
// Format: base64url(payload JSON {"uid","gid","exp","nonce"}) "." base64url(HMAC-SHA256(key, payload)).
// Thread-safe (immutable after construction).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>

#include "base/status.h"
#include "net/http.h"

namespace muster {

// base64url without padding (RFC 4648 section 5), as tokens and JWTs use it. The decoder is
// strict: no padding, no other characters, and the unused low bits of the last character zero,
// so that every byte string has exactly one encoding.
std::string Base64UrlEncode(std::string_view in);
bool Base64UrlDecode(std::string_view in, std::string* out);
// HMAC-SHA256 of `data` under `key` (OpenSSL), the 32 raw bytes.
std::string HmacSha256(const std::string& key, std::string_view data);

// How long a minted token is valid, in seconds.
inline constexpr int64_t kTokenTtlSeconds = 300;

class TokenAuthority {
 public:
  // `key`: the cluster key (LoadClusterKey in net/key_file.h).
  explicit TokenAuthority(std::string key) : key_(std::move(key)) {}

  std::string Mint(uint32_t uid, uint32_t gid, int64_t now, int64_t ttl_s) const;
  // Returns the caller (via = "token") or Unauthenticated with the reason (malformed, bad
  // signature, expired).
  StatusOr<Caller> Verify(const std::string& token, int64_t now) const;

 private:
  std::string key_;
};

// The credential a daemon presents for itself to TCP peers that verify tokens with the same
// cluster key (the controller calling agents, an agent calling the controller): a token for
// `uid`/`gid`, re-minted once half of its lifetime has passed, so that one sent now is valid for
// at least ttl/2 more. Callers holding a kept-alive connection reconnect when Get() returns a
// new token. Thread-safe.
class OwnToken {
 public:
  OwnToken(const TokenAuthority* authority, uint32_t uid, uint32_t gid, int64_t ttl_s = kTokenTtlSeconds)
      : authority_(authority), uid_(uid), gid_(gid), ttl_s_(ttl_s) {}
  std::string Get(int64_t now);

 private:
  const TokenAuthority* authority_;
  const uint32_t uid_, gid_;
  const int64_t ttl_s_;
  std::mutex mu_;
  std::string token_;     // guarded by mu_
  int64_t minted_at_ = 0;  // guarded by mu_
};

}  // namespace muster
