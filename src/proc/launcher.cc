// Launch() prepares every string, array and group list in the parent, because between fork and
// exec the child may only make async-signal-safe calls (the agent is multi-threaded: another
// thread may hold the malloc or NSS locks at the moment of fork). The child reports the first
// failure as {step, index, errno} on a CLOEXEC pipe; EOF on that pipe means exec succeeded.
//
// The child is started the way posix_spawn starts one: clone(CLONE_VM | CLONE_VFORK) on its own
// stack, sharing the agent's memory until it execs, so no page table is copied and no
// copy-on-write fault or TLB shootdown follows (fork of the multi-threaded agent cost more than the
// job itself for short jobs). Sharing memory means the child must not touch the agent's state:
// it only makes raw system calls (credentials through syscall(), never glibc's setuid(), which
// would signal the agent's other threads), with every signal blocked until the handlers are reset.
// Under the sanitizers, whose runtimes do not expect such a child, it falls back to fork().
#include "proc/launcher.h"

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace muster {
namespace {

enum class Step : int {
  kNone = 0,
  kSignals,
  kSetsid,
  kCloseFds,
  kCgroup,
  kSetgroups,
  kSetgid,
  kSetuid,
  kRegain,
  kChdir,
  kStdin,
  kStdout,
  kStderr,
  kExec,
};

struct ChildReport {
  int step = 0;
  int index = 0;  // which cgroup file, for kCgroup
  int err = 0;
};

// Everything the child needs, built before fork: no allocation happens after it.
struct Prepared {
  std::vector<std::string> argv_storage;
  std::vector<char*> argv;
  std::vector<char*> envp;
  std::vector<std::string> exec_candidates;   // argv[0] resolved against PATH, in search order
  std::vector<char*> sh_argv;                 // {"/bin/sh", <script>, argv[1..]} for ENOEXEC
  std::vector<std::string> procs_files;
  std::vector<gid_t> groups;
  bool change_identity = true;
  // Slurm's line when the working directory cannot be entered, around strerror's text:
  // "<log_name>: error: couldn't chdir to `<dir>': " ... ": going to /tmp instead\n".
  std::string chdir_note_head, chdir_note_tail;
  // "<log_name>: error: Could not open stderr file <path>: " / "... stdin file <path>: ", written
  // to the job's stdout (already open) with strerror's text when that open fails.
  std::string stderr_note_head, stdin_note_head;
  // "SLURM_TASK_PID=" and room for the pid, which the child writes in (envp points at it).
  mutable std::string task_pid_env;
};
constexpr size_t kTaskPidPrefix = sizeof("SLURM_TASK_PID=") - 1;

std::string ErrnoText(int err) { return std::strerror(err); }

// Why a file the job names could not be opened: its own doing (a path it may not use, that does not
// exist, ...), or the node's (out of descriptors, memory or disk, an I/O error).
bool JobsOwnFileError(int err) {
  switch (err) {
    case EACCES: case EPERM: case ENOENT: case ENOTDIR: case EISDIR: case ELOOP: case ENAMETOOLONG:
    case EROFS: case ENXIO: case ETXTBSY: case EDQUOT: case EFBIG: case EOVERFLOW: case ENODEV:
    case EINVAL: case EWOULDBLOCK:
      return true;
    default:
      return false;
  }
}

// strerror's text without its locale machinery (the child may only make async-signal-safe calls).
const char* ErrnoDescription(int err) {
  const char* d = strerrordesc_np(err);
  return d != nullptr ? d : "Unknown error";
}

StatusCode CodeForErrno(int err) {
  switch (err) {
    case EACCES:
    case EPERM:
      return StatusCode::kPermissionDenied;
    case ENOENT:
    case ENOTDIR:
      return StatusCode::kNotFound;
    default:
      return StatusCode::kFailedPrecondition;
  }
}

std::string EnvValue(const std::vector<std::string>& env, const std::string& key) {
  for (const std::string& kv : env) {
    if (kv.size() > key.size() && kv.compare(0, key.size(), key) == 0 && kv[key.size()] == '=') {
      return kv.substr(key.size() + 1);
    }
  }
  return "";
}

// execvp's search, done in the parent over the job's PATH (glibc's execvpe would search the
// agent's own PATH). Empty PATH entries mean the current directory, as in execvp.
std::vector<std::string> ExecCandidates(const std::string& program, const std::vector<std::string>& env) {
  if (program.find('/') != std::string::npos) return {program};
  std::string path = EnvValue(env, "PATH");
  if (path.empty()) path = "/bin:/usr/bin";
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t colon = path.find(':', start);
    std::string dir = path.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    out.push_back(dir.empty() ? program : dir + "/" + program);
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  return out;
}

// ---- Child side: async-signal-safe only. ------------------------------------------------------

[[noreturn]] void Fail(int report_fd, Step step, int index, int err) {
  ChildReport r;
  r.step = static_cast<int>(step);
  r.index = index;
  r.err = err;
  ssize_t ignored = write(report_fd, &r, sizeof(r));
  (void)ignored;
  _exit(127);
}

bool WriteAll(int fd, const char* data, size_t len) {
  while (len > 0) {
    ssize_t n = write(fd, data, len);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += n;
    len -= static_cast<size_t>(n);
  }
  return true;
}

// Formats a non-negative number into buf (no snprintf: not async-signal-safe). Returns length.
size_t FormatUnsigned(unsigned long value, char* buf, size_t cap) {
  char tmp[24];
  size_t n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0 && n < sizeof(tmp));
  size_t len = n < cap ? n : cap;
  for (size_t i = 0; i < len; ++i) buf[i] = tmp[n - 1 - i];
  return len;
}

// Closes every descriptor from `low` up except `keep`. close_range where the kernel has it,
// else /proc/self/fd read with the raw getdents64 syscall (opendir allocates).
bool CloseFrom(int low, int keep) {
  bool ok = true;
  if (keep > low && syscall(SYS_close_range, low, keep - 1, 0) != 0) ok = false;
  if (ok && syscall(SYS_close_range, keep + 1, ~0U, 0) == 0) return true;
  if (errno != ENOSYS && errno != EINVAL) return false;
  int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return false;
  alignas(8) char buf[4096];
  while (true) {
    long n = syscall(SYS_getdents64, dir, buf, sizeof(buf));
    if (n <= 0) break;
    for (long off = 0; off < n;) {
      unsigned short reclen;
      std::memcpy(&reclen, buf + off + 16, sizeof(reclen));
      const char* name = buf + off + 19;
      int fd = 0;
      bool numeric = name[0] != '\0';
      for (const char* p = name; *p != '\0'; ++p) {
        if (*p < '0' || *p > '9') numeric = false;
        else fd = fd * 10 + (*p - '0');
      }
      if (numeric && fd >= low && fd != keep && fd != dir) close(fd);
      off += reclen;
    }
  }
  close(dir);
  return true;
}

// Opens `path` and moves it onto `target` (0, 1 or 2). The first move goes above 2 so that a
// descriptor the kernel hands back as 0-2 never clobbers a standard stream set earlier. Opened
// without blocking (the agent's thread waits for this child until it execs, and a FIFO the user
// names would otherwise hold it until someone opens the other end: ENXIO instead), then made
// blocking again for the job.
bool OpenOnto(const char* path, int flags, int target) {
  int fd = open(path, flags | O_NONBLOCK, 0644);
  if (fd < 0) return false;
  const int fl = fcntl(fd, F_GETFL);
  if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
    const int saved = errno;
    close(fd);
    errno = saved;
    return false;
  }
  int high = fcntl(fd, F_DUPFD, 3);
  int saved = errno;
  close(fd);
  if (high < 0) {
    errno = saved;
    return false;
  }
  if (dup2(high, target) < 0) return false;
  close(high);
  return true;
}

