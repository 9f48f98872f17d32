// A configless agent's fetch (musterd --conf-server, Slurm's slurmd --conf-server): the
// configuration files from the controllers, GET /v1/config/files (api/config_files.h).
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "net/token.h"
#include "wire/agent.h"

namespace muster {

// Asks each of `addresses` in order ("host:port", or "unix:/path" where peer credentials speak for
// the agent): the first that answers 200 gives the files, and `*from` (when given) says which. A
// standby's 503, a refusal or a failed connection moves on to the next. Over TCP the agent
// presents a token it mints with `tokens` (the cluster key) for its own uid. Unavailable when
// none answered, naming each address and why.
StatusOr<ServedConfig> FetchServedConfig(const std::vector<std::string>& addresses, const TokenAuthority* tokens,
                                         int timeout_ms, std::string* from = nullptr);

}  // namespace muster
