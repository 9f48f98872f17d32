// srun's step session: one StepSession per run. Signals reach the event loop through a self-pipe
// (the handler only writes the signal number); everything else happens on the one thread.
#include "cli/srun_step.h"
#include "base/read_file.h"
#include "net/json_body.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <utility>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <tuple>

#include "proc/job_env.h"
#include "cli/command_args.h"
#include "cli/ctld_client.h"
#include "cli/srun_args.h"
#include "cli/srun_step_host.h"
#include "config/muster_config.h"
#include "wire/agent.h"
#include "model/hostlist.h"
#include "model/job_array.h"
#include "model/record_json.h"
#include "net/http.h"
#include "net/step_io.h"

extern char** environ;

namespace muster {

namespace {

int g_signal_pipe = -1;

void OnSignal(int sig) {
  const int saved = errno;
  unsigned char b = static_cast<unsigned char>(sig);
  if (g_signal_pipe >= 0) (void)!write(g_signal_pipe, &b, 1);
  errno = saved;
}

constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

std::string ErrorText(const HttpResponse& r) {
  return ErrorMessageOf(r.body, "HTTP " + std::to_string(r.status));
}

struct NodeTasks {
  std::string name;
  std::string agent;
  std::vector<int> procids;
  std::optional<std::vector<int>> gpus;  // the step's GPUs there, when the controller named them
  std::unique_ptr<HttpClient> client;  // kept for signals once launched
  bool launched = false;
  std::chrono::steady_clock::time_point launched_at;
  bool connected = false;  // its agent's stream said HELLO
};

// How long a node that took the step may take to reach srun's I/O address (it gives up after 5 s).
constexpr auto kConnectGrace = std::chrono::seconds(15);

bool IsUnix(const std::string& address) { return address.rfind("unix:", 0) == 0; }

// An agent address on this host: a Unix socket, or TCP on a loopback address (a local cluster).
bool IsLocal(const std::string& address) {
  if (IsUnix(address)) return true;
  const std::string host = address.substr(0, address.rfind(':'));
  return host.rfind("127.", 0) == 0 || host == "localhost" || host == "[::1]";
}

struct Task {
  size_t node = 0;
  bool ended = false;
  int code = 0, signal = 0;
  LineLabeler out, err;
};

struct Conn {
  int fd = -1;
  StepIoDecoder decoder;
  bool hello = false;
  size_t node = 0;
  std::string pending;  // frames for the agent (the tasks' stdin), not yet sent
};

class StepSession {
 public:
  StepSession(const SrunOptions& opt, std::ostream& out, std::ostream& err) : opt_(opt), out_(out), err_(err) {}
  ~StepSession() {
    for (Conn& c : conns_) close(c.fd);
    if (listener_ >= 0) close(listener_);
    if (!io_dir_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(io_dir_, ec);
    }
  }
  int RunStep(int64_t job_id, bool no_allocate, const StepAnswer& created, CtldClient* ctld);

 private:
  // The controller's answer laid out as nodes_ and tasks_; false (said on err_) when malformed.
  bool TakeStep(const StepAnswer& c);
  // srun -v's lines for the allocation: its nodes and their CPUs.
  void EmitAllocation(int64_t job_id, const JobRecord& job);
  // --multi-prog: each task's command from the file; false (said on err_) when it cannot be had.
  bool ReadMultiProg();
  // Signals to the self-pipe sp (sp[0]: sig_read_), SIGPIPE ignored.
  void CatchSignals(int sp[2]);
  Status Listen(bool tcp);
  void LaunchAll(const JobRecord& job);
  // -o/-e files the whole step shares (no %t, %n or %N): truncated here once, as the user, before
  // the nodes append to them.
  void TruncateSharedFiles(const JobRecord& job, const std::function<std::string(const std::string&)>& absolute);
  StepLaunchRequest LaunchRequest(const NodeTasks& n, const JobRecord& job, const std::vector<std::string>& step_nodes,
                                  const std::vector<std::string>& env, const std::string& cwd,
                                  const std::function<std::string(const std::string&)>& absolute) const;
  // Posts the step to node n's agent (n.client kept on success): "" or the error.
  std::string LaunchOn(NodeTasks& n, const StepLaunchRequest& body);
  void Loop();
  // Reads what conn c sent and handles its frames; true when it is to be closed.
  bool ReadConn(Conn& c, std::vector<char>& buf);
  // Nodes that took the step and never connected within kConnectGrace: their tasks are lost. Once
  // all have connected, the socket's directory goes.
  void CheckConnections();
  // Closes conn k; the tasks of its node still open were lost with it.
  void CloseConn(size_t k);
  void HandleFrame(Conn& c, const StepIoFrame& f);
  void HandleSignal(int sig);
  void Forward(int sig);
  void TaskEnded(int procid, int code, int signal, bool core);
  // Prints the exits gathered, tasks of one node that ended alike on one line, as Slurm does
  // ("node1: tasks 0-3: Exited with exit code 1"): at once when `force` or no task is left, else
  // once the first of them is 200 ms old (tasks that end together arrive a few ms apart).
  void FlushExits(bool force = true);
  // srun's stdin to the tasks that read it (IN frames, then EOF), and the terminal's size.
  void ForwardInput(bool readable);
  void SendToTasks(const StepIoFrame& frame, int procid);
  void Emit(std::ostream& s, const std::string& bytes) {
    s.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    s.flush();
  }
  std::string StepId() const { return "StepId=" + std::to_string(job_id_) + "." + std::to_string(step_id_); }
  int Remaining() const {
    return static_cast<int>(std::count_if(tasks_.begin(), tasks_.end(), [](const Task& t) { return !t.ended; }));
  }

