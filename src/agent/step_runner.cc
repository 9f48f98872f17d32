// A step's pump thread owns its tasks' pipe ends and its I/O connection; StepRunner::mu_ guards
// the step table and the task pids (Signal reads them from other threads). A reaped task's
// process group is still signalled until its step ends: what the task left running in the
// background is part of the step (Slurm ends it with the step).
#include "agent/step_runner.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <optional>
#include <set>

#include "agent/as_user.h"
#include "proc/job_env.h"
#include "proc/launcher.h"
#include "base/log.h"
#include "net/json_body.h"
#include "net/step_io.h"

namespace muster {


namespace {

// How long a task that exited may keep its pipes open (a background child holding them) before
// its exit is reported anyway.
constexpr int64_t kOutputGraceMs = 2000;
constexpr int kConnectTimeoutMs = 5000;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

bool KeyOk(const std::string& key) {
  if (key.empty() || key.size() > 128) return false;
  for (char c : key) {
    if (!std::isalnum(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// Slurm's tasks exit with errno when exec fails.
int LaunchFailureCode(const Status& st) {
  switch (st.code()) {
    case StatusCode::kNotFound: return 2;           // ENOENT
    case StatusCode::kPermissionDenied: return 13;  // EACCES
    default: return 1;
  }
}

// A task with a task prolog or epilog runs under /bin/sh: the prolog first, its "export NAME=value"
// and "unset NAME" lines applied to the task's environment and its "print text" lines written to
// the task's output (Slurm's TaskProlog protocol); then the task; then the epilog. The prolog and
// the epilog each have kTaskScriptSeconds (slurmstepd's limit for the user's task epilog): then
// SIGTERM, and SIGKILL 2 s later, end the script and what it started, so that a hung one does not
// hold the step. The wrapper
// ends as the task did: with its exit code, or by the signal that killed it.
constexpr int kTaskScriptSeconds = 5;
constexpr char kTaskWrapper[] = R"sh(p=$1 e=$2 limit=$3; shift 3
script() {  # what, program
  timeout -k 2 "$limit" "$2"; src=$?
  if [ $src -eq 124 ] || [ $src -eq 137 ]; then echo "task $1 $2 killed: still running after $limit s" >&2
  elif [ $src -ne 0 ]; then echo "task $1 $2 failed ($src)" >&2; fi
}
if [ -n "$p" ]; then
  out=$(script prolog "$p")
  while IFS= read -r line; do
    case $line in
      "export "*) export "${line#export }" ;;
      "unset "*) unset "${line#unset }" ;;
      "print "*) printf '%s\n' "${line#print }" ;;
    esac
  done <<EOF
$out
EOF
fi
"$@"; rc=$?
if [ -n "$e" ]; then script epilog "$e"; fi
if [ $rc -gt 128 ] && [ $rc -lt 160 ]; then trap - $((rc - 128)); kill -$((rc - 128)) $$; fi
exit $rc)sh";

// The address at the other end of a connected socket: (IP address, port) for TCP, ("127.0.0.1", 0)
// for a Unix socket (its peer is on this machine), ("", 0) when it cannot be read.
std::pair<std::string, int> PeerAddress(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return {"", 0};
  char text[INET6_ADDRSTRLEN] = {0};
  if (ss.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&ss);
    if (inet_ntop(AF_INET, &in->sin_addr, text, sizeof text) == nullptr) return {"", 0};
    return {text, ntohs(in->sin_port)};
  }
  if (ss.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&ss);
    if (inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text) == nullptr) return {"", 0};
    return {text, ntohs(in6->sin6_port)};
  }
  if (ss.ss_family == AF_UNIX) return {"127.0.0.1", 0};
  return {"", 0};
}

