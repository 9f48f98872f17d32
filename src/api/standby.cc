#include "api/standby.h"

#include <unistd.h>

#include <algorithm>

#include "api/route_util.h"
#include "net/key_file.h"
#include "net/prometheus_text.h"
#include "wire/agent.h"

namespace muster::api {

StatusOr<std::string> OwnHostsEntry(const MusterConfig& conf, const std::string& listen, const std::string& hostname) {
  if (listen.empty()) {
    return InvalidArgument("controller.hosts is set but this controller listens on no TCP address: set "
                           "controller.listen (or --listen) to its entry");
  }
  ASSIGN_OR_RETURN(HostPort own, ParseHostPort(listen, "the listen address"));
  const std::string joined = JoinHostPort(own.host, own.port);
  for (const std::string& entry : conf.ctld_hosts) {
    if (entry == joined) return entry;
  }
  if (own.host == "0.0.0.0" || own.host == "::") {
    for (const std::string& entry : conf.ctld_hosts) {
      StatusOr<HostPort> hp = ParseHostPort(entry, "controller.hosts");
      if (hp.ok() && hp->port == own.port && hp->host == hostname) return entry;
    }
  }
  std::string listed;
  for (const std::string& entry : conf.ctld_hosts) listed += (listed.empty() ? "" : ", ") + entry;
  return InvalidArgument("controller.hosts (" + listed + ") does not list this controller's address " + joined +
                         ": set controller.listen (or --listen) to its entry");
}

std::string NewLeaseHolder(const std::string& address, const std::string& hostname) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string tag;
  for (unsigned char b : RandomBytes(8)) {
    tag += kHex[b >> 4];
    tag += kHex[b & 15];
  }
  return address + "/" + hostname + "/" + std::to_string(getpid()) + "/" + tag;
}

PingAnswer HostsPing(const HttpRequest& r, const std::string& cluster, bool leading, const std::string& address,
                     const Leadership& last) {
  PingAnswer p;
  p.cluster = cluster;
  p.authenticated = r.caller.authenticated;
  p.uid = r.caller.uid;
  p.role = leading ? "leader" : "standby";
  p.address = address;
  p.leader = leading ? address : (last.remaining_ms > 0 ? last.address : "");
  return p;
}

std::string FailedOverNode(const HttpRequest& r, const std::string& leader, const std::vector<uint32_t>& agent_uids) {
  if (r.method != "POST" || leader.empty() || !r.caller.authenticated) return "";
  if (std::find(agent_uids.begin(), agent_uids.end(), r.caller.uid) == agent_uids.end()) return "";
  auto it = r.query.find("unreachable");
  if (it == r.query.end() || it->second != leader) return "";
  if (r.path == "/v1/agent/heartbeat") {
    StatusOr<Heartbeat> beat = wire::Decode<Heartbeat>(r.body);
    return beat.ok() ? beat->node : "";
  }
  if (r.path == "/v1/agent/register") {
    StatusOr<Registration> reg = wire::Decode<Registration>(r.body);
    return reg.ok() && reg->node ? reg->node->node.name : "";
  }
  return "";
}

HttpResponse StandbyAnswer(const HttpRequest& r, const std::string& cluster, const std::string& address,
                           const Leadership& last) {
  if (r.method == "GET" && r.path == "/v1/ping") return Ok(HostsPing(r, cluster, false, address, last));
  if (r.method == "GET" && r.path == "/metrics") {
    // The leader's series, as a standby has them: Prometheus sees every controller up, and
    // sum(muster_controller_leader) is 1 while one leads.
    StatusOr<std::string> text = prom::WriteText(
        {prom::Family{"muster_controller_leader", "1: this controller leads (controller.hosts).", prom::MetricType::kGauge,
                      {prom::Series{{{"address", address}}, 0, ""}}},
         prom::Family{"muster_controller_leaderships_total",
                      "Leaderships of the cluster so far (the lease's fencing token): each takeover adds one.",
                      prom::MetricType::kCounter, {prom::Series{{}, double(last.token), ""}}}});
    if (!text.ok()) return HttpResponse::Error(500, text.status().message());
    return HttpResponse{200, prom::kContentType, std::move(*text)};
  }
  const std::string leader = last.remaining_ms > 0 ? "the leader is at " + last.address : "no controller leads now";
  return HttpResponse::Error(503, "controller " + address + " is a standby: " + leader);
}

}  // namespace muster::api