// The child's start: default signal handlers, nothing blocked, a new session, the given
// descriptors on 0-2 (a terminal there as its controlling one), every other descriptor closed.
void StartSession(const LaunchSpec& spec, int report_fd) {
  // The agent may block or ignore signals (SIGPIPE, SIGCHLD); the job starts from defaults. The
  // parent blocked every signal before starting us: reset the handlers first, then unblock, so
  // that none of the agent's handlers ever runs here.
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof(dfl));
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) sigaction(sig, &dfl, nullptr);  // EINVAL for reserved ones
  }
  sigset_t none;
  sigemptyset(&none);
  if (sigprocmask(SIG_SETMASK, &none, nullptr) != 0) Fail(report_fd, Step::kSignals, 0, errno);
  if (setsid() < 0) Fail(report_fd, Step::kSetsid, 0, errno);
  // Given descriptors go onto 1 and 2 before the others are closed (first above 2, so that one
  // landing on the other's target cannot clobber it).
  if (spec.stdin_fd >= 0 || spec.stdout_fd >= 0 || spec.stderr_fd >= 0) {
    int in = spec.stdin_fd >= 0 ? fcntl(spec.stdin_fd, F_DUPFD, 3) : -1;
    int out = spec.stdout_fd >= 0 ? fcntl(spec.stdout_fd, F_DUPFD, 3) : -1;
    int err = spec.stderr_fd >= 0 ? fcntl(spec.stderr_fd, F_DUPFD, 3) : -1;
    if (spec.stdin_fd >= 0 && (in < 0 || dup2(in, 0) < 0)) Fail(report_fd, Step::kStdin, 0, errno);
    if (spec.stdout_fd >= 0 && (out < 0 || dup2(out, 1) < 0)) Fail(report_fd, Step::kStdout, 0, errno);
    if (spec.stderr_fd >= 0 && (err < 0 || dup2(err, 2) < 0)) Fail(report_fd, Step::kStderr, 0, errno);
  }
  // A terminal on stdin becomes the new session's controlling terminal (srun --pty): job
  // control, ^C as SIGINT to the foreground group.
  if (spec.controlling_tty && ioctl(0, TIOCSCTTY, 0) != 0) Fail(report_fd, Step::kStdin, 0, errno);
  // Before the privilege drop: afterwards /proc/self/fd may be unreadable (not dumpable).
  if (!CloseFrom(3, report_fd)) Fail(report_fd, Step::kCloseFds, 0, errno);
}

