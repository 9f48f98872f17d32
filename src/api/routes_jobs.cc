// Jobs: submit (and --test-only), list (squeue's table, scontrol's blocks or JSON), show,
// cancel and signal, hold and release, complete, requeue, update; and the ping and config.

#include "api/decode.h"
#include "wire/jobs.h"
#include "wire/why.h"
#include "wire/submit.h"
#include "api/route_util.h"
#include "api/routes.h"
#include "config/muster_config.h"
#include "model/job_list_json.h"
#include "model/record_json.h"
#include "wire/submit.h"
#include "report/scontrol_format.h"
#include "report/squeue_format.h"

namespace muster::api {

namespace bj = wire::bj;

namespace {

// squeue's table, rendered here (report/squeue_format.h): the command prints it as it comes.
HttpResponse RenderSqueue(const Controller& c, const std::map<std::string, std::string>& query) {
  StatusOr<std::pair<SqueueSelection, SqueueOptions>> parsed = ParseSqueueQuery(query);
  if (!parsed.ok()) return ErrorResponse(parsed.status());
  // (named, not a structured binding: clang 14, which builds the sanitizer pass, cannot capture those)
  const SqueueSelection& selection = parsed->first;
  const SqueueOptions& options = parsed->second;
  if (Status st = CheckUserNames(selection.users); !st.ok()) return ErrorResponse(st);
  JobQuery q;
  q.ids = selection.ids;
  q.active_only = selection.ids.empty() && selection.states.empty();
  const int64_t now = c.NowSeconds();
  StatusOr<std::string> text = std::string();
  bool none = false;
  // Rendered under the controller's lock straight from its records: cheaper than copying them
  // out first (a thousand jobs take about a millisecond either way).
  c.VisitJobs(q, [&](const std::vector<const JobRecord*>& all) {
    std::vector<const JobRecord*> shown;
    shown.reserve(all.size());
    for (const JobRecord* j : all) {
      if (selection.Matches(*j)) shown.push_back(j);
    }
    none = all.empty();  // -j of jobs the controller does not know (a finished one is only not shown)
    text = FormatSqueueJobs(std::move(shown), options, now);
  });
  if (!selection.ids.empty() && selection.states.empty() && none) {
    return ErrorResponse(NotFound("Invalid job id specified"));
  }
  if (!text.ok()) return ErrorResponse(text.status());
  return HttpResponse{200, "text/plain; charset=utf-8", std::move(*text)};
}

// `scontrol show job [id]`: every job the controller holds (or `ids`), Slurm's Key=Value blocks
// rendered from the full records (BatchFlag, StdOut... need the script), `oneliner=1` for -o.
HttpResponse RenderScontrolJobs(const Controller& c, const std::map<std::string, std::string>& query) {
  JobQuery q;
  StatusOr<std::set<int64_t>> ids = ParseIds(query);
  if (!ids.ok()) return ErrorResponse(ids.status());
  q.ids = std::move(*ids);
  const bool one_liner = query.count("oneliner") && query.at("oneliner") == "1";
  const bool details = query.count("details") && query.at("details") == "1";
  std::map<int64_t, int> derived_exit;  // scontrol -d: the highest exit code of each job's steps
  if (details) {
    for (const StepRecord& st : c.ListSteps()) {
      int& code = derived_exit[st.job_id];
      code = std::max(code, st.exit_code);
    }
  }
  const int64_t now = c.NowSeconds();
  std::string text;
  bool none = true;
  std::set<std::string> mps_nodes;
  for (const NodeRecord& n : c.ListNodes()) {
    if (n.node.has_feature("mps")) mps_nodes.insert(n.node.name);
  }
  c.VisitJobs(q, [&](const std::vector<const JobRecord*>& jobs) {
    none = jobs.empty();
    text = FormatScontrolJobs(jobs, now, one_liner, mps_nodes, details, derived_exit);
  });
  if (!q.ids.empty() && none) return ErrorResponse(NotFound("Invalid job id specified"));
  return HttpResponse{200, "text/plain; charset=utf-8", std::move(text)};
}

// The server's: ping, and the configuration as scontrol show config prints it.
void AddServerRoutes(Controller& c, Router& r) {
  r.Add("GET", "/v1/ping", [&c](const HttpRequest& req) {
    return Ok(PingAnswer{c.cluster_name(), req.caller.authenticated, req.caller.uid});
  });

  r.Add("GET", "/v1/config", [&c](const HttpRequest&) {
    ConfigAnswer answer;
    for (const auto& [k, v] : c.SlurmConfig()) answer.config.push_back({k, v});
    return Ok(answer);
  });
}

// A body that gives a component's resources only as options ("resource_args": ["-N", "2"], as
// commands before the typed "resources" sent them, and as a script may): parsed here, once, at the
// edge. A typed request is taken as it is (its options are then only shown).
Status ReadResourceArgs(JobSpec& s) {
  static const JobRequest kNone;
  if (s.resources == kNone && !s.submit_args.empty()) RETURN_IF_ERROR(SetResourceOptions(s, s.submit_args));
  for (HetComponentSpec& c : s.het_components) {
    if (c.resources == kNone && !c.submit_args.empty()) RETURN_IF_ERROR(SetResourceOptions(c, c.submit_args));
  }
  return Status::Ok();
}

// Submitting (or testing) a job; the list, one job, why one waits.
void AddSubmitAndReadRoutes(Controller& c, Router& r) {
  r.Add("POST", "/v1/jobs", kLargeBodyLimit, [&c](const HttpRequest& req) {
    StatusOr<JobSpec> decoded = wire::Decode<JobSpec>(req.body);
    if (!decoded.ok()) return ErrorResponse(decoded.status());
    if (req.caller.authenticated) {  // (else Submit says so first)
      if (Status st = ReadResourceArgs(*decoded); !st.ok()) return ErrorResponse(st);
    }
    const JobSpec& s = *decoded;
    // ?test_only=1 (sbatch --test-only): when and where it would start; nothing is submitted.
    if (req.query.count("test_only") && req.query.at("test_only") == "1") {
      std::string user_msg;
      StatusOr<WillRun> w = c.TestOnly(s, req.caller, &user_msg);
      if (!w.ok()) return ErrorResponse(w.status(), user_msg);
      return Ok(*w);
    }
    std::string user_msg;
    StatusOr<int64_t> id = c.Submit(s, req.caller, &user_msg);
    if (!id.ok()) return ErrorResponse(id.status(), user_msg);
    return Ok(SubmitAnswer{*id});
  });

  // ?active=1: only jobs not finished (what squeue shows by default); ?ids=1,2,3: only these.
  r.Add("GET", "/v1/jobs", [&c](const HttpRequest& req) {
    if (auto it = req.query.find("render"); it != req.query.end()) {
      if (it->second == "squeue") return RenderSqueue(c, req.query);
      if (it->second == "scontrol") return RenderScontrolJobs(c, req.query);
      return ErrorResponse(InvalidArgument("render: unknown view '" + it->second + "' (known: squeue, scontrol)"));
    }
    JobQuery q;
    q.active_only = req.query.count("active") && req.query.at("active") == "1";
    StatusOr<std::set<int64_t>> ids = ParseIds(req.query);
    if (!ids.ok()) return ErrorResponse(ids.status());
    q.ids = std::move(*ids);
    std::vector<JobRecord> jobs = c.ListJobs(q);
    // users=, partitions=, states=: squeue's selection (squeue --json), applied as squeue does.
    if (req.query.count("users") || req.query.count("partitions") || req.query.count("states") ||
        req.query.count("accounts") || req.query.count("names")) {
      StatusOr<std::pair<SqueueSelection, SqueueOptions>> parsed = ParseSqueueQuery(req.query);
      if (!parsed.ok()) return ErrorResponse(parsed.status());
      const SqueueSelection& selection = parsed->first;
      if (Status st = CheckUserNames(selection.users); !st.ok()) return ErrorResponse(st);
      std::erase_if(jobs, [&](const JobRecord& j) { return !selection.Matches(j); });
    }
    // The list's compact form (model/job_list_json.h) leaves out what only the job's own processes
    // need (script, arguments, environment; GET /v1/jobs/{id} has them) and default values.
    return HttpResponse::Json(200, JobListJson(jobs));
  });

  r.Add("GET", "/v1/jobs/{id}", [&c](const HttpRequest& req) {
    StatusOr<int64_t> id = ParseId(req.params.at("id"));
    if (!id.ok()) return ErrorResponse(id.status());
    StatusOr<JobRecord> j = c.GetJob(*id);
    if (!j.ok()) return ErrorResponse(j.status());
    return Ok(JobAnswer{FullJob{VisibleJob(*j, req.caller, c)}});
  });

  // muster why: why a job waits and when it will start (sched/why.h). Shown to every caller, as
  // scontrol show job and squeue show every job's reason and planned start.
  r.Add("GET", "/v1/jobs/{id}/why", [&c](const HttpRequest& req) {
    StatusOr<int64_t> id = ParseId(req.params.at("id"));
    if (!id.ok()) return ErrorResponse(id.status());
    StatusOr<WhyAnswer> answer = c.Why(*id);
    if (!answer.ok()) return ErrorResponse(answer.status());
    return Ok(*answer);
  });
}

// What changes a job: cancel or signal, hold and release, complete, requeue, update.
void AddJobChangeRoutes(Controller& c, Router& r) {
  r.Add("DELETE", "/v1/jobs/{id}", kChangeBodyLimit, [&c](const HttpRequest& req) {
    StatusOr<int64_t> id = ParseId(req.params.at("id"));
    if (!id.ok()) return ErrorResponse(id.status());
    int signal = 0;
    if (auto it = req.query.find("signal"); it != req.query.end()) {
      try {
        signal = std::stoi(it->second);
      } catch (...) {
        return ErrorResponse(InvalidArgument("Invalid signal"));
      }
      if (signal < 0 || signal > 64) return ErrorResponse(InvalidArgument("Invalid signal"));
    }
    const std::string target = req.query.count("target") ? req.query.at("target") : "full";
    Status st = c.Cancel(*id, signal, req.caller, target);
    if (!st.ok()) return ErrorResponse(st);
    return Ok();
  });

  for (const char* verb : {"hold", "release"}) {
    const bool hold = std::string(verb) == "hold";
    r.Add("POST", std::string("/v1/jobs/{id}/") + verb, kChangeBodyLimit, [&c, hold](const HttpRequest& req) {
      StatusOr<int64_t> id = ParseId(req.params.at("id"));
      if (!id.ok()) return ErrorResponse(id.status());
      Status st = c.Hold(*id, hold, req.caller);
      if (!st.ok()) return ErrorResponse(st);
      return Ok();
    });
  }

  // salloc: its command exited; {"exit_code": N}.
  r.Add("POST", "/v1/jobs/{id}/complete", kChangeBodyLimit, [&c](const HttpRequest& req) {
    StatusOr<int64_t> id = ParseId(req.params.at("id"));
    if (!id.ok()) return ErrorResponse(id.status());
    StatusOr<ExitCode> done = wire::Decode<ExitCode>(req.body);
    if (!done.ok()) return ErrorResponse(done.status());
    Status st = c.CompleteAllocation(*id, done->exit_code, req.caller);
    if (!st.ok()) return ErrorResponse(st);
    return Ok();
  });

  r.Add("POST", "/v1/jobs/{id}/requeue", kChangeBodyLimit, [&c](const HttpRequest& req) {
    StatusOr<int64_t> id = ParseId(req.params.at("id"));
    if (!id.ok()) return ErrorResponse(id.status());
    Status st = c.Requeue(*id, req.caller);
    if (!st.ok()) return ErrorResponse(st);
    return Ok();
  });

  // scontrol update JobId=: {"fields": {"TimeLimit": "10", "JobName": "x", ...}} (Controller::UpdateJob).
  r.Add("POST", "/v1/jobs/{id}/update", kChangeBodyLimit, [&c](const HttpRequest& req) {
    StatusOr<int64_t> id = ParseId(req.params.at("id"));
    if (!id.ok()) return ErrorResponse(id.status());
    StatusOr<JobUpdate> update = wire::Decode<JobUpdate>(req.body);
    if (!update.ok()) return ErrorResponse(update.status());
    Status st = c.UpdateJob(*id, update->fields, req.caller);
    if (!st.ok()) return ErrorResponse(st);
    return Ok();
  });
}

}  // namespace

void AddJobRoutes(Controller& c, Router& r) {
  AddServerRoutes(c, r);
  AddSubmitAndReadRoutes(c, r);
  AddJobChangeRoutes(c, r);
}

}  // namespace muster::api
