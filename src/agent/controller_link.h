// The agent's connection to the controller, among several (controller.hosts): POSTs go to the
// current address; a connection that fails, or a controller that answers 503 (a standby, or one
// that lost its lease), moves the link to the next address, round robin, and the request is tried
// there, each address once per call. Each switch is logged once: "controller at A: <why>; trying
// B" (an address that keeps failing the same way is not logged again until it answers).
// A request that moves on after a transport failure tells the next controllers which address it
// could not reach (?unreachable=ADDRESS): standbys count the agents cut off from the leader
// (ctld/agent_reach.h). With one address it is the plain connection it always was (a 503 is an
// error like any other).
// Not thread-safe: the agent's controller thread alone uses it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "net/http.h"

namespace muster {

class ControllerLink {
 public:
  // `addresses`: "unix:/path" or "host:port", in order; at least one. `tokens`: for the TCP
  // addresses, a new token for each connection (none when unset).
  explicit ControllerLink(std::vector<std::string> addresses, int timeout_ms = 10000,
                          HttpClient::TokenSource tokens = {});

  // POST `target` with `body`. The answer's body on 200; else NotFound (404), FailedPrecondition
  // (409), Unavailable (transport failures; with several addresses also 503) or Internal, with
  // the server's message.
  StatusOr<std::string> Post(const std::string& target, const std::string& body);

  const std::string& current() const { return addresses_[index_]; }
  const std::vector<std::string>& addresses() const { return addresses_; }
  // How many times the link moved to another address (the agent registers again after one).
  int64_t switches() const { return switches_; }

 private:
  // One try at the current address.
  StatusOr<std::string> PostHere(const std::string& target, const std::string& body, bool* move_on);
  void MoveOn(const std::string& why);

  std::vector<std::string> addresses_;
  std::vector<std::string> logged_;  // per address: the failure last logged ("" = none since it answered)
  size_t index_ = 0;
  int timeout_ms_;
  int64_t switches_ = 0;
  bool standby_ = false;  // the last try was answered 503
  HttpClient::TokenSource tokens_;
  std::unique_ptr<HttpClient> http_;
};

}  // namespace muster
