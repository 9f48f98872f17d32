// Several controllers (muster.yaml's controller.hosts) sharing one PostgreSQL state: what
// musterctld needs beyond the single controller's life. Which entry of controller.hosts it is,
// the name it holds the lease under, how it answers while it stands by (the ping says so and who
// leads; every other route is 503, so that commands and agents move on to the next address), and
// the leader's ping. The lease itself: ctld/lease_keeper.h; the store's side: store/store.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "config/muster_config.h"
#include "net/http.h"
#include "store/store.h"
#include "wire/jobs.h"

namespace muster::api {

// This controller's entry of controller.hosts: its listen address (--listen, or controller.listen)
// as listed, or, listening on a wildcard host, the entry with its port on this host's name.
StatusOr<std::string> OwnHostsEntry(const MusterConfig& conf, const std::string& listen, const std::string& hostname);

// A name no other controller process uses: its address, host, pid and 8 random bytes.
std::string NewLeaseHolder(const std::string& address, const std::string& hostname);

// GET /v1/ping of a controller with controller.hosts: its role, its entry, and the leader's entry
// as the lease last read says ("" when it has lapsed).
PingAnswer HostsPing(const HttpRequest& r, const std::string& cluster, bool leading, const std::string& address,
                     const Leadership& last);

// The node of an agent's registration or heartbeat that says (?unreachable=ADDRESS) it could not
// reach `leader`, from an agent (an authenticated caller among `agent_uids`); "" otherwise. What a
// standby counts (ctld/agent_reach.h).
std::string FailedOverNode(const HttpRequest& r, const std::string& leader, const std::vector<uint32_t>& agent_uids);

// A standby's answer: the ping, its /metrics (muster_controller_leader 0, the cluster's
// leaderships), or 503 naming the leader.
HttpResponse StandbyAnswer(const HttpRequest& r, const std::string& cluster, const std::string& address,
                           const Leadership& last);

}  // namespace muster::api