std::vector<std::string> TaskArgv(const std::vector<std::string>& argv, const std::string& prolog,
                                  const std::string& epilog) {
  if (prolog.empty() && epilog.empty()) return argv;
  std::vector<std::string> out = {"/bin/sh", "-c", kTaskWrapper, "muster-task", prolog, epilog,
                                  std::to_string(kTaskScriptSeconds)};
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

void CloseFd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// Sets the size of the terminal behind `fd` (a master), when both are given.
void SetTerminalSize(int fd, int rows, int cols) {
  if (rows <= 0 || cols <= 0) return;
  winsize ws{};
  ws.ws_row = static_cast<unsigned short>(rows);
  ws.ws_col = static_cast<unsigned short>(cols);
  (void)ioctl(fd, TIOCSWINSZ, &ws);
}

// A new pseudo-terminal for a --pty task: (master, slave), the slave owned by the task's user as
// a login terminal is, of rows x cols when given.
StatusOr<std::pair<int, int>> OpenTerminal(uint32_t uid, int rows, int cols) {
  const int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master < 0) return Internal(std::string("cannot open a terminal: ") + std::strerror(errno));
  char name[128] = {0};
  int slave = -1;
  if (grantpt(master) == 0 && unlockpt(master) == 0 && ptsname_r(master, name, sizeof name) == 0) {
    slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
  }
  if (slave < 0) {
    const Status st = Internal(std::string("cannot open a terminal: ") + std::strerror(errno));
    close(master);
    return st;
  }
  if (geteuid() == 0 && uid != 0) (void)fchown(slave, uid, static_cast<gid_t>(-1));
  SetTerminalSize(master, rows, cols);
  return std::make_pair(master, slave);
}

// Where task `t` of the step runs, as its environment tells it (job_env.h).
TaskPlacement PlaceTask(const StepLaunch& l, const StepTask& t, const std::string& srun_host, int srun_port) {
  TaskPlacement where;
  where.procid = t.procid;
  where.localid = t.localid;
  where.step_id = l.step_id;
  where.step_ntasks = l.ntasks;
  where.step_nodes = l.step_nodes;
  where.step_gpus = l.gpus;
  where.gpu_bind_per_task = l.gpu_bind_per_task;
  where.gpu_bind_map = l.gpu_bind_map;
  where.gpu_bind_single = l.gpu_bind_single;
  where.step_cgroup = l.step_cgroup;
  where.mig_uuids = l.mig_uuids;
  where.srun_host = srun_host;
  where.srun_port = srun_port;
  where.cpus_per_task = l.cpus_per_task;
  if (auto it = std::find(l.step_nodes.begin(), l.step_nodes.end(), l.node_name); it != l.step_nodes.end()) {
    where.node_index = static_cast<int>(it - l.step_nodes.begin());
  }
  return where;
}

// How task `t` is started as the job's user, but for its streams (RedirectTask, OpenStreams).
LaunchSpec TaskSpec(const StepLaunch& l, const JobRecord& job, const StepTask& t, const TaskPlacement& where) {
  LaunchSpec spec;
  spec.uid = job.uid;
  spec.gid = job.gid;
  spec.user = job.user;
  spec.workdir = l.cwd.empty() ? job.workdir : l.cwd;
  spec.log_name = "musterd-" + l.node_name;
  spec.argv = TaskArgv(t.argv.empty() ? l.argv : t.argv, l.task_prolog, l.task_epilog);
  spec.env = BuildJobEnvironment(job, l.node_name, where, l.cluster_name, l.devices_constrained);
  TakePropagatedLimits(&spec);
  spec.task_pid_env = true;
  spec.cgroup_procs_file = l.cgroup_procs_file;
  spec.allow_root = l.allow_root;
  if (!l.spool_marker.empty()) spec.env.push_back(l.spool_marker);
  if (!l.run_marker.empty()) spec.env.push_back(l.run_marker);
  return spec;
}

// The files a task's stdout, stderr and stdin are, where they are not pipes to srun (nullopt).
struct TaskFiles {
  std::optional<std::string> out, err, in;
};