  const SrunOptions& opt_;
  std::ostream& out_;
  std::ostream& err_;
  int64_t job_id_ = 0;
  int step_id_ = 0;
  bool no_allocate_ = false;
  int64_t time_limit_s_ = 0;  // srun -t, as the controller recorded it
  int64_t kill_wait_s_ = 30;  // the cluster's KillWait
  std::vector<NodeTasks> nodes_;
  std::vector<Task> tasks_;
  std::vector<std::vector<std::string>> task_argv_;  // --multi-prog: each task's command
  std::string key_ = RandomKey();
  std::string token_;  // the first credential for an agent on TCP (from the local musterd), not yet used
  std::string token_node_;  // the node it is for (a token names its audience: that node's agent)
  // A connection to node `node`'s agent: over TCP with a token of the local musterd for each
  // connection it opens (a token opens one connection, at one agent), the first one already asked for.
  StatusOr<std::unique_ptr<HttpClient>> ConnectAgent(const std::string& node, const std::string& agent) {
    if (IsUnix(agent)) return HttpClient::Connect(agent, "", 10000);
    RETURN_IF_ERROR(UseClusterTls());  // (once per process)
    HttpClient::TokenSource tokens;
    tokens.next = [this, node]() -> StatusOr<std::string> {
      if (token_.empty() || token_node_ != node) return LocalToken(NodeAudience(node));
      return std::exchange(token_, std::string());
    };
    return HttpClient::Connect(agent, std::move(tokens), 10000);
  }
  std::string io_address_;
  std::string io_dir_;
  int listener_ = -1;
  std::vector<Conn> conns_;
  int sig_read_ = -1;
  int64_t last_interrupt_ms_ = -100000;
  bool user_signalled_ = false;
  bool terminating_ = false;
  std::map<std::tuple<size_t, int, int, bool>, std::vector<int>> exits_;  // (node, code, signal, core) -> tasks
  std::chrono::steady_clock::time_point exits_since_;
  // Whose stdin is srun's: -1 every task (Slurm's default), a task id (-i N, --pty: 0), or
  // kNoInput (-i none or a file).
  static constexpr int kNoInput = -2;
  int input_to_ = kNoInput;
  bool input_done_ = false;
  int exit_status_ = 0;  // highest exit code (or 1 for tasks that never ran or were lost)
  int max_signal_ = 0;   // highest signal that killed a task
  int ExitStatus() const { return max_signal_ > 0 ? TaskExitStatus(0, max_signal_) : exit_status_; }
};

Status StepSession::Listen(bool tcp) {
  if (tcp) {
    const bool local = std::all_of(nodes_.begin(), nodes_.end(), [](const NodeTasks& n) { return IsLocal(n.agent); });
    int port = 0;
    ASSIGN_OR_RETURN(listener_, ListenTcp(local ? "127.0.0.1" : "0.0.0.0", 0, &port));
    // The agents connect back here: at the address this host has toward them (else its name).
    std::string host;
    for (const NodeTasks& n : nodes_) {
      if (host.empty() && !IsLocal(n.agent)) host = LocalAddressToward(n.agent);
    }
    if (host.empty()) {
      char name[256] = {0};
      gethostname(name, sizeof name - 1);
      host = name;
    }
    io_address_ = (local ? std::string("127.0.0.1") : host) + ":" + std::to_string(port);
    return Status::Ok();
  }
  // A private directory (0700): nobody else may reach the socket; the agents run as root or as
  // the cluster's owner, who is the user of a local cluster.
  for (std::string base : {Env("TMPDIR"), std::string("/tmp")}) {
    if (base.empty() || base.size() > 60) continue;
    std::string tmpl = base + "/srun.XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) continue;
    io_dir_ = tmpl;
    io_address_ = "unix:" + tmpl + "/io.sock";
    ASSIGN_OR_RETURN(listener_, ListenUnix(tmpl + "/io.sock"));
    return Status::Ok();
  }
  return Internal(std::string("cannot create a directory for the I/O socket: ") + std::strerror(errno));
}

void StepSession::LaunchAll(const JobRecord& job) {
  char here[PATH_MAX] = {0};
  if (getcwd(here, sizeof here) == nullptr) here[0] = '\0';
  // -D/--chdir: the tasks' directory, where relative -o/-e files are found too.
  const std::string cwd = StepDirectory(opt_.chdir, here);
  const std::vector<std::string> env = SubmitEnvironment(opt_.export_mode);
  const auto absolute = [&](const std::string& p) {
    return p.empty() || p[0] == '/' ? p : cwd + "/" + p;
  };
  TruncateSharedFiles(job, absolute);
  std::vector<std::string> step_nodes;
  for (const NodeTasks& n : nodes_) step_nodes.push_back(n.name);
  if (opt_.verbose > 0) {
    for (const NodeTasks& n : nodes_) {
      std::vector<int> ids = n.procids;
      std::sort(ids.begin(), ids.end());
      const std::string list = FormatArrayTasks(ids);
      Emit(err_, "srun: launching " + StepId() + " on host " + n.name + ", " + std::to_string(ids.size()) +
                     " tasks: " + (ids.size() == 1 ? list : "[" + list + "]") + "\n");
    }
    Emit(err_, "srun: route/default: init: route default plugin loaded\n");
  }
  for (NodeTasks& n : nodes_) {
    const std::string error = LaunchOn(n, LaunchRequest(n, job, step_nodes, env, cwd, absolute));
    if (error.empty()) {
      n.launched = true;
      n.launched_at = std::chrono::steady_clock::now();
      if (opt_.verbose > 0) {
        Emit(err_, "srun: launch/slurm: _task_start: Node " + n.name + ", " + std::to_string(n.procids.size()) +
                       " tasks started\n");
      }
      continue;
    }
    Emit(err_, "srun: error: Task launch for " + StepId() + " failed on node " + n.name + ": " + error + "\n");
    Emit(err_, "srun: error: Application launch failed: " + error + "\n");
    // The tasks of the other nodes end too; the ones here never ran.
    for (NodeTasks& m : nodes_) {
      if (m.launched || &m == &n) continue;
      for (int p : m.procids) tasks_[p].ended = true;
    }
    for (int p : n.procids) tasks_[p].ended = true;
    exit_status_ = std::max(exit_status_, 1);
    terminating_ = true;
    Forward(SIGKILL);
    return;
  }
}

void StepSession::TruncateSharedFiles(const JobRecord& job,
                                      const std::function<std::string(const std::string&)>& absolute) {
  TaskPlacement where;
  where.step_id = step_id_;
  for (const std::string& how : {opt_.output, opt_.error}) {
    if (!IsStepFilePattern(how) || PatternPerTaskOrNode(how)) continue;
    const std::string path = absolute(ExpandOutputPattern(how, job, "", where));
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd >= 0) close(fd);
  }
}

StepLaunchRequest StepSession::LaunchRequest(const NodeTasks& n, const JobRecord& job,
                                             const std::vector<std::string>& step_nodes,
                                             const std::vector<std::string>& env, const std::string& cwd,
                                             const std::function<std::string(const std::string&)>& absolute) const {
  StepLaunchRequest body;
  body.job_id = job_id_;
  body.step_id = step_id_;
  body.restart_count = job.restart_count;
  for (size_t i = 0; i < n.procids.size(); ++i) {
    StepTask t{n.procids[i], static_cast<int>(i), {}};
    if (!task_argv_.empty()) t.argv = task_argv_[n.procids[i]];
    body.tasks.push_back(std::move(t));
  }
  body.ntasks = static_cast<int>(tasks_.size());
  body.step_nodes = step_nodes;
  body.argv = opt_.command;
  body.env = env;
  body.cwd = cwd;
  body.io_address = io_address_;
  body.io_key = key_;
  body.output = opt_.output;
  body.error = opt_.error;
  body.input = opt_.input;
  body.task_prolog = absolute(opt_.task_prolog);
  body.task_epilog = absolute(opt_.task_epilog);
  body.cpus_per_task = opt_.cpus_per_task;
  body.gpus = n.gpus;
  body.no_allocate = no_allocate_;
  body.time_limit_s = time_limit_s_ > 0 ? time_limit_s_ : 0;
  body.kill_wait_s = kill_wait_s_;
  body.gpu_bind_per_task = std::max(0, opt_.gpu_bind_per_task);
  body.gpu_bind_map = opt_.gpu_bind_map;
  body.gpu_bind_single = std::max(0, opt_.gpu_bind_single);
  if (opt_.pty) {
    const auto [rows, cols] = TerminalSize();
    body.pty = StepPty{rows, cols};
  }
  return body;
}

std::string StepSession::LaunchOn(NodeTasks& n, const StepLaunchRequest& body) {
  std::string error;
  // A node may not have heard of a just-started job yet (the controller tells the nodes after
  // it answers; an allocation srun or salloc just got races that): 404, asked again for up to 5 s.
  for (int attempt = 0;; ++attempt) {
    error.clear();
    StatusOr<std::unique_ptr<HttpClient>> c = ConnectAgent(n.name, n.agent);
    if (!c.ok()) {
      error = c.status().message();
      break;
    }
    StatusOr<HttpResponse> r =
        (*c)->Request("POST", "/v1/step", wire::Encode(body));
    if (!r.ok()) {
      error = r.status().message();
    } else if (r->status != 200) {
      error = ErrorText(*r);
      if (r->status == 404 && attempt < 50) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        continue;
      }
    } else {
      n.client = std::move(*c);
    }
    break;
  }
  return error;
}

