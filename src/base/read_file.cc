#include "base/read_file.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace muster {

StatusOr<std::string> ReadWholeFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    return Status(err == ENOENT ? StatusCode::kNotFound : StatusCode::kInternal,
                  "cannot read '" + path + "': " + std::strerror(err));
  }
  std::string out;
  const int err = ReadAll(fd, &out);
  close(fd);
  if (err != 0) return Internal("cannot read '" + path + "': " + std::strerror(err));
  return out;
}

std::string ReadFileOrEmpty(const std::string& path) {
  StatusOr<std::string> text = ReadWholeFile(path);
  return text.ok() ? std::move(*text) : std::string();
}

int ReadAll(int fd, std::string* out) {
  char buf[16384];  // as many bytes a read as a stream's buffer takes, and light on any thread's stack
  while (true) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return 0;
    out->append(buf, static_cast<size_t>(n));
  }
}

bool WriteFully(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK) n = write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace muster
