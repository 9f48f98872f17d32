#include "net/step_io.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdint>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace muster {

namespace {

constexpr size_t kMaxHeader = 512;

std::vector<std::string_view> Fields(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    size_t sp = line.find(' ', i);
    if (sp == std::string_view::npos) sp = line.size();
    out.push_back(line.substr(i, sp - i));
    i = sp + 1;
  }
  return out;
}

bool ToInt(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

Status Errno(const std::string& what) { return Status(StatusCode::kUnavailable, what + ": " + std::strerror(errno)); }

}  // namespace

StepIoFrame HelloFrame(const std::string& key, const std::string& node) {
  StepIoFrame f;
  f.kind = StepIoKind::kHello;
  f.data = key;
  f.node = node;
  return f;
}

StepIoFrame OutputFrame(StepIoKind kind, int procid, std::string data) {
  StepIoFrame f;
  f.kind = kind;
  f.procid = procid;
  f.data = std::move(data);
  return f;
}

StepIoFrame EofFrame(int procid) {
  StepIoFrame f;
  f.kind = StepIoKind::kEof;
  f.procid = procid;
  return f;
}

StepIoFrame NoteFrame(std::string text) {
  StepIoFrame f;
  f.kind = StepIoKind::kNote;
  f.data = std::move(text);
  return f;
}

StepIoFrame WinchFrame(int rows, int cols) {
  StepIoFrame f;
  f.kind = StepIoKind::kWinch;
  f.rows = rows;
  f.cols = cols;
  return f;
}

StepIoFrame AckFrame() {
  StepIoFrame f;
  f.kind = StepIoKind::kAck;
  return f;
}

StepIoFrame ExitFrame(int procid, int exit_code, int signal, bool core_dumped) {
  StepIoFrame f;
  f.kind = StepIoKind::kExit;
  f.procid = procid;
  f.exit_code = exit_code;
  f.signal = signal;
  f.core_dumped = core_dumped;
  return f;
}

std::string EncodeStepIoFrame(const StepIoFrame& f) {
  switch (f.kind) {
    case StepIoKind::kHello: return "HELLO " + f.data + " " + f.node + "\n";
    case StepIoKind::kOut:
    case StepIoKind::kErr:
    case StepIoKind::kIn:
      return std::string(f.kind == StepIoKind::kOut ? "OUT " : f.kind == StepIoKind::kErr ? "ERR " : "IN ") +
             std::to_string(f.procid) + " " + std::to_string(f.data.size()) + "\n" + f.data;
    case StepIoKind::kEof: return "EOF " + std::to_string(f.procid) + "\n";
    case StepIoKind::kNote: return "NOTE " + std::to_string(f.data.size()) + "\n" + f.data;
    case StepIoKind::kAck: return "ACK\n";
    case StepIoKind::kWinch: return "WINCH " + std::to_string(f.rows) + " " + std::to_string(f.cols) + "\n";
    case StepIoKind::kExit:
      return "EXIT " + std::to_string(f.procid) + " " + std::to_string(f.exit_code) + " " + std::to_string(f.signal) +
             " " + (f.core_dumped ? "1" : "0") + "\n";
  }
  return "";
}

void StepIoDecoder::Feed(std::string_view bytes) {
  if (pos_ > 0 && pos_ >= buf_.size() / 2) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  buf_.append(bytes);
}

