// JWTs for slurmrestd's REST API: `scontrol token` (POST /v1/jwt).

#include <algorithm>

#include "api/route_util.h"
#include "api/routes.h"
#include "config/muster_config.h"
#include "net/jwt.h"
#include "wire/jobs.h"

namespace muster::api {

void AddTokenRoutes(Controller& c, Router& r, const std::string& jwt_key, int64_t max_lifespan_s) {
  // A token for the caller, or (root and admins only) for `username`; Slurm's "Invalid user id"
  // for another user's otherwise, and for a user the user database does not know.
  // Its lifespan as slurmctld's _slurm_rpc_auth_token gives it: the one asked for, else 1800 s (or
  // the maximum, if shorter); over the maximum (controller.jwt_max_lifespan, Slurm's
  // max_token_lifespan), refused with ESLURM_INVALID_TIME_LIMIT's words, but for root and the
  // admins, who stand for SlurmUser there.
  r.Add("POST", "/v1/jwt", kChangeBodyLimit, [&c, jwt_key, max_lifespan_s](const HttpRequest& req) {
    StatusOr<JwtRequest> ask = wire::Decode<JwtRequest>(req.body);
    if (!ask.ok()) return ErrorResponse(ask.status());
    if (jwt_key.empty()) {
      return ErrorResponse(FailedPrecondition("JWT authentication is not configured (controller.jwt_key, or "
                                              "AuthAltParameters=jwt_key= in slurm.conf)"));
    }
    const int64_t lifespan = ask->lifespan_s != 0 ? ask->lifespan_s
                             : max_lifespan_s > 0  ? std::min(kDefaultJwtLifespanSeconds, max_lifespan_s)
                                                   : kDefaultJwtLifespanSeconds;
    if (lifespan < 1 || lifespan > kLongestJwtLifespanSeconds) {
      return ErrorResponse(InvalidArgument("Invalid lifespan: " + std::to_string(ask->lifespan_s)));
    }
    const bool unbound = req.caller.uid == 0 || c.IsAdmin(req.caller);
    if (!unbound && max_lifespan_s > 0 && lifespan > max_lifespan_s) {
      return ErrorResponse(InvalidArgument("Requested time limit is invalid (missing or exceeds some limit): lifespan " +
                                           std::to_string(lifespan) + " s is over controller.jwt_max_lifespan (" +
                                           std::to_string(max_lifespan_s) + " s)"));
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
