// What HttpServer's sessions share with the server (net/http_server.cc): the handler, the limits,
// who holds a place (net/connection_places.h), the registry Stop() walks, and who a TCP request
// comes from. Internal to net/; nothing here touches a socket.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "base/caller.h"
#include "base/mutex.h"
#include "net/connection_places.h"
#include "net/http.h"

namespace boost::asio::ssl {
class context;
}

namespace muster {

class TokenAuthority;

int64_t SteadyNanos();

class SessionBase : public std::enable_shared_from_this<SessionBase> {
 public:
  virtual ~SessionBase() = default;
  virtual void RequestStop() = 0;  // any thread
  virtual void CloseNow() = 0;     // only once the io threads are joined
};

struct ServerCore {
  HttpHandler handler;
  const TokenAuthority* tokens = nullptr;
  std::function<Caller(const std::map<std::string, std::string>&)> authenticate;
  std::function<HttpResponse(const std::string&)> unauthenticated_reply;
  uint64_t max_body = 0;
  std::function<int64_t(std::string_view, std::string_view)> body_limit;
  bool authenticate_before_body = true;
  std::chrono::milliseconds idle_timeout{0};
  std::chrono::milliseconds unauthenticated_timeout{0};
  std::vector<uint32_t> privileged_uids;
  std::atomic<bool> hard_stop{false};       // the io threads are gone: no more handler calls
  boost::asio::ssl::context* ssl = nullptr;  // TCP connections speak TLS with it (nullptr: plain)

  Mutex mu{"server core"};
  std::condition_variable cv;
  bool stopping GUARDED_BY(mu) = false;
  std::unordered_map<SessionBase*, std::weak_ptr<SessionBase>> live GUARDED_BY(mu);
  ConnectionPlaces places GUARDED_BY(mu){ConnectionPlaces::Limits{}};
  std::unordered_set<std::string> tls_failures_logged GUARDED_BY(mu);  // peers' addresses
  uint64_t evicted_unlogged GUARDED_BY(mu) = 0, refused_unlogged GUARDED_BY(mu) = 0;
  int64_t full_logged_at GUARDED_BY(mu) = 0;  // steady ns; 0 = never

  // A failed TLS handshake is logged once per peer address (a plain-HTTP client or a scanner
  // retrying must not flood the log), for the first 1,024 addresses.
  void LogTlsFailure(const std::string& peer_key, const std::string& peer_name, const std::string& what);

  uint64_t BodyLimit(std::string_view method, std::string_view path) const;
  // Whether TCP callers can authenticate here (else every TCP connection counts as its address).
  bool ChecksCredentials() const { return tokens != nullptr || static_cast<bool>(authenticate); }
  bool PrivilegedUid(uint32_t uid) const;
  bool Privileged(const std::optional<Caller>& unix_caller) const {
    return unix_caller && unix_caller->authenticated && PrivilegedUid(unix_caller->uid);
  }

  // Takes a counted place for a new connection of `key` ("uid 1000", or a TCP address where no
  // credentials are checked), or says there is none.
  bool AddCounted(SessionBase* s, const std::string& key, bool privileged);
  // Whether a new TCP connection from `address` may take an unauthenticated place; when not, it
  // is closed at once, before anything is spent on it (ConnectionPlaces).
  bool MayAddUnauthenticated(const std::string& address);
  // Takes an unauthenticated place for a new TCP connection from `address` that
  // MayAddUnauthenticated admitted (false only when stopping); the connection that had to give
  // its place up is stopped.
  bool AddUnauthenticated(SessionBase* s, const std::string& address);
  // The unauthenticated `s` presented the valid credential of `caller`: it now counts as its uid,
  // or *why says why it may not.
  ConnectionPlaces::Promotion Promote(SessionBase* s, const Caller& caller, std::string* why);
  void Unregister(SessionBase* s);

  // Who a TCP request comes from, from its header fields (once per request): `authenticate`'s
  // word, else its Muster token (`*session_token`: net/token.h, CallerFromToken).
  Caller AuthenticateTcp(const std::map<std::string, std::string>& headers, std::string* session_token) const;
  // The answer to a request with a body and no valid credential, before its body is read.
  HttpResponse Unauthenticated(const std::string& why) const;

 private:
  // What to log, at most once a minute, while the unauthenticated places are full ("" = nothing now).
  std::string FullLogLocked() REQUIRES(mu);
};

}  // namespace muster
