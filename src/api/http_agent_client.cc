#include "api/http_agent_client.h"
#include "net/json_body.h"

#include <unistd.h>

#include <chrono>

#include "wire/agent.h"

namespace muster {

HttpAgentClient::HttpAgentClient(const TokenAuthority* tokens, int timeout_ms) : tokens_(tokens), timeout_ms_(timeout_ms) {}

Status HttpAgentClient::Post(const NodeRecord& node, const std::string& target, const std::string& body) {
  const std::string& address = node.agent_address;
  if (address.empty()) return Status(StatusCode::kUnavailable, "node has no agent address (never registered)");
  std::shared_ptr<Conn> conn;
  {
    MutexLock lock(mu_);
    auto& c = conns_[address];
    if (!c) c = std::make_shared<Conn>();
    conn = c;
  }
  MutexLock lock(conn->mu);
  if (!conn->client) {
    // Over TCP, a new token for each connection it opens (a token opens one connection).
    StatusOr<std::unique_ptr<HttpClient>> c = Status(StatusCode::kInternal, "");
    if (tokens_ != nullptr && !address.starts_with("unix:")) {
      // Tokens for this node's agent alone (their audience), as the controller's uid.
      if (!conn->own_token) {
        conn->own_token = std::make_unique<OwnToken>(tokens_, geteuid(), getegid(), NodeAudience(node.node.name));
      }
      c = HttpClient::Connect(address, conn->own_token->Source([] {
                                return std::chrono::duration_cast<std::chrono::seconds>(
                                           std::chrono::system_clock::now().time_since_epoch())
                                    .count();
                              }),
                              timeout_ms_);
    } else {
      c = HttpClient::Connect(address, "", timeout_ms_);
    }
    if (!c.ok()) return c.status();
    conn->client = std::move(*c);
  }
  StatusOr<HttpResponse> resp = conn->client->Request("POST", target, body);
  if (!resp.ok()) {
    conn->client.reset();  // reconnect next time
    return resp.status();
  }
  if (resp->status != 200) {
    // 422: the launch failed by the job's own doing (a path it named); else the node's fault.
    return Status(resp->status == 422 ? StatusCode::kInvalidArgument : StatusCode::kFailedPrecondition,
                  ErrorMessageOf(resp->body, resp->body));
  }
  return Status::Ok();
}

Status HttpAgentClient::LaunchJob(const NodeRecord& node, const JobRecord& job) {
  // We wait for the answer timeout_ms at most, then take the launch for failed (the node is
  // drained, the job requeued): past that moment the agent must not start it any more.
  const int64_t now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  return Post(node, "/v1/launch", wire::Encode(LaunchOrder{FullJob{job}, now_ms + timeout_ms_, leader_token_.load()}));
}

Status HttpAgentClient::SignalJob(const NodeRecord& node, const JobRun& run, int signal, int64_t kill_after_s,
                                  const std::string& why) {
  return Post(node, "/v1/signal",
              wire::Encode(SignalOrder{run.job_id, run.restart_count, signal, kill_after_s, why, leader_token_.load()}));
}

}  // namespace muster
