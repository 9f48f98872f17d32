#include "cli/local_cluster.h"
#include "base/read_file.h"
#include "base/strings.h"
#include "net/json_body.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "proc/stray_processes.h"
#include "wire/agent.h"
#include "config/muster_config.h"
#include "config/slurm_conf.h"
#include "model/hostlist.h"
#include "model/option_engine.h"
#include "net/http.h"
#include "net/key_file.h"
#include "net/tls_certs.h"

namespace muster {

namespace fs = std::filesystem;

namespace {

std::string DefaultDir() {
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr && *home ? home : "/tmp") + "/.muster";
}

// The agents write each running job's batch script into a directory of its own and remove both
// when the job ends. On a disk that is an inode allocated and freed per job (on ext4 without a
// journal, as here, each allocation also steps over every inode freed in the last minutes), so a
// local cluster keeps them in memory: a private directory on /dev/shm (tmpfs), made by mkdtemp
// (nobody can create it first), removed by 'muster down'. "" when there is no such tmpfs.
constexpr long kTmpfsMagic = 0x01021994;
constexpr char kScriptDirPrefix[] = "/dev/shm/muster-";

std::string MakeScriptDir() {
  struct statfs fs_info;
  if (statfs("/dev/shm", &fs_info) != 0 || fs_info.f_type != kTmpfsMagic) return "";
  std::string templ = std::string(kScriptDirPrefix) + "XXXXXX";
  if (mkdtemp(templ.data()) == nullptr) return "";
  chmod(templ.c_str(), 0755);  // jobs of other users reach their scripts (job dirs are 0711)
  return templ;
}

// Removes a script dir made by MakeScriptDir, with what agents that were killed left in it
// (<node>/job<id>/; stopped agents removed theirs).
void RemoveScriptDir(const std::string& dir) {
  struct stat st;
  if (dir.rfind(kScriptDirPrefix, 0) != 0 || lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
      st.st_uid != geteuid()) {
    return;
  }
  std::error_code ec;
  for (const auto& node : fs::directory_iterator(dir, ec)) {
    if (!node.is_directory(ec) || node.is_symlink(ec)) continue;
    RemoveJobScriptDirs(node.path().string());
    // The runs' records the agents keep beside the scripts (ended with the cluster's jobs).
    const fs::path runs = node.path() / "runs";
    struct stat rs;
    if (lstat(runs.c_str(), &rs) == 0 && S_ISDIR(rs.st_mode) && rs.st_uid == geteuid()) fs::remove_all(runs, ec);
    rmdir(node.path().c_str());
  }
  rmdir(dir.c_str());
}

bool Alive(pid_t pid, const std::string& name) {
  if (pid <= 0 || kill(pid, 0) != 0) return false;
  // Guard against a recycled pid: the process must still be ours.
  return ReadFileOrEmpty("/proc/" + std::to_string(pid) + "/cmdline").find(name) != std::string::npos;
}

pid_t ReadPid(const std::string& path) {
  std::ifstream in(path);
  pid_t p = 0;
  in >> p;
  return in ? p : 0;
}

// Starts `argv` detached (own session), output appended to `log`; returns its pid.
pid_t Spawn(const std::vector<std::string>& argv, const std::string& log, std::string* error) {
  std::vector<char*> cargv;
  for (const std::string& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    *error = "cannot open log '" + log + "'";
    return -1;
  }
  pid_t pid = fork();
  if (pid == 0) {
    setsid();
    int in = open("/dev/null", O_RDONLY);
    dup2(in, 0);
    dup2(fd, 1);
    dup2(fd, 2);
    execv(cargv[0], cargv.data());
    _exit(127);
  }
  close(fd);
  if (pid < 0) *error = "fork failed";
  return pid;
}

struct UpArgs {
  int nodes = 2;
  int gpus = 4;
  int cpus = 16;
  std::string memory = "64G";
  std::string dir;
  std::string model = "h100";
  std::string links = "nvswitch";
  std::string cluster_file;  // --cluster: nodes and partitions from this file instead of the options above
  std::string gpu_devices;   // --gpu-devices: the fake GPUs stand on this directory's nvidia<N> devices
  std::string gpu_source = "fake";  // --gpus: fake, or nvml (this host's real GPUs, one node)
  std::string nvml_library;         // --nvml-library: another NVML library (a test's fake one)
  std::string health_check;         // --health-check: the agents' health-check program
  std::string mps = "auto";         // --mps: auto | off | a control program (tests' stand-in)
  int first_job_id = 0;  // 0: not given (the cluster file's FirstJobId=, else 1)
  bool tcp = false;
  std::string rest;  // --rest HOST:PORT: slurmrestd's REST API there, with a JWT key of its own
  std::string state;  // --state: the store (a PostgreSQL URL) instead of state/state.db
  int controllers = 1;  // --controllers: that many, sharing --state (controller.hosts)
};

// Writes `text` into `path`, readable and writable by its owner alone (whatever was there).
Status WritePrivateFile(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return FailedPrecondition("cannot write " + path + ": " + std::strerror(errno));
  Status st = ::fchmod(fd, 0600) == 0 ? Status::Ok() : FailedPrecondition("cannot chmod " + path + ": " + std::strerror(errno));
  for (size_t done = 0; st.ok() && done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) st = FailedPrecondition("cannot write " + path + ": " + std::strerror(errno));
    else done += static_cast<size_t>(n);
  }
  ::close(fd);
  return st;
}

