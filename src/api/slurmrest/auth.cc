// Who is calling a REST route: slurmrestd's rest_auth/jwt, and rest_auth/local on the Unix socket.
#include <pwd.h>

#include <vector>

#include "api/slurmrest/slurmrest.h"
#include "net/jwt.h"

namespace muster::slurmrest {

namespace {

Status Refused(std::string why) { return Status(StatusCode::kUnauthenticated, std::move(why)); }

std::string Header(const HttpRequest& req, const char* lower_name) {
  auto it = req.headers.find(lower_name);
  return it == req.headers.end() ? std::string() : it->second;
}

// The user's uid and primary group from the system's user database.
StatusOr<Caller> UserCaller(const std::string& name) {
  struct passwd pw {};
  struct passwd* found = nullptr;
  std::vector<char> buf(16384);
  if (getpwnam_r(name.c_str(), &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr) {
    return Refused("unknown user '" + name + "'");
  }
  Caller c;
  c.authenticated = true;
  c.uid = pw.pw_uid;
  c.gid = pw.pw_gid;
  c.via = "jwt";
  return c;
}

}  // namespace

StatusOr<Caller> Authenticate(const HttpRequest& req, const std::string& jwt_key, int64_t now,
                              const std::function<bool(uint32_t uid)>& is_admin) {
  const std::string token = Header(req, "x-slurm-user-token");
  const std::string name = Header(req, "x-slurm-user-name");
  if (token.empty()) {
    if (req.caller.authenticated && req.caller.via == "unix") return req.caller;  // rest_auth/local
    return Refused(name.empty() ? "no X-SLURM-USER-TOKEN" : "X-SLURM-USER-NAME without X-SLURM-USER-TOKEN");
  }
  if (jwt_key.empty()) return Refused("this controller has no jwt key (controller.jwt_key)");
  ASSIGN_OR_RETURN(const JwtClaims claims, VerifyJwt(jwt_key, token, now));
  ASSIGN_OR_RETURN(Caller token_user, UserCaller(claims.user));
  if (name.empty() || name == claims.user) return token_user;
  // A token of root or an admin may act for another user (Slurm: root and SlurmUser).
  if (token_user.uid != 0 && !is_admin(token_user.uid)) {
    return Refused("X-SLURM-USER-NAME '" + name + "' is not the token's user '" + claims.user + "'");
  }
  return UserCaller(name);
}

Caller AuthenticateHeaders(const std::map<std::string, std::string>& headers, const std::string& jwt_key,
                           int64_t now, const std::function<bool(uint32_t uid)>& is_admin) {
  HttpRequest req;
  req.headers = headers;
  req.caller.via = "none";
  StatusOr<Caller> who = Authenticate(req, jwt_key, now, is_admin);
  if (who.ok()) return *who;
  Caller refused;
  refused.via = "none";
  refused.error = who.status().message();
  return refused;
}

}  // namespace muster::slurmrest
