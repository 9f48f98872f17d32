// AgentClient over HTTP: one kept-alive connection per node agent (its address from registration).
// Agents on Unix sockets know the controller by its peer credentials; agents on TCP
// ("host:port") get a token for the controller's own uid, minted with the cluster key (the same
// key the agents verify with). Thread-safe.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>

#include "base/mutex.h"
#include "ctld/controller.h"
#include "net/http.h"
#include "net/token.h"

namespace muster {

class HttpAgentClient : public AgentClient {
 public:
  // `tokens` (may be nullptr: TCP agents then refuse us with 401) must outlive this client.
  explicit HttpAgentClient(const TokenAuthority* tokens = nullptr, int timeout_ms = 10000);
  Status LaunchJob(const NodeRecord& node, const JobRecord& job) override;
  Status SignalJob(const NodeRecord& node, const JobRun& run, int signal, int64_t kill_after_s,
                   const std::string& why) override;
  bool ConcurrentLaunches() const override { return true; }  // one connection (and lock) per agent
  // The lease token of this controller (controller.hosts), sent with every order: an agent that
  // has seen a higher one refuses the order (it comes from a deposed leader).
  void SetLeaderToken(int64_t token) { leader_token_ = token; }

 private:
  Status Post(const NodeRecord& node, const std::string& target, const std::string& body);
  struct Conn {
    Mutex mu{"agent connection"};
    std::unique_ptr<OwnToken> own_token GUARDED_BY(mu);  // for the node's agent (outlives the client's token source)
    std::unique_ptr<HttpClient> client GUARDED_BY(mu);
  };
  const TokenAuthority* tokens_;  // nullptr without a key
  int timeout_ms_;
  std::atomic<int64_t> leader_token_{0};
  Mutex mu_{"agent connections"};
  std::map<std::string, std::shared_ptr<Conn>> conns_ GUARDED_BY(mu_);
};

}  // namespace muster