StatusOr<std::optional<StepIoFrame>> StepIoDecoder::Next() {
  const size_t nl = buf_.find('\n', pos_);
  if (nl == std::string::npos) {
    if (buf_.size() - pos_ > kMaxHeader) return InvalidArgument("step I/O: header line too long");
    return std::optional<StepIoFrame>();
  }
  if (nl - pos_ > kMaxHeader) return InvalidArgument("step I/O: header line too long");
  const std::string_view line(buf_.data() + pos_, nl - pos_);
  const std::vector<std::string_view> f = Fields(line);
  auto bad = [&] { return InvalidArgument("step I/O: malformed frame header '" + std::string(line) + "'"); };
  if (f.empty()) return bad();
  StepIoFrame frame;
  int64_t a = 0, b = 0, c = 0, d = 0;
  if (f[0] == "HELLO") {
    if (f.size() != 3 || f[1].empty() || f[2].empty()) return bad();
    frame = HelloFrame(std::string(f[1]), std::string(f[2]));
  } else if (f[0] == "OUT" || f[0] == "ERR" || f[0] == "IN") {
    const int64_t lowest = f[0] == "IN" ? -1 : 0;
    if (f.size() != 3 || !ToInt(f[1], &a) || !ToInt(f[2], &b) || a < lowest || a > INT32_MAX || b < 0) return bad();
    if (static_cast<size_t>(b) > kStepIoMaxPayload) return InvalidArgument("step I/O: payload too large");
    if (buf_.size() - (nl + 1) < static_cast<size_t>(b)) return std::optional<StepIoFrame>();  // body not here yet
    const StepIoKind kind = f[0] == "OUT" ? StepIoKind::kOut : f[0] == "ERR" ? StepIoKind::kErr : StepIoKind::kIn;
    frame = OutputFrame(kind, static_cast<int>(a),
                        buf_.substr(nl + 1, static_cast<size_t>(b)));
    pos_ = nl + 1 + static_cast<size_t>(b);
    return std::optional<StepIoFrame>(std::move(frame));
  } else if (f[0] == "EXIT") {
    if (f.size() != 5 || !ToInt(f[1], &a) || !ToInt(f[2], &b) || !ToInt(f[3], &c) || !ToInt(f[4], &d) || a < 0) {
      return bad();
    }
    frame = ExitFrame(static_cast<int>(a), static_cast<int>(b), static_cast<int>(c), d != 0);
  } else if (f[0] == "NOTE") {
    if (f.size() != 2 || !ToInt(f[1], &b) || b < 0) return bad();
    if (static_cast<size_t>(b) > kStepIoMaxPayload) return InvalidArgument("step I/O: payload too large");
    if (buf_.size() - (nl + 1) < static_cast<size_t>(b)) return std::optional<StepIoFrame>();  // body not here yet
    frame = NoteFrame(buf_.substr(nl + 1, static_cast<size_t>(b)));
    pos_ = nl + 1 + static_cast<size_t>(b);
    return std::optional<StepIoFrame>(std::move(frame));
  } else if (f[0] == "EOF") {
    if (f.size() != 2 || !ToInt(f[1], &a) || a < -1 || a > INT32_MAX) return bad();
    frame = EofFrame(static_cast<int>(a));
  } else if (f[0] == "ACK") {
    if (f.size() != 1) return bad();
    frame = AckFrame();
  } else if (f[0] == "WINCH") {
    if (f.size() != 3 || !ToInt(f[1], &a) || !ToInt(f[2], &b) || a < 0 || b < 0 || a > 65535 || b > 65535) return bad();
    frame = WinchFrame(static_cast<int>(a), static_cast<int>(b));
  } else {
    return bad();
  }
  pos_ = nl + 1;
  return std::optional<StepIoFrame>(std::move(frame));
}

StatusOr<int> ConnectStream(const std::string& address, int timeout_ms) {
  std::string path;
  if (address.rfind("unix:", 0) == 0) {
    path = address.substr(5);
  } else if (!address.empty() && address[0] == '/') {
    path = address;
  }
  int fd = -1;
  if (!path.empty()) {
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    if (path.size() >= sizeof(sa.sun_path)) return InvalidArgument("socket path too long: " + path);
    std::memcpy(sa.sun_path, path.c_str(), path.size() + 1);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return Errno("socket");
    // Non-blocking: a listener whose backlog is full (one that never accepts) answers EAGAIN, tried
    // again until the time is up, instead of holding this thread for ever.
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
      if ((errno == EAGAIN || errno == EINTR) && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        continue;
      }
      if (errno == EAGAIN) errno = ETIMEDOUT;
      Status st = Errno("cannot connect to " + address);
      close(fd);
      return st;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
  }
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0)
    return InvalidArgument("bad address '" + address + "' (want host:port or unix:/path)");
  std::string host = address.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  const std::string port = address.substr(colon + 1);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &res); rc != 0) {
    return Status(StatusCode::kUnavailable, "cannot resolve '" + host + "': " + gai_strerror(rc));
  }
  Status last = Status(StatusCode::kUnavailable, "cannot connect to " + address);
  for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
    fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
    if (fd < 0) continue;
    int rc = connect(fd, ai->ai_addr, ai->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      rc = poll(&p, 1, timeout_ms);
      int err = 0;
      socklen_t len = sizeof err;
      if (rc == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0) {
        rc = 0;
      } else {
        errno = rc == 0 ? ETIMEDOUT : err;
        rc = -1;
      }
    }
    if (rc == 0) {
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
      freeaddrinfo(res);
      return fd;
    }
    last = Errno("cannot connect to " + address);
    close(fd);
    fd = -1;
  }
  freeaddrinfo(res);
  return last;
}

StatusOr<int> ListenUnix(const std::string& path, int backlog) {
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  if (path.size() >= sizeof(sa.sun_path)) return InvalidArgument("socket path too long: " + path);
  std::memcpy(sa.sun_path, path.c_str(), path.size() + 1);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Errno("socket");
  unlink(path.c_str());
  // Created 0600 from the start: no window in which another user could connect.
  const mode_t old = umask(0177);
  int rc = bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa);
  umask(old);
  if (rc != 0 || listen(fd, backlog) != 0) {
    Status st = Errno("cannot listen on " + path);
    close(fd);
    return st;
  }
  return fd;
}

StatusOr<int> ListenTcp(const std::string& host, int port, int* bound_port, int backlog) {
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, host.c_str(), &sa.sin_addr) != 1) return InvalidArgument("bad IPv4 address '" + host + "'");
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Errno("socket");
  if (bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || listen(fd, backlog) != 0) {
    Status st = Errno("cannot listen on " + host + ":" + std::to_string(port));
    close(fd);
    return st;
  }
  socklen_t len = sizeof sa;
  getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len);
  if (bound_port != nullptr) *bound_port = ntohs(sa.sin_port);
  return fd;
}

}  // namespace muster
