#include "base/read_file.h"

#include <fcntl.h>
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
  char buf[4096];
  while (true) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      close(fd);
      return Internal("cannot read '" + path + "': " + std::strerror(err));
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return out;
}

std::string ReadFileOrEmpty(const std::string& path) {
  StatusOr<std::string> text = ReadWholeFile(path);
  return text.ok() ? std::move(*text) : std::string();
}

}  // namespace muster
