// Signed, expiring credentials bound to a uid: the role munge plays for Slurm. The node agent
// mints one for a local caller it identified by peer credentials; the controller verifies it.
// Format: base64url(payload JSON {"uid","gid","exp","nonce"}) "." base64url(HMAC-SHA256(key, payload)).
// Thread-safe (immutable after construction).
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"
#include "net/http.h"

namespace muster {

class TokenAuthority {
 public:
  explicit TokenAuthority(std::string key) : key_(std::move(key)) {}

  // Reads the cluster key from `path`; creates it (32 random bytes, mode 0600, never visible
  // half-written) if missing and `create` is set. Refuses (PermissionDenied) a key file
  // accessible by group or others, a symbolic link or anything but a regular file, and
  // (InvalidArgument) a key shorter than 16 or longer than 4096 bytes.
  static StatusOr<std::string> LoadKey(const std::string& path, bool create);

  std::string Mint(uint32_t uid, uint32_t gid, int64_t now, int64_t ttl_s) const;
  // Returns the caller (via = "token") or Unauthenticated with the reason (malformed, bad
  // signature, expired).
  StatusOr<Caller> Verify(const std::string& token, int64_t now) const;

 private:
  std::string key_;
};

}  // namespace muster