// The task's pid into its cgroups' procs files (and into the environment's pid variable).
void JoinCgroups(const Prepared& p, int report_fd) {
  char pid_text[24];
  size_t pid_len = FormatUnsigned(static_cast<unsigned long>(getpid()), pid_text, sizeof(pid_text));
  if (!p.task_pid_env.empty()) {  // (its buffer holds 24 characters and a NUL after them)
    std::memcpy(p.task_pid_env.data() + kTaskPidPrefix, pid_text, pid_len);
  }
  for (size_t i = 0; i < p.procs_files.size(); ++i) {
    int fd = open(p.procs_files[i].c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) Fail(report_fd, Step::kCgroup, static_cast<int>(i), errno);
    if (!WriteAll(fd, pid_text, pid_len)) Fail(report_fd, Step::kCgroup, static_cast<int>(i), errno);
    close(fd);
  }
}

// Becomes the job's user, and checks that root cannot be had back.
void ChangeIdentity(const LaunchSpec& spec, const Prepared& p, int report_fd) {
  // Raw system calls: they change this task's credentials only (see the top of the file).
  if (syscall(SYS_setgroups, p.groups.size(), p.groups.data()) != 0) Fail(report_fd, Step::kSetgroups, 0, errno);
  if (syscall(SYS_setresgid, spec.gid, spec.gid, spec.gid) != 0) Fail(report_fd, Step::kSetgid, 0, errno);
  if (syscall(SYS_setresuid, spec.uid, spec.uid, spec.uid) != 0) Fail(report_fd, Step::kSetuid, 0, errno);
  if (getuid() != spec.uid || geteuid() != spec.uid || getgid() != spec.gid || getegid() != spec.gid) {
    Fail(report_fd, Step::kRegain, 0, 0);
  }
  const long keep = -1;
  if (spec.uid != 0 && (syscall(SYS_setresuid, keep, 0L, keep) == 0 || syscall(SYS_setuid, 0L) == 0)) {
    Fail(report_fd, Step::kRegain, 0, 0);
  }
  if (spec.gid != 0 && spec.uid != 0 && (syscall(SYS_setresgid, keep, 0L, keep) == 0 || syscall(SYS_setgid, 0L) == 0)) {
    Fail(report_fd, Step::kRegain, 0, 0);
  }
}

