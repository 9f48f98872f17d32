// What srun's step session asks of its own host (see cli/srun_step_host.h).
#include "cli/srun_step_host.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/status.h"
#include "config/muster_config.h"  // ParseHostPort

namespace muster {

std::string RandomKey() {
  unsigned char raw[16] = {0};
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    (void)!read(fd, raw, sizeof raw);
    close(fd);
  }
  static const char kHex[] = "0123456789abcdef";
  std::string key;
  for (unsigned char c : raw) {
    key += kHex[c >> 4];
    key += kHex[c & 15];
  }
  return key;
}

std::string LocalAddressToward(const std::string& agent) {
  StatusOr<HostPort> hp = ParseHostPort(agent, "agent address");
  if (!hp.ok()) return "";
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(hp->host.c_str(), std::to_string(hp->port).c_str(), &hints, &found) != 0) return "";
  std::string out;
  for (addrinfo* a = found; a != nullptr && out.empty(); a = a->ai_next) {
    // A UDP socket's connect sends nothing: the kernel only picks the route and source address.
    const int fd = socket(a->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    sockaddr_storage local{};
    socklen_t len = sizeof local;
    char text[INET6_ADDRSTRLEN] = {0};
    if (connect(fd, a->ai_addr, a->ai_addrlen) == 0 && getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) == 0) {
      const void* addr = local.ss_family == AF_INET6 ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(&local)->sin6_addr)
                                                     : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(&local)->sin_addr);
      if (inet_ntop(local.ss_family, addr, text, sizeof text) != nullptr) {
        out = local.ss_family == AF_INET6 ? "[" + std::string(text) + "]" : std::string(text);
      }
    }
    close(fd);
  }
  freeaddrinfo(found);
  return out;
}

RawTerminal::RawTerminal() {
  if (!isatty(0) || tcgetattr(0, &saved_) != 0) return;
  termios raw = saved_;
  cfmakeraw(&raw);
  active_ = tcsetattr(0, TCSADRAIN, &raw) == 0;
}

RawTerminal::~RawTerminal() {
  if (active_) (void)tcsetattr(0, TCSADRAIN, &saved_);
}

std::pair<int, int> TerminalSize() {
  winsize ws{};
  if (!isatty(0) || ioctl(0, TIOCGWINSZ, &ws) != 0) return {0, 0};
  return {ws.ws_row, ws.ws_col};
}

}  // namespace muster
