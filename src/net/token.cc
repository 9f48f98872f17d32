#include "net/token.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <limits>
#include <optional>

#include <boost/json.hpp>

#include "base/pretty_json.h"
#include "base/strings.h"

#include "net/key_file.h"

namespace muster {
namespace {

constexpr size_t kMaxTokenChars = 4096;
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

Status Unauthenticated(std::string msg) { return Status(StatusCode::kUnauthenticated, std::move(msg)); }

constexpr char kReplayed[] = "token already used (a token opens one connection: a replay is refused)";

}  // namespace

std::string Base64UrlEncode(std::string_view in) {
  std::string out;
  out.reserve((in.size() * 4 + 2) / 3);
  size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6) out.push_back(kAlphabet[(v >> shift) & 63]);
  }
  size_t rest = in.size() - i;
  if (rest == 1) {
    uint32_t v = uint8_t(in[i]) << 16;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
  } else if (rest == 2) {
    uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8);
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(kAlphabet[(v >> 6) & 63]);
  }
  return out;
}

// Strict: no padding, no other characters, and the unused low bits of the last character must be
// zero, so that every byte string has exactly one encoding (an edited character is never ignored).
bool Base64UrlDecode(std::string_view in, std::string* out) {
  if (in.size() % 4 == 1) return false;
  out->clear();
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    const char* p = c == '\0' ? nullptr : std::strchr(kAlphabet, c);
    if (p == nullptr) return false;
    acc = (acc << 6) | uint32_t(p - kAlphabet);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out->push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return (acc & ((1u << bits) - 1)) == 0;
}

std::string HmacSha256(const std::string& key, std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  MUSTER_CHECK(HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
                    reinterpret_cast<const unsigned char*>(data.data()), data.size(), md, &len) != nullptr)
      << "HMAC-SHA256 failed";
  return std::string(reinterpret_cast<char*>(md), len);
}

std::string TokenAuthority::Mint(uint32_t uid, uint32_t gid, int64_t now, int64_t ttl_s,
                                 const std::string& audience) const {
  MUSTER_CHECK(!key_.empty()) << "TokenAuthority without a key";
  boost::json::object payload = {
      {"uid", uid}, {"gid", gid}, {"exp", now + ttl_s}, {"nonce", Base64UrlEncode(RandomBytes(12))}};
  if (!audience.empty()) payload["aud"] = audience;
  std::string text = PrettyJson(payload, -1);
  return Base64UrlEncode(text) + "." + Base64UrlEncode(HmacSha256(key_, text));
}

StatusOr<Caller> TokenAuthority::Verify(const std::string& token, int64_t now) const {
  return Check(token, now, nullptr, nullptr);
}

StatusOr<Caller> TokenAuthority::VerifyFirstUse(const std::string& token, int64_t now) const {
  std::string nonce;
  int64_t exp = 0;
  ASSIGN_OR_RETURN(Caller caller, Check(token, now, &nonce, &exp));
  if (nonce.empty()) return Unauthenticated("malformed token payload (no nonce)");
  NonceJournal journal;
  {
    MutexLock lock(nonces_mu_);
    if (now >= next_purge_) {
      // The nonces of expired tokens may go: those tokens are refused as expired.
      for (auto it = nonces_.begin(); it != nonces_.end();) it = it->second <= now ? nonces_.erase(it) : std::next(it);
      next_purge_ = now + 10;
    }
    if (!nonces_.emplace(nonce, exp).second) return Unauthenticated(kReplayed);
    journal = journal_;
  }
  // Remembered here first: a second use on its way meanwhile is refused above. The journal says
  // whether an earlier life of this server (or another server sharing it) took the nonce.
  if (journal) {
    StatusOr<bool> first = journal(nonce, exp, now);
    if (!first.ok()) return Unauthenticated("cannot record the token's use: " + first.status().message());
    if (!*first) return Unauthenticated(kReplayed);
  }
  return caller;
}

void TokenAuthority::SetNonceJournal(NonceJournal journal) {
  MutexLock lock(nonces_mu_);
  journal_ = std::move(journal);
}

size_t TokenAuthority::RememberedNonces() const {
  MutexLock lock(nonces_mu_);
  return nonces_.size();
}

