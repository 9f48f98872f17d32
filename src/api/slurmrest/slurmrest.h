// Slurm 22.05's slurmrestd REST API (openapi/v0.0.38 and dbv0.0.38) served by musterctld: the
// routes under /slurm/v0.0.38 and /slurmdb/v0.0.38 (docs/api.md, "slurmrestd's REST API") and who
// is calling them. The answers' shapes are api/slurmrest/shapes.h; the bodies read,
// api/slurmrest/submit.h. Uses the controller; the controller knows nothing of it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "base/caller.h"
#include "base/status.h"
#include "ctld/controller.h"
#include "net/http.h"

namespace muster::slurmrest {

struct RestOptions {
  std::string jwt_key;   // "" = no JWTs: only Unix-socket callers (peer credentials)
  int server_threads = 0;
};

// Who a REST request comes from, as slurmrestd's rest_auth/jwt (and rest_auth/local) decide:
//   - X-SLURM-USER-TOKEN: a JWT signed with the key (net/jwt.h) names the user ("sun"); an
//     X-SLURM-USER-NAME beside it must name the same user, unless the token's user is root or an
//     admin (who may act for anyone, as Slurm's SlurmUser and root may);
//   - without a token, a caller on the Unix socket is who its peer credentials say;
//   - anyone else is refused (Unauthenticated, the reason in the message).
// `is_admin` decides for the token's user.
StatusOr<Caller> Authenticate(const HttpRequest& req, const std::string& jwt_key, int64_t now,
                              const std::function<bool(uint32_t uid)>& is_admin);

// Authenticate on a request's header fields alone (lower-case names), as the REST listener checks
// every request once its header is read, before its body (HttpServer::Options::authenticate): the
// caller, or an unauthenticated one (via "none") whose `error` says why.
Caller AuthenticateHeaders(const std::map<std::string, std::string>& headers, const std::string& jwt_key,
                           int64_t now, const std::function<bool(uint32_t uid)>& is_admin);

// slurmrestd's answer to a request it cannot authenticate: 401, "Authentication failure".
HttpResponse AuthenticationFailure();

// Adds every /slurm/v0.0.38 and /slurmdb/v0.0.38 route. The handlers authenticate each request
// themselves (Authenticate); an unauthenticated one gets slurmrestd's 401 "Authentication failure".
void AddSlurmRestRoutes(Controller& c, Router& r, const RestOptions& options);

// Whether a path is one of these routes' (for the servers that carry them).
bool IsSlurmRestPath(std::string_view path);

// The largest body a REST request may have: a submission 16 MiB (its script), others 1 MiB,
// reads 64 KiB. AddSlurmRestRoutes gives each route its own; for paths no route takes, the
// routers' rule (musterctld).
int64_t SlurmRestBodyLimit(std::string_view method, std::string_view path);

}  // namespace muster::slurmrest
