// salloc: an interactive allocation. Submits a job without a batch script (interactive), waits
// until it runs (Slurm's messages: "Pending job allocation N", "job N queued and waiting for
// resources", "job N has been allocated resources", "Granted job allocation N"), then runs the
// command given (else $SHELL, else /bin/sh) here with the job's SLURM_* variables, so that srun
// inside it starts steps on the allocation; when the command exits, the allocation ends
// ("Relinquishing job allocation N") and salloc exits with the command's status. --no-shell
// leaves the allocation running and returns at once (scancel ends it).
//
// Options: sbatch's resource and job options (-N -n -c -G -t -p -J -A -q --mem --gres ...),
// parsed by the same parser, plus --no-shell. Ctrl-C while waiting revokes the request.
#include "cli/salloc_command.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <map>
#include <thread>

#include "proc/job_env.h"
#include "cli/command_args.h"
#include "cli/command_help.h"
#include "cli/ctld_client.h"
#include "cli/sbatch_args.h"
#include "model/record_json.h"

extern char** environ;

namespace muster {
namespace {


volatile sig_atomic_t g_interrupted = 0;
void OnInterrupt(int) { g_interrupted = 1; }

constexpr char kUsage[] =  // Slurm 22.05's, word for word
    "Usage: salloc [-N numnodes|[min nodes]-[max nodes]] [-n num-processors]\n"
    "              [-c cpus-per-node] [-r n] [-p partition] [--hold] [-t minutes]\n"
    "              [--immediate[=secs]] [--no-kill] [--overcommit] [-D path]\n"
    "              [--oversubscribe] [-J jobname]\n"
    "              [--verbose] [--gid=group] [--uid=user] [--licenses=names]\n"
    "              [--clusters=cluster_names]\n"
    "              [--contiguous] [--mincpus=n] [--mem=MB] [--tmp=MB] [-C list]\n"
    "              [--account=name] [--dependency=type:jobid[+time]] [--comment=name]\n"
    "              [--mail-type=type] [--mail-user=user] [--nice[=value]]\n"
    "              [--bell] [--no-bell] [--kill-command[=signal]] [--spread-job]\n"
    "              [--nodefile=file] [--nodelist=hosts] [--exclude=hosts]\n"
    "              [--network=type] [--mem-per-cpu=MB] [--qos=qos]\n"
    "              [--mem-bind=...] [--reservation=name] [--mcs-label=mcs]\n"
    "              [--time-min=minutes] [--gres=list] [--gres-flags=opts]\n"
    "              [--cpu-freq=min[-max[:gov]]] [--power=flags] [--profile=...]\n"
    "              [--switches=max-switches[@max-time-to-wait]]\n"
    "              [--core-spec=cores] [--thread-spec=threads] [--reboot]\n"
    "              [--bb=burst_buffer_spec] [--bbf=burst_buffer_file]\n"
    "              [--delay-boot=mins] [--use-min-nodes]\n"
    "              [--cpus-per-gpu=n] [--gpus=n] [--gpu-bind=...] [--gpu-freq=...]\n"
    "              [--gpus-per-node=n] [--gpus-per-socket=n] [--gpus-per-task=n]\n"
    "              [--mem-per-gpu=MB]\n"
    "              [command [args...]]\n";

constexpr char kHelp[] =
    "Usage: salloc [OPTIONS(0)...] [command [args...]]\n"
    "Allocates resources, runs the command (default: your shell) with the allocation's SLURM_*\n"
    "variables (srun inside it runs steps on the allocation), and releases the allocation when the\n"
    "command exits.\n"
    "  -N, --nodes=N               number of nodes\n"
    "  -n, --ntasks=N              number of tasks\n"
    "  -c, --cpus-per-task=N       CPUs per task\n"
    "  -G, --gpus=N                GPUs for the job; --gres=gpu:N per node, --gpus-per-node, --gpus-per-task\n"
    "      --mem=SIZE              memory per node (--mem-per-cpu, --mem-per-gpu)\n"
    "  -p, --partition=NAME        partition\n"
    "  -t, --time=TIME             time limit\n"
    "  -J, --job-name=NAME         job name (default: the command's name, or \"interactive\")\n"
    "  -A, --account=NAME          account;  -q, --qos=NAME  quality of service\n"
    "  -w, --nodelist=HOSTS        these nodes;  -x, --exclude=HOSTS  not these\n"
    "      --no-shell              allocate and return; the allocation stays until scancel\n"
    "  -I, --immediate[=secs]      give up unless the allocation is granted within secs\n"
    "  -h, --help                  this help;  --usage  brief usage;  -V, --version  version\n";

// What the command inside the allocation sees: Slurm's job variables, not a node's or a step's.
bool KeptForTheShell(const std::string& kv) {
  const std::string key = kv.substr(0, kv.find('='));
  if (key.rfind("SLURMD_", 0) == 0 || key.rfind("SLURM_STEP", 0) == 0 || key.rfind("SLURM_TOPOLOGY", 0) == 0) return false;
  static const char* kNodeLocal[] = {"SLURM_PROCID", "SLURM_LOCALID", "SLURM_NODEID", "SLURM_TASK_PID",
                                     "SLURM_CPUS_ON_NODE", "SLURM_GPUS_ON_NODE", "CUDA_VISIBLE_DEVICES",
                                     "GPU_DEVICE_ORDINAL", "SLURM_PRIO_PROCESS"};
  for (const char* k : kNodeLocal) {
    if (key == k) return false;
  }
  return key.rfind("SLURM_", 0) == 0;
}

int RunCommand(const std::vector<std::string>& command, const std::vector<std::string>& job_env) {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string kv = *e;
    env[kv.substr(0, kv.find('='))] = kv;
  }
  for (const std::string& kv : job_env) env[kv.substr(0, kv.find('='))] = kv;
  std::vector<std::string> flat;
  for (auto& [k, kv] : env) flat.push_back(kv);
  std::vector<char*> envp, argv;
  for (std::string& kv : flat) envp.push_back(kv.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = command;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  // As a shell does: the terminal's interrupts are the command's; salloc waits for it.
  signal(SIGINT, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);
  const pid_t pid = fork();
  if (pid == 0) {
    signal(SIGINT, SIG_DFL);
    signal(SIGQUIT, SIG_DFL);
    execvpe(argv[0], argv.data(), envp.data());
    std::fprintf(stderr, "salloc: error: %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  if (pid < 0) return 1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
}

}  // namespace

StatusOr<JobRecord> AwaitAllocation(CtldClient& c, int64_t id, const char* cmd, std::ostream& err,
                                    int immediate_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(std::max(immediate_s, 1));
  const std::string sid = std::to_string(id);
  g_interrupted = 0;
  auto old_int = signal(SIGINT, OnInterrupt);
  auto old_term = signal(SIGTERM, OnInterrupt);
  auto restore = [&] {
    signal(SIGINT, old_int);
    signal(SIGTERM, old_term);
  };
  bool queued = false;
  for (int polls = 0;; ++polls) {
    if (g_interrupted) {
      (void)c.Cancel(id);
      restore();
      err << cmd << ": Job allocation " << sid << " has been revoked.\n";
      return FailedPrecondition("job allocation revoked");
    }
    StatusOr<JobRecord> rec = c.Job(id);
    if (!rec.ok()) {
      restore();
      err << cmd << ": error: " << rec.status().message() << "\n";
      return rec.status();
    }
    if (rec->state == JobState::kRunning) {
      restore();
      if (queued) err << cmd << ": job " << sid << " has been allocated resources\n";
      return rec;
    }
    if (IsFinished(rec->state) || rec->state == JobState::kCompleting) {
      restore();
      err << cmd << ": Job allocation " << sid << " has been revoked.\n";
      return FailedPrecondition("job allocation revoked");
    }
    if (immediate_s >= 0 && std::chrono::steady_clock::now() >= deadline) {
      (void)c.Cancel(id);
      restore();
      err << cmd << ": error: Unable to allocate resources: Job can not start immediately\n";
      return FailedPrecondition("job can not start immediately");
    }
    if (!queued && polls >= 2 && immediate_s < 0) {
      err << cmd << ": job " << sid << " queued and waiting for resources\n";
      queued = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(polls < 20 ? 50 : 250));
  }
}

namespace {

// salloc's own options, and those of Slurm 22.05's salloc that sbatch lacks; the rest are sbatch's.
constexpr OptionSpec kSallocOptions[] = {
    {"bell", 0, OptionArg::kNone, OptionUse::kIgnored, 0, nullptr, "no effect: Muster never rings the bell"},
    {"immediate", 'I', OptionArg::kOptional, OptionUse::kOwn},
    {"kill-command", 'K', OptionArg::kOptional, OptionUse::kUnsupported, 0, nullptr,
     "not implemented: salloc waits for its command to exit, then ends the allocation"},
    {"no-bell", 0, OptionArg::kNone, OptionUse::kIgnored, 0, nullptr, "no effect: Muster never rings the bell"},
    {"no-shell", 0, OptionArg::kNone, OptionUse::kOwn},
};

}  // namespace

OptionTable SallocOptionTable() { return kSallocOptions; }

namespace {

// The row of a word of salloc's own table ("--no-shell", "--bell", "-K9"); nullptr: sbatch's.
const OptionSpec* SallocOwn(const std::string& a) {
  if (a.size() >= 2 && a[0] == '-' && a[1] != '-') {
    for (const OptionSpec& o : kSallocOptions) {
      if (o.short_name != 0 && a[1] == o.short_name && (a.size() == 2 || o.arg != OptionArg::kNone)) return &o;
    }
    return nullptr;
  }
  if (!a.starts_with("--")) return nullptr;
  const std::string name = a.substr(2, a.find('=') - 2);
  for (const OptionSpec& o : kSallocOptions) {
    if (name == o.name) return &o;
  }
  return nullptr;
}

bool IsSallocOwn(const std::string& a) {
  return SallocOwn(a) != nullptr && a.rfind("-I-", 0) != 0 && a.rfind("-K-", 0) != 0;
}

// salloc's own options among args[0, options_end): --no-shell, -I/--immediate[=secs]. 0, or the
// exit code after the error on err.
int ReadSallocOwn(const std::vector<std::string>& args, size_t options_end, std::ostream& err, bool* no_shell,
                  int* immediate) {
  for (size_t i = 0; i < options_end; ++i) {
    const std::string& a = args[i];
    if (a == "--") break;
    if (!IsSallocOwn(a)) continue;
    const OptionSpec* o = SallocOwn(a);
    if (o->use == OptionUse::kIgnored) continue;
    if (o->use == OptionUse::kUnsupported) {
      err << "salloc: error: --" << o->name << " is not supported by Muster\n";
      return 1;
    }
    if (a == "--no-shell") {
      *no_shell = true;
      continue;
    }
    const std::string v = a[1] == 'I' ? a.substr(2) : a.size() > 11 ? a.substr(12) : "";
    if (!v.empty() && (v.size() > 6 || v.find_first_not_of("0123456789") != std::string::npos)) {
      err << "salloc: error: Invalid numeric value \"" << v << "\" for --immediate.\n";
      return 255;
    }
    *immediate = v.empty() ? 0 : std::stoi(v);
  }
  return 0;
}

// The job's name: -J's, else the command's base name ("interactive" for the shell).
std::string AllocationName(const std::vector<std::string>& options, const std::vector<std::string>& command,
                           const std::string& parsed_name) {
  bool named = false;
  for (const std::string& o : options) {
    named = named || o == "-J" || o.rfind("-J", 0) == 0 || o.rfind("--job-name", 0) == 0 || o.rfind("--job", 0) == 0;
  }
  std::string name = parsed_name;
  if (!named) {
    name = "interactive";
    if (!command.empty()) name = command.front().substr(command.front().rfind('/') + 1);
  }
  return name;
}

JobSpec AllocationRequest(const SbatchRequest& req, const std::string& name) {
  JobSpec submit;
  submit.resources = req.request;
  submit.submit_args = req.resource_args;
  submit.name = name;
  submit.interactive = true;
  submit.workdir = req.workdir;
  submit.account = req.account;
  submit.qos = req.qos;
  submit.nice = req.nice;
  submit.options = req.options;
  submit.requeue = false;
  submit.submit_host = LocalHostname();
  submit.submit_sid = static_cast<int64_t>(getsid(0));
  return submit;
}

}  // namespace

int SallocMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  for (const std::string& a : args) {
    if (a == "--") break;
    if (a == "-V" || a == "--version") return out << "muster " << kMusterVersion << " (salloc)\n", 0;
    if (a == "--usage") return out << kUsage, 0;
    if (a == "-h" || a == "--help") return out << kHelp, 0;
  }
  // salloc's own options (--no-shell, -I), then sbatch's parser for the rest. Where the options
  // end is found without salloc's own ones; those after that point belong to the command.
  std::vector<std::string> rest;
  std::vector<size_t> origin;  // index in args of each entry of rest
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") {
      for (size_t k = i; k < args.size(); ++k) rest.push_back(args[k]), origin.push_back(k);
      break;
    }
    if (!IsSallocOwn(args[i])) rest.push_back(args[i]), origin.push_back(i);
  }
  StatusOr<size_t> first = SbatchFirstOperand(rest, "salloc");
  if (!first.ok()) {
    err << first.status().message() << "\n";
    return 1;
  }
  const size_t options_end = *first < origin.size() ? origin[*first] : args.size();
  if (*first < rest.size() && rest[*first] == ":") {
    // Slurm's heterogeneous allocation ("salloc -n1 : -n2 cmd"): ':' would otherwise be run as
    // the command (the shell's no-op).
    err << "salloc: error: heterogeneous allocations (':' between components) are not supported by Muster; "
           "submit a heterogeneous job with sbatch\n";
    return 1;
  }
  bool no_shell = false;
  int immediate = -1;  // -I/--immediate[=secs]
  if (const int rc = ReadSallocOwn(args, options_end, err, &no_shell, &immediate); rc != 0) return rc;
  // The command keeps everything from its first word on, salloc's option names included.
  rest.resize(std::min(rest.size(), static_cast<size_t>(*first)));
  rest.insert(rest.end(), args.begin() + static_cast<long>(options_end), args.end());
  std::vector<std::string> options(rest.begin(), rest.begin() + static_cast<long>(*first));
  std::vector<std::string> command(rest.begin() + static_cast<long>(*first), rest.end());
  if (!command.empty() && command.front() == "--") command.erase(command.begin());
  if (!options.empty() && options.back() == "--") options.pop_back();
  std::vector<std::string> parse = options;
  parse.insert(parse.end(), {"--wrap", "true"});
  char cwd[4096] = {0};
  if (getcwd(cwd, sizeof cwd) == nullptr) std::strcpy(cwd, "/");
  StatusOr<SbatchRequest> req = ParseSbatchArgs(parse, cwd, nullptr);
  if (!req.ok()) {
    CommandError e = SbatchError(req.status());
    std::string m = e.stderr_text;
    for (size_t p = m.find("sbatch"); p != std::string::npos; p = m.find("sbatch", p + 6)) m.replace(p, 6, "salloc");
    err << m;
    return 1;
  }
  const std::string name = AllocationName(options, command, req->name);
  StatusOr<std::unique_ptr<CtldClient>> c = CtldClient::Connect();
  if (!c.ok()) {
    err << "salloc: error: Job submit/allocate failed: " << c.status().message() << "\n";
    return 1;
  }
  JobSpec submit = AllocationRequest(*req, name);
  if (Status st = SetDependency(submit, req->dependency); !st.ok()) {
    err << "salloc: error: Job submit/allocate failed: " << st.message() << "\n";
    return 1;
  }
  StatusOr<int64_t> r = (*c)->Submit(submit);
  if (!r.ok()) {
    if (!(*c)->user_msg().empty()) err << "salloc: error: " << (*c)->user_msg() << "\n";
    err << "salloc: error: Job submit/allocate failed: " << r.status().message() << "\n";
    return 1;
  }
  const int64_t id = *r;
  const std::string sid = std::to_string(id);
  err << "salloc: Pending job allocation " << sid << "\n";
  StatusOr<JobRecord> job = AwaitAllocation(**c, id, "salloc", err, immediate);
  if (!job.ok()) return 1;
  err << "salloc: Granted job allocation " << sid << "\n";
  if (no_shell) return 0;
  if (command.empty()) {
    const char* shell = std::getenv("SHELL");
    command = {shell != nullptr && *shell ? shell : "/bin/sh"};
  }
  std::vector<std::string> env;
  for (const std::string& kv : BuildJobEnvironment(*job, job->batch_host, TaskPlacement{}, (*c)->cluster_name())) {
    if (KeptForTheShell(kv)) env.push_back(kv);
  }
  const int rc = RunCommand(command, env);
  err << "salloc: Relinquishing job allocation " << sid << "\n";
  Status done = (*c)->Complete(id, rc);
  if (!done.ok()) err << "salloc: error: ending the allocation: " << done.message() << "\n";
  return rc;
}

}  // namespace muster