// Srun's --output, --error and --input for task `t`, into `spec`; `truncated`: the output files
// this step already opened here.
TaskFiles RedirectTask(const StepLaunch& l, const JobRecord& job, const StepTask& t, const TaskPlacement& where,
                       LaunchSpec* spec, std::set<std::string>* truncated) {
  // Where each stream goes: a pipe to srun, or a file (nullopt: the pipe).
  const auto file_of = [&](const std::string& how) -> std::optional<std::string> {
    if (how.empty()) return std::nullopt;
    if (!IsStepFilePattern(how)) {  // "none", or a task id: that task's stream goes to srun
      if (StepStreamTask(how) == t.procid) return std::nullopt;
      return std::string("/dev/null");
    }
    std::string p = ExpandOutputPattern(how, job, l.node_name, where);
    return p[0] == '/' ? p : spec->workdir + "/" + p;
  };
  TaskFiles files;
  files.out = file_of(l.output);  // (opened in the task, as the user)
  files.err = file_of(l.error.empty() ? l.output : l.error);
  files.in = file_of(l.input);
  if (files.in) spec->stdin_path = *files.in;
  // A file only this node writes (%t, %n or %N in its name) is truncated by its first task here;
  // one that every node shares is appended to (srun truncated it before the launch).
  if (files.out) {
    spec->stdout_path = *files.out;
    spec->truncate_stdout = PatternPerTaskOrNode(l.output) && truncated->insert(*files.out).second;
  }
  if (files.err) {
    spec->stderr_path = *files.err;
    if (files.out && *files.err == *files.out) spec->stderr_path.clear();  // the same open file
    const std::string& how = l.error.empty() ? l.output : l.error;
    spec->truncate_stderr = PatternPerTaskOrNode(how) && truncated->insert(*files.err).second;
  }
  return files;
}

// A task's streams that are not files: [0] is ours, [1] the task's: pipes, or with --pty task 0's
// terminal (master, slave).
struct TaskStreams {
  int out[2] = {-1, -1}, err[2] = {-1, -1}, in[2] = {-1, -1};
  bool pty = false;
};

// Opens them and gives the task's ends to `spec`.
Status OpenStreams(const StepLaunch& l, const StepTask& t, uint32_t uid, const TaskFiles& files, LaunchSpec* spec,
                   TaskStreams* s) {
  if (l.pty && t.procid == 0) {
    StatusOr<std::pair<int, int>> term = OpenTerminal(uid, l.pty->rows, l.pty->cols);
    if (!term.ok()) return term.status();
    s->out[0] = term->first;
    s->in[0] = fcntl(term->first, F_DUPFD_CLOEXEC, 3);
    spec->stdin_fd = spec->stdout_fd = spec->stderr_fd = term->second;
    spec->controlling_tty = true;
    s->in[1] = term->second;
    s->pty = true;
    return Status::Ok();
  }
  if ((!files.out && pipe2(s->out, O_CLOEXEC) != 0) || (!files.err && pipe2(s->err, O_CLOEXEC) != 0) ||
      (!files.in && pipe2(s->in, O_CLOEXEC) != 0)) {
    return Internal(std::string("pipe: ") + std::strerror(errno));
  }
  std::swap(s->in[0], s->in[1]);  // the task reads, we write
  spec->stdout_fd = s->out[1];
  spec->stderr_fd = s->err[1];
  spec->stdin_fd = s->in[1];
  return Status::Ok();
}

}  // namespace