void SetSoftLimits(const LaunchSpec& spec) {
  for (const auto& [resource, soft] : spec.soft_limits) {
    struct rlimit lim;
    if (getrlimit(resource, &lim) != 0) continue;
    const rlim_t want = soft == UINT64_MAX ? RLIM_INFINITY : static_cast<rlim_t>(soft);
    lim.rlim_cur = lim.rlim_max == RLIM_INFINITY || (want != RLIM_INFINITY && want <= lim.rlim_max) ? want : lim.rlim_max;
    (void)setrlimit(resource, &lim);
  }
}

[[noreturn]] void Exec(const Prepared& p, int report_fd) {
  // execvp's rules: skip entries that do not exist or may not be searched; remember EACCES;
  // a file without a known format runs under /bin/sh.
  int err = ENOENT;
  bool saw_eacces = false;
  for (const std::string& candidate : p.exec_candidates) {
    execve(candidate.c_str(), p.argv.data(), p.envp.data());
    err = errno;
    if (err == ENOEXEC) {
      char** sh_argv = const_cast<char**>(p.sh_argv.data());
      sh_argv[1] = const_cast<char*>(candidate.c_str());
      execve("/bin/sh", sh_argv, p.envp.data());
      err = errno;
      break;
    }
    if (err == EACCES) saw_eacces = true;
    if (err != ENOENT && err != ENOTDIR && err != EACCES) break;
  }
  if (err != ENOEXEC && saw_eacces && (err == ENOENT || err == ENOTDIR)) err = EACCES;
  Fail(report_fd, Step::kExec, 0, err);
}

[[noreturn]] void RunChild(const LaunchSpec& spec, const Prepared& p, int report_fd) {
  StartSession(spec, report_fd);
  JoinCgroups(p, report_fd);
  umask(spec.umask);
  if (p.change_identity) ChangeIdentity(spec, p, report_fd);
  SetSoftLimits(spec);
  // As Slurm's slurmstepd: a working directory the user cannot enter is not fatal, the job starts
  // in /tmp and is told so on its stderr.
  int chdir_err = 0;
  if (!spec.workdir.empty() && chdir(spec.workdir.c_str()) != 0) {
    chdir_err = errno;
    if (chdir("/tmp") != 0) Fail(report_fd, Step::kChdir, 0, chdir_err);
  }
  // stdout first, so that a failing stderr or stdin can be reported into it.
  const int out_flags = O_WRONLY | O_CREAT | O_APPEND;
  if (spec.stdout_fd < 0 && !OpenOnto(spec.stdout_path.c_str(), out_flags | (spec.truncate_stdout ? O_TRUNC : 0), 1)) {
    Fail(report_fd, Step::kStdout, 0, errno);
  }
  auto note_and_fail = [&](const std::string& head, Step step) {
    const int err = errno;
    if (spec.stdout_fd < 0) {
      const char* d = ErrnoDescription(err);
      WriteAll(1, head.data(), head.size());
      WriteAll(1, d, strlen(d));
      WriteAll(1, "\n", 1);
    }
    Fail(report_fd, step, 0, err);
  };
  if (spec.stderr_fd >= 0) {
    // already on 2
  } else if (spec.stderr_path.empty()) {
    if (dup2(1, 2) < 0) Fail(report_fd, Step::kStderr, 0, errno);
  } else if (!OpenOnto(spec.stderr_path.c_str(), out_flags | (spec.truncate_stderr ? O_TRUNC : 0), 2)) {
    note_and_fail(p.stderr_note_head, Step::kStderr);
  }
  if (spec.stdin_fd < 0 && !OpenOnto(spec.stdin_path.c_str(), O_RDONLY, 0)) note_and_fail(p.stdin_note_head, Step::kStdin);
  if (chdir_err != 0) {
    const char* d = ErrnoDescription(chdir_err);
    WriteAll(2, p.chdir_note_head.data(), p.chdir_note_head.size());
    WriteAll(2, d, strlen(d));
    WriteAll(2, p.chdir_note_tail.data(), p.chdir_note_tail.size());
  }

  Exec(p, report_fd);
}

