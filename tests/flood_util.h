// Floods for the integration tests of the servers' caps (tests/tcp_flood_test.cc): many TCP
// connections that never authenticate, from many loopback source addresses, kept open; and
// connections that each start a large body without a valid credential. Non-blocking sockets
// driven by poll(2) on a thread of their own; everything they open is closed by Stop() (or the
// destructor). And what /proc says of a process: its resident memory, its sockets, its limits.
// Header-only; test code.
#pragma once

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace muster_test {

// VmRSS of `pid` in KiB (-1 when it cannot be read).
inline int64_t VmRssKb(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atoll(line.c_str() + 6);
  }
  return -1;
}

// How many of `pid`'s descriptors are sockets.
inline int SocketCount(int pid) {
  const std::string dir = "/proc/" + std::to_string(pid) + "/fd";
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return -1;
  int n = 0;
  char target[64];
  while (dirent* e = readdir(d)) {
    const ssize_t len = readlinkat(dirfd(d), e->d_name, target, sizeof target - 1);
    if (len > 0 && std::string(target, static_cast<size_t>(len)).rfind("socket:", 0) == 0) ++n;
  }
  closedir(d);
  return n;
}

// The line of /proc/PID/limits that starts with `name` ("Max open files  1024  524288  files").
inline std::string ProcLimit(int pid, const std::string& name) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/limits");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(name, 0) == 0) return line;
  }
  return "";
}

inline sockaddr_in Loopback(const std::string& host_port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  const size_t colon = host_port.rfind(':');
  inet_pton(AF_INET, host_port.substr(0, colon).c_str(), &a.sin_addr);
  a.sin_port = htons(static_cast<uint16_t>(std::atoi(host_port.c_str() + colon + 1)));
  return a;
}

// `addresses` x `per_address` TCP connections to `target` from 127.0.0.2, 127.0.0.3, ... that send
// nothing, kept open: one the server closes is opened again (until StopReopening).
class ConnectionFlood {
 public:
  ConnectionFlood(const std::string& target, int addresses, int per_address)
      : target_(Loopback(target)), addresses_(addresses), per_address_(per_address) {}
  ~ConnectionFlood() { Stop(); }
  ConnectionFlood(const ConnectionFlood&) = delete;
  ConnectionFlood& operator=(const ConnectionFlood&) = delete;

  void Start() {
    thread_ = std::thread([this] { Run(); });
  }
  // From now on a connection the server closes stays closed.
  void StopReopening() { reopen_ = false; }
  // Closes every connection; idempotent.
  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  int64_t connected() const { return connected_; }          // connections established, in all
  int64_t closed_by_server() const { return closed_by_server_; }
  int64_t failed() const { return failed_; }                // connect() errors
  int open() const { return open_; }                         // established or connecting, now

 private:
  struct Slot {
    int fd = -1;
    bool connecting = false;
    in_addr source{};
  };

  void Open(Slot& s) {
    s.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s.fd < 0) {
      ++failed_;
      return;
    }
    const int one = 1;
    ::setsockopt(s.fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);  // the port at connect
    sockaddr_in from{};
    from.sin_family = AF_INET;
    from.sin_addr = s.source;
    if (::bind(s.fd, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0) return Fail(s);
    if (::connect(s.fd, reinterpret_cast<const sockaddr*>(&target_), sizeof target_) == 0) {
      s.connecting = false;
      ++connected_;
    } else if (errno == EINPROGRESS) {
      s.connecting = true;
    } else {
      Fail(s);
    }
  }
  void Fail(Slot& s) {
    ::close(s.fd);
    s.fd = -1;
    ++failed_;
  }