StatusOr<StepLaunch> StepLaunchFromJson(const std::string& body) {
  ASSIGN_OR_RETURN(const wire::bj::value parsed, ParseRequestBody(body));
  StatusOr<StepLaunchRequest> request = wire::FromValue<StepLaunchRequest>(parsed);
  if (!request.ok()) return request.status().WithPrefix("bad step request");
  StepLaunch s;
  static_cast<StepLaunchRequest&>(s) = std::move(*request);
  if (s.step_id < 0) return InvalidArgument("bad step id " + std::to_string(s.step_id));
  if (s.argv.empty() || s.argv[0].empty()) return InvalidArgument("no command given");
  if (s.tasks.empty()) return InvalidArgument("no tasks for this node");
  for (const std::string* p : {&s.task_prolog, &s.task_epilog}) {
    if (!p->empty() && (*p)[0] != '/') return InvalidArgument("task prolog/epilog '" + *p + "' is not an absolute path");
  }
  for (const StepTask& t : s.tasks) {
    if (!t.argv.empty() && t.argv[0].empty()) return InvalidArgument("no command given for task " + std::to_string(t.procid));
    if (t.procid < 0 || t.procid >= s.ntasks || t.localid < 0) {
      return InvalidArgument("task " + std::to_string(t.procid) + " is outside the step's " + std::to_string(s.ntasks) +
                             " tasks");
    }
  }
  if (s.pty && (s.pty->rows < 0 || s.pty->rows > 65535 || s.pty->cols < 0 || s.pty->cols > 65535)) {
    return InvalidArgument("bad terminal size " + std::to_string(s.pty->rows) + "x" + std::to_string(s.pty->cols));
  }
  if (s.time_limit_s < 0 || s.kill_wait_s < 0) return InvalidArgument("bad time limit or kill wait");
  if (s.gpu_bind_per_task < 0) return InvalidArgument("bad gpu_bind_per_task " + std::to_string(s.gpu_bind_per_task));
  for (const std::vector<int>& entry : s.gpu_bind_map) {
    if (entry.empty() || std::any_of(entry.begin(), entry.end(), [](int g) { return g < 0 || g >= 64; })) {
      return InvalidArgument("bad gpu_bind_map entry");
    }
  }
  if (s.gpu_bind_single < 0) return InvalidArgument("bad gpu_bind_single " + std::to_string(s.gpu_bind_single));
  if (s.io_address.empty()) return InvalidArgument("no I/O address");
  if (!KeyOk(s.io_key)) return InvalidArgument("bad I/O key");
  return s;
}

std::string EndingLine(int64_t now_s, const std::string& why) {
  const time_t now = static_cast<time_t>(now_s);
  struct tm tm;
  localtime_r(&now, &tm);
  char when[32];
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
  const char* cause = why == "timeout" ? " DUE TO TIME LIMIT" : why == "preempt" ? " DUE TO PREEMPTION" : "";
  return std::string(" CANCELLED AT ") + when + cause + " ***\n";
}

StepRunner::~StepRunner() { Shutdown(); }

Status StepRunner::Start(const StepLaunch& l) {
  JoinFinished();
  const auto key = std::make_pair(l.job_id, l.step_id);
  MutexLock lock(mu_);
  if (shutdown_) return Status(StatusCode::kUnavailable, "the agent is stopping");
  if (steps_.count(key)) {
    return FailedPrecondition("step " + std::to_string(l.job_id) + "." + std::to_string(l.step_id) +
                              " already runs on " + l.node_name);
  }
  auto step = std::make_unique<Step>();
  step->job_id = l.job_id;
  step->step_id = l.step_id;
  step->node_name = l.node_name;
  if (l.time_limit_s > 0) step->deadline_ms = NowMs() + l.time_limit_s * 1000;
  step->kill_wait_ms = l.kill_wait_s * 1000;
  Step* raw = step.get();
  // Everything that can wait on what srun's user controls (reaching its address, opening the
  // files named) happens on the step's own thread, never on the caller's (an agent's request thread).
  raw->thread = std::thread([this, raw, l] { Run(raw, l); });
  steps_[key] = std::move(step);
  return Status::Ok();
}

void StepRunner::Run(Step* step, const StepLaunch& l) {
  // srun's address is srun's word: reached with its user's rights, within a time limit.
  StatusOr<int> io = ConnectAsUser(l.io_address, UserIdentity{l.job.uid, l.job.gid, l.job.user}, kConnectTimeoutMs);
  if (!io.ok()) {
    LogWarning(LogSubject::Step(l.job_id, l.step_id), "cannot reach srun at " + l.io_address + ": " + io.status().message());
    bool orphaned = false;
    {
      MutexLock lock(mu_);
      step->done = true;
      orphaned = !shutdown_;
      notice_cv_.notify_all();
    }
    if (orphaned && orphan_handler_) orphan_handler_(step->job_id, step->step_id);  // nobody else will say it ended
    return;
  }
  {
    MutexLock lock(mu_);
    step->io = *io;
  }
  bool io_ok = WriteFully(step->io, EncodeStepIoFrame(HelloFrame(l.io_key, l.node_name)));
  std::vector<Task> tasks = LaunchTasks(step, l, &io_ok);
  {
    MutexLock lock(mu_);
    step->tasks = std::move(tasks);
    step->launched = true;
    // Signals that came while the tasks were being started, then what ends them at once.
    for (int sig : step->pending_signals) {
      for (Task& t : step->tasks) {
        if (t.pid > 0) (void)SignalGroup(t.pid, sig);
      }
    }
    step->pending_signals.clear();
    if (shutdown_ || !io_ok) {
      // Nobody to report to (srun is gone) or the agent is stopping: end what was started.
      for (Task& t : step->tasks) {
        if (t.pid > 0) (void)SignalGroup(t.pid, SIGKILL);
      }
    }
  }
  Pump(step);
}

