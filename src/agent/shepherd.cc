#include "agent/shepherd.h"

#include <fcntl.h>
#include <sys/file.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include "proc/stray_processes.h"
#include "base/log.h"
#include "base/read_file.h"
#include "wire/codec.h"

namespace muster {


namespace {

constexpr char kSpecFile[] = "/spec.json";
constexpr char kPidFile[] = "/shepherd";
constexpr char kCtlFile[] = "/ctl";
constexpr char kExitFile[] = "/exit.json";
// Locked (flock) for as long as a shepherd lives: the agent locks it before it forks the shepherd,
// which holds the lock through its stdin (the same open file) from the fork on. An agent that
// finds it locked knows a shepherd is there, even one still starting.
constexpr char kLockFile[] = "/lock";
constexpr int kTickMs = 500;           // how often the lease is looked at
constexpr int kStartTimeoutMs = 30000;  // the most a shepherd may take to say it started

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The start time of `pid` (field 22 of /proc/<pid>/stat, clock ticks since boot): with the pid
// it names one process for good (a later process that takes the pid starts later).
int64_t StartTime(pid_t pid) {
  const std::string stat = ReadFileOrEmpty("/proc/" + std::to_string(pid) + "/stat");
  const size_t close = stat.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream in(stat.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22 && in >> field; ++i) {
    if (i == 22) return std::atoll(field.c_str());
  }
  return -1;
}

int PidFdOpen(pid_t pid) { return static_cast<int>(syscall(SYS_pidfd_open, pid, 0)); }

}  // namespace

// The shepherd's files (spec.json, exit.json) in the one wire codec; their keys are those of the
// files an agent of any earlier version left in a run directory, which a restarted agent adopts.
namespace json {

template <>
struct External<LaunchSpec> : std::true_type {
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("uid", s.uid);
    v("gid", s.gid);
    v("user", s.user);
    v("groups", s.groups);
    v("workdir", s.workdir);
    v("log_name", s.log_name);
    v("argv", s.argv);
    v("env", s.env);
    v("stdin", s.stdin_path);
    v("stdout", s.stdout_path);
    v("stderr", s.stderr_path);
    v("cgroup_procs_file", s.cgroup_procs_file);
    v("umask", s.umask);
    v("allow_root", s.allow_root);
    v("truncate_stdout", s.truncate_stdout);
    v("truncate_stderr", s.truncate_stderr);
    v("soft_limits", s.soft_limits);  // [[resource, value], ...]
  }
};

template <>
struct External<ShepherdSpec> : std::true_type {
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("job_id", s.job_id);
    v("restart_count", s.restart_count);
    v("batch", s.batch);
    v("launch", s.launch);
    v("lease_file", s.lease_file);
    v("kill_wait_s", s.kill_wait_s);
    v("procs_files", s.procs_files);
    v("marker", s.marker);
    v("spool_marker", s.spool_marker);
  }
};

template <>
struct External<ShepherdExit> : std::true_type {
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("exited", s.exited);
    v("exit_code", s.exit_code);
    v("signal", s.signal);
    v("core", s.core_dumped);
    v("lease_expired", s.lease_expired);
    v("ended", s.ended);
  }
};

}  // namespace json

namespace {

StatusOr<ShepherdSpec> SpecFromJson(const std::string& text) { return wire::Decode<ShepherdSpec>(text, "shepherd spec"); }

// Sends `sig` to every process of the run: those in its cgroup, or without one those that carry
// its marker (through pidfds: a pid that changed hands meanwhile is not signalled).
void SignalRun(const ShepherdSpec& spec, int sig) {
  if (spec.procs_files.empty()) {
    // (A spec written before the spool marker was kept: the run marker alone, as then.)
    std::vector<std::string> markers = {spec.marker};
    if (!spec.spool_marker.empty()) markers.push_back(spec.spool_marker);
    (void)SignalMarkedProcesses(markers, sig);
    return;
  }
  size_t start = 0;
  while (start <= spec.procs_files.size()) {
    size_t colon = spec.procs_files.find(':', start);
    if (colon == std::string::npos) colon = spec.procs_files.size();
    std::istringstream pids(ReadFileOrEmpty(spec.procs_files.substr(start, colon - start)));
    for (pid_t pid; pids >> pid;) {
      if (pid == getpid()) continue;
      const int fd = PidFdOpen(pid);
      if (fd < 0) continue;
      (void)syscall(SYS_pidfd_send_signal, fd, sig, nullptr, 0);
      close(fd);
    }
    start = colon + 1;
  }
}

}  // namespace

