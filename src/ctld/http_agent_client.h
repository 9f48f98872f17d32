// AgentClient over HTTP: one kept-alive connection per node agent (its address from registration).
// Thread-safe.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "ctld/controller.h"
#include "net/http.h"

namespace muster {

class HttpAgentClient : public AgentClient {
 public:
  // `token`: credential sent to agents listening on TCP ("" for Unix sockets, where peer
  // credentials identify the controller).
  explicit HttpAgentClient(std::string token = "", int timeout_ms = 10000)
      : token_(std::move(token)), timeout_ms_(timeout_ms) {}
  Status LaunchJob(const NodeRecord& node, const JobRecord& job) override;
  Status SignalJob(const NodeRecord& node, int64_t job_id, int signal, int64_t kill_after_s,
                   const std::string& why) override;

 private:
  Status Post(const std::string& address, const std::string& target, const std::string& body);
  struct Conn {
    std::mutex mu;
    std::unique_ptr<HttpClient> client;
  };
  std::string token_;
  int timeout_ms_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<Conn>> conns_;
};

}  // namespace muster