std::vector<StepRunner::Task> StepRunner::LaunchTasks(Step* step, const StepLaunch& l, bool* io_ok) {
  const auto [srun_host, srun_port] = PeerAddress(step->io);
  std::vector<Task> tasks;

  JobRecord job = l.job;
  job.environment = l.env;  // srun's environment, as sbatch's is the batch script's
  std::set<std::string> truncated;  // output files this step already opened here
  for (const StepTask& t : l.tasks) {
    Task task;
    task.id = t;
    const TaskPlacement where = PlaceTask(l, t, srun_host, srun_port);
    LaunchSpec spec = TaskSpec(l, job, t, where);
    const TaskFiles files = RedirectTask(l, job, t, where, &spec, &truncated);
    TaskStreams ends;
    Status st = OpenStreams(l, t, job.uid, files, &spec, &ends);
    task.pty = ends.pty;
    if (st.ok()) {
      StatusOr<pid_t> pid = Launch(spec);
      if (pid.ok()) {
        task.pid = *pid;
      } else {
        st = pid.status();
      }
    }
    CloseFd(ends.out[1]);
    CloseFd(ends.err[1]);
    CloseFd(ends.in[1]);
    if (st.ok()) {
      task.out = ends.out[0];
      task.err = ends.err[0];
      task.in = ends.in[0];
      for (int fd : {task.out, task.err, task.in}) {
        if (fd >= 0) fcntl(fd, F_SETFL, O_NONBLOCK);
      }
    } else {
      CloseFd(ends.out[0]);
      CloseFd(ends.err[0]);
      CloseFd(ends.in[0]);
      LogWarning(LogSubject::Step(l.job_id, l.step_id), "task " + std::to_string(t.procid) + ": " + st.message());
      const std::string msg =
          "musterd: error: " + l.node_name + ": task " + std::to_string(t.procid) + ": " + st.message() + "\n";
      *io_ok = *io_ok && WriteFully(step->io, EncodeStepIoFrame(OutputFrame(StepIoKind::kErr, t.procid, msg)));
      *io_ok = *io_ok && WriteFully(step->io, EncodeStepIoFrame(ExitFrame(t.procid, LaunchFailureCode(st), 0, false)));
      task.reaped = task.reported = true;
    }
    tasks.push_back(task);
  }
  return tasks;
}

bool StepRunner::ReadFromSrun(Step* s, StepIoDecoder* decoder) {
  char buf[16 * 1024];
  const ssize_t n = recv(s->io, buf, sizeof buf, MSG_DONTWAIT);
  if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
  if (n == 0) return false;  // srun is gone
  decoder->Feed(std::string_view(buf, static_cast<size_t>(n)));
  while (true) {
    StatusOr<std::optional<StepIoFrame>> f = decoder->Next();
    if (!f.ok()) {
      LogWarning(LogSubject::Step(s->job_id, s->step_id), f.status().message());
      return false;
    }
    if (!f->has_value()) return true;
    const StepIoFrame& frame = **f;
    if (frame.kind == StepIoKind::kAck) {
      MutexLock lock(mu_);
      s->notes_unacked = std::max(s->notes_unacked - 1, 0);
      notice_cv_.notify_all();
      continue;
    }
    for (Task& t : s->tasks) {
      if (t.in < 0 || (frame.procid >= 0 && frame.procid != t.id.procid)) continue;
      switch (frame.kind) {
        case StepIoKind::kIn: t.in_buf += frame.data; break;
        case StepIoKind::kEof: t.in_eof = true; break;
        case StepIoKind::kWinch:
          if (t.pty) SetTerminalSize(t.in, frame.rows, frame.cols);
          break;
        default: break;  // agent-to-srun frames mean nothing here
      }
    }
  }
}