int64_t WallMicros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string StartTimesText(int64_t order_us, const ShepherdTimes& t) {
  auto ms = [](int64_t from, int64_t to) {
    if (from <= 0 || to < from) return std::string("?");
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(to - from) / 1000.0);
    return std::string(buf);
  };
  const time_t secs = static_cast<time_t>(order_us / 1000000);
  struct tm utc {};
  gmtime_r(&secs, &utc);
  char at[32];
  std::snprintf(at, sizeof at, "%02d:%02d:%02d.%06lld", utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<long long>(order_us % 1000000));
  return std::string("launch order at ") + at + ", then agent " + ms(order_us, t.spawn_us) + " ms, shepherd start " +
         ms(t.spawn_us, t.main_us) + " ms, shepherd " + ms(t.main_us, t.fork_us) + " ms to the script's fork";
}

Status WriteAtomically(const std::string& path, const std::string& text, mode_t mode) {
  const std::string tmp = path + ".tmp";
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) return Internal("cannot write '" + tmp + "': " + std::strerror(errno));
  const bool ok = WriteFully(fd, text) && fsync(fd) == 0;
  close(fd);
  if (!ok || rename(tmp.c_str(), path.c_str()) != 0) {
    unlink(tmp.c_str());
    return Internal("cannot write '" + path + "': " + std::strerror(errno));
  }
  return Status::Ok();
}

std::string RunMarker(int64_t job_id, int restart_count) {
  return "MUSTER_RUN=" + std::to_string(job_id) + "." + std::to_string(restart_count);
}

int64_t ReadLease(const std::string& lease_file) { return std::atoll(ReadFileOrEmpty(lease_file).c_str()); }

Status WriteLease(const std::string& lease_file, int64_t until_ms) {
  return WriteAtomically(lease_file, std::to_string(until_ms) + "\n", 0644);
}

Status WriteShepherdSpec(const std::string& run_dir, const ShepherdSpec& spec) {
  return WriteAtomically(run_dir + kSpecFile, wire::Encode(spec), 0600);
}

std::optional<ShepherdExit> ReadShepherdExit(const std::string& run_dir) {
  StatusOr<ShepherdExit> e = wire::Decode<ShepherdExit>(ReadFileOrEmpty(run_dir + kExitFile), "exit record");
  if (!e.ok()) return std::nullopt;
  return *e;
}

namespace {

// The agent's orders on the control FIFO ("end", "signal <sig> leader|group|all"), whole lines
// (*pending: a partial one).
void ReadOrders(const ShepherdSpec& spec, int ctl, pid_t child, bool child_done, std::string* pending,
                ShepherdExit* end) {
  char buf[512];
  for (ssize_t got; (got = read(ctl, buf, sizeof buf)) > 0;) pending->append(buf, static_cast<size_t>(got));
  for (size_t nl; (nl = pending->find('\n')) != std::string::npos;) {
    std::istringstream order(pending->substr(0, nl));
    pending->erase(0, nl + 1);
    std::string verb, target;
    int sig = 0;
    order >> verb;
    if (verb == "end") {
      SignalRun(spec, SIGKILL);
      if (child > 0 && !child_done) (void)SignalGroup(child, SIGKILL);
      end->ended = true;
    } else if (verb == "signal" && order >> sig >> target && sig > 0 && sig < NSIG) {
      // Our child is not reaped before we are done: its pid, and its group's, are its own.
      if (target == "leader" && child > 0 && !child_done) (void)kill(child, sig);
      if (target == "group" && child > 0 && !child_done) (void)SignalGroup(child, sig);
      if (target == "all") {
        if (child > 0 && !child_done) (void)SignalGroup(child, sig);
        SignalRun(spec, sig);
      }
    }
  }
}

}  // namespace