  void Run() {
    std::vector<Slot> slots(static_cast<size_t>(addresses_) * per_address_);
    for (size_t i = 0; i < slots.size(); ++i) {
      slots[i].source.s_addr = htonl((127u << 24) + 2 + static_cast<uint32_t>(i / per_address_));
      Open(slots[i]);
    }
    std::vector<pollfd> fds;
    std::vector<size_t> index;
    char buf[4096];
    while (!stop_) {
      fds.clear();
      index.clear();
      for (size_t i = 0; i < slots.size(); ++i) {
        if (slots[i].fd < 0) continue;
        fds.push_back({slots[i].fd, static_cast<short>(slots[i].connecting ? POLLOUT : POLLIN), 0});
        index.push_back(i);
      }
      open_ = static_cast<int>(fds.size());
      if (::poll(fds.data(), fds.size(), 50) < 0 && errno != EINTR) break;
      for (size_t k = 0; k < fds.size(); ++k) {
        if (fds[k].revents == 0) continue;
        Slot& s = slots[index[k]];
        if (s.connecting) {
          int err = 0;
          socklen_t len = sizeof err;
          ::getsockopt(s.fd, SOL_SOCKET, SO_ERROR, &err, &len);
          if (err != 0) {
            Fail(s);
          } else {
            s.connecting = false;
            ++connected_;
          }
          continue;
        }
        const ssize_t n = ::recv(s.fd, buf, sizeof buf, 0);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
          ::close(s.fd);
          s.fd = -1;
          ++closed_by_server_;
        }
      }
      if (reopen_) {
        for (Slot& s : slots) {
          if (s.fd < 0) Open(s);
        }
      }
    }
    for (Slot& s : slots) {
      if (s.fd >= 0) ::close(s.fd);
    }
    open_ = 0;
  }

  const sockaddr_in target_;
  const int addresses_, per_address_;
  std::thread thread_;
  std::atomic<bool> stop_{false}, reopen_{true};
  std::atomic<int64_t> connected_{0}, closed_by_server_{0}, failed_{0};
  std::atomic<int> open_{0};
};

// `connections` connections to `target` that each send `header` (a request header announcing a
// large body) and then that body, 64 KiB at a time, until the server answers or all is sent;
// `sample` is called between rounds (a memory reading). Blocking until every connection is done
// (answered and closed, or failed) or `limit_s` passed. Each connection's answer, in order.
struct BodyFloodResult {
  std::vector<std::string> answers;
  int64_t body_bytes_sent = 0;
  bool finished = false;  // every connection done within the limit
};
inline BodyFloodResult FloodWithBodies(const std::string& target, int connections,
                                       const std::function<std::string(int i)>& header, int64_t body_size,
                                       const std::function<void()>& sample, int limit_s) {
  struct Conn {
    int fd = -1;
    std::string out;  // the header not yet sent
    int64_t body_left = 0;
    std::string answer;
    bool done = false;
  };
  BodyFloodResult result;
  const sockaddr_in to = Loopback(target);
  std::vector<Conn> conns(static_cast<size_t>(connections));
  for (int i = 0; i < connections; ++i) {
    Conn& c = conns[i];
    c.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c.fd < 0 || ::connect(c.fd, reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0) {
      c.done = true;
      continue;
    }
    ::fcntl(c.fd, F_SETFL, ::fcntl(c.fd, F_GETFL) | O_NONBLOCK);
    c.out = header(i);
    c.body_left = body_size;
  }
  const std::string chunk(64 << 10, 'x');
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(limit_s);
  std::vector<pollfd> fds;
  std::vector<size_t> index;
  char buf[8192];
  while (std::chrono::steady_clock::now() < end) {
    fds.clear();
    index.clear();
    for (size_t i = 0; i < conns.size(); ++i) {
      Conn& c = conns[i];
      if (c.done) continue;
      const bool sending = c.answer.empty() && (!c.out.empty() || c.body_left > 0);
      fds.push_back({c.fd, static_cast<short>(POLLIN | (sending ? POLLOUT : 0)), 0});
      index.push_back(i);
    }
    if (fds.empty()) {
      result.finished = true;
      break;
    }
    if (::poll(fds.data(), fds.size(), 50) < 0 && errno != EINTR) break;
    for (size_t k = 0; k < fds.size(); ++k) {
      Conn& c = conns[index[k]];
      if (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) {
        const ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
        if (n > 0) {
          c.answer.append(buf, static_cast<size_t>(n));
        } else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
          c.done = true;  // closed (after its answer, or reset)
          continue;
        }
      }
      if ((fds[k].revents & POLLOUT) && c.answer.empty()) {
        const bool header_part = !c.out.empty();
        const size_t len = header_part ? c.out.size() : static_cast<size_t>(std::min<int64_t>(c.body_left, chunk.size()));
        const ssize_t n = ::send(c.fd, header_part ? c.out.data() : chunk.data(), len, MSG_NOSIGNAL);
        if (n > 0) {
          if (header_part) {
            c.out.erase(0, static_cast<size_t>(n));
          } else {
            c.body_left -= n;
            result.body_bytes_sent += n;
          }
        } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
          c.body_left = 0;  // reset: read what came back, if anything
          c.out.clear();
        }
      }
    }
    sample();
  }
  for (Conn& c : conns) {
    if (c.fd >= 0) ::close(c.fd);
    result.answers.push_back(c.answer);
  }
  return result;
}

}  // namespace muster_test
