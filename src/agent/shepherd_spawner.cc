#include "agent/shepherd_spawner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "agent/shepherd.h"
#include "base/log.h"
#include "proc/launcher.h"

namespace muster {

namespace {

constexpr size_t kMaxRunDir = 4096;
constexpr int kAnswerTimeoutMs = 10000;  // the spawner answers at once; this only bounds a stuck one

// One message with up to `max_fds` descriptors (SCM_RIGHTS): the bytes read (0: the peer closed),
// or -1 with errno. Received descriptors are close-on-exec.
ssize_t ReceiveWithFds(int sock, char* buf, size_t len, int* fds, int max_fds, int* nfds) {
  iovec iov{buf, len};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 4)];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  const ssize_t n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
  *nfds = 0;
  if (n < 0) return n;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    const int count = static_cast<int>((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
    const int* got = reinterpret_cast<const int*>(CMSG_DATA(c));
    for (int i = 0; i < count; ++i) {
      if (*nfds < max_fds) {
        fds[(*nfds)++] = got[i];
      } else {
        close(got[i]);  // more than asked for
      }
    }
  }
  return n;
}

bool SendWithFds(int sock, const void* buf, size_t len, const int* fds, int nfds) {
  iovec iov{const_cast<void*>(buf), len};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 4)] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (nfds > 0) {
    msg.msg_control = control;
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * static_cast<size_t>(nfds));
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * static_cast<size_t>(nfds));
    std::memcpy(CMSG_DATA(c), fds, sizeof(int) * static_cast<size_t>(nfds));
  }
  ssize_t n;
  do {
    n = sendmsg(sock, &msg, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  return n == static_cast<ssize_t>(len);
}

void OnChild(int) {}  // wakes ppoll, which then reaps

// The forked shepherd: its stdin and stdout, a session, the defaults the spawner changed, and
// the name `ps` shows ("muster-shepherd: run <job>.<run>" over the spawner's command line).
[[noreturn]] void BecomeShepherd(const std::string& run_dir, int lock_fd, int out_fd, char* title, size_t title_len) {
  dup2(lock_fd, 0);  // (replaces the spawner's socket)
  dup2(out_fd, 1);
  if (lock_fd > 2) close(lock_fd);
  if (out_fd > 2 && out_fd != lock_fd) close(out_fd);
  signal(SIGCHLD, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  setsid();
  const std::string run = run_dir.substr(run_dir.rfind('/') + 1);
  prctl(PR_SET_NAME, "muster-shepherd", 0, 0, 0);
  if (title != nullptr && title_len > 0) {
    const std::string name = "muster-shepherd: run " + run;
    std::memset(title, 0, title_len);
    std::memcpy(title, name.data(), std::min(name.size(), title_len - 1));
  }
  std::exit(ShepherdMain(run_dir));
}

}  // namespace

int SpawnerMain(int argc, char** argv) {
  // What ps shows of the process: argv[0] to the end of its last argument, one run of memory.
  char* title = argc > 0 ? argv[0] : nullptr;
  const size_t title_len =
      argc > 0 ? static_cast<size_t>(argv[argc - 1] + std::strlen(argv[argc - 1]) + 1 - argv[0]) : 0;
  // The shepherds' log, set up once here rather than in each of them: their lines go where the
  // agent's stderr goes (the agent's log under muster up and systemd).
  (void)InitLogging({.process = "musterd-shepherd"});
  signal(SIGPIPE, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  struct sigaction sa {};
  sa.sa_handler = OnChild;  // no SA_RESTART: ppoll returns
  sigaction(SIGCHLD, &sa, nullptr);
  sigset_t blocked, waiting;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGCHLD);
  sigprocmask(SIG_BLOCK, &blocked, &waiting);  // SIGCHLD only inside ppoll: none is missed
  sigdelset(&waiting, SIGCHLD);
  while (true) {
    while (waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    pollfd p{0, POLLIN, 0};
    if (ppoll(&p, 1, nullptr, &waiting) < 0) continue;  // EINTR: a child ended
    char dir[kMaxRunDir];
    int fds[2];
    int nfds = 0;
    const ssize_t n = ReceiveWithFds(0, dir, sizeof dir - 1, fds, 2, &nfds);
    if (n == 0) return 0;  // the agent is gone
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return 1;
    }
    int32_t answer = 0;
    int pidfd = -1;
    if (nfds != 2) {
      answer = -EINVAL;
    } else {
      const std::string run_dir(dir, static_cast<size_t>(n));
      const pid_t pid = fork();
      if (pid == 0) BecomeShepherd(run_dir, fds[0], fds[1], title, title_len);
      if (pid < 0) {
        answer = -errno;
      } else {
        answer = pid;
        // Before any reaping: the pidfd names this child for good.
        pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
      }
    }
    for (int i = 0; i < nfds; ++i) close(fds[i]);
    const bool sent = SendWithFds(0, &answer, sizeof answer, &pidfd, pidfd >= 0 ? 1 : 0);
    if (pidfd >= 0) close(pidfd);
    if (!sent) return 1;
  }
}

// ---- The agent's side ----------------------------------------------------------------------

ShepherdSpawner::~ShepherdSpawner() {
  MutexLock lock(mu_);
  StopLocked();
}

Status ShepherdSpawner::StartLocked() {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
    return Internal(std::string("socketpair: ") + std::strerror(errno));
  }
  LaunchSpec self = AgentProgram({exe_, "--spawner"});
  self.stdin_fd = sv[1];
  self.stdout_fd = 2;  // (it writes nothing; its shepherds answer on their own pipes)
  self.stderr_fd = 2;  // the agent's log, and its shepherds'
  StatusOr<pid_t> pid = Launch(self);
  close(sv[1]);
  if (!pid.ok()) {
    close(sv[0]);
    return Internal("cannot start the shepherds' spawner (" + exe_ + " --spawner): " + pid.status().message());
  }
  sock_ = sv[0];
  pid_ = *pid;
  return Status::Ok();
}