// A TCP port on 127.0.0.1 that is free now (the kernel's pick), or 0.
int FreeLoopbackPort() {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  int port = 0;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  close(fd);
  return port;
}

bool ParseInt(const std::string& v, int lo, int hi, int* out) {
  if (v.empty() || v.size() > 6 || v.find_first_not_of("0123456789") != std::string::npos) return false;
  *out = std::stoi(v);
  return *out >= lo && *out <= hi;
}

const char* kUpUsage =
    "usage: muster up [--nodes N] [--gpus-per-node G] [--cpus-per-node C] [--mem-per-node SIZE]\n"
    "                 [--gpu-model NAME] [--gpu-links nvswitch|pcie|islands:K|dgx1] [--dir DIR] [--tcp]\n"
    "       muster up --cluster FILE [--dir DIR] [--tcp] [--first-job-id N]\n"
    "       muster up --gpus nvml [--nvml-library FILE] [--dir DIR] [--tcp]\n"
    "       (all take [--rest HOST:PORT] [--state postgresql://... [--controllers N]])\n"
    "       (the first two also take [--gpu-devices DEVDIR]; all take [--health-check PROGRAM]\n"
    "       [--mps auto|off|PROGRAM])\n"
    "Starts a local cluster (controller + N node agents with fake GPUs) under DIR\n"
    "(default $HOME/.muster) and returns once every node has registered.\n"
    "--cluster: the nodes, partitions and topology of a cluster file (YAML, or a Slurm site's\n"
    "slurm.conf), one agent per node on this machine, each with the file's GPUs faked.\n"
    "--first-job-id: the first job id of the new cluster (Slurm's FirstJobId; default: the cluster\n"
    "file's FirstJobId=, else 1).\n"
    "--gpu-devices: fake GPU i of each node is DEVDIR's i-th nvidia<N> character device (major\n"
    "195), which the node's jobs may open and other jobs may not (with cgroups, as root): device\n"
    "fencing tried without NVIDIA hardware.\n"
    "--gpus nvml: one node with this host's real GPUs (found through NVML), their devices fenced\n"
    "per job with cgroups (as root); --gpus fake (the default) fakes them. --nvml-library: load\n"
    "this NVML library instead of libnvidia-ml.so.1 (tests' fake one; then --nodes may exceed 1).\n"
    "--health-check PROGRAM: the agents run it every 2 s, as Slurm's HealthCheckProgram: a non-zero\n"
    "exit drains the node (its first output line the reason), a zero exit resumes it.\n"
    "--mps: shared GPUs (--gpu-fraction, --gpu-memory) under NVIDIA MPS where nvidia-cuda-mps-control\n"
    "is found (auto), never (off), or with this control program.\n"
    "--tcp: the controller and the agents also listen on 127.0.0.1 (tokens, as on a multi-host\n"
    "cluster); the controller reaches the agents and the agents the controller over TCP, and the\n"
    "commands do with MUSTER_SERVER=127.0.0.1:PORT (printed). TCP speaks TLS, with a cluster CA\n"
    "and a certificate made in DIR/tls.\n"
    "--rest HOST:PORT: the controller also serves slurmrestd's REST API (/slurm/v0.0.38) there, its\n"
    "JWTs (scontrol token) signed with DIR/state/jwt_hs256.key, made for it.\n"
    "--state URL: the cluster's state in this PostgreSQL database instead of DIR/state/state.db; a\n"
    "password in the URL goes into DIR/state/pgpass (0600, controller.state_password_file), not into\n"
    "muster.yaml, which every user reads.\n"
    "--controllers N: N controllers sharing it (controller.hosts; implies --tcp), each on a port of\n"
    "127.0.0.1 of its own: the first to take the lease leads, the others stand by and take over\n"
    "when it dies (muster.yaml's controller.lease: 3 s); the commands and agents follow the leader.\n";

