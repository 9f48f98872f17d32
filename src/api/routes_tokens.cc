// JWTs for slurmrestd's REST API: `scontrol token` (POST /v1/jwt).

#include "api/route_util.h"
#include "api/routes.h"
#include "api/wire/jobs.h"
#include "config/muster_config.h"
#include "net/jwt.h"

namespace muster::api {

void AddTokenRoutes(Controller& c, Router& r, const std::string& jwt_key) {
  // A token for the caller, or (root and admins only) for `username`; Slurm's "Invalid user id"
  // for another user's otherwise, and for a user the user database does not know.
  r.Add("POST", "/v1/jwt", [&c, jwt_key](const HttpRequest& req) {
    StatusOr<JwtRequest> ask = wire::Decode<JwtRequest>(req.body);
    if (!ask.ok()) return ErrorResponse(ask.status());
    if (jwt_key.empty()) {
      return ErrorResponse(FailedPrecondition("JWT authentication is not configured (controller.jwt_key, or "
                                              "AuthAltParameters=jwt_key= in slurm.conf)"));
    }
    const int64_t lifespan = ask->lifespan_s == 0 ? kDefaultJwtLifespanSeconds : ask->lifespan_s;
    if (lifespan < 1 || lifespan > (int64_t{1} << 31)) {
      return ErrorResponse(InvalidArgument("Invalid lifespan: " + std::to_string(ask->lifespan_s)));
    }
    const std::string own = Controller::UserNameOf(req.caller.uid);
    std::string user = ask->username.empty() ? own : ask->username;
    if (user != own) {
      if (req.caller.uid != 0 && !c.IsAdmin(req.caller)) {
        return ErrorResponse(Status(StatusCode::kPermissionDenied, "Invalid user id"));
      }
      if (!ResolveUser(user).ok()) return ErrorResponse(InvalidArgument("Invalid user id"));
    }
    const int64_t now = c.NowSeconds();
    return Ok(JwtAnswer{MintJwt(jwt_key, user, now, lifespan), user, now + lifespan});
  });
}

}  // namespace muster::api