void StepSession::Forward(int sig) {
  const std::string body = wire::Encode(StepSignal{job_id_, step_id_, sig});
  for (NodeTasks& n : nodes_) {
    if (!n.launched || !n.client) continue;
    StatusOr<HttpResponse> r = n.client->Request("POST", "/v1/signal-step", body);
    if (r.ok() && r->status == 401 && !IsUnix(n.agent)) {
      // Refused (a token that expired during a long step): a new connection, a new token.
      StatusOr<std::unique_ptr<HttpClient>> c = ConnectAgent(n.name, n.agent);
      if (c.ok()) {
        n.client = std::move(*c);
        r = n.client->Request("POST", "/v1/signal-step", body);
      } else {
        r = c.status();
      }
    }
    if (!r.ok() || r->status != 200) {
      Emit(err_, "srun: error: cannot signal the tasks on " + n.name + ": " +
                     (r.ok() ? ErrorText(*r) : r.status().message()) + "\n");
    }
  }
}

void StepSession::HandleSignal(int sig) {
  if (sig == SIGWINCH) {
    const auto [rows, cols] = TerminalSize();
    if (rows > 0 && input_to_ >= 0) SendToTasks(WinchFrame(rows, cols), input_to_);
    return;
  }
  if (sig != SIGINT) {
    user_signalled_ = true;
    Forward(sig);
    return;
  }
  const int64_t now = NowMs();
  if (now - last_interrupt_ms_ < 1000 || opt_.quit_on_interrupt) {
    Emit(err_, "srun: sending Ctrl-C to " + StepId() + "\n");
    user_signalled_ = true;
    Forward(SIGINT);
    return;
  }
  last_interrupt_ms_ = now;
  Emit(err_, "srun: interrupt (one more within 1 sec to abort)\n");
  std::vector<int> running, exited;
  for (size_t i = 0; i < tasks_.size(); ++i) (tasks_[i].ended ? exited : running).push_back(static_cast<int>(i));
  if (!running.empty()) Emit(err_, "srun: " + StepId() + " " + TaskRanges(running) + ": running\n");
  if (!exited.empty()) Emit(err_, "srun: " + StepId() + " " + TaskRanges(exited) + ": exited\n");
}