// ---- Parent side. ------------------------------------------------------------------------------

// A job's stdin, stdout or stderr file that could not be opened, in Slurm's words: the job's
// fault (InvalidArgument) unless the node ran out of something.
Status FileError(const char* stream, const std::string& path, int err) {
  const std::string msg = std::string("Could not open ") + stream + " file " + path + ": " + ErrnoText(err);
  return JobsOwnFileError(err) ? InvalidArgument(msg) : Status(CodeForErrno(err), msg);
}

Status ReportToStatus(const ChildReport& r, const LaunchSpec& spec, const Prepared& p) {
  std::string what;
  switch (static_cast<Step>(r.step)) {
    case Step::kSignals: what = "cannot reset the signal mask"; break;
    case Step::kSetsid: what = "cannot start a new session"; break;
    case Step::kCloseFds: what = "cannot close inherited file descriptors"; break;
    case Step::kCgroup: {
      std::string file = r.index >= 0 && r.index < static_cast<int>(p.procs_files.size())
                             ? p.procs_files[r.index] : "?";
      return Internal("cannot add the job process to cgroup '" + file + "': " + ErrnoText(r.err));
    }
    case Step::kSetgroups:
      what = "cannot set the supplementary groups" + (spec.user.empty() ? "" : " of user '" + spec.user + "'");
      break;
    case Step::kSetgid: what = "cannot set group id " + std::to_string(spec.gid); break;
    case Step::kSetuid: what = "cannot set user id " + std::to_string(spec.uid); break;
    case Step::kRegain:
      return Internal("privileges were not fully dropped to uid " + std::to_string(spec.uid) + " gid " +
                      std::to_string(spec.gid));
    case Step::kChdir: what = "cannot change directory to '" + spec.workdir + "' nor to /tmp"; break;
    case Step::kStdin:
      if (spec.stdin_fd >= 0) {
        what = "cannot set up stdin";
        break;
      }
      return FileError("stdin", spec.stdin_path, r.err);
    case Step::kStdout:
      if (spec.stdout_fd >= 0) {
        what = "cannot set up stdout";
        break;
      }
      return FileError("stdout", spec.stdout_path, r.err);
    case Step::kStderr:
      if (spec.stderr_fd >= 0) {
        what = "cannot set up stderr";
        break;
      }
      return FileError("stderr", spec.stderr_path, r.err);
    case Step::kExec: what = "cannot execute '" + spec.argv[0] + "'"; break;
    case Step::kNone: return Internal("job process failed before exec (unknown step)");
  }
  return Status(CodeForErrno(r.err), what + ": " + ErrnoText(r.err));
}