int ShepherdMain(const std::string& run_dir) {
  const int64_t main_us = WallMicros();
  signal(SIGPIPE, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  StatusOr<ShepherdSpec> parsed = SpecFromJson(ReadFileOrEmpty(run_dir + kSpecFile));
  auto say = [](const std::string& line) {
    (void)WriteFully(1, line);
    const int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (devnull >= 0) {
      dup2(devnull, 1);
      close(devnull);
    }
  };
  if (!parsed.ok()) {
    say("err " + std::to_string(static_cast<int>(StatusCode::kInternal)) + " " + parsed.status().message() + "\n");
    return 1;
  }
  const ShepherdSpec& spec = *parsed;
  // (Its log, stderr, is the spawner's: SpawnerMain set it up once for all its shepherds.)
  const int ctl = open((run_dir + kCtlFile).c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC);  // RDWR: never EOF
  pid_t child = -1;
  int child_fd = -1;
  auto record = [&](pid_t script) {
    (void)WriteAtomically(run_dir + kPidFile,
                          std::to_string(getpid()) + " " + std::to_string(StartTime(getpid())) + " " +
                              std::to_string(script) + "\n",
                          0600);
  };
  record(-1);  // before the script starts: an agent that looks now finds this shepherd
  int64_t fork_us = 0;
  if (spec.batch) {
    fork_us = WallMicros();
    StatusOr<pid_t> pid = Launch(spec.launch);
    if (!pid.ok()) {
      say("err " + std::to_string(static_cast<int>(pid.status().code())) + " " + pid.status().message() + "\n");
      return 0;  // the agent reports it; nothing ran
    }
    child = *pid;
    child_fd = PidFdOpen(child);
  }
  record(child);
  // "ok <script pid> <main µs> <fork µs>" (ShepherdTimes).
  say("ok " + std::to_string(child) + " " + std::to_string(main_us) + " " + std::to_string(fork_us) + "\n");

  ShepherdExit end;
  int64_t lease_kill_at = 0;  // the lease ran out: SIGKILL for everything at this time
  bool child_done = !spec.batch;
  std::string pending;  // a partial order line
  while (true) {
    pollfd fds[2] = {{ctl, POLLIN, 0}, {child_fd, POLLIN, 0}};
    const int n = child_fd >= 0 ? 2 : 1;
    (void)poll(fds, static_cast<nfds_t>(n), kTickMs);
    if (ctl >= 0 && (fds[0].revents & POLLIN)) ReadOrders(spec, ctl, child, child_done, &pending, &end);
    if (!child_done) {
      ExitInfo info;
      if (TryWaitExited(child, &info)) {
        (void)SignalGroup(child, SIGKILL);  // what the script left behind (its pid is still ours)
        (void)Reap(child);
        child_done = true;
        end.exited = info.exited;
        end.exit_code = info.exit_code;
        end.signal = info.signal;
        end.core_dumped = info.core_dumped;
      }
    }
    const int64_t now = NowMs();
    const int64_t until = ReadLease(spec.lease_file);
    // A script that ended by itself ended so, whatever the lease says now.
    if (lease_kill_at == 0 && until > 0 && now > until && !(spec.batch && child_done)) {
      LogWarning(LogSubject::Job(spec.job_id), "run " + std::to_string(spec.restart_count) + ": the lease ran out " +
                                                   std::to_string((now - until) / 1000) + " s ago (no word from the controller): ending the run");
      end.lease_expired = true;
      if (child > 0 && !child_done) (void)SignalGroup(child, SIGTERM);
      SignalRun(spec, SIGTERM);
      lease_kill_at = now + spec.kill_wait_s * 1000;
    }
    if (lease_kill_at > 0 && now >= lease_kill_at) {
      if (child > 0 && !child_done) (void)SignalGroup(child, SIGKILL);
      SignalRun(spec, SIGKILL);
      if (!spec.batch) break;
    }
    if ((spec.batch && child_done) || end.ended) break;
  }
  if (end.lease_expired) SignalRun(spec, SIGKILL);
  (void)WriteAtomically(run_dir + kExitFile,
                        wire::Encode(end),
                        0600);
  return 0;
}

// ---- The agent's side ----------------------------------------------------------------------

ShepherdHandle::ShepherdHandle(ShepherdHandle&& o) noexcept
    : dir_(std::move(o.dir_)),
      pid_(std::exchange(o.pid_, -1)),
      script_pid_(std::exchange(o.script_pid_, -1)),
      times_(o.times_),
      pidfd_(std::exchange(o.pidfd_, -1)) {}

ShepherdHandle& ShepherdHandle::operator=(ShepherdHandle&& o) noexcept {
  if (this != &o) {
    if (pidfd_ >= 0) close(pidfd_);
    dir_ = std::move(o.dir_);
    pid_ = std::exchange(o.pid_, -1);
    script_pid_ = std::exchange(o.script_pid_, -1);
    times_ = o.times_;
    pidfd_ = std::exchange(o.pidfd_, -1);
  }
  return *this;
}

ShepherdHandle::~ShepherdHandle() {
  if (pidfd_ >= 0) close(pidfd_);
}

StatusOr<ShepherdHandle> ShepherdHandle::Start(ShepherdSpawner& spawner, const std::string& run_dir,
                                               const ShepherdSpec& spec) {
  if (mkdir(run_dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return Internal("cannot create '" + run_dir + "': " + std::strerror(errno));
  }
  for (const char* f : {kExitFile, kPidFile, kCtlFile}) unlink((run_dir + f).c_str());
  RETURN_IF_ERROR(WriteShepherdSpec(run_dir, spec));
  if (mkfifo((run_dir + kCtlFile).c_str(), 0600) != 0) {
    return Internal("cannot create '" + run_dir + kCtlFile + "': " + std::strerror(errno));
  }
  const int lock = open((run_dir + kLockFile).c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0600);
  if (lock < 0 || flock(lock, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (lock >= 0) close(lock);
    return Internal("cannot lock '" + run_dir + kLockFile + "': " + std::strerror(err));
  }
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    close(lock);
    return Internal(std::string("pipe: ") + std::strerror(errno));
  }
  const int64_t spawn_us = WallMicros();
  // The shepherd holds the run's lock from the fork on (its stdin: the same open file).
  StatusOr<SpawnedShepherd> spawned = spawner.Spawn(run_dir, lock, pipe_fds[1]);
  close(pipe_fds[1]);
  close(lock);  // the shepherd's copy keeps it locked while it lives
  if (!spawned.ok()) {
    close(pipe_fds[0]);
    return Internal("cannot start the job's shepherd: " + spawned.status().message());
  }
  ShepherdHandle h;
  h.dir_ = run_dir;
  h.pid_ = spawned->pid;
  h.pidfd_ = spawned->pidfd;
  h.times_.spawn_us = spawn_us;
  // Its first line: "ok <script pid>" or "err <code> <message>".
  std::string line;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(kStartTimeoutMs);
  while (line.find('\n') == std::string::npos && std::chrono::steady_clock::now() < until) {
    pollfd p{pipe_fds[0], POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    char buf[4096];
    const ssize_t n = read(pipe_fds[0], buf, sizeof buf);
    if (n <= 0) break;
    line.append(buf, static_cast<size_t>(n));
  }
  close(pipe_fds[0]);
  line = line.substr(0, line.find('\n'));
  if (line.rfind("ok ", 0) == 0) {
    std::istringstream in(line.substr(3));
    in >> h.script_pid_ >> h.times_.main_us >> h.times_.fork_us;
    return h;
  }
  // It failed (it says why and exits), or never answered. (Its spawner reaps it.)
  (void)syscall(SYS_pidfd_send_signal, h.pidfd_, SIGKILL, nullptr, 0);
  if (line.rfind("err ", 0) == 0) {
    std::istringstream in(line.substr(4));
    int code = static_cast<int>(StatusCode::kInternal);
    in >> code;
    std::string msg;
    std::getline(in, msg);
    if (!msg.empty() && msg[0] == ' ') msg.erase(0, 1);
    return Status(static_cast<StatusCode>(code), msg);
  }
  return Internal("the job's shepherd did not start (see the agent's log)");
}

static bool ShepherdLives(const std::string& run_dir) {
  const int fd = open((run_dir + kLockFile).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool locked = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  close(fd);
  return locked;
}

StatusOr<ShepherdHandle> ShepherdHandle::Adopt(const std::string& run_dir) {
  // A shepherd that is still starting (its agent was killed while it started it) has the lock
  // but may not have recorded itself yet: wait for it, as its agent would have.
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(kStartTimeoutMs);
  while (ReadFileOrEmpty(run_dir + kPidFile).empty() && ShepherdLives(run_dir) &&
         std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::istringstream in(ReadFileOrEmpty(run_dir + kPidFile));
  pid_t pid = -1, script = -1;
  int64_t started = -1;
  if (!(in >> pid >> started >> script) || pid <= 1) return NotFound("no shepherd recorded in " + run_dir);
  const int fd = PidFdOpen(pid);
  if (fd < 0) return NotFound("the shepherd of " + run_dir + " is gone");
  // Checked after the pidfd is held: the process it names cannot change any more.
  if (StartTime(pid) != started) {
    close(fd);
    return NotFound("the shepherd of " + run_dir + " is gone (its pid belongs to another process)");
  }
  ShepherdHandle h;
  h.dir_ = run_dir;
  h.pid_ = pid;
  h.script_pid_ = script;
  h.pidfd_ = fd;
  return h;
}

bool ShepherdHandle::Order(const std::string& line) {
  const int fd = open((dir_ + kCtlFile).c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return false;  // ENXIO: nobody reads it any more
  const bool ok = WriteFully(fd, line);
  close(fd);
  return ok;
}

bool ShepherdHandle::Signal(int sig, const std::string& target) {
  return Order("signal " + std::to_string(sig) + " " + target + "\n");
}

bool ShepherdHandle::End() { return Order("end\n"); }

std::optional<ShepherdExit> ShepherdHandle::Finish() { return ReadShepherdExit(dir_); }

}  // namespace muster