void StepSession::TaskEnded(int procid, int code, int signal, bool core) {
  Task& t = tasks_[procid];
  if (t.ended) return;
  t.ended = true;
  Emit(out_, t.out.Finish());
  Emit(err_, t.err.Finish());
  // Slurm's rule: a task killed by a signal outweighs any exit code (the highest signal wins),
  // else the highest exit code.
  if (signal > 0) {
    max_signal_ = std::max(max_signal_, signal);
  } else {
    exit_status_ = std::max(exit_status_, code);
  }
  const std::string msg = TaskExitMessage(nodes_[t.node].name, procid, code, signal, core);
  // Slurm keeps quiet about deaths by a signal the user sent; with -v it reports every end.
  if ((!msg.empty() || opt_.verbose > 0) && !(signal > 0 && user_signalled_)) {
    if (exits_.empty()) exits_since_ = std::chrono::steady_clock::now();
    exits_[{t.node, code, signal, core}].push_back(procid);
  }
  if (!msg.empty() && opt_.kill_on_bad_exit && !terminating_ && Remaining() > 0) {
    FlushExits();
    terminating_ = true;
    Emit(err_, "srun: Terminating " + StepId() + "\n");
    user_signalled_ = true;
    Forward(SIGKILL);
  }
}

void StepSession::FlushExits(bool force) {
  if (exits_.empty()) return;
  if (!force && Remaining() > 0 && std::chrono::steady_clock::now() - exits_since_ < std::chrono::milliseconds(200)) {
    return;
  }
  for (auto& [key, procids] : exits_) {
    const auto& [node, code, signal, core] = key;
    std::sort(procids.begin(), procids.end());
    const std::string& name = nodes_[node].name;
    if (opt_.verbose > 0) {
      char status[16];
      std::snprintf(status, sizeof status, "0x%04x", signal > 0 ? (signal | (core ? 0x80 : 0)) : (code & 0xff) << 8);
      Emit(err_, "srun: launch/slurm: _task_finish: Received task exit notification for " +
                     std::to_string(procids.size()) + (procids.size() == 1 ? " task of " : " tasks of ") + StepId() +
                     " (status=" + status + ").\n");
    }
    std::string msg = TaskExitMessage(name, procids.front(), code, signal, core);
    if (msg.empty()) {  // (-v only: an exit 0)
      Emit(err_, "srun: launch/slurm: _task_finish: " + name + ": " + TaskRanges(procids) + ": Completed\n");
      continue;
    }
    const std::string one = name + ": task " + std::to_string(procids.front());
    if (msg.rfind(one, 0) == 0) msg = name + ": " + TaskRanges(procids) + msg.substr(one.size());
    Emit(err_, "srun: error: " + msg + "\n");
  }
  exits_.clear();
}