StatusOr<Prepared> Prepare(const LaunchSpec& spec) {
  Prepared p;
  if (spec.argv.empty() || spec.argv[0].empty()) return InvalidArgument("launch: argv is empty");
  if (spec.stdout_path.empty() && spec.stdout_fd < 0) return InvalidArgument("launch: no output file given");
  if (spec.uid == 0 && !spec.allow_root) {
    return Status(StatusCode::kPermissionDenied, "refusing to launch a job as root (uid 0)");
  }
  if (geteuid() != 0) {
    // Without root the identity cannot change: only launching as ourselves is possible.
    if (spec.uid != geteuid() || spec.gid != getegid()) {
      return Status(StatusCode::kPermissionDenied, "launching as uid " + std::to_string(spec.uid) +
                                                       " needs root (the agent runs as uid " +
                                                       std::to_string(geteuid()) + ")");
    }
    p.change_identity = false;
  } else if (!spec.groups.empty()) {
    p.groups.assign(spec.groups.begin(), spec.groups.end());
  } else {
    ASSIGN_OR_RETURN(p.groups, SupplementaryGroups(spec.user, spec.gid));
  }
  p.argv_storage = spec.argv;
  for (std::string& a : p.argv_storage) p.argv.push_back(a.data());
  p.argv.push_back(nullptr);
  for (const std::string& kv : spec.env) {
    if (spec.task_pid_env && kv.rfind("SLURM_TASK_PID=", 0) == 0) continue;  // srun's own, if any
    p.envp.push_back(const_cast<char*>(kv.c_str()));
  }
  if (spec.task_pid_env) {
    p.task_pid_env = "SLURM_TASK_PID=" + std::string(24, '\0');
    p.envp.push_back(p.task_pid_env.data());
  }
  p.envp.push_back(nullptr);
  p.exec_candidates = ExecCandidates(spec.argv[0], spec.env);
  p.sh_argv.push_back(const_cast<char*>("/bin/sh"));
  p.sh_argv.push_back(nullptr);  // the script path, set in the child
  for (size_t i = 1; i < p.argv_storage.size(); ++i) p.sh_argv.push_back(p.argv_storage[i].data());
  p.sh_argv.push_back(nullptr);
  const std::string error = spec.log_name + ": error: ";
  p.chdir_note_head = error + "couldn't chdir to `" + spec.workdir + "': ";
  p.chdir_note_tail = ": going to /tmp instead\n";
  p.stderr_note_head = error + "Could not open stderr file " + spec.stderr_path + ": ";
  p.stdin_note_head = error + "Could not open stdin file " + spec.stdin_path + ": ";
  size_t start = 0;
  const std::string& files = spec.cgroup_procs_file;
  while (start < files.size()) {
    size_t colon = files.find(':', start);
    size_t end = colon == std::string::npos ? files.size() : colon;
    if (end > start) p.procs_files.push_back(files.substr(start, end - start));
    start = end + 1;
  }
  return p;
}