void ShepherdSpawner::StopLocked() {
  if (sock_ >= 0) close(sock_);  // it exits at once; its shepherds go on
  sock_ = -1;
  if (pid_ > 0) {
    kill(pid_, SIGKILL);  // (should it be stuck: it holds nothing)
    while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  pid_ = -1;
}

StatusOr<SpawnedShepherd> AskSpawner(int sock, const std::string& run_dir, int lock_fd, int out_fd) {
  if (run_dir.size() >= kMaxRunDir) return InvalidArgument("run directory path too long: " + run_dir);
  const int fds[2] = {lock_fd, out_fd};
  if (!SendWithFds(sock, run_dir.data(), run_dir.size(), fds, 2)) {
    // Nothing was started: the one failure worth a new spawner and a second try.
    return Status(StatusCode::kUnavailable, std::string("the shepherds' spawner is gone: ") + std::strerror(errno));
  }
  pollfd p{sock, POLLIN, 0};
  int ready;
  do {
    ready = poll(&p, 1, kAnswerTimeoutMs);
  } while (ready < 0 && errno == EINTR);
  // From here a shepherd may have started: no second try (it would start the run twice).
  if (ready <= 0) return Internal("the shepherds' spawner did not answer");
  int32_t answer = 0;
  int pidfd = -1;
  int nfds = 0;
  const ssize_t n = ReceiveWithFds(sock, reinterpret_cast<char*>(&answer), sizeof answer, &pidfd, 1, &nfds);
  if (n != static_cast<ssize_t>(sizeof answer)) {
    if (nfds > 0) close(pidfd);
    return Internal("the shepherds' spawner ended before it answered");
  }
  if (answer <= 0 || nfds != 1) {
    if (nfds > 0) close(pidfd);
    return Internal(std::string("cannot start the job's shepherd: ") + std::strerror(answer < 0 ? -answer : EIO));
  }
  return SpawnedShepherd{answer, pidfd};
}

StatusOr<SpawnedShepherd> ShepherdSpawner::Spawn(const std::string& run_dir, int lock_fd, int out_fd) {
  MutexLock lock(mu_);
  for (int attempt = 0;; ++attempt) {
    if (sock_ < 0) RETURN_IF_ERROR(StartLocked());
    StatusOr<SpawnedShepherd> s = AskSpawner(sock_, run_dir, lock_fd, out_fd);
    if (s.ok()) return s;
    StopLocked();  // a new one for the next run
    if (s.status().code() != StatusCode::kUnavailable || attempt > 0) return s;
  }
}

}  // namespace muster