void StepSession::HandleFrame(Conn& c, const StepIoFrame& f) {
  if (f.kind == StepIoKind::kHello) return;
  if (f.kind == StepIoKind::kNote) {
    Emit(err_, f.data);
    c.pending += EncodeStepIoFrame(AckFrame());  // printed: the agent may end the job (and srun) now
    return;
  }
  if (f.procid < 0 || f.procid >= static_cast<int>(tasks_.size()) || tasks_[f.procid].node != c.node) return;
  Task& t = tasks_[f.procid];
  switch (f.kind) {
    case StepIoKind::kOut: Emit(out_, opt_.unbuffered && !opt_.label ? f.data : t.out.Add(f.data)); break;
    case StepIoKind::kErr: Emit(err_, opt_.unbuffered && !opt_.label ? f.data : t.err.Add(f.data)); break;
    case StepIoKind::kExit: TaskEnded(f.procid, f.exit_code, f.signal, f.core_dumped); break;
    default: break;  // HELLO and NOTE above; IN, EOF and WINCH go the other way
  }
}

void StepSession::SendToTasks(const StepIoFrame& frame, int procid) {
  const std::string bytes = EncodeStepIoFrame(frame);
  for (Conn& c : conns_) {
    if (c.hello && (procid < 0 || tasks_[procid].node == c.node)) c.pending += bytes;
  }
}