// A program or library an option names: its absolute path in *out, when it exists and `mode`
// (access(2)'s F_OK, X_OK) holds for it.
bool ExistingFile(const std::string& v, int mode, std::string* out) {
  std::error_code ec;
  *out = fs::absolute(v, ec).string();
  return !v.empty() && !ec && access(out->c_str(), mode) == 0;
}

// Stops the daemons whose pid files lie in `dir` (agents first: they end their jobs), kills the job
// processes that killed agents left, and removes the script directory. Returns the daemons stopped.
int StopCluster(const std::string& dir, std::ostream& out) {
  std::vector<std::pair<std::string, std::string>> pidfiles;  // (file, program)
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string f = e.path().filename().string();
    if (f.rfind("musterd-", 0) == 0 && e.path().extension() == ".pid") pidfiles.emplace_back(e.path().string(), "musterd");
  }
  // Agents first (they end their jobs), then the controllers (the standbys, musterctldN.pid, first:
  // a leader stopped first would hand the cluster to one).
  for (int n = 8; n >= 2; --n) pidfiles.emplace_back(dir + "/musterctld" + std::to_string(n) + ".pid", "musterctld");
  pidfiles.emplace_back(dir + "/musterctld.pid", "musterctld");
  int stopped = 0;
  for (const auto& [file, prog] : pidfiles) {
    pid_t pid = ReadPid(file);
    if (Alive(pid, prog)) {
      kill(pid, SIGTERM);
      for (int t = 0; t < 200 && Alive(pid, prog); ++t) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      if (Alive(pid, prog)) kill(pid, SIGKILL);
      ++stopped;
    }
    fs::remove(file, ec);
  }
  // Jobs of agents that were killed (not stopped) are found by their spool marker.
  int strays = 0;
  for (const auto& e : fs::directory_iterator(dir + "/spool", ec)) strays += KillStrayProcesses(e.path().string());
  if (strays > 0) out << "muster down: killed " << strays << " job processes left by killed agents\n";
  if (StatusOr<MusterConfig> conf = LoadMusterConfig(dir + "/muster.yaml", ConfigReader::kCommand); conf.ok()) {
    RemoveScriptDir(conf->script_dir);
  }
  return stopped;
}

// The last non-empty line of a log file: why a daemon that exited at start-up did.
std::string LastLogLine(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  // The daemons' lines start with their UTC time ("2026-12-05T01:23:45.123Z "): not repeated here.
  if (last.size() > 25 && last[4] == '-' && last[10] == 'T' && last[24] == ' ') last.erase(0, 25);
  return last;
}

// muster up's and muster down's options (Muster's own commands, read like Slurm's).
constexpr OptionSpec kUpOptions[] = {
    {"nodes", 0, OptionArg::kRequired},         {"gpus-per-node", 0, OptionArg::kRequired},
    {"cpus-per-node", 0, OptionArg::kRequired}, {"mem-per-node", 0, OptionArg::kRequired},
    {"gpu-model", 0, OptionArg::kRequired},     {"gpu-links", 0, OptionArg::kRequired},
    {"dir", 0, OptionArg::kRequired},           {"cluster", 0, OptionArg::kRequired},
    {"first-job-id", 0, OptionArg::kRequired},  {"gpu-devices", 0, OptionArg::kRequired},
    {"gpus", 0, OptionArg::kRequired},          {"nvml-library", 0, OptionArg::kRequired},
    {"health-check", 0, OptionArg::kRequired},  {"mps", 0, OptionArg::kRequired},
    {"tcp", 0, OptionArg::kNone},               {"help", 'h', OptionArg::kNone, OptionUse::kMeta},
    {"rest", 0, OptionArg::kRequired},         {"state", 0, OptionArg::kRequired},
    {"controllers", 0, OptionArg::kRequired},
};
constexpr OptionSpec kDownOptions[] = {
    {"dir", 0, OptionArg::kRequired},
    {"help", 'h', OptionArg::kNone, OptionUse::kMeta},
};

}  // namespace

std::string TakePgPassword(std::string* url) {
  const size_t scheme = url->find("://");
  if (scheme == std::string::npos || url->rfind("postgres", 0) != 0) return "";
  std::string password;
  // postgresql://USER:PASSWORD@HOST...: the user stays, the password goes.
  const size_t start = scheme + 3;
  const size_t end = std::min(url->find('/', start), url->find('?', start));
  const std::string authority = url->substr(start, end == std::string::npos ? std::string::npos : end - start);
  if (const size_t at = authority.rfind('@'); at != std::string::npos) {
    if (const size_t colon = authority.find(':'); colon < at) {
      password = PercentDecode(authority.substr(colon + 1, at - colon - 1));
      url->erase(start + colon, at - colon);
    }
  }
  // ...?password=PASSWORD&...: that parameter goes.
  if (const size_t q = url->find('?'); q != std::string::npos) {
    std::string kept;
    std::stringstream params(url->substr(q + 1));
    for (std::string p; std::getline(params, p, '&');) {
      if (p.rfind("password=", 0) == 0) {
        password = PercentDecode(p.substr(9));
      } else if (!p.empty()) {
        kept += (kept.empty() ? "" : "&") + p;
      }
    }
    url->erase(q);
    if (!kept.empty()) *url += "?" + kept;
  }
  return password;
}

