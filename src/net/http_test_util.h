// Helpers shared by the net tests: temp socket paths, an echo handler, raw sockets, a gate.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>

#include <boost/json.hpp>

#include "base/json_test_util.h"
#include "net/http.h"

namespace muster::net_test {

// A TCP port on 127.0.0.1 free now (the kernel's pick; bound, read, closed: nobody listens there).
inline int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
    port = ntohs(a.sin_port);
  }
  close(fd);
  return port;
}

// A fresh path directly under /tmp (not in a 0700 directory, so other uids can reach it).
inline std::string TempSocketPath() {
  static std::atomic<int> counter{0};
  return "/tmp/muster-net-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".sock";
}

using test_json::Json;

inline boost::json::object CallerJson(const Caller& c) {
  return {{"authenticated", c.authenticated}, {"uid", c.uid}, {"gid", c.gid}, {"via", c.via}, {"error", c.error}};
}

// Answers with everything the server parsed.
inline HttpResponse Echo(const HttpRequest& r) {
  boost::json::object query, headers;
  for (const auto& [k, v] : r.query) query[k] = v;
  for (const auto& [k, v] : r.headers) headers[k] = v;
  boost::json::object j = {{"method", r.method}, {"path", r.path},     {"query", query},
                           {"headers", headers}, {"body", r.body}, {"caller", CallerJson(r.caller)},
                           {"peer", r.peer}};
  return HttpResponse::Json(200, boost::json::serialize(j));
}

inline Json BodyOf(const StatusOr<HttpResponse>& r) {
  if (!r.ok()) return Json(boost::json::object{{"transport_error", r.status().ToString()}});
  return test_json::Parse(r->body);
}

// Blocking raw sockets with a 5 s receive timeout, so that a broken server fails the test
// instead of hanging it.
inline int RawConnect(const sockaddr* addr, socklen_t len, int family) {
  int fd = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  if (::connect(fd, addr, len) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}
inline int RawConnectUnix(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  return RawConnect(reinterpret_cast<sockaddr*>(&addr), sizeof(addr), AF_UNIX);
}
inline int RawConnectTcp(int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return RawConnect(reinterpret_cast<sockaddr*>(&addr), sizeof(addr), AF_INET);
}
inline bool RawSend(int fd, const std::string& data) {
  return ::send(fd, data.data(), data.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(data.size());
}
// Reads (a socket or a pipe) until EOF; *eof tells whether it got there (false: error or the
// 5 s timeout).
inline std::string RawReadAll(int fd, bool* eof) {
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *eof = n == 0;
      return out;
    }
    out.append(buf, static_cast<size_t>(n));
  }
}

// True when the server closed the connection (EOF, or a reset when it never accepted it);
// false when nothing happened within the 5 s receive timeout.
inline bool ClosedByServer(int fd) {
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) return true;
    if (n < 0) return errno != EAGAIN && errno != EWOULDBLOCK;
  }
}

// A one-shot event with a bounded wait.
class Gate {
 public:
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  bool WaitFor(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, [this] { return open_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

}  // namespace muster::net_test