void StepSession::ForwardInput(bool readable) {
  if (!readable) return;
  char buf[16 * 1024];
  const ssize_t n = read(0, buf, sizeof buf);
  if (n > 0) {
    SendToTasks(OutputFrame(StepIoKind::kIn, input_to_, std::string(buf, static_cast<size_t>(n))), input_to_);
  } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
    SendToTasks(EofFrame(input_to_), input_to_);
    input_done_ = true;
  }
}

void StepSession::Loop() {
  std::vector<char> buf(64 * 1024);
  while (Remaining() > 0) {
    std::vector<pollfd> fds = {{sig_read_, POLLIN, 0}, {listener_, POLLIN, 0}};
    size_t pending = 0;
    for (const Conn& c : conns_) {
      fds.push_back(pollfd{c.fd, static_cast<short>(POLLIN | (c.pending.empty() ? 0 : POLLOUT)), 0});
      pending += c.pending.size();
    }
    // srun's stdin is read once every node that took tasks has connected (none misses the start),
    // and only while the agents take it (a task that does not read holds srun back).
    const auto launched = std::count_if(nodes_.begin(), nodes_.end(), [](const NodeTasks& n) { return n.launched; });
    const auto connected = std::count_if(conns_.begin(), conns_.end(), [](const Conn& c) { return c.hello; });
    const bool read_input = input_to_ != kNoInput && !input_done_ && connected == launched && pending < (1 << 18);
    if (read_input) fds.push_back(pollfd{0, POLLIN, 0});
    if (poll(fds.data(), fds.size(), exits_.empty() ? 1000 : 50) < 0 && errno != EINTR) break;
    if (read_input) {
      ForwardInput((fds.back().revents & (POLLIN | POLLHUP | POLLERR)) != 0);
      fds.pop_back();
    }
    for (size_t k = 2; k < fds.size(); ++k) {
      Conn& c = conns_[k - 2];
      if ((fds[k].revents & POLLOUT) == 0 || c.pending.empty()) continue;
      const ssize_t n = send(c.fd, c.pending.data(), c.pending.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n > 0) c.pending.erase(0, static_cast<size_t>(n));
    }
    if (fds[0].revents != 0) {
      unsigned char sigs[16];
      ssize_t n = read(sig_read_, sigs, sizeof sigs);
      for (ssize_t i = 0; i < n; ++i) HandleSignal(sigs[i]);
    }
    if (fds[1].revents != 0) {
      int fd = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd >= 0) conns_.push_back(Conn{fd, {}, false, 0});
    }
    std::vector<size_t> closed;
    for (size_t k = 2; k < fds.size(); ++k) {
      if ((fds[k].revents & ~POLLOUT) == 0) continue;
      if (ReadConn(conns_[k - 2], buf)) closed.push_back(k - 2);
    }
    CheckConnections();
    FlushExits(/*force=*/false);
    for (auto it = closed.rbegin(); it != closed.rend(); ++it) CloseConn(*it);
  }
}

bool StepSession::ReadConn(Conn& c, std::vector<char>& buf) {
  ssize_t n = read(c.fd, buf.data(), buf.size());
  bool drop = n <= 0 && !(n < 0 && errno == EINTR);
  if (n > 0) c.decoder.Feed(std::string_view(buf.data(), static_cast<size_t>(n)));
  while (n > 0) {
    StatusOr<std::optional<StepIoFrame>> f = c.decoder.Next();
    if (!f.ok()) {
      drop = true;
      break;
    }
    if (!f->has_value()) break;
    const StepIoFrame& frame = **f;
    if (!c.hello) {
      // The first frame must carry our key: anything else did not come from our step's agents.
      auto node =
          std::find_if(nodes_.begin(), nodes_.end(), [&](const NodeTasks& x) { return x.name == frame.node; });
      if (frame.kind != StepIoKind::kHello || frame.data != key_ || node == nodes_.end()) {
        drop = true;
        break;
      }
      c.hello = true;
      c.node = static_cast<size_t>(node - nodes_.begin());
      node->connected = true;
      continue;
    }
    HandleFrame(c, frame);
  }
  return drop;
}