std::string PgPassLine(const std::string& password) {
  std::string escaped;
  for (char c : password) {
    if (c == ':' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return "*:*:*:*:" + escaped + "\n";
}

namespace {

// What the cluster's nodes are: from --cluster's file, or the nodes of the options (cluster.yaml).
struct UpNodes {
  std::vector<std::string> names;
  std::string cluster_file = "cluster.yaml";
  std::string cluster_name = "local";
  std::string what;  // the nodes, as the closing message describes them
};

// Reads muster up's options into *a (--nodes given: *nodes_given). The exit code when the command
// ends here (help, a usage error, a bad value), nullopt to go on.
std::optional<int> ParseUpOptions(const std::vector<std::string>& args, UpArgs* a, bool* nodes_given,
                                  std::ostream& out, std::ostream& err) {
  // getopt_long's "+" order: options, then no operand.
  const GetoptStyle style{};
  const auto usage_error = [&](const std::string& message) {
    err << "muster up: " << message << "\n" << kUpUsage;
    return 2;
  };
  StatusOr<ParsedOptions> parsed = Getopt(kUpOptions, args, style);
  if (!parsed.ok()) return usage_error(parsed.status().message());
  if (!parsed->operands.empty()) return usage_error("unexpected argument '" + parsed->operands[0] + "'");
  for (const OptionOccurrence& o : parsed->options) {
    const std::string k = "--" + std::string(o.spec->name), v = o.value.value_or("");
    if (o.spec->use == OptionUse::kMeta) {
      out << kUpUsage;
      return 0;
    }
    if (k == "--tcp") {
      a->tcp = true;
      continue;
    }
    bool ok = true;
    if (k == "--nodes") {
      ok = ParseInt(v, 1, 256, &a->nodes);
      *nodes_given = true;
    }
    else if (k == "--gpus-per-node") ok = ParseInt(v, 0, 64, &a->gpus);
    else if (k == "--cpus-per-node") ok = ParseInt(v, 1, 4096, &a->cpus);
    else if (k == "--mem-per-node") a->memory = v;
    else if (k == "--gpu-model") a->model = v;
    else if (k == "--gpu-links") a->links = v;
    else if (k == "--cluster") a->cluster_file = v;
    else if (k == "--rest") {
      a->rest = v;
      ok = ParseHostPort(v, "--rest").ok();
    }
    else if (k == "--first-job-id") ok = ParseInt(v, 1, 999999, &a->first_job_id);
    else if (k == "--state") {
      a->state = v;
      ok = v.rfind("postgresql://", 0) == 0 || v.rfind("postgres://", 0) == 0;
    }
    else if (k == "--controllers") ok = ParseInt(v, 1, 8, &a->controllers);
    else if (k == "--gpu-devices") a->gpu_devices = v;
    else if (k == "--mps") {
      a->mps = v;
      ok = v == "auto" || v == "off" || ExistingFile(v, X_OK, &a->mps);
    } else if (k == "--health-check") {
      ok = ExistingFile(v, X_OK, &a->health_check);
    } else if (k == "--nvml-library") {
      ok = ExistingFile(v, F_OK, &a->nvml_library);
    } else if (k == "--gpus") {
      ok = v == "nvml" || v == "fake";
      a->gpu_source = v;
    } else a->dir = v;  // --dir
    if (!ok) {
      err << "muster up: invalid value '" << v << "' for " << k << "\n";
      return 2;
    }
  }
  return std::nullopt;
}

// The options taken together: false (the message written) when they do not go together.
bool CheckUpCombination(UpArgs* a, bool nodes_given, std::ostream& err) {
  if (a->gpu_source == "nvml") {
    // This host's GPUs belong to one node: two agents would both hand them out.
    // (A fake NVML library gives every node GPUs of its own: tests may run several.)
    if ((nodes_given && a->nodes > 1 && a->nvml_library.empty()) || !a->cluster_file.empty()) {
      err << "muster up: --gpus nvml runs one node, with this host's GPUs (no --nodes over 1, no --cluster)\n";
      return false;
    }
    if (a->nvml_library.empty()) a->nodes = 1;
  } else if (!a->nvml_library.empty()) {
    err << "muster up: --nvml-library goes with --gpus nvml\n";
    return false;
  }
  if (a->controllers > 1 && a->state.empty()) {
    err << "muster up: --controllers " << a->controllers << " share one state: give it with --state postgresql://...\n";
    return false;
  }
  if (a->controllers > 1) a->tcp = true;
  return true;
}

// The nodes: read from --cluster's file, or made from the options and written into DIR/cluster.yaml.
// False (the message written) when the cluster file cannot be read.
bool SetUpNodes(const UpArgs& a, UpNodes* n, std::ostream& err) {
  std::error_code ec;
  if (!a.cluster_file.empty()) {
    n->cluster_file = fs::absolute(a.cluster_file, ec).lexically_normal().string();
    StatusOr<ClusterConfig> loaded = LoadAnyClusterFile(n->cluster_file);
    if (!loaded.ok()) {
      err << "muster up: " << loaded.status().message() << "\n";
      return false;
    }
    for (const std::string& w : loaded->warnings) err << "muster up: warning: " << w << "\n";
    for (const Node& node : loaded->spec.nodes) n->names.push_back(node.name);
    if (!loaded->name.empty()) n->cluster_name = loaded->name;
    n->what = " (" + CompressHostlist(n->names) + ") from " + n->cluster_file + ".\n";
    return true;
  }
  for (int i = 1; i <= a.nodes; ++i) n->names.push_back("node" + std::to_string(i));
  const std::string nodes = CompressHostlist(n->names);
  n->what = a.gpu_source == "nvml" ? " (" + nodes + ") with this host's GPUs (NVML), partition 'gpu'.\n"
                                   : " (" + nodes + ") x " + std::to_string(a.gpus) + " fake " + a.model +
                                         " GPUs, partition 'gpu'.\n";
  std::ofstream c(a.dir + "/cluster.yaml", std::ios::trunc);
  c << (a.gpu_source == "nvml" ? "# Written by 'muster up --gpus nvml'. The agent reports this host's GPUs (NVML).\n"
                               : "# Written by 'muster up'. Nodes with fake GPUs, all under one leaf switch.\n")
    << "cluster: local\n"
    << "node_types:\n"
    << "  local: {cpus: " << a.cpus << ", memory: " << a.memory << ", gpus: " << a.gpus
    << ", gpu_model: " << a.model << ", gpu_memory: 80G, links: " << (a.gpus > 1 ? a.links : "pcie") << "}\n"
    << "nodes:\n"
    << "  - {names: \"" << nodes << "\", type: local}\n"
    << "topology: |\n"
    << "  SwitchName=leaf1 Nodes=" << nodes << "\n"
    << "partitions:\n"
    << "  - {name: gpu, nodes: \"" << nodes << "\", default: true}\n";
  return true;
}

// DIR/state with the cluster key, the database's password file and the REST API's JWT key.
// False (the message written) on failure.
bool SetUpStateDir(const UpArgs& a, const std::string& state_password, std::ostream& err) {
  // The store (every user's scripts and environments) and the cluster key live in a directory only
  // the cluster's owner may enter; the sockets beside it stay reachable by every user.
  const std::string state_dir = a.dir + "/state";
  if (::mkdir(state_dir.c_str(), 0700) != 0 && errno != EEXIST) {
    err << "muster up: cannot create " << state_dir << ": " << std::strerror(errno) << "\n";
    return false;
  }
  if (::chmod(state_dir.c_str(), 0700) != 0) {
    err << "muster up: cannot make " << state_dir << " private: " << std::strerror(errno) << "\n";
    return false;
  }
  // The cluster key exists before any daemon starts: the agents mint and verify tokens with it
  // from their first moment (musterctld would create it too, but races the agents).
  if (StatusOr<std::string> key = LoadClusterKey(state_dir + "/cluster.key", /*create=*/true); !key.ok()) {
    err << "muster up: " << key.status().message() << "\n";
    return false;
  }
  if (!state_password.empty()) {
    if (Status st = WritePrivateFile(state_dir + "/pgpass", PgPassLine(state_password)); !st.ok()) {
      err << "muster up: " << st.message() << "\n";
      return false;
    }
  }
  if (!a.rest.empty()) {
    if (StatusOr<std::string> key = LoadClusterKey(state_dir + "/jwt_hs256.key", /*create=*/true); !key.ok()) {
      err << "muster up: " << key.status().message() << "\n";
      return false;
    }
  }
  return true;
}

// On TCP, TLS: a cluster CA and one certificate for this host (127.0.0.1, localhost, its name),
// in DIR/tls (readable by all: the commands verify the servers with ca.crt; the keys are 0600).
// False (the message written) on failure.
bool SetUpTls(const std::string& tls_dir, const std::string& cluster_name, std::ostream& err) {
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  std::vector<std::string> names = {"127.0.0.1", "localhost"};
  if (host[0] != '\0' && std::string(host) != "localhost") names.push_back(host);
  Status tls = ::mkdir(tls_dir.c_str(), 0755) != 0 && errno != EEXIST
                   ? FailedPrecondition("cannot create " + tls_dir + ": " + std::strerror(errno))
                   : WriteTlsCa(tls_dir + "/ca.crt", tls_dir + "/ca.key", "muster cluster " + cluster_name + " CA");
  if (tls.ok()) {
    tls = WriteTlsServerCert(tls_dir + "/ca.crt", tls_dir + "/ca.key", tls_dir + "/server.crt",
                             tls_dir + "/server.key", names);
  }
  if (!tls.ok()) {
    err << "muster up: " << tls.message() << "\n";
    return false;
  }
  return true;
}

// "H1, H2, ...": the controllers' 127.0.0.1:PORTs, as muster.yaml and the closing message list them.
std::string HostsList(const std::vector<std::string>& ctld_hosts) {
  std::string hosts_list;
  for (const std::string& h : ctld_hosts) hosts_list += (hosts_list.empty() ? "" : ", ") + h;
  return hosts_list;
}

// DIR/muster.yaml: the configuration every daemon and command of the cluster reads.
void WriteUpConfig(const UpArgs& a, const UpNodes& n, const std::string& state_url, bool has_password,
                   const std::vector<std::string>& ctld_hosts, const std::string& script_dir) {
  const bool root = geteuid() == 0;
  const std::string tls_dir = a.dir + "/tls";
  const std::string ctld_tcp = ctld_hosts.empty() ? "" : ctld_hosts[0];
  std::ofstream m(a.dir + "/muster.yaml", std::ios::trunc);
  m << "# Written by 'muster up'.\n"
    << "cluster: " << n.cluster_name << "\n"
    << "cluster_file: " << n.cluster_file << "\n"
    << "controller:\n"
    << "  socket: run/ctld.sock\n"
    << (a.tcp ? "  listen: " + ctld_tcp + "\n" : "")
    << (a.controllers > 1
            ? "  hosts: [" + HostsList(ctld_hosts) + "]  # the others: musterctld --listen HOST:PORT\n  lease: 3\n"
            : "")
    << "  state: " << (a.state.empty() ? "state/state.db" : state_url) << "\n"
    << (has_password ? "  state_password_file: state/pgpass  # the database's password (0600)\n" : "")
    << "  key_file: state/cluster.key\n"
    << (a.rest.empty() ? "" : "  rest_listen: " + a.rest + "\n  jwt_key: state/jwt_hs256.key\n")
    << "  heartbeat_timeout: 6\n"
    << "  kill_wait: 5\n"
    << (a.first_job_id > 0 ? "  first_job_id: " + std::to_string(a.first_job_id) + "\n" : "")
    << "  admins: [" << getuid() << "]  # the uid that ran 'muster up' (its agents act as it)\n"
    << "  allow_root_jobs: " << (root ? "true" : "false") << "\n"
    << "agent:\n"
    << "  socket_dir: run\n"
    << (a.tcp ? "  listen: 127.0.0.1:0\n" : "")
    << "  spool_dir: spool\n"
    << (script_dir.empty() ? "" : "  script_dir: " + script_dir + "  # removed by 'muster down'\n")
    << "  heartbeat_interval: 1\n"
    << "  gpus: " << a.gpu_source << "\n"
    << (a.nvml_library.empty() ? "" : "  nvml_library: " + a.nvml_library + "\n")
    << (a.gpu_source == "nvml" ? "  gpu_health: {interval: 2, recover_checks: 3}  # checks every 2 s; back after 3 good ones\n"
                               : "")
    << (a.health_check.empty() ? "" : "  health_check: {program: " + a.health_check + ", interval: 2}\n")
    << (a.mps == "auto" ? "" : "  mps: " + a.mps + "\n")
    << "  cgroups: " << (root ? "auto" : "off") << "\n"
    << (a.gpu_devices.empty() ? "" : "  gpu_devices: " + fs::absolute(a.gpu_devices).string() + "\n")
    << (a.tcp ? "tls:  # TCP speaks TLS; the CA and this host's certificate were made by 'muster up'\n"
                "  ca_file: " + tls_dir + "/ca.crt\n  cert_file: " + tls_dir + "/server.crt\n  key_file: " +
                tls_dir + "/server.key\n"
              : "");
}

// The daemons muster up started: the controllers (the first, then the standbys) and the agents.
struct UpDaemons {
  std::vector<pid_t> ctlds;
  std::vector<std::pair<pid_t, std::string>> agents;  // (pid, node)
};

// Starts the controllers and one agent per node, each with its pid file in DIR. False (the message
// written, what had started stopped) when one cannot be started.
bool StartDaemons(const UpArgs& a, const std::string& bin, const std::vector<std::string>& node_names,
                  const std::vector<std::string>& ctld_hosts, UpDaemons* d, std::ostream& err) {
  const std::string conf = a.dir + "/muster.yaml";
  std::string error;
  std::ostringstream quiet;
  pid_t ctld = Spawn({bin + "/musterctld", "--conf", conf}, a.dir + "/log/musterctld.log", &error);
  if (ctld < 0) {
    err << "muster up: cannot start musterctld: " << error << "\n";
    return false;
  }
  std::ofstream(a.dir + "/musterctld.pid") << ctld << "\n";
  // The standbys: musterctld2.pid, ... (the first to take the lease leads, whichever it is).
  d->ctlds = {ctld};
  for (int i = 1; i < a.controllers; ++i) {
    const std::string n = std::to_string(i + 1);
    pid_t p = Spawn({bin + "/musterctld", "--conf", conf, "--listen", ctld_hosts[static_cast<size_t>(i)], "--socket",
                     a.dir + "/run/ctld" + n + ".sock"},
                    a.dir + "/log/musterctld" + n + ".log", &error);
    if (p < 0) {
      err << "muster up: cannot start musterctld " << n << ": " << error << "\n";
      StopCluster(a.dir, quiet);
      return false;
    }
    std::ofstream(a.dir + "/musterctld" + n + ".pid") << p << "\n";
    d->ctlds.push_back(p);
  }
  for (const std::string& node : node_names) {
    pid_t p = Spawn({bin + "/musterd", "--conf", conf, "--node", node, "--end-jobs-on-stop"},
                    a.dir + "/log/musterd-" + node + ".log", &error);
    if (p < 0) {
      err << "muster up: cannot start musterd for " << node << ": " << error << "\n";
      StopCluster(a.dir, quiet);
      return false;
    }
    std::ofstream(a.dir + "/musterd-" + node + ".pid") << p << "\n";
    d->agents.emplace_back(p, node);
  }
  return true;
}

// Waits (30 s at most) until every node's agent says it has registered; returns how many have, or
// -1 when a daemon exited meanwhile (the message written, the cluster stopped).
int WaitForNodes(const std::string& dir, const std::vector<std::string>& node_names, const UpDaemons& d,
                 std::ostream& err) {
  std::ostringstream quiet;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  int registered = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    for (size_t i = 0; i < d.ctlds.size(); ++i) {
      if (waitpid(d.ctlds[i], &status, WNOHANG) != d.ctlds[i]) continue;  // our child: exited (not merely starting)
      const std::string log = dir + "/log/musterctld" + (i == 0 ? "" : std::to_string(i + 1)) + ".log";
      err << "muster up: musterctld exited: " << LastLogLine(log) << "\n  see " << log << "\n";
      StopCluster(dir, quiet);
      return -1;
    }
    for (const auto& [pid, node] : d.agents) {
      if (waitpid(pid, &status, WNOHANG) != pid) continue;
      const std::string log = dir + "/log/musterd-" + node + ".log";
      err << "muster up: musterd for " << node << " exited: " << LastLogLine(log) << "\n  see " << log << "\n";
      StopCluster(dir, quiet);
      return -1;
    }
    // Registered: each agent says so itself. (The controller's node records cannot tell: a
    // cluster started again in the same directory recovers them from its store.)
    registered = 0;
    for (const std::string& node : node_names) {
      StatusOr<std::unique_ptr<HttpClient>> c =
          HttpClient::Connect("unix:" + dir + "/run/musterd-" + node + ".sock", "", 2000);
      if (!c.ok()) continue;
      StatusOr<HttpResponse> r = (*c)->Request("GET", "/v1/ping");
      if (!r.ok() || r->status != 200) continue;
      StatusOr<AgentPing> ping = wire::Decode<AgentPing>(r->body, "the agent's answer");
      registered += ping.ok() && ping->registered;
    }
    if (registered == static_cast<int>(node_names.size())) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return registered;
}

// The closing message: what is up, and how the commands reach it.
void PrintUp(const UpArgs& a, const UpNodes& n, const std::vector<std::string>& ctld_hosts, std::ostream& out) {
  const int want = static_cast<int>(n.names.size());
  const std::string conf = a.dir + "/muster.yaml";
  out << "Muster cluster '" << n.cluster_name << "' is up: " << want << " node" << (want > 1 ? "s" : "") << n.what
      << "  state, logs and sockets: " << a.dir << "\n";
  if (a.controllers > 1) {
    out << "  " << a.controllers << " controllers (" << HostsList(ctld_hosts)
        << ") sharing the PostgreSQL state: one leads, the others stand by; the commands and agents follow the leader\n";
  } else if (a.tcp) {
    out << "  controller and agents on TCP (127.0.0.1); the commands use it with:\n"
        << "  export MUSTER_SERVER=" << (ctld_hosts.empty() ? "" : ctld_hosts[0]) << "\n";
  }
  if (a.dir != DefaultDir()) out << "  export MUSTER_CONF=" << conf << "\n";
  out << "  try: muster sbatch --gres=gpu:1 --wrap 'nvidia-smi -L || env | grep CUDA'; muster squeue; muster sinfo\n"
      << "  stop: muster down" << (a.dir != DefaultDir() ? " --dir " + a.dir : "") << "\n";
}

}  // namespace

int UpMain(const std::vector<std::string>& args, const std::string& self_exe, std::ostream& out, std::ostream& err) {
  UpArgs a;
  a.dir = DefaultDir();
  bool nodes_given = false;
  if (std::optional<int> done = ParseUpOptions(args, &a, &nodes_given, out, err)) return *done;
  if (!CheckUpCombination(&a, nodes_given, err)) return 2;
  // muster.yaml is every user's (the commands read it): a password in the URL goes into a password
  // file only the cluster's owner reads (state/pgpass, controller.state_password_file), and the URL
  // into muster.yaml without it.
  std::string state_url = a.state;
  const std::string state_password = TakePgPassword(&state_url);
  std::error_code ec;
  a.dir = fs::absolute(a.dir, ec).lexically_normal().string();
  if (Alive(ReadPid(a.dir + "/musterctld.pid"), "musterctld")) {
    err << "muster up: a cluster is already running in " << a.dir << " (run 'muster down' first)\n";
    return 1;
  }
  fs::create_directories(a.dir + "/log", ec);
  fs::create_directories(a.dir + "/run", ec);
  if (ec) {
    err << "muster up: cannot create " << a.dir << ": " << ec.message() << "\n";
    return 1;
  }
  UpNodes nodes;
  if (!SetUpNodes(a, &nodes, err)) return 1;
  if (!SetUpStateDir(a, state_password, err)) return 1;
  if (a.tcp && !SetUpTls(a.dir + "/tls", nodes.cluster_name, err)) return 1;
  std::vector<std::string> ctld_hosts;  // each controller's 127.0.0.1:PORT
  for (int i = 0; a.tcp && i < a.controllers; ++i) {
    const int port = FreeLoopbackPort();
    if (port == 0) {
      err << "muster up: cannot find a free TCP port on 127.0.0.1 for the controller\n";
      return 1;
    }
    ctld_hosts.push_back("127.0.0.1:" + std::to_string(port));
  }
  WriteUpConfig(a, nodes, state_url, !state_password.empty(), ctld_hosts, MakeScriptDir());
  UpDaemons daemons;
  if (!StartDaemons(a, fs::path(self_exe).parent_path().string(), nodes.names, ctld_hosts, &daemons, err)) return 1;
  const int registered = WaitForNodes(a.dir, nodes.names, daemons, err);
  if (registered < 0) return 1;
  const int want = static_cast<int>(nodes.names.size());
  if (registered != want) {
    std::ostringstream quiet;
    err << "muster up: only " << registered << " of " << want << " nodes registered within 30 s; see "
        << a.dir << "/log/ (stopped what had started)\n";
    StopCluster(a.dir, quiet);
    return 1;
  }
  PrintUp(a, nodes, ctld_hosts, out);
  return 0;
}

int DownMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::string dir = DefaultDir();
  StatusOr<ParsedOptions> parsed = Getopt(kDownOptions, args, GetoptStyle{});
  if (parsed.ok() && !parsed->operands.empty()) {
    parsed = InvalidArgument("unexpected argument '" + parsed->operands[0] + "'");
  }
  if (!parsed.ok()) {
    err << "muster down: " << parsed.status().message() << "\n";
    return 2;
  }
  for (const OptionOccurrence& o : parsed->options) {
    if (o.spec->use == OptionUse::kMeta) {
      out << "usage: muster down [--dir DIR]\nStops the local cluster started by 'muster up' in DIR.\n";
      return 0;
    }
    dir = *o.value;  // --dir
  }
  const int stopped = StopCluster(dir, out);
  if (stopped == 0) {
    out << "muster down: no cluster was running in " << dir << "\n";
    return 0;
  }
  out << "muster down: stopped " << stopped << " daemon" << (stopped > 1 ? "s" : "") << " in " << dir << "\n";
  return 0;
}

}  // namespace muster