StatusOr<Caller> TokenAuthority::Check(const std::string& token, int64_t now, std::string* nonce,
                                       int64_t* expires) const {
  if (key_.empty()) return Unauthenticated("server has no token key");
  if (token.size() > kMaxTokenChars) return Unauthenticated("malformed token (too long)");
  size_t dot = token.find('.');
  if (dot == std::string::npos || token.find('.', dot + 1) != std::string::npos) {
    return Unauthenticated("malformed token (expected <payload>.<signature>)");
  }
  std::string payload, signature;
  if (!Base64UrlDecode(std::string_view(token).substr(0, dot), &payload) ||
      !Base64UrlDecode(std::string_view(token).substr(dot + 1), &signature)) {
    return Unauthenticated("malformed token (bad base64url)");
  }
  std::string expected = HmacSha256(key_, payload);
  if (signature.size() != expected.size() || CRYPTO_memcmp(signature.data(), expected.data(), expected.size()) != 0) {
    return Unauthenticated("bad token signature (wrong cluster key or tampered token)");
  }
  // Signed by us, so the payload is trusted from here on; still check its shape.
  boost::json::error_code ec;
  const boost::json::value j = boost::json::parse(payload, ec);
  const boost::json::object* o = ec ? nullptr : j.if_object();
  constexpr uint64_t kMaxId = std::numeric_limits<uint32_t>::max();
  // An id: an integer in [0, 2^32).
  const auto id = [&](const char* key) -> std::optional<uint32_t> {
    const boost::json::value* v = o == nullptr ? nullptr : o->if_contains(key);
    if (v == nullptr || !(v->is_uint64() || (v->is_int64() && v->get_int64() >= 0))) return std::nullopt;
    const uint64_t x = v->is_uint64() ? v->get_uint64() : static_cast<uint64_t>(v->get_int64());
    if (x > kMaxId) return std::nullopt;
    return static_cast<uint32_t>(x);
  };
  const std::optional<uint32_t> uid = id("uid"), gid = id("gid");
  const boost::json::value* exp_v = o == nullptr ? nullptr : o->if_contains("exp");
  if (!uid || !gid || exp_v == nullptr || !exp_v->is_int64()) return Unauthenticated("malformed token payload");
  int64_t exp = exp_v->get_int64();
  if (exp <= now) {
    return Unauthenticated("token expired " + std::to_string(now - exp) + " s ago");
  }
  if (!audience_.empty()) {
    const boost::json::value* a = o->if_contains("aud");
    const std::string aud = a != nullptr && a->is_string() ? std::string(a->get_string()) : "";
    if (aud != audience_) {
      return Unauthenticated(aud.empty() ? "token names no audience (this is " + audience_ + ")"
                                         : "token for " + aud + ", not for " + audience_);
    }
  }
  if (nonce != nullptr) {
    const boost::json::value* n = o->if_contains("nonce");
    if (n != nullptr && n->is_string() && !n->get_string().empty()) *nonce = std::string(n->get_string());
    *expires = exp;
  }
  Caller caller;
  caller.authenticated = true;
  caller.uid = *uid;
  caller.gid = *gid;
  caller.via = "token";
  return caller;
}

std::string OwnToken::Get(int64_t now) { return authority_->Mint(uid_, gid_, now, ttl_s_, audience_); }

HttpClient::TokenSource OwnToken::Source(std::function<int64_t()> now_s) {
  HttpClient::TokenSource source;
  source.next = [this, now_s = std::move(now_s)]() -> StatusOr<std::string> { return Get(now_s()); };
  source.renew_after_s = ttl_s_ / 2;
  return source;
}

Caller CallerFromToken(const TokenAuthority* tokens, const std::map<std::string, std::string>& headers,
                       std::string* session_token, int64_t now) {
  Caller caller;
  caller.via = "none";
  auto it = headers.find("authorization");
  if (it == headers.end()) {
    caller.error = "no credentials: send 'Authorization: Muster <token>' or use the Unix socket";
    return caller;
  }
  std::string_view value = it->second;
  constexpr std::string_view kScheme = "Muster ";
  if (value.size() < kScheme.size() || Lower(value.substr(0, kScheme.size())) != "muster ") {
    caller.error = "unsupported authorization scheme (expected 'Muster <token>')";
    return caller;
  }
  value.remove_prefix(kScheme.size());
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  if (tokens == nullptr) {
    caller.error = "this server does not accept tokens";
    return caller;
  }
  const bool again = !session_token->empty() && value == *session_token;
  StatusOr<Caller> verified = again ? tokens->Verify(std::string(value), now)
                                    : tokens->VerifyFirstUse(std::string(value), now);
  if (!verified.ok()) {
    caller.error = verified.status().message();
    return caller;
  }
  *session_token = std::string(value);
  return *verified;
}

}  // namespace muster