void StepSession::CheckConnections() {
  // A node that took the step but never reached us (it could not connect as the user, or gave
  // up): its tasks never ran.
  const auto now = std::chrono::steady_clock::now();
  // Once every node that took tasks has connected (they connect after answering), the socket's
  // name is no longer needed, and nothing is left behind if srun is killed.
  if (!io_dir_.empty() &&
      std::all_of(nodes_.begin(), nodes_.end(), [&](const NodeTasks& n) { return !n.launched || n.connected; })) {
    std::error_code ec;
    std::filesystem::remove_all(io_dir_, ec);
    io_dir_.clear();
  }
  for (NodeTasks& n : nodes_) {
    if (!n.launched || n.connected || now - n.launched_at < kConnectGrace) continue;
    n.connected = true;  // (said once)
    std::vector<int> lost;
    for (int p : n.procids) {
      if (!tasks_[p].ended) lost.push_back(p);
    }
    for (int p : lost) tasks_[p].ended = true;
    if (!lost.empty()) {
      exit_status_ = std::max(exit_status_, 1);
      Emit(err_, "srun: error: " + n.name + ": " + TaskRanges(lost) + ": musterd could not reach srun (no I/O connection)\n");
    }
  }
}

void StepSession::CloseConn(size_t k) {
  Conn& c = conns_[k];
  if (c.hello) {
    // The agent closes after the last exit; tasks still open now were lost with it.
    std::vector<int> lost;
    for (int p : nodes_[c.node].procids) {
      if (!tasks_[p].ended) lost.push_back(p);
    }
    for (int p : lost) {
      tasks_[p].ended = true;
      exit_status_ = std::max(exit_status_, 1);
    }
    if (!lost.empty()) {
      Emit(err_, "srun: error: " + nodes_[c.node].name + ": " + TaskRanges(lost) +
                     ": lost contact with musterd (no exit status)\n");
    }
  }
  close(c.fd);
  conns_.erase(conns_.begin() + static_cast<std::ptrdiff_t>(k));
}

bool StepSession::TakeStep(const StepAnswer& c) {
  try {
    step_id_ = c.step_id;
    if (c.ntasks < 0 || c.ntasks > (1 << 20)) throw std::out_of_range("task count");
    tasks_.resize(static_cast<size_t>(c.ntasks));
    for (const StepNode& n : c.nodes) {
      NodeTasks nt;
      nt.name = n.name;
      nt.agent = n.agent_address;
      nt.procids = n.tasks;
      nt.gpus = n.gpus;
      for (int p : nt.procids) {
        if (p < 0 || p >= static_cast<int>(tasks_.size())) throw std::out_of_range("task id");
        tasks_[p].node = nodes_.size();
        // Whole lines per task (Slurm's default line buffering), labelled with -l.
        const std::string label = opt_.label ? TaskLabel(p, static_cast<int>(tasks_.size())) : "";
        tasks_[p].out = LineLabeler(label);
        tasks_[p].err = LineLabeler(label);
      }
      nodes_.push_back(std::move(nt));
    }
  } catch (const std::exception& e) {
    Emit(err_, std::string("srun: error: malformed step from the controller: ") + e.what() + "\n");
    return false;
  }
  return true;
}

void StepSession::EmitAllocation(int64_t job_id, const JobRecord& job) {
  // The allocation's nodes and CPUs, as srun -v prints them (Slurm's node order).
  std::map<std::string, int64_t> cpus;
  for (const NodeAllocation& a : job.allocation) cpus[a.node] += CpusOf(a);
  std::vector<std::string> names;
  for (const auto& [name, n] : cpus) names.push_back(name);
  StatusOr<std::vector<std::string>> ordered = ExpandHostlist(CompressHostlist(names));
  if (ordered.ok()) names = *ordered;
  // "4(x1),2(x2)": srun's cpu counts name every run's length, 1 too.
  std::string counts;
  for (size_t i = 0; i < names.size();) {
    size_t j = i;
    while (j < names.size() && cpus[names[j]] == cpus[names[i]]) ++j;
    counts += (counts.empty() ? "" : ",") + std::to_string(cpus[names[i]]) + "(x" + std::to_string(j - i) + ")";
    i = j;
  }
  Emit(err_, "srun: jobid " + std::to_string(job_id) + ": nodes(" + std::to_string(names.size()) + "):`" +
                 CompressHostlist(names) + "', cpu counts: " + counts + "\n");
  Emit(err_, "srun: launch/slurm: launch_p_step_launch: CpuBindType=(null type)\n");
}