void StepRunner::Pump(Step* s) {
  // A task that closed its stdin must not kill the agent with SIGPIPE (write fails with EPIPE).
  sigset_t pipe_sig;
  sigemptyset(&pipe_sig);
  sigaddset(&pipe_sig, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_sig, nullptr);
  PumpState p;
  while (true) {
    MoveIo(s, &p);
    const int64_t now = NowMs();
    SendNotice(s, Supervise(s, now, &p), &p);
    if (ReportExits(s, now, &p)) break;
  }
  EndStep(s, p.io_ok);
}

void StepRunner::MoveIo(Step* s, PumpState* p) {
  // Input from srun is read only while the tasks take it: at most this much waits here, so a task
  // that never reads its stdin holds srun back instead of filling the agent's memory.
  constexpr size_t kMaxPendingInput = 1 << 20;
  std::vector<pollfd> fds;
  std::vector<std::pair<size_t, bool>> which;  // task index, stderr?
  for (size_t i = 0; i < s->tasks.size(); ++i) {
    if (s->tasks[i].out >= 0) {
      fds.push_back(pollfd{s->tasks[i].out, POLLIN, 0});
      which.emplace_back(i, false);
    }
    if (s->tasks[i].err >= 0) {
      fds.push_back(pollfd{s->tasks[i].err, POLLIN, 0});
      which.emplace_back(i, true);
    }
  }
  const size_t in_index = fds.size();
  std::vector<size_t> writers;  // tasks with input waiting
  size_t pending_input = 0;
  for (size_t i = 0; i < s->tasks.size(); ++i) {
    const Task& t = s->tasks[i];
    if (t.in < 0 || t.in_buf.empty()) continue;
    fds.push_back(pollfd{t.in, POLLOUT, 0});
    writers.push_back(i);
    pending_input += t.in_buf.size();
  }
  const size_t io_index = fds.size();
  // srun's frames while the tasks keep up; else only its going away.
  if (p->io_ok) {
    fds.push_back(pollfd{s->io, static_cast<short>(pending_input < kMaxPendingInput ? POLLIN : POLLRDHUP), 0});
  }
  if (!fds.empty()) {
    poll(fds.data(), fds.size(), 20);
  } else {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (p->io_ok && fds[io_index].revents != 0) {
    p->io_ok = (fds[io_index].events & POLLIN) != 0 && ReadFromSrun(s, &p->from_srun);
  }
  std::vector<size_t> can_write;  // of `writers`, those whose stdin takes input now (or failed)
  for (size_t k = 0; k < writers.size(); ++k) {
    if (fds[in_index + k].revents != 0) can_write.push_back(writers[k]);
  }
  MoveInput(s, can_write);
  std::vector<std::pair<size_t, bool>> can_read;  // of `which`, the streams with something to read (or closed)
  for (size_t k = 0; k < in_index; ++k) {
    if (fds[k].revents != 0) can_read.push_back(which[k]);
  }
  MoveOutput(s, can_read, p);
}

void StepRunner::MoveInput(Step* s, const std::vector<size_t>& ready) {
  for (size_t i : ready) {
    Task& t = s->tasks[i];
    const ssize_t n = write(t.in, t.in_buf.data(), t.in_buf.size());
    if (n > 0) {
      t.in_buf.erase(0, static_cast<size_t>(n));
    } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
      t.in_buf.clear();  // the task closed its stdin (EPIPE): what srun sends is dropped
      t.in_eof = true;
    }
  }
  for (Task& t : s->tasks) {
    // srun's stdin ended and all of it was taken: the task reads EOF. Its terminal (--pty) stays
    // open: the task reads from it until it ends.
    if (t.in >= 0 && t.in_eof && t.in_buf.empty() && !t.pty) CloseFd(t.in);
  }
}

