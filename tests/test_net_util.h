// Shared by the integration tests that talk TCP or read the controller's node list: a free
// loopback port, and each node's agent address from GET /v1/nodes. Header-only; test code.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <map>
#include <string>

#include "net/http_test_util.h"

namespace muster_test {

using muster::net_test::FreePort;  // a TCP port on 127.0.0.1 free now

// Node name -> agent address, from GET /v1/nodes' body (empty when it is not that answer).
inline std::map<std::string, std::string> AgentAddressesOf(const std::string& nodes_body) {
  namespace bj = boost::json;
  std::map<std::string, std::string> out;
  boost::system::error_code ec;
  const bj::value j = bj::parse(nodes_body, ec);
  const bj::value* nodes = !ec && j.is_object() ? j.get_object().if_contains("nodes") : nullptr;
  if (nodes == nullptr || !nodes->is_array()) return out;
  const auto text = [](const bj::value& o, const char* key) {
    const bj::value* v = o.is_object() ? o.get_object().if_contains(key) : nullptr;
    return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
  };
  for (const bj::value& n : nodes->get_array()) {
    const bj::value* node = n.is_object() ? n.get_object().if_contains("node") : nullptr;
    out[node != nullptr ? text(*node, "name") : text(n, "name")] = text(n, "agent_address");
  }
  return out;
}

}  // namespace muster_test
