// The cluster key file, and random bytes from the kernel. Kept apart from the token code so that
// the command binary, which creates the key for 'muster up' but never signs or verifies, does not
// link OpenSSL (whose start-up CPU probing costs every command ~0.2 ms on a virtual machine).
#include "net/key_file.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace muster {
namespace {

constexpr size_t kKeyBytes = 32;
constexpr size_t kMinKeyBytes = 16;
constexpr size_t kMaxKeyBytes = 4096;

std::string ErrnoText() { return std::strerror(errno); }
Status PermissionDenied(std::string msg) { return Status(StatusCode::kPermissionDenied, std::move(msg)); }

bool WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// Creates `path` holding a fresh key without ever exposing a partial or world-readable file:
// write a 0600 temp file beside it, then link it into place (link, unlike rename, fails if a
// concurrent creator won, and then both use the winner's key).
Status CreateKey(const std::string& path) {
  std::string tmp = path + ".tmp.XXXXXX";
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) return Internal("cannot create a temporary key file beside '" + path + "': " + ErrnoText());
  std::string key = RandomBytes(kKeyBytes);
  bool ok = ::fchmod(fd, 0600) == 0 && WriteAll(fd, key) && ::fsync(fd) == 0;
  std::string err = ErrnoText();
  ok = (::close(fd) == 0) && ok;
  if (!ok) {
    ::unlink(tmp.c_str());
    return Internal("cannot write key file '" + tmp + "': " + err);
  }
  int rc = ::link(tmp.c_str(), path.c_str());
  int link_errno = rc == 0 ? 0 : errno;
  if (rc != 0 && link_errno != EEXIST) {
    rc = ::rename(tmp.c_str(), path.c_str());  // filesystems without hard links
    link_errno = rc == 0 ? 0 : errno;
  }
  ::unlink(tmp.c_str());
  if (link_errno != 0 && link_errno != EEXIST) {
    return Internal("cannot create key file '" + path + "': " + std::strerror(link_errno));
  }
  return Status::Ok();
}

}  // namespace

std::string RandomBytes(size_t n) {
  std::string out(n, '\0');
  size_t done = 0;
  while (done < n) {
    ssize_t got = ::getrandom(out.data() + done, n - done, 0);
    if (got < 0 && errno == EINTR) continue;
    MUSTER_CHECK(got > 0) << "getrandom failed: " << ErrnoText();
    done += static_cast<size_t>(got);
  }
  return out;
}

StatusOr<std::string> LoadClusterKey(const std::string& path, bool create) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) return Internal("cannot stat key file '" + path + "': " + ErrnoText());
    if (!create) return NotFound("key file '" + path + "' does not exist");
    RETURN_IF_ERROR(CreateKey(path));
  }
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ELOOP) return PermissionDenied("key file '" + path + "' is a symbolic link");
    return Internal("cannot open key file '" + path + "': " + ErrnoText());
  }
  std::string key;
  Status status;
  if (::fstat(fd, &st) != 0) {
    status = Internal("cannot stat key file '" + path + "': " + ErrnoText());
  } else if (!S_ISREG(st.st_mode)) {
    status = PermissionDenied("key file '" + path + "' is not a regular file");
  } else if (st.st_uid != ::geteuid() && st.st_uid != 0) {
    status = PermissionDenied("key file '" + path + "' is owned by uid " + std::to_string(st.st_uid) +
                              ", not by this process's user (uid " + std::to_string(::geteuid()) + ") or root");
  } else if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof(mode), "%04o", st.st_mode & 07777);
    status = PermissionDenied("key file '" + path + "' is accessible by group or others (mode " + mode +
                              "); it must be mode 0600");
  } else {
    char buf[kMaxKeyBytes + 1];
    size_t len = 0;
    while (len < sizeof(buf)) {
      ssize_t n = ::read(fd, buf + len, sizeof(buf) - len);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        status = Internal("cannot read key file '" + path + "': " + ErrnoText());
        break;
      }
      if (n == 0) break;
      len += static_cast<size_t>(n);
    }
    if (status.ok() && (len < kMinKeyBytes || len > kMaxKeyBytes)) {
      status = InvalidArgument("key file '" + path + "' holds " + std::to_string(len) + " bytes; expected " +
                               std::to_string(kMinKeyBytes) + " to " + std::to_string(kMaxKeyBytes));
    }
    key.assign(buf, len);
    explicit_bzero(buf, sizeof(buf));
  }
  ::close(fd);
  if (!status.ok()) return status;
  return key;
}

}  // namespace muster