void DecodeStatus(int status, ExitInfo* out) {
  *out = ExitInfo();
  if (WIFEXITED(status)) {
    out->exited = true;
    out->exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    out->signal = WTERMSIG(status);
    out->core_dumped = WCOREDUMP(status);
  }
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kShareMemoryWithChild = false;
#else
constexpr bool kShareMemoryWithChild = true;
#endif

struct ChildArgs {
  const LaunchSpec* spec;
  const Prepared* prepared;
  int read_fd;
  int report_fd;
};

int ChildMain(void* arg) {
  const ChildArgs* a = static_cast<const ChildArgs*>(arg);
  close(a->read_fd);
  RunChild(*a->spec, *a->prepared, a->report_fd);
}

// Starts the child (which runs RunChild) and returns its pid, or -1 with errno set. With a shared
// address space the parent thread is suspended until the child execs or exits.
pid_t StartChild(const LaunchSpec& spec, const Prepared& p, int read_fd, int report_fd) {
  ChildArgs args{&spec, &p, read_fd, report_fd};
  if (!kShareMemoryWithChild) {
    pid_t pid = fork();
    if (pid == 0) ChildMain(&args);
    return pid;
  }
  // One child stack per launching thread, kept: mapping and unmapping one per launch cost page
  // faults and a TLB flush each time. The child is done with it when clone returns (CLONE_VFORK).
  constexpr size_t kStack = 256 * 1024;  // RunChild needs a few KiB; room for libc's calls
  thread_local void* stack = nullptr;
  if (stack == nullptr) {
    void* m = mmap(nullptr, kStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (m == MAP_FAILED) return -1;
    stack = m;
  }
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pid_t pid = clone(ChildMain, static_cast<char*>(stack) + kStack, CLONE_VM | CLONE_VFORK | SIGCHLD, &args);
  const int saved = errno;
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  errno = saved;
  return pid;
}

}  // namespace

LaunchSpec AgentProgram(std::vector<std::string> argv, std::vector<std::string> env) {
  LaunchSpec spec;
  spec.uid = geteuid();
  spec.gid = getegid();
  spec.allow_root = true;
  spec.argv = std::move(argv);
  spec.env = std::move(env);
  spec.env.push_back("PATH=/usr/sbin:/usr/bin:/sbin:/bin");
  return spec;
}

StatusOr<std::vector<uint32_t>> SupplementaryGroups(const std::string& user, uint32_t gid) {
  if (user.empty()) return std::vector<uint32_t>{gid};
  int n = 64;
  std::vector<uint32_t> groups;
  for (int attempt = 0; attempt < 8; ++attempt) {
    groups.resize(n);
    int count = n;
    if (getgrouplist(user.c_str(), gid, groups.data(), &count) >= 0) {
      groups.resize(count);
      return groups;
    }
    n = count > n ? count : n * 2;
  }
  return Internal("cannot list the groups of user '" + user + "'");
}

StatusOr<pid_t> Launch(const LaunchSpec& spec) {
  ASSIGN_OR_RETURN(Prepared p, Prepare(spec));
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return Internal("launch: pipe: " + ErrnoText(errno));
  // Keep the report descriptor above 2 so that setting up the child's stdio cannot clobber it.
  int report_fd = fcntl(fds[1], F_DUPFD_CLOEXEC, 3);
  int saved = errno;
  close(fds[1]);
  if (report_fd < 0) {
    close(fds[0]);
    return Internal("launch: dup: " + ErrnoText(saved));
  }
  pid_t pid = StartChild(spec, p, fds[0], report_fd);
  if (pid < 0) {
    saved = errno;
    close(fds[0]);
    close(report_fd);
    return Internal("launch: cannot start the job process: " + ErrnoText(saved));
  }
  close(report_fd);
  ChildReport report;
  size_t got = 0;
  char* buf = reinterpret_cast<char*>(&report);
  while (got < sizeof(report)) {
    ssize_t n = read(fds[0], buf + got, sizeof(report) - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  close(fds[0]);
  if (got == 0) return pid;  // EOF: the exec closed the pipe
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (got < sizeof(report)) return Internal("launch: truncated report from the job process");
  return ReportToStatus(report, spec, p);
}

bool TryReap(pid_t pid, ExitInfo* out) {
  int status = 0;
  pid_t r;
  do {
    r = waitpid(pid, &status, WNOHANG);
  } while (r < 0 && errno == EINTR);
  if (r == 0) return false;
  if (r < 0) {
    // Not our child (or already reaped): nothing will ever come, so report it as gone.
    *out = ExitInfo();
    return true;
  }
  DecodeStatus(status, out);
  return true;
}

bool TryWaitExited(pid_t pid, ExitInfo* out) {
  siginfo_t info;
  std::memset(&info, 0, sizeof info);
  int r;
  do {
    r = waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
  } while (r < 0 && errno == EINTR);
  if (r < 0) {  // not our child (or reaped already): nothing will ever come
    *out = ExitInfo();
    return true;
  }
  if (info.si_pid == 0) return false;
  *out = ExitInfo();
  if (info.si_code == CLD_EXITED) {
    out->exited = true;
    out->exit_code = info.si_status;
  } else {
    out->signal = info.si_status;
    out->core_dumped = info.si_code == CLD_DUMPED;
  }
  return true;
}

ExitInfo Reap(pid_t pid) {
  int status = 0;
  pid_t r;
  do {
    r = waitpid(pid, &status, 0);
  } while (r < 0 && errno == EINTR);
  ExitInfo info;
  if (r == pid) DecodeStatus(status, &info);
  return info;
}

Status SignalGroup(pid_t pgid, int sig) {
  // kill(0|-1, ...) would hit the agent's own group or every process: never a job's group.
  if (pgid <= 1) return InvalidArgument("refusing to signal process group " + std::to_string(pgid));
  if (kill(-pgid, sig) == 0 || errno == ESRCH) return Status::Ok();
  return Status(CodeForErrno(errno),
                "cannot send signal " + std::to_string(sig) + " to process group " + std::to_string(pgid) + ": " +
                    ErrnoText(errno));
}

namespace {

struct LimitName {
  const char* name;
  int resource;
};
constexpr LimitName kPropagated[] = {
    {"CPU", RLIMIT_CPU},       {"FSIZE", RLIMIT_FSIZE},   {"DATA", RLIMIT_DATA},     {"STACK", RLIMIT_STACK},
    {"CORE", RLIMIT_CORE},     {"RSS", RLIMIT_RSS},       {"NPROC", RLIMIT_NPROC},   {"NOFILE", RLIMIT_NOFILE},
    {"MEMLOCK", RLIMIT_MEMLOCK}, {"AS", RLIMIT_AS},
};
constexpr char kRlimitPrefix[] = "SLURM_RLIMIT_";

}  // namespace

void TakePropagatedLimits(LaunchSpec* spec) {
  std::vector<std::string> kept;
  for (std::string& kv : spec->env) {
    const size_t eq = kv.find('=');
    const std::string name = kv.substr(0, eq), value = eq == std::string::npos ? "" : kv.substr(eq + 1);
    if (name == "SLURM_UMASK" && !value.empty() && value.size() <= 4 &&
        value.find_first_not_of("01234567") == std::string::npos) {
      spec->umask = static_cast<mode_t>(std::stoul(value, nullptr, 8)) & 0777;
    }
    if (name.rfind(kRlimitPrefix, 0) != 0) {
      kept.push_back(std::move(kv));
      continue;
    }
    const std::string which = name.substr(sizeof kRlimitPrefix - 1);
    for (const LimitName& l : kPropagated) {
      if (which != l.name) continue;
      if (value == "unlimited") {
        spec->soft_limits.emplace_back(l.resource, UINT64_MAX);
      } else if (!value.empty() && value.size() <= 19 && value.find_first_not_of("0123456789") == std::string::npos) {
        spec->soft_limits.emplace_back(l.resource, std::stoull(value));
      }
    }
  }
  spec->env = std::move(kept);
}

std::vector<std::string> PropagatedLimitsEnvironment() {
  std::vector<std::string> env;
  const mode_t mask = umask(022);
  umask(mask);
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mask & 0777));
  env.push_back(std::string("SLURM_UMASK=") + text);
  for (const LimitName& l : kPropagated) {
    struct rlimit lim;
    if (getrlimit(l.resource, &lim) != 0) continue;
    env.push_back(kRlimitPrefix + std::string(l.name) + "=" +
                  (lim.rlim_cur == RLIM_INFINITY ? std::string("unlimited") : std::to_string(lim.rlim_cur)));
  }
  return env;
}

}  // namespace muster