void StepRunner::MoveOutput(Step* s, const std::vector<std::pair<size_t, bool>>& ready, PumpState* p) {
  for (const auto& [i, is_err] : ready) {
    Task& t = s->tasks[i];
    int& fd = is_err ? t.err : t.out;
    ssize_t n = read(fd, p->buf.data(), p->buf.size());
    if (n > 0) {
      if (p->io_ok) {
        p->io_ok = WriteFully(s->io, EncodeStepIoFrame(OutputFrame(is_err ? StepIoKind::kErr : StepIoKind::kOut,
                                                                   t.id.procid, std::string(p->buf.data(), n))));
      }
    } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
      CloseFd(fd);  // EOF; a terminal's master reads EIO once the task's side is closed
    }
  }
}

std::string StepRunner::Supervise(Step* s, int64_t now, PumpState* p) {
  MutexLock lock(mu_);
  if (s->deadline_ms > 0 && now >= s->deadline_ms && p->timeout_kill_ms == 0) {
    // srun -t ran out: Slurm's line to srun, SIGTERM now, SIGKILL after KillWait.
    s->notice += "musterd: error: *** STEP " + std::to_string(s->job_id) + "." + std::to_string(s->step_id) +
                 " ON " + s->node_name + EndingLine(time(nullptr), "timeout");
    for (Task& t : s->tasks) {
      if (t.pid > 0 && !t.reaped) (void)SignalGroup(t.pid, SIGTERM);
    }
    p->timeout_kill_ms = now + s->kill_wait_ms;
  }
  if (p->timeout_kill_ms > 0 && now >= p->timeout_kill_ms && !p->killed) {
    for (Task& t : s->tasks) {
      if (t.pid > 0 && !t.reaped) (void)SignalGroup(t.pid, SIGKILL);
    }
    p->killed = true;
  }
  // A copy: s->notice empties once it is written (NotifyEnding waits for that).
  std::string notice = s->notice;
  for (Task& t : s->tasks) {
    if (t.reaped) continue;
    ExitInfo info;
    // Seen ended, not reaped: the pid stays the task's until the step is over (Signal and
    // the SIGKILL at the end may still name its group safely).
    if (!TryWaitExited(t.pid, &info)) continue;
    t.reaped = true;
    t.reaped_ms = now;
    t.exit_code = info.exited ? info.exit_code : 0;
    t.signal = info.exited ? 0 : info.signal;
    t.core = info.core_dumped;
  }
  if (!p->io_ok && !p->killed) {
    // srun is gone: nobody would see the output or the exits (Slurm ends the step too).
    for (Task& t : s->tasks) {
      if (t.pid > 0) (void)SignalGroup(t.pid, SIGKILL);
    }
    p->killed = true;
  }
  return notice;
}

void StepRunner::SendNotice(Step* s, const std::string& notice, PumpState* p) {
  if (!notice.empty()) {
    if (p->io_ok) p->io_ok = WriteFully(s->io, EncodeStepIoFrame(NoteFrame(notice)));
    MutexLock lock(mu_);
    s->notice.erase(0, notice.size());
    if (p->io_ok) ++s->notes_unacked;
    notice_cv_.notify_all();
  }
  if (!p->io_ok && s->notes_unacked > 0) {  // srun is gone: no acknowledgement will come
    MutexLock lock(mu_);
    s->notes_unacked = 0;
    notice_cv_.notify_all();
  }
}

bool StepRunner::ReportExits(Step* s, int64_t now, PumpState* p) {
  bool all_reported = true;
  for (Task& t : s->tasks) {
    if (t.reaped) {
      CloseFd(t.in);  // nobody reads it any more
      t.in_buf.clear();
    }
    if (t.reaped && !t.reported) {
      if ((t.out >= 0 || t.err >= 0) && now - t.reaped_ms < kOutputGraceMs) {
        all_reported = false;
        continue;
      }
      CloseFd(t.out);
      CloseFd(t.err);
      if (p->io_ok) {
        p->io_ok = WriteFully(s->io, EncodeStepIoFrame(ExitFrame(t.id.procid, t.exit_code, t.signal, t.core)));
      }
      t.reported = true;
    }
    all_reported = all_reported && t.reported;
  }
  return all_reported;
}

