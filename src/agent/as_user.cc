#include "agent/as_user.h"

#include <fcntl.h>
#include <grp.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

#include "base/mutex.h"
#include "net/step_io.h"

namespace muster {
namespace {

std::vector<gid_t> GroupsOf(const UserIdentity& who) {
  if (who.user.empty()) return {who.gid};
  int n = 64;
  std::vector<gid_t> groups;
  for (int attempt = 0; attempt < 8; ++attempt) {
    groups.resize(n);
    int count = n;
    if (getgrouplist(who.user.c_str(), who.gid, groups.data(), &count) >= 0) {
      groups.resize(count);
      return groups;
    }
    n = count > n ? count : n * 2;
  }
  return {who.gid};
}

// Takes `who`'s file-system identity on the calling thread. Raw system calls: glibc's setgroups
// would change every thread of the agent. Only for threads made to run one such task and end.
Status BecomeUser(const UserIdentity& who) {
  if (geteuid() != 0) return Status::Ok();  // not root: we can act only as ourselves anyway
  const std::vector<gid_t> groups = GroupsOf(who);
  if (syscall(SYS_setgroups, groups.size(), groups.data()) != 0) {
    return Internal("cannot take the groups of uid " + std::to_string(who.uid) + ": " + std::strerror(errno));
  }
  syscall(SYS_setfsgid, who.gid);
  syscall(SYS_setfsuid, who.uid);
  // setfsuid answers the previous value whatever happens: read it back to be sure.
  if (static_cast<uint32_t>(syscall(SYS_setfsuid, -1)) != who.uid ||
      static_cast<uint32_t>(syscall(SYS_setfsgid, -1)) != who.gid) {
    return Internal("cannot take the file-system identity of uid " + std::to_string(who.uid));
  }
  return Status::Ok();
}

// Runs `fn` on a new thread with `who`'s file-system identity, and waits for it at most `wait_ms`
// (< 0: until it ends). A thread still blocked then (a file system the user controls that never
// answers) is left to end by itself: it holds only its own copies.
Status OnUsersThread(const UserIdentity& who, std::function<Status()> fn, int wait_ms) {
  struct Shared {
    Mutex mu{"user's thread"};
    std::condition_variable cv;
    bool done GUARDED_BY(mu) = false;
    Status result GUARDED_BY(mu);
  };
  auto shared = std::make_shared<Shared>();
  std::thread t([shared, who, fn = std::move(fn)] {
    Status st = BecomeUser(who);
    if (st.ok()) st = fn();
    MutexLock lock(shared->mu);
    shared->result = std::move(st);
    shared->done = true;
    shared->cv.notify_all();
  });
  if (wait_ms < 0) {
    t.join();
    MutexLock lock(shared->mu);  // (uncontended: the thread is gone)
    return shared->result;
  }
  t.detach();
  MutexLock lock(shared->mu);
  if (!lock.WaitFor(shared->cv, std::chrono::milliseconds(wait_ms), [&] {
        shared->mu.AssertHeld();
        return shared->done;
      })) {
    return Status(StatusCode::kUnavailable, "still waiting after " + std::to_string(wait_ms) + " ms");
  }
  return shared->result;
}

}  // namespace

StatusOr<int> ConnectAsUser(const std::string& address, const UserIdentity& who, int timeout_ms) {
  const bool unix_path = address.rfind("unix:", 0) == 0 || (!address.empty() && address[0] == '/');
  if (!unix_path) {
    const size_t colon = address.rfind(':');
    const std::string port = colon == std::string::npos ? "" : address.substr(colon + 1);
    int p = 0;
    for (char c : port) p = c >= '0' && c <= '9' && p < 100000 ? p * 10 + (c - '0') : 1 << 20;
    if (port.empty() || p < 1024 || p > 65535) {
      return InvalidArgument("I/O address '" + address + "': the port must be between 1024 and 65535");
    }
  }
  int fd = -1;
  Status st = OnUsersThread(
      who,
      [&]() -> Status {
        StatusOr<int> c = ConnectStream(address, timeout_ms);
        if (!c.ok()) return c.status();
        fd = *c;
        return Status::Ok();
      },
      /*wait_ms=*/-1);  // ConnectStream keeps to its own timeout
  if (!st.ok()) return st;
  return fd;
}

Status AppendAsUser(const std::string& path, const UserIdentity& who, std::string_view text_view, int wait_ms) {
  if (path.empty() || path[0] != '/') return InvalidArgument("'" + path + "' is not an absolute path");
  return OnUsersThread(who, [path, who, text = std::string(text_view)]() -> Status {
    open_how how{};
    how.flags = O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
    how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    const int fd = static_cast<int>(syscall(SYS_openat2, AT_FDCWD, path.c_str(), &how, sizeof how));
    if (fd < 0) {
      return Status(errno == EACCES || errno == EPERM ? StatusCode::kPermissionDenied : StatusCode::kFailedPrecondition,
                    "cannot open '" + path + "' as uid " + std::to_string(who.uid) + ": " + std::strerror(errno));
    }
    struct stat st;
    Status result = Status::Ok();
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != who.uid) {
      result = FailedPrecondition("'" + path + "' is not a regular file of uid " + std::to_string(who.uid));
    } else {
      size_t done = 0;
      while (done < text.size()) {
        const ssize_t n = write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
          result = FailedPrecondition("cannot write '" + path + "': " + std::strerror(errno));
          break;
        }
        done += static_cast<size_t>(n);
      }
    }
    close(fd);
    return result;
  }, wait_ms);
}

}  // namespace muster
