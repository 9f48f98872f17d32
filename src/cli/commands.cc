#include "cli/commands.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "base/read_file.h"
#include "base/clock.h"
#include "cli/command_args.h"
#include "cli/command_help.h"
#include "cli/command_options.h"
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
#include "model/slurm_errors.h"
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
    StatusOr<std::string> text = ReadWholeFile(path.empty() ? "/dev/stdin" : path);
    if (!text.ok()) return NotFound("Unable to open file " + path);
    return text;
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
    StatusOr<int64_t> t = ParseSlurmTime(req->begin, Now(), TimeDirection::kFuture);
    if (!t.ok()) {
      // Slurm's words (exit -1): parse_time's line when it stopped somewhere, then sbatch's.
      if (t.status().message().find("(pos=") != std::string::npos) err << t.status().message() << "\n";
      err << "sbatch: error: Invalid --begin specification\n";
      return 255;
    }
    begin_time = *t;
  }
  JobSpec submit;
  submit.resources = req->request;
  submit.submit_args = req->resource_args;
  submit.het_components = req->het_components;
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
  submit.options = req->options;
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
  // --array and --dependency, read once, here (the controller takes them typed), in the order
  // slurmctld checks them.
  Status st = SetArray(submit, req->array);
  if (st.ok()) st = SetDependency(submit, req->dependency);
  if (!st.ok()) {
    err << (req->test_only ? "allocation failure: " : "sbatch: error: Batch job submission failed: ") << st.message()
        << "\n";
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
    err << WillRunLine("sbatch", *w);
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
  StatusOr<SqueueArgs> parsed = ParseSqueueArgs(args, getuid(), [](const char* name) { return std::getenv(name); });
  if (!parsed.ok()) return err << parsed.status().message(), 1;
  if (!parsed->meta.empty()) return AnswerMetaOption("squeue", {"--" + parsed->meta}, out);
  SqueueOptions opt = parsed->opt;
  std::set<std::string>& states = parsed->selection.states;
  const std::set<int64_t>& ids = parsed->selection.ids;
  const bool json_out = parsed->json, long_fmt = parsed->long_format, start = parsed->start, steps = parsed->steps;
  const std::set<std::string>& step_ids = parsed->step_ids;
  const std::string& format = parsed->format;
  const std::string& fields = parsed->fields;
  // --start: pending jobs with their expected start (backfill's reservation), as Slurm lists them.
  if (start && states.empty()) states.insert(JobStateName(JobState::kPending));
  const SqueueSelection& selection = parsed->selection;
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
  StatusOr<SinfoArgs> parsed = ParseSinfoArgs(args);
  if (!parsed.ok()) return err << parsed.status().message(), 1;
  if (!parsed->meta.empty()) return AnswerMetaOption("sinfo", {"--" + parsed->meta}, out);
  const SinfoOptions& opt = parsed->opt;
  const std::set<std::string>& parts = parsed->partitions;
  const bool json_out = parsed->json;
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

constexpr int kCancelRetries = 9;  // after the first try: Slurm's MAX_CANCEL_RETRY (10) in all

int ScancelMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  StatusOr<ScancelArgs> parsed = ParseScancelArgs(args, getuid());
  if (!parsed.ok()) return err << parsed.status().message(), 1;
  if (!parsed->meta.empty()) return AnswerMetaOption("scancel", {"--" + parsed->meta}, out);
  const ScancelArgs& a = *parsed;
  const std::vector<JobToken>& tokens = a.tokens;
  const std::string &user = a.user, &name = a.name, &account = a.account, &partition = a.partition;
  const std::set<JobState>& states = a.states;
  const std::vector<std::string>& on_nodes = a.on_nodes;
  const bool verbose = a.verbose, batch_only = a.batch_only, full = a.full, filtered = a.Filtered();
  const int sig = a.signal;
  std::vector<int64_t> ids;
  std::map<int64_t, std::string> named_as;  // a heterogeneous job's component named "J+K"
  int token_rc = 0;
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
      if (t.text.find('+') != std::string::npos) named_as[t.id] = t.text;  // "12+1": errors say so
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
    // A job not started yet, or starting: Slurm's scancel tries again (MAX_CANCEL_RETRY times,
    // 5 s and one more each time), so that a signal sent right after sbatch reaches the job.
    for (int retry = 0; retry < kCancelRetries && IsTransitional(r); ++retry) {
      if (verbose) err << "scancel: Job is in transistional state, retrying\n";  // (Slurm's spelling)
      std::this_thread::sleep_for(std::chrono::seconds(5 + retry));
      r = (*c)->Cancel(id, sig, sig ? target : "");
    }
    if (r.ok()) continue;
    // A job a filter chose that ended (or left the controller) since the listing: what was asked
    // holds, so it is not an error (Slurm reports these only with -v).
    const bool gone = r.code() == StatusCode::kFailedPrecondition || r.code() == StatusCode::kNotFound;
    if (filtered && gone && !verbose) continue;
    if (r.code() == StatusCode::kNotFound) {
      rc = std::max(rc, EmitOutput(ScancelInvalidJob(id, verbose), out, err));
    } else {
      auto as = named_as.find(id);
      err << "scancel: error: Kill job error on job id " << (as != named_as.end() ? as->second : std::to_string(id))
          << ": " << r.message() << "\n";
      // Slurm's scancel exits with the error's number, cut to a byte: ESLURM_NOT_WHOLE_HET_JOB
      // (2108) gives 60.
      rc = std::max(rc, r.message() == kNotWholeHetJobMessage ? 60 : 1);
    }
  }
  return rc;
}

}  // namespace muster
