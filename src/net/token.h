// Signed, expiring credentials bound to a uid: the role munge plays for Slurm. The node agent
// mints one for a local caller it identified by peer credentials; the controller verifies it.
// Format: base64url(payload JSON {"uid","gid","exp","nonce","aud"}) "." base64url(HMAC-SHA256(key, payload)).
// A token names its audience, the server it is for: "controller" (any of the controllers) or
// "node:<name>" (that node's musterd). A server with an audience takes only tokens for it, so a
// token captured on its way to one server is refused at every other (but for the controllers,
// where it is good once at each).
// A token opens one connection: the servers take a token's nonce once (VerifyFirstUse) and remember
// it until the token expires, so a captured token cannot be replayed on a connection of its own;
// the requests that follow on the same connection present it again (net/http_server.cc). The
// controller also records each nonce in its store (SetNonceJournal: Store::UseNonce), so that a
// restart forgets none of them.
// Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>

#include "base/mutex.h"
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

// The audiences: the controllers', and one node agent's.
inline constexpr char kControllerAudience[] = "controller";
inline std::string NodeAudience(const std::string& node) { return "node:" + node; }

class TokenAuthority {
 public:
  // `key`: the cluster key (LoadClusterKey in net/key_file.h). `audience`: the one this server's
  // tokens must name ("" = any: for an authority that only mints, and for tests).
  explicit TokenAuthority(std::string key, std::string audience = "")
      : key_(std::move(key)), audience_(std::move(audience)) {}

  // A token for `audience` ("" = none: only a server without an audience takes it).
  std::string Mint(uint32_t uid, uint32_t gid, int64_t now, int64_t ttl_s, const std::string& audience = "") const;
  // Returns the caller (via = "token") or Unauthenticated with the reason (malformed, bad
  // signature, expired, for another audience).
  StatusOr<Caller> Verify(const std::string& token, int64_t now) const;
  // Verify, and the token's nonce never taken before by this authority: the first use of a token,
  // which opens a connection. A second use is Unauthenticated ("token already used ...").
  StatusOr<Caller> VerifyFirstUse(const std::string& token, int64_t now) const;
  size_t RememberedNonces() const;  // the nonces of tokens not yet expired that were used

  // Where the nonces taken are also recorded, so that they outlive this process (the controller:
  // its store's UseNonce): called for each nonce not already remembered, outside any lock, before
  // VerifyFirstUse answers. true: its first use; false: used before (by this server before it
  // restarted, or another sharing the journal): refused as a replay; an error: refused, saying so.
  using NonceJournal = std::function<StatusOr<bool>(const std::string& nonce, int64_t expires, int64_t now)>;
  void SetNonceJournal(NonceJournal journal);

 private:
  StatusOr<Caller> Check(const std::string& token, int64_t now, std::string* nonce, int64_t* expires) const;
  std::string key_;
  std::string audience_;
  mutable Mutex nonces_mu_{"nonces"};
  mutable std::unordered_map<std::string, int64_t> nonces_ GUARDED_BY(nonces_mu_);  // nonce -> its token's expiry
  mutable int64_t next_purge_ GUARDED_BY(nonces_mu_) = 0;
  NonceJournal journal_ GUARDED_BY(nonces_mu_);
};

// Who a TCP request comes from, by its "Authorization: Muster <token>" header field (`headers`:
// lower-case names), as HttpServer decides for each request: the token's caller, or an
// unauthenticated caller whose `error` says what is wrong (no credentials, another scheme, no
// `tokens` here, or what Verify found). `*session_token` is the token its connection opened with
// (its first valid one): presented again, it is verified again (signature, expiry); any other is
// a first use (VerifyFirstUse), and becomes the connection's once valid.
Caller CallerFromToken(const TokenAuthority* tokens, const std::map<std::string, std::string>& headers,
                       std::string* session_token, int64_t now);

// The credential a daemon presents for itself to TCP peers that verify tokens with the same
// cluster key (the controller calling agents, an agent calling the controller): a new token for
// `uid`/`gid` at each call, for a new connection (a token opens one); the connection is opened
// again before the token expires (HttpClient's TokenSource). Thread-safe.
class OwnToken {
 public:
  // Tokens for `audience` (kControllerAudience, NodeAudience(node)).
  OwnToken(const TokenAuthority* authority, uint32_t uid, uint32_t gid, std::string audience,
           int64_t ttl_s = kTokenTtlSeconds)
      : authority_(authority), uid_(uid), gid_(gid), audience_(std::move(audience)), ttl_s_(ttl_s) {}
  std::string Get(int64_t now);
  int64_t ttl_s() const { return ttl_s_; }
  // Get() for each connection a client opens, by `now_s` (seconds since the epoch), each
  // connection opened again after half the token's life. This object must outlive the client.
  HttpClient::TokenSource Source(std::function<int64_t()> now_s);

 private:
  const TokenAuthority* authority_;
  const uint32_t uid_, gid_;
  const std::string audience_;
  const int64_t ttl_s_;
};

}  // namespace muster
