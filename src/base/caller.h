// Who makes a request: what the server could establish about the other end (peer credentials on
// a Unix socket, a verified token over TCP), as every layer that decides who may do what sees it.
#pragma once

#include <cstdint>
#include <string>

namespace muster {

struct Caller {
  bool authenticated = false;
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string via;     // "unix" (peer credentials) or "token" (TCP with a valid token) or "none"
  std::string error;   // why not authenticated (bad signature, expired, ...), for the 401 body
};

}  // namespace muster