bool StepSession::ReadMultiProg() {
  const std::string& path = opt_.command.front();
  StatusOr<std::string> text = ReadWholeFile(path);
  if (!text.ok()) {
    const std::string why = text.status().message();
    Emit(err_, "srun: error: Unable to open configuration file " + path + ": " + why.substr(why.rfind(": ") + 2) + "\n");
    return false;
  }
  StatusOr<std::vector<std::vector<std::string>>> argv = ParseMultiProg(*text, path, static_cast<int>(tasks_.size()));
  if (!argv.ok()) {
    Emit(err_, argv.status().message());
    return false;
  }
  task_argv_ = std::move(*argv);
  return true;
}

void StepSession::CatchSignals(int sp[2]) {
  if (pipe2(sp, O_CLOEXEC | O_NONBLOCK) == 0) {
    sig_read_ = sp[0];
    g_signal_pipe = sp[1];
    struct sigaction sa {};
    sa.sa_handler = OnSignal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (int s : kForwarded) sigaction(s, &sa, nullptr);
    if (opt_.pty) sigaction(SIGWINCH, &sa, nullptr);
    sigset_t unblock;
    sigemptyset(&unblock);
    for (int s : kForwarded) sigaddset(&unblock, s);
    sigaddset(&unblock, SIGWINCH);
    sigprocmask(SIG_UNBLOCK, &unblock, nullptr);
  }
  signal(SIGPIPE, SIG_IGN);
}

int StepSession::RunStep(int64_t job_id, bool no_allocate, const StepAnswer& c, CtldClient* ctld) {
  job_id_ = job_id;
  no_allocate_ = no_allocate;
  time_limit_s_ = c.time_limit_s;
  kill_wait_s_ = c.kill_wait_s;
  if (!TakeStep(c)) return 1;
  if (!c.warning.empty()) Emit(err_, "srun: Warning: " + c.warning + "\n");  // (Slurm's capital)
  if (opt_.verbose > 0) EmitAllocation(job_id, c.job);
  const auto step_failed = [&] {
    if (ctld != nullptr) {
      (void)ctld->StepDone(job_id, step_id_, 1);
    }
    return 1;
  };
  if (opt_.multi_prog && !ReadMultiProg()) return step_failed();

  const bool agents_on_tcp =
      std::any_of(nodes_.begin(), nodes_.end(), [](const NodeTasks& n) { return !IsUnix(n.agent); });
  if (agents_on_tcp) {
    // Agents on TCP want a token bound to us; they check that we own the job.
    const auto first = std::find_if(nodes_.begin(), nodes_.end(), [](const NodeTasks& n) { return !IsUnix(n.agent); });
    StatusOr<std::string> t = LocalToken(NodeAudience(first->name));
    if (!t.ok()) {
      Emit(err_, "srun: error: " + t.status().message() + "\n");
      return step_failed();
    }
    token_ = std::move(*t);
    token_node_ = first->name;
  }
  const bool tcp = Env("MUSTER_SRUN_IO") == "tcp" || agents_on_tcp;
  if (Status st = Listen(tcp); !st.ok()) {
    Emit(err_, "srun: error: " + st.message() + "\n");
    return step_failed();
  }
  int sp[2] = {-1, -1};
  CatchSignals(sp);
  if (opt_.pty) {
    input_to_ = 0;
  } else if (opt_.input.empty()) {
    input_to_ = -1;
  } else if (const std::optional<int> task = StepStreamTask(opt_.input);
             task && *task < static_cast<int>(tasks_.size())) {
    input_to_ = *task;
  }
  std::optional<RawTerminal> raw;
  if (opt_.pty) raw.emplace();
  LaunchAll(c.job);
  Loop();
  FlushExits();
  if (ctld != nullptr) {
    (void)ctld->StepDone(job_id, step_id_, ExitStatus());
  }
  raw.reset();
  for (int s : kForwarded) signal(s, SIG_DFL);
  if (opt_.pty) signal(SIGWINCH, SIG_DFL);
  g_signal_pipe = -1;
  for (int fd : sp) {
    if (fd >= 0) close(fd);
  }
  return ExitStatus();
}

}  // namespace

int RunCreatedStep(const SrunOptions& opt, int64_t job_id, bool no_allocate, const StepAnswer& created, CtldClient* ctld,
                   std::ostream& out, std::ostream& err) {
  StepSession session(opt, out, err);
  return session.RunStep(job_id, no_allocate, created, ctld);
}

}  // namespace muster
