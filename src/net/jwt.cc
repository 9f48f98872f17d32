#include "net/jwt.h"

#include <openssl/crypto.h>

#include <boost/json.hpp>

#include "net/token.h"

namespace muster {
namespace {

constexpr size_t kMaxJwtChars = 8192;

Status Unauthenticated(std::string msg) { return Status(StatusCode::kUnauthenticated, "JWT: " + std::move(msg)); }

// The JSON object a base64url part holds, or null.
boost::json::object DecodePart(std::string_view part, bool* ok) {
  std::string text;
  *ok = false;
  if (!Base64UrlDecode(part, &text)) return {};
  boost::json::error_code ec;
  boost::json::value v = boost::json::parse(text, ec);
  if (ec || !v.is_object()) return {};
  *ok = true;
  return std::move(v.as_object());
}

// An integer claim (JSON integer; a float with no fraction, as some minting libraries write it).
bool IntClaim(const boost::json::object& o, const char* key, int64_t* out) {
  const boost::json::value* v = o.if_contains(key);
  if (v == nullptr) return false;
  if (v->is_int64()) {
    *out = v->get_int64();
  } else if (v->is_uint64() && v->get_uint64() <= uint64_t(INT64_MAX)) {
    *out = static_cast<int64_t>(v->get_uint64());
  } else if (v->is_double() && v->get_double() >= 0 && v->get_double() < 9e15 &&
             static_cast<double>(static_cast<int64_t>(v->get_double())) == v->get_double()) {
    *out = static_cast<int64_t>(v->get_double());
  } else {
    return false;
  }
  return true;
}

}  // namespace

std::string MintJwt(const std::string& key, const std::string& user, int64_t now, int64_t lifespan_s) {
  const std::string header = boost::json::serialize(boost::json::object{{"alg", "HS256"}, {"typ", "JWT"}});
  const std::string payload =
      boost::json::serialize(boost::json::object{{"exp", now + lifespan_s}, {"iat", now}, {"sun", user}});
  std::string signing = Base64UrlEncode(header) + "." + Base64UrlEncode(payload);
  const std::string signature = Base64UrlEncode(HmacSha256(key, signing));
  return signing + "." + signature;
}

StatusOr<JwtClaims> VerifyJwt(const std::string& key, std::string_view token, int64_t now) {
  if (key.empty()) return Unauthenticated("the server has no jwt key");
  if (token.size() > kMaxJwtChars) return Unauthenticated("malformed token (longer than 8192 characters)");
  const size_t a = token.find('.');
  const size_t b = a == std::string_view::npos ? a : token.find('.', a + 1);
  if (b == std::string_view::npos || token.find('.', b + 1) != std::string_view::npos) {
    return Unauthenticated("malformed token (expected <header>.<payload>.<signature>)");
  }
  bool ok = false;
  const boost::json::object header = DecodePart(token.substr(0, a), &ok);
  if (!ok) return Unauthenticated("malformed token header (not base64url JSON)");
  const boost::json::value* alg = header.if_contains("alg");
  if (alg == nullptr || !alg->is_string() || alg->get_string() != "HS256") {
    return Unauthenticated("unsupported algorithm (only HS256 is accepted)");
  }
  std::string signature;
  if (!Base64UrlDecode(token.substr(b + 1), &signature)) return Unauthenticated("malformed signature (bad base64url)");
  const std::string expected = HmacSha256(key, token.substr(0, b));
  if (signature.size() != expected.size() || CRYPTO_memcmp(signature.data(), expected.data(), expected.size()) != 0) {
    return Unauthenticated("bad signature (another key, or a changed token)");
  }
  const boost::json::object payload = DecodePart(token.substr(a + 1, b - a - 1), &ok);
  if (!ok) return Unauthenticated("malformed token payload (not base64url JSON)");
  JwtClaims claims;
  if (!IntClaim(payload, "exp", &claims.exp)) return Unauthenticated("token has no expiry ('exp')");
  if (claims.exp <= now) return Unauthenticated("token expired " + std::to_string(now - claims.exp) + " s ago");
  IntClaim(payload, "iat", &claims.iat);
  const boost::json::value* sun = payload.if_contains("sun");
  if (sun == nullptr || !sun->is_string() || sun->get_string().empty()) {
    return Unauthenticated("token names no user ('sun')");
  }
  claims.user = std::string(sun->get_string());
  return claims;
}

}  // namespace muster
