#include "cli/commands.h"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <thread>
#include <chrono>
#include <sstream>

#include "base/clock.h"
#include "cli/command_args.h"
#include "cli/command_help.h"
#include "cli/ctld_client.h"
#include "cli/sbatch_args.h"
#include "report/scontrol_format.h"
#include "report/sinfo_format.h"
#include "report/slurm_format.h"
#include "report/squeue_format.h"
#include "model/hostlist.h"
#include "model/job_list_json.h"
#include "base/pretty_json.h"
#include "model/record_json.h"
#include "model/slurm_time.h"

extern char** environ;

namespace muster {


namespace {

int64_t Now() { return SystemClock().NowSeconds(); }


}  // namespace

namespace {

// sbatch --wait: polls until the job, or every task of an array, has ended; returns the highest
// exit code (1 for a job killed by a signal), as Slurm's sbatch does.
int WaitForJob(CtldClient& c, int64_t id, std::ostream& err) {
  int delay_ms = 250;
  while (true) {
    StatusOr<std::vector<JobRecord>> jobs = c.AccountingJobs("ids=" + std::to_string(id));
    if (jobs.ok() && jobs->empty()) {
      err << "sbatch: error: Job " << id << " no longer found and exit code not found\n";
      return 1;
    }
    if (jobs.ok()) {
      bool done = true;
      int rc = 0;
      for (const JobRecord& j : *jobs) {
        if (!IsFinished(j.state)) {
          done = false;
          break;
        }
        rc = std::max(rc, j.exit_signal > 0 ? 1 : j.exit_code);
      }
      if (done) return rc;
    } else {
      err << "sbatch: error: Currently unable to load job state information, retrying: " << jobs.status().message()
          << "\n";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    delay_ms = std::min(delay_ms * 2, 2000);
  }
}

}  // namespace

int SbatchMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  char cwd[4096] = {0};
  if (getcwd(cwd, sizeof cwd) == nullptr) std::strcpy(cwd, "/");
  auto reader = [](const std::string& path) -> StatusOr<std::string> {
    std::ifstream in(path.empty() ? "/dev/stdin" : path, std::ios::binary);
    if (!in) return NotFound("Unable to open file " + path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  // SBATCH_* variables first: the command line overrides them, they override #SBATCH directives.
  std::vector<std::string> all_args = SbatchEnvironmentArgs([](const char* name) { return std::getenv(name); });
  all_args.insert(all_args.end(), args.begin(), args.end());
  StatusOr<SbatchRequest> req = ParseSbatchArgs(all_args, cwd, reader);
  if (!req.ok()) {
    CommandError e = SbatchError(req.status());
    err << e.stderr_text;
    return e.exit_code;
  }
  if (req->help) return out << SbatchHelp(), 0;
  if (req->usage) return out << SbatchUsage(), 0;
  if (req->version) return out << "muster " << kMusterVersion << " (sbatch)\n", 0;
  int64_t begin_time = 0;
  if (!req->begin.empty()) {
    StatusOr<int64_t> t = ParseSlurmTime(req->begin, Now(), /*roll_forward=*/true);
    if (!t.ok()) {
      err << "sbatch: error: Invalid --begin specification\n";  // Slurm's words (exit -1)
      return 255;
    }
    begin_time = *t;
  }
  SubmitRequest submit;
  submit.resource_args = req->resource_args;
  submit.name = req->name;
  submit.script = req->script;
  submit.script_args = req->script_args;
  submit.workdir = req->workdir;
  submit.environment = SubmitEnvironment(req->export_mode);
  submit.stdout_pattern = req->output;
  submit.stderr_pattern = req->error;
  submit.stdin_path = req->input;
  submit.account = req->account;
  submit.qos = req->qos;
  submit.nice = req->nice;
  submit.hold = req->hold;
  submit.requeue = req->requeue;
  submit.dependency = req->dependency;
  submit.comment = req->comment;
  submit.array = req->array;
  submit.begin_time = begin_time;
  submit.warn_signal = req->signal;
  submit.warn_time_s = req->signal_time_s;
  submit.warn_batch_only = req->signal_batch_only;
  submit.submit_host = LocalHostname();
  submit.submit_sid = static_cast<int64_t>(getsid(0));
  StatusOr<std::unique_ptr<CtldClient>> c = CtldClient::Connect();
  if (!c.ok()) {
    err << "sbatch: error: Batch job submission failed: " << c.status().message() << "\n";
    return 1;
  }
  if (req->test_only) {
    // Slurm's words: "sbatch: Job 7 to start at 2026-12-03T11:04:24 using 2 processors on nodes
    // n[1-2] in partition gpu", or "allocation failure: <why>" (exit 1).
    StatusOr<WillRun> w = (*c)->TestOnly(submit);
    if (!w.ok()) {
      err << "allocation failure: " << w.status().message() << "\n";
      return 1;
    }
    err << "sbatch: Job " << w->job_id << " to start at "
        << (w->start_time > 0 ? FormatSlurmTime(w->start_time) : std::string("Unknown")) << " using " << w->cpus
        << " processors on nodes " << (w->start_time > 0 ? w->nodes : std::string("(unknown)")) << " in partition "
        << w->partition << "\n";
    return 0;
  }
  StatusOr<int64_t> r = (*c)->Submit(submit);
  if (!r.ok()) {
    if (r.status().message() == "Invalid partition name specified") {
      err << "sbatch: error: invalid partition specified: " << req->request.partition << "\n";
    }
    if (!(*c)->user_msg().empty()) err << "sbatch: error: " << (*c)->user_msg() << "\n";
    err << "sbatch: error: Batch job submission failed: " << r.status().message() << "\n";
    return 1;
  }
  const int64_t id = *r;
  if (req->parsable) {
    out << id << "\n";
  } else {
    out << "Submitted batch job " << id << "\n";
  }
  out.flush();
  return req->wait ? WaitForJob(**c, id, err) : 0;
}

int SqueueMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (int rc = AnswerMetaOption("squeue", args, out); rc >= 0) return rc;
  SqueueOptions opt;
  std::set<std::string> users, parts, states, accounts, names;
  std::set<int64_t> ids;
  bool json_out = false, long_fmt = false, start = false, steps = false;
  std::set<std::string> step_ids;  // -s/--steps=LIST: "12.0", "12" (every step of job 12)
  std::string format, fields;
  // The default layouts from the environment, as Slurm's squeue reads them; options override.
  if (const char* f = std::getenv("SQUEUE_FORMAT"); f != nullptr && *f) format = f;
  if (const char* f = std::getenv("SQUEUE_FORMAT2"); f != nullptr && *f) fields = f;
  if (const char* f = std::getenv("SQUEUE_SORT"); f != nullptr && *f) opt.sort_keys = f;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string v;
    if (a == "-l" || a == "--long") {
      long_fmt = true;
    } else if (a == "-h" || a == "--noheader") {
      opt.no_header = true;
    } else if (a == "--me") {
      users.insert(std::to_string(getuid()));  // the selection takes names and numeric uids alike
    } else if (a == "--json") {
      json_out = true;
    } else if (a == "--start") {
      start = true;
    } else if (a == "-r" || a == "--array") {
      opt.expand_arrays = true;
    } else if (a == "-s" || a == "--steps" || a.rfind("--steps=", 0) == 0 || (a.rfind("-s", 0) == 0 && a.size() > 2)) {
      steps = true;  // an optional value, attached only ("-s12.0", "--steps=12.0,13")
      for (auto& s : Split(a[1] == 's' ? a.substr(2) : a.size() > 7 ? a.substr(8) : "", ',')) step_ids.insert(s);
    } else if (TakeValue(args, i, "-A", "--account", &v)) {
      for (auto& s : Split(v, ',')) accounts.insert(s);
    } else if (TakeValue(args, i, "-n", "--name", &v)) {
      for (auto& s : Split(v, ',')) names.insert(s);
    } else if (TakeValue(args, i, "-S", "--sort", &v)) {
      opt.sort_keys = v;
    } else if (TakeValue(args, i, "-O", "--Format", &v)) {
      fields = v;
      format.clear();
    } else if (TakeValue(args, i, "-u", "--user", &v)) {
      // The controller checks the names against its user database ("Invalid user: x").
      for (auto& u : Split(v, ',')) users.insert(u);
    } else if (TakeValue(args, i, "-j", "--jobs", &v)) {
      for (auto& s : Split(v, ',')) {
        if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) {
          err << "squeue: error: Invalid job id: " << s << "\n";
          return 1;
        }
        ids.insert(std::stoll(s));
      }
    } else if (TakeValue(args, i, "-t", "--states", &v)) {
      for (auto& s : Split(v, ',')) {
        std::string up = s;
        for (char& ch : up) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        if (up == "ALL") {
          states.insert("ALL");
          continue;
        }
        StatusOr<JobState> st = ParseJobState(up);
        if (!st.ok()) {
          err << "squeue: error: Invalid job state specified: " << s << "\n"
              << "squeue: error: Valid job states include: PENDING,RUNNING,SUSPENDED,COMPLETED,CANCELLED,FAILED,"
                 "TIMEOUT,NODE_FAIL,PREEMPTED,BOOT_FAIL,DEADLINE,OUT_OF_MEMORY,COMPLETING\n\n";
          return 1;
        }
        states.insert(JobStateName(*st));
      }
    } else if (TakeValue(args, i, "-p", "--partition", &v)) {
      for (auto& s : Split(v, ',')) parts.insert(s);
    } else if (TakeValue(args, i, "-o", "--format", &v)) {
      format = v;
      fields.clear();
    } else {
      err << "squeue: unrecognized option '" << a << "'\nTry \"squeue --help\" for more information\n";
      return 1;
    }
  }
  // --start: pending jobs with their expected start (backfill's reservation), as Slurm lists them.
  if (start && states.empty()) states.insert(JobStateName(JobState::kPending));
  SqueueSelection selection{ids, users, parts, accounts, names, states};
  if (start) opt.format = "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R";
  if (long_fmt) {
    SqueueOptions l = SqueueLongOptions();
    l.no_header = opt.no_header;
    opt = l;
  }
  if (!format.empty()) opt.format = format;
  if (!fields.empty()) {
    StatusOr<std::string> f = SqueueFormatFromFields(fields);
    if (!f.ok()) {
      err << "squeue: error: " << f.status().message() << "\n";
      return 1;
    }
    opt.format = *f;
  }
  StatusOr<std::unique_ptr<CtldClient>> c = CtldClient::Connect();
  if (!c.ok()) return ConnectError("squeue", c.status(), err);
  if (steps && !json_out) {
    StatusOr<std::vector<JobRecord>> jobs = (*c)->Jobs(SqueueSelectionQuery(selection));
    if (!jobs.ok()) return ConnectError("squeue", jobs.status(), err);
    std::erase_if(*jobs, [&](const JobRecord& j) { return !selection.Matches(j); });
    StatusOr<std::vector<StepRecord>> listed = (*c)->Steps();
    if (!listed.ok()) return ConnectError("squeue", listed.status(), err);
    std::vector<StepRecord> all = std::move(*listed);
    for (StepRecord& s : BatchSteps(*jobs)) all.push_back(std::move(s));
    if (!step_ids.empty()) {
      std::erase_if(all, [&](const StepRecord& s) {
        const std::string job = std::to_string(s.job_id);
        return !step_ids.count(job) &&
               !step_ids.count(job + "." + (s.step_id == kBatchStepId ? "batch" : std::to_string(s.step_id)));
      });
    }
    return EmitOutput(FormatSqueueSteps(all, *jobs, format.empty() ? kSqueueStepsFormat : format, !opt.no_header,
                                        long_fmt, Now()),
                      out, err);
  }
  if (!json_out) {
    // The controller selects and renders the table (report/squeue_format.h).
    StatusOr<std::string> text = (*c)->RenderedJobs(SqueueQuery(selection, opt));
    if (!text.ok() && text.status().code() == StatusCode::kNotFound) return EmitOutput(InvalidJobIdError(), out, err);
    if (!text.ok() && text.status().code() == StatusCode::kInvalidArgument) {
      err << "squeue: error: " << text.status().message() << "\n";
      return 1;
    }
    if (!text.ok()) return ConnectError("squeue", text.status(), err);
    out << *text;
    return 0;
  }
  StatusOr<std::vector<JobRecord>> jobs = (*c)->Jobs(SqueueSelectionQuery(selection));
  if (!jobs.ok() && jobs.status().code() == StatusCode::kInvalidArgument) {
    err << "squeue: error: " << jobs.status().message() << "\n";
    return 1;
  }
  if (!jobs.ok()) return ConnectError("squeue", jobs.status(), err);
  if (!ids.empty() && jobs->empty() && states.empty()) return EmitOutput(InvalidJobIdError(), out, err);
  std::erase_if(*jobs, [&](const JobRecord& j) { return !selection.Matches(j); });
  out << JobRecordsPrettyJson(*jobs) << "\n";
  return 0;
}

int SinfoMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (int rc = AnswerMetaOption("sinfo", args, out); rc >= 0) return rc;
  SinfoOptions opt;
  std::set<std::string> parts;
  bool json_out = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string v;
    if (a == "-N" || a == "--Node") {
      opt.node_oriented = true;
    } else if (a == "-l" || a == "--long") {
      opt.long_output = true;
    } else if (a == "-Nl" || a == "-lN") {
      opt.node_oriented = opt.long_output = true;
    } else if (a == "-h" || a == "--noheader") {
      opt.no_header = true;
    } else if (a == "-s" || a == "--summarize") {
      opt.summarize = true;
    } else if (a == "-R" || a == "--list-reasons") {
      opt.reasons = true;
    } else if (a == "--json") {
      json_out = true;
    } else if (TakeValue(args, i, "-t", "--states", &v)) {
      for (const std::string& st : Split(v, ',')) {
        if (Status ok = CheckSinfoState(st); !ok.ok()) {
          err << "sinfo: error: " << ok.message() << "\n";
          return 1;
        }
        opt.states.push_back(st);
      }
    } else if (TakeValue(args, i, "-n", "--nodes", &v)) {
      StatusOr<std::vector<std::string>> names = ExpandHostlist(v);
      if (!names.ok()) {
        err << "sinfo: error: Invalid node name list: " << v << "\n";
        return 1;
      }
      opt.node_names.insert(opt.node_names.end(), names->begin(), names->end());
    } else if (TakeValue(args, i, "-o", "--format", &v)) {
      opt.format = v;
    } else if (TakeValue(args, i, "-p", "--partition", &v)) {
      for (auto& s : Split(v, ',')) parts.insert(s);
    } else {
      err << "sinfo: unrecognized option '" << a << "'\nTry \"sinfo --help\" for more information\n";
      return 1;
    }
  }
  StatusOr<std::unique_ptr<CtldClient>> c = CtldClient::Connect();
  if (!c.ok()) return ConnectError("sinfo", c.status(), err);
  StatusOr<std::vector<Partition>> ps = (*c)->Partitions();
  if (!ps.ok()) return ConnectError("sinfo", ps.status(), err);
  std::map<std::string, NodeAllocated> allocated;
  StatusOr<std::vector<NodeRecord>> nodes = (*c)->Nodes(&allocated);
  if (!nodes.ok()) return ConnectError("sinfo", nodes.status(), err);
  std::vector<Partition> shown;
  for (const Partition& p : *ps) {
    if (parts.empty() || parts.count(p.name)) shown.push_back(p);
  }
  if (json_out) {
    out << PrettyJson(SinfoJson(shown, *nodes, UsageFromAllocated(allocated), Now())) << "\n";
    return 0;
  }
  StatusOr<std::string> text = FormatSinfo(shown, *nodes, UsageFromAllocated(allocated), opt, Now());
  if (!text.ok()) {
    err << "sinfo: error: " << text.status().message() << "\n";
    return 1;
  }
  out << *text;
  return 0;
}

int ScancelMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (int rc = AnswerMetaOption("scancel", args, out); rc >= 0) return rc;
  std::vector<int64_t> ids;
  std::vector<JobToken> tokens;
  int token_rc = 0;
  std::string user, name, signal_name, account, partition;
  std::set<JobState> states;
  std::vector<std::string> on_nodes;
  bool verbose = false, batch_only = false, full = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string v;
    if (a == "-v" || a == "--verbose") {
      verbose = true;
    } else if (a == "-b" || a == "--batch") {
      batch_only = true;  // the signal goes to the batch shell (and its children), not to the steps
    } else if (a == "-f" || a == "--full") {
      full = true;  // the batch shell, its children and the steps
    } else if (TakeValue(args, i, "-A", "--account", &v)) {
      account = v;
    } else if (TakeValue(args, i, "-p", "--partition", &v)) {
      partition = v;
    } else if (TakeValue(args, i, "-t", "--state", &v)) {
      for (const std::string& st : Split(v, ',')) {
        StatusOr<JobState> js = ParseJobState(st);
        if (!js.ok() || (*js != JobState::kPending && *js != JobState::kRunning && *js != JobState::kSuspended)) {
          err << "scancel: error: Invalid job state specified: " << st << "\n"
              << "scancel: error: Valid job states are PENDING, RUNNING, and SUSPENDED\n";
          return 1;
        }
        states.insert(*js);
      }
    } else if (TakeValue(args, i, "-w", "--nodelist", &v)) {
      StatusOr<std::vector<std::string>> names = ExpandHostlist(v);
      if (!names.ok()) {
        err << "scancel: error: Invalid node name list: " << v << "\n";
        return 1;
      }
      on_nodes = *names;
    } else if (TakeValue(args, i, "-u", "--user", &v)) {
      user = v;
    } else if (TakeValue(args, i, "-n", "--name", &v) || TakeValue(args, i, "", "--jobname", &v)) {
      name = v;
    } else if (TakeValue(args, i, "-s", "--signal", &v)) {
      signal_name = v;
    } else if (!a.empty() && a[0] != '-') {
      // "12", "12_3" (task 3 of job array 12), "12_[1-3,5]"; commas separate jobs outside brackets.
      std::string cur;
      int depth = 0;
      for (char ch : a + ",") {
        if (ch == ',' && depth == 0) {
          StatusOr<JobToken> t = ParseJobToken(cur);
          if (!t.ok()) {
            err << "scancel: error: Invalid job id " << cur << "\n";
            return 1;
          }
          tokens.push_back(*t);
          cur.clear();
          continue;
        }
        depth += ch == '[' ? 1 : ch == ']' ? -1 : 0;
        cur += ch;
      }
    } else {
      err << "scancel: unrecognized option '" << a << "'\nTry \"scancel --help\" for more information\n";
      return 1;
    }
  }
  int sig = 0;
  if (!signal_name.empty()) {
    sig = SignalNumber(signal_name);
    if (sig == 0) {
      err << "scancel: error: Invalid job signal: " << signal_name << "\n";
      return 1;
    }
  } else if (batch_only || full) {
    sig = SIGKILL;  // Slurm's scancel -b/-f without -s: a signal, SIGKILL
  }
  const bool filtered = !user.empty() || !name.empty() || !account.empty() || !partition.empty() || !states.empty() ||
                        !on_nodes.empty();
  if (tokens.empty() && !filtered) {
    err << "scancel: error: No job identification provided\n";
    return 1;
  }
  StatusOr<std::unique_ptr<CtldClient>> c = CtldClient::Connect();
  if (!c.ok()) return ConnectError("scancel", c.status(), err);
  if (!tokens.empty()) {
    // A job array's id stands for its tasks: the controller lists them with the array's id.
    std::string query;
    for (const JobToken& t : tokens) query += (query.empty() ? "ids=" : ",") + std::to_string(t.id);
    StatusOr<std::vector<JobRecord>> listed = (*c)->Jobs(query);
    if (!listed.ok()) return ConnectError("scancel", listed.status(), err);
    for (const JobToken& t : tokens) {
      std::vector<int64_t> found;
      bool array = false;
      for (const JobRecord& j : *listed) {
        if (j.array_job_id != t.id) continue;
        array = true;
        if (!t.tasks.empty() && std::find(t.tasks.begin(), t.tasks.end(), j.array_task_id) == t.tasks.end()) continue;
        if (t.tasks.empty() && IsFinished(j.state)) continue;  // the array's ended tasks stay as they are
        found.push_back(j.id);
      }
      if (!array && t.tasks.empty()) found.push_back(t.id);  // a plain job (or none: the controller says)
      if (found.empty() || (!array && !t.tasks.empty())) {
        err << "scancel: error: Kill job error on job id " << t.text << ": Invalid job id specified\n";
        token_rc = 1;
        continue;
      }
      ids.insert(ids.end(), found.begin(), found.end());
    }
    if (ids.empty()) return token_rc;
  }
  if (filtered) {
    StatusOr<std::vector<JobRecord>> jobs = (*c)->Jobs("active=1");  // finished jobs cannot be cancelled
    if (!jobs.ok()) return ConnectError("scancel", jobs.status(), err);
    // Ids given with -u/-n narrow the filter (Slurm: the job must match all of them).
    const std::vector<int64_t> given = std::move(ids);
    ids.clear();
    for (const JobRecord& j : *jobs) {
      if (IsFinished(j.state)) continue;
      if (!user.empty() && j.user != user && std::to_string(j.uid) != user) continue;
      if (!name.empty() && j.name != name) continue;
      if (!account.empty() && j.account != account) continue;
      if (!partition.empty() && j.partition != partition) continue;
      if (!states.empty() && !states.count(j.state)) continue;
      if (!on_nodes.empty() && std::none_of(j.allocation.begin(), j.allocation.end(), [&](const NodeAllocation& al) {
            return std::find(on_nodes.begin(), on_nodes.end(), al.node) != on_nodes.end();
          })) {
        continue;
      }
      if (!given.empty() && std::find(given.begin(), given.end(), j.id) == given.end()) continue;
      ids.push_back(j.id);
    }
    std::sort(ids.begin(), ids.end());
  }
  int rc = token_rc;
  for (int64_t id : ids) {
    // Who gets it, as in Slurm: -b the batch shell alone, -f everything, else only the steps
    // (SIGKILL everything).
    const char* target = batch_only ? "batch" : full || sig == SIGKILL ? "full" : "steps";
    Status r = (*c)->Cancel(id, sig, sig ? target : "");
    if (r.ok()) continue;
    // A job a filter chose that ended (or left the controller) since the listing: what was asked
    // holds, so it is not an error (Slurm reports these only with -v).
    const bool gone = r.code() == StatusCode::kFailedPrecondition || r.code() == StatusCode::kNotFound;
    if (filtered && gone && !verbose) continue;
    if (r.code() == StatusCode::kNotFound) {
      rc = std::max(rc, EmitOutput(ScancelInvalidJob(id, verbose), out, err));
    } else {
      err << "scancel: error: Kill job error on job id " << id << ": " << r.message() << "\n";
      rc = 1;
    }
  }
  return rc;
}

}  // namespace muster