void StepRunner::EndStep(Step* s, bool io_ok) {
  bool orphaned = false;
  {
    MutexLock lock(mu_);
    for (Task& t : s->tasks) {
      if (t.pid > 0) {
        (void)SignalGroup(t.pid, SIGKILL);  // what the tasks left behind
        (void)Reap(t.pid);                  // only now may the pid go to another process
        t.pid = -1;
      }
      CloseFd(t.in);
    }
    CloseFd(s->io);  // under the lock: Shutdown may be using it
    s->done = true;
    notice_cv_.notify_all();
    orphaned = !io_ok && !shutdown_;
  }
  if (orphaned && orphan_handler_) orphan_handler_(s->job_id, s->step_id);
}
void StepRunner::Signal(int64_t job_id, int step_id, int sig) {
  MutexLock lock(mu_);
  for (auto& [key, step] : steps_) {
    if (key.first != job_id || (step_id >= 0 && key.second != step_id) || step->done) continue;
    if (!step->launched) {
      step->pending_signals.push_back(sig);  // delivered once its tasks are started
      continue;
    }
    for (const Task& t : step->tasks) {
      if (t.pid > 0) (void)SignalGroup(t.pid, sig);  // its pid is reaped only after the step is done
    }
  }
}

void StepRunner::NotifyEnding(int64_t job_id, const std::string& node, const std::string& ending) {
  MutexLock lock(mu_);
  std::vector<std::pair<int64_t, int>> told;  // keys, not pointers: a finished step may go meanwhile
  for (auto& [key, step] : steps_) {
    if (key.first != job_id || step->done) continue;
    step->notice += "musterd: error: *** STEP " + std::to_string(key.first) + "." + std::to_string(key.second) +
                    " ON " + node + ending;
    told.push_back(key);
  }
  // Until srun has printed every line (its ACK), or 2 s for an srun that does not answer.
  lock.WaitFor(notice_cv_, std::chrono::milliseconds(2000), [&] {
    return std::all_of(told.begin(), told.end(), [&](const auto& key) {
      mu_.AssertHeld();  // the wait's predicate runs under it
      auto it = steps_.find(key);
      return it == steps_.end() || it->second->done ||
             (it->second->notice.empty() && it->second->notes_unacked == 0);
    });
  });
}

int StepRunner::Running(int64_t job_id) const {
  MutexLock lock(mu_);
  int n = 0;
  for (const auto& [key, step] : steps_) n += key.first == job_id && !step->done;
  return n;
}

bool StepRunner::Runs(int64_t job_id, int step_id) const {
  MutexLock lock(mu_);
  auto it = steps_.find({job_id, step_id});
  return it != steps_.end() && !it->second->done;
}

void StepRunner::JoinFinished() {
  std::vector<std::unique_ptr<Step>> finished;
  {
    MutexLock lock(mu_);
    for (auto it = steps_.begin(); it != steps_.end();) {
      if (it->second->done) {
        finished.push_back(std::move(it->second));
        it = steps_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& s : finished) s->thread.join();
}

void StepRunner::Shutdown() {
  std::vector<std::unique_ptr<Step>> all;
  {
    MutexLock lock(mu_);
    shutdown_ = true;
    for (auto& [key, step] : steps_) {
      for (const Task& t : step->tasks) {
        if (t.pid > 0) (void)SignalGroup(t.pid, SIGKILL);
      }
      if (step->io >= 0) shutdown(step->io, SHUT_RDWR);  // unblocks a write to a stalled srun
    }
    for (auto& [key, step] : steps_) all.push_back(std::move(step));
    steps_.clear();
  }
  for (auto& s : all) {
    if (s->thread.joinable()) s->thread.join();
  }
}

}  // namespace muster
