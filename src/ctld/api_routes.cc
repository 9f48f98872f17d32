#include "ctld/api_routes.h"
#include "ctld/api_decode.h"

#include <nlohmann/json.hpp>
#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>

#include "config/muster_config.h"
#include "model/hostlist.h"
#include "model/job_list_json.h"
#include "report/scontrol_format.h"
#include "report/squeue_format.h"
#include "model/record_json.h"
#include "net/json_body.h"

namespace muster {

using nlohmann::json;

namespace {

int HttpStatusFor(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return 200;
    case StatusCode::kInvalidArgument:
    case StatusCode::kOutOfRange: return 400;
    case StatusCode::kUnauthenticated: return 401;
    case StatusCode::kPermissionDenied: return 403;
    case StatusCode::kNotFound: return 404;
    case StatusCode::kAlreadyExists:
    case StatusCode::kFailedPrecondition: return 409;
    case StatusCode::kUnavailable: return 503;
    case StatusCode::kInternal: return 500;
  }
  return 500;
}

// Strings that are not valid UTF-8 (a job's environment may hold any bytes) are replaced, not thrown on.
HttpResponse Ok(const json& body) {
  return HttpResponse::Json(200, body.dump(-1, ' ', false, json::error_handler_t::replace));
}

StatusOr<json> ParseBody(const HttpRequest& req) { return ParseRequestBody(req.body); }

StatusOr<int64_t> ParseId(const std::string& s) {
  int64_t v = 0;
  if (s.empty() || s.size() > 18) return InvalidArgument("Invalid job id specified");
  for (char c : s) {
    if (c < '0' || c > '9') return InvalidArgument("Invalid job id specified");
    v = v * 10 + (c - '0');
  }
  return v;
}

// The query's "ids=1,2,3" (empty set when absent); the first bad id is the error.
StatusOr<std::set<int64_t>> ParseIds(const std::map<std::string, std::string>& query) {
  std::set<int64_t> ids;
  auto it = query.find("ids");
  if (it == query.end()) return ids;
  std::stringstream in(it->second);
  for (std::string s; std::getline(in, s, ',');) {
    ASSIGN_OR_RETURN(int64_t id, ParseId(s));
    ids.insert(id);
  }
  return ids;
}


// Another user's job: hide what may hold secrets (the script, its arguments and environment).
json VisibleJob(const JobRecord& j, const Caller& caller, const Controller& c) {
  json out = ToJson(j);
  if (j.uid != caller.uid && !c.IsAdmin(caller)) {
    out["script"] = "";
    out["script_args"] = json::array();
    out["environment"] = json::array();
  }
  return out;
}

json OrdersJson(const NodeOrders& orders) {
  json stop = json::array();
  for (const JobRun& r : orders.stop) stop.push_back({{"job_id", r.job_id}, {"restart_count", r.restart_count}});
  return json{{"lease_s", orders.lease_s}, {"stop", std::move(stop)}, {"resume_gpus", orders.resume_gpus}};
}

}  // namespace

int64_t ControllerBodyLimit(std::string_view method, std::string_view path) {
  if (method == "GET" || method == "HEAD") return 64 << 10;
  if (method == "POST" && (path == "/v1/jobs" || path.starts_with("/v1/agent/"))) return 16 << 20;
  return 1 << 20;
}

HttpResponse ErrorResponse(const Status& status, const std::string& user_msg) {
  HttpResponse r = HttpResponse::Error(HttpStatusFor(status.code()), status.message());
  if (!user_msg.empty()) {
    nlohmann::json j{{"error", status.message()}, {"user_msg", user_msg}};
    r.body = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  return r;
}

namespace {

// squeue -u names are checked here, against the controller's user database (the commands make
// no user-database lookups of their own): Slurm's "Invalid user: x" for a name it does not know.
Status CheckUserNames(const std::set<std::string>& users) {
  for (const std::string& u : users) {
    if (!ResolveUser(u).ok()) return InvalidArgument("Invalid user: " + u);
  }
  return Status::Ok();
}

std::set<std::string> CommaSet(const std::map<std::string, std::string>& query, const char* key) {
  std::set<std::string> out;
  auto it = query.find(key);
  if (it == query.end()) return out;
  std::stringstream in(it->second);
  for (std::string s; std::getline(in, s, ',');) {
    if (!s.empty()) out.insert(s);
  }
  return out;
}

StatusOr<AccountingQuery> ParseAccountingQuery(const std::map<std::string, std::string>& query) {
  AccountingQuery q;
  ASSIGN_OR_RETURN(q.ids, ParseIds(query));
  q.users = CommaSet(query, "users");
  q.accounts = CommaSet(query, "accounts");
  q.partitions = CommaSet(query, "partitions");
  for (const std::string& name : CommaSet(query, "states")) {
    StatusOr<JobState> st = ParseJobState(name);
    if (!st.ok()) return InvalidArgument("Invalid state: " + name);
    q.states.insert(*st);
  }
  for (auto [key, out] : {std::pair{"start", &q.start}, std::pair{"end", &q.end}}) {
    auto it = query.find(key);
    if (it == query.end()) continue;
    char* rest = nullptr;
    *out = std::strtoll(it->second.c_str(), &rest, 10);
    if (it->second.empty() || *rest != '\0' || *out < 0) {
      return InvalidArgument(std::string(key) + ": expected seconds since the epoch, got '" + it->second + "'");
    }
  }
  return q;
}

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
  const int64_t now = c.NowSeconds();
  std::string text;
  bool none = true;
  std::set<std::string> mps_nodes;
  for (const NodeRecord& n : c.ListNodes()) {
    if (n.node.has_feature("mps")) mps_nodes.insert(n.node.name);
  }
  c.VisitJobs(q, [&](const std::vector<const JobRecord*>& jobs) {
    none = jobs.empty();
    for (const JobRecord* j : jobs) text += FormatScontrolJob(*j, now, one_liner, mps_nodes);
  });
  if (!q.ids.empty() && none) return ErrorResponse(NotFound("Invalid job id specified"));
  return HttpResponse{200, "text/plain; charset=utf-8", std::move(text)};
}

}  // namespace

void AddControllerRoutes(Controller& c, Router& r) {
  r.Add("GET", "/v1/ping", [&c](const HttpRequest& req) {
    return Ok(json{{"cluster", c.cluster_name()}, {"authenticated", req.caller.authenticated}, {"uid", req.caller.uid}});
  });

  r.Add("GET", "/v1/config", [&c](const HttpRequest&) {
    json items = json::array();
    for (const auto& [k, v] : c.SlurmConfig()) items.push_back({{"key", k}, {"value", v}});
    return Ok(json{{"config", items}});
  });

  r.Add("POST", "/v1/jobs", [&c](const HttpRequest& req) {
    StatusOr<json> body = ParseBody(req);
    if (!body.ok()) return ErrorResponse(body.status());
    StatusOr<SubmitRequest> decoded = DecodeSubmitRequest(*body);
    if (!decoded.ok()) return ErrorResponse(decoded.status());
    const SubmitRequest& s = *decoded;
    // ?test_only=1 (sbatch --test-only): when and where it would start; nothing is submitted.
    if (req.query.count("test_only") && req.query.at("test_only") == "1") {
      std::string user_msg;
      StatusOr<Controller::WillRun> w = c.TestOnly(s, req.caller, &user_msg);
      if (!w.ok()) return ErrorResponse(w.status(), user_msg);
      return Ok(json{{"job_id", w->job_id},
                     {"start_time", w->start_time},
                     {"nodes", w->nodes},
                     {"cpus", w->cpus},
                     {"partition", w->partition}});
    }
    std::string user_msg;
    StatusOr<int64_t> id = c.Submit(s, req.caller, &user_msg);
    if (!id.ok()) return ErrorResponse(id.status(), user_msg);
    return Ok(json{{"job_id", *id}});
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
    return Ok(json{{"job", VisibleJob(*j, req.caller, c)}});
  });

  r.Add("DELETE", "/v1/jobs/{id}", [&c](const HttpRequest& req) {
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
    return Ok(json::object());
  });

  for (const char* verb : {"hold", "release"}) {
    const bool hold = std::string(verb) == "hold";
    r.Add("POST", std::string("/v1/jobs/{id}/") + verb, [&c, hold](const HttpRequest& req) {
      StatusOr<int64_t> id = ParseId(req.params.at("id"));
      if (!id.ok()) return ErrorResponse(id.status());
      Status st = c.Hold(*id, hold, req.caller);
      if (!st.ok()) return ErrorResponse(st);
      return Ok(json::object());
    });
  }

  // salloc: its command exited; {"exit_code": N}.
  r.Add("POST", "/v1/jobs/{id}/complete", [&c](const HttpRequest& req) {
    StatusOr<int64_t> id = ParseId(req.params.at("id"));
    if (!id.ok()) return ErrorResponse(id.status());
    StatusOr<json> body = ParseBody(req);
    if (!body.ok()) return ErrorResponse(body.status());
    StatusOr<int> exit_code = DecodeExitCode(*body);
    if (!exit_code.ok()) return ErrorResponse(exit_code.status());
    Status st = c.CompleteAllocation(*id, *exit_code, req.caller);
    if (!st.ok()) return ErrorResponse(st);
    return Ok(json::object());
  });

  r.Add("POST", "/v1/jobs/{id}/requeue", [&c](const HttpRequest& req) {
    StatusOr<int64_t> id = ParseId(req.params.at("id"));
    if (!id.ok()) return ErrorResponse(id.status());
    Status st = c.Requeue(*id, req.caller);
    if (!st.ok()) return ErrorResponse(st);
    return Ok(json::object());
  });

  // scontrol update JobId=: {"TimeLimit": "10", "JobName": "x", ...} (Controller::UpdateJob).
  r.Add("POST", "/v1/jobs/{id}/update", [&c](const HttpRequest& req) {
    StatusOr<int64_t> id = ParseId(req.params.at("id"));
    if (!id.ok()) return ErrorResponse(id.status());
    StatusOr<json> body = ParseBody(req);
    if (!body.ok()) return ErrorResponse(body.status());
    StatusOr<std::map<std::string, std::string>> fields = DecodeUpdateFields(*body);
    if (!fields.ok()) return ErrorResponse(fields.status());
    Status st = c.UpdateJob(*id, *fields, req.caller);
    if (!st.ok()) return ErrorResponse(st);
    return Ok(json::object());
  });

  // srun: a step of a running job, with where its tasks go (docs/api.md).
  r.Add("POST", "/v1/jobs/{id}/steps", [&c](const HttpRequest& req) {
    StatusOr<int64_t> id = ParseId(req.params.at("id"));
    if (!id.ok()) return ErrorResponse(id.status());
    StatusOr<json> body = ParseBody(req);
    if (!body.ok()) return ErrorResponse(body.status());
    StatusOr<StepRequest> decoded = DecodeStepRequest(*body);
    if (!decoded.ok()) return ErrorResponse(decoded.status());
    const StepRequest& s = *decoded;
    StatusOr<StepCreated> step = c.CreateStep(*id, s, req.caller);
    if (!step.ok()) return ErrorResponse(step.status());
    json nodes = json::array();
    for (size_t i = 0; i < step->nodes.size(); ++i) {
      json tasks = json::array();
      const int first = step->layout.first_task(i);
      for (int t = 0; t < step->layout.tasks[i]; ++t) tasks.push_back(first + t);
      json node{{"name", step->nodes[i].node.name}, {"agent_address", step->nodes[i].agent_address}, {"tasks", tasks}};
      if (i < step->step.node_gpus.size()) node["gpus"] = step->step.node_gpus[i];
      else if (s.gpus.given) node["gpus"] = json::array();  // none of the job's GPUs
      nodes.push_back(std::move(node));
    }
    return Ok(json{{"step_id", step->step.step_id},
                   {"ntasks", step->layout.ntasks},
                   {"time_limit_s", step->step.time_limit_s},
                   {"kill_wait_s", c.kill_wait_s()},
                   {"warning", step->layout.warning},
                   {"job", VisibleJob(step->job, req.caller, c)},
                   {"nodes", nodes}});
  });

  r.Add("POST", "/v1/jobs/{id}/steps/{step}/done", [&c](const HttpRequest& req) {
    StatusOr<int64_t> id = ParseId(req.params.at("id"));
    if (!id.ok()) return ErrorResponse(id.status());
    StatusOr<int64_t> step = ParseId(req.params.at("step"));
    if (!step.ok() || *step > 1 << 30) return ErrorResponse(InvalidArgument("Invalid step id specified"));
    StatusOr<json> body = ParseBody(req);
    if (!body.ok()) return ErrorResponse(body.status());
    StatusOr<int> exit_code = DecodeExitCode(*body);
    if (!exit_code.ok()) return ErrorResponse(exit_code.status());
    Status st = c.FinishStep(*id, static_cast<int>(*step), *exit_code, req.caller);
    if (!st.ok()) return ErrorResponse(st);
    return Ok(json::object());
  });

  // Each node record with "allocated": {"cpus", "gpus", "memory_mb"} held by its running jobs.
  r.Add("GET", "/v1/nodes", [&c](const HttpRequest&) {
    const std::map<std::string, NodeAllocated> allocated = c.AllocatedByNode();
    json nodes = json::array();
    for (const NodeRecord& n : c.ListNodes()) {
      json v = ToJson(n);
      auto it = allocated.find(n.node.name);
      const NodeAllocated a = it == allocated.end() ? NodeAllocated{} : it->second;
      v["allocated"] = json{{"cpus", a.cpus}, {"gpus", a.gpus}, {"memory_mb", a.memory_mb}};
      nodes.push_back(std::move(v));
    }
    return Ok(json{{"nodes", nodes}});
  });

  r.Add("POST", "/v1/nodes/{name}", [&c](const HttpRequest& req) {
    StatusOr<json> body = ParseBody(req);
    if (!body.ok()) return ErrorResponse(body.status());
    std::string state, reason;
    Status err;
    if (!Get(*body, "state", state, err) || !Get(*body, "reason", reason, err)) return ErrorResponse(err);
    Status st = c.UpdateNode(req.params.at("name"), state, reason, req.caller);
    if (!st.ok()) return ErrorResponse(st);
    return Ok(json::object());
  });

  r.Add("GET", "/v1/partitions", [&c](const HttpRequest&) {
    json parts = json::array();
    for (const Partition& p : c.ListPartitions()) parts.push_back(ToJson(p));
    return Ok(json{{"partitions", parts}});
  });

  // sacct: GET /v1/accounting/jobs?ids=&users=&accounts=&partitions=&states=&start=&end= (comma
  // lists; start/end in seconds since the epoch), and the steps of given jobs.
  r.Add("GET", "/v1/accounting/jobs", [&c](const HttpRequest& req) {
    StatusOr<AccountingQuery> q = ParseAccountingQuery(req.query);
    if (!q.ok()) return ErrorResponse(q.status());
    if (Status st = CheckUserNames(q->users); !st.ok()) return ErrorResponse(st);
    StatusOr<std::vector<JobRecord>> jobs = c.Accounting(*q);
    if (!jobs.ok()) return ErrorResponse(jobs.status());
    return HttpResponse::Json(200, JobListJson(*jobs));
  });
  r.Add("GET", "/v1/accounting/steps", [&c](const HttpRequest& req) {
    StatusOr<std::set<int64_t>> ids = ParseIds(req.query);
    if (!ids.ok()) return ErrorResponse(ids.status());
    StatusOr<std::vector<StepRecord>> steps = c.AccountingSteps(*ids);
    if (!steps.ok()) return ErrorResponse(steps.status());
    json out = json::array();
    for (const StepRecord& s : *steps) out.push_back(ToJson(s));
    return Ok(json{{"steps", out}});
  });

  r.Add("GET", "/v1/steps", [&c](const HttpRequest&) {
    json steps = json::array();
    for (const StepRecord& s : c.ListSteps()) steps.push_back(ToJson(s));
    return Ok(json{{"steps", steps}});
  });

  // sprio: the pending jobs' weighted priority factors, and the weights.
  r.Add("GET", "/v1/priority", [&c](const HttpRequest&) {
    const PriorityWeights& w = c.priority_weights();
    json jobs = json::array();
    for (const Controller::JobPriority& p : c.PendingPriorities()) {
      jobs.push_back({{"job_id", p.job_id},
                      {"partition", p.partition},
                      {"user", p.user},
                      {"account", p.account},
                      {"priority", p.priority},
                      {"factors",
                       {{"age", p.factors.age},
                        {"fairshare", p.factors.fairshare},
                        {"job_size", p.factors.job_size},
                        {"partition", p.factors.partition},
                        {"qos", p.factors.qos}}}});
    }
    json weights{{"age", w.age}, {"fairshare", w.fairshare}, {"job_size", w.job_size},
                 {"partition", w.partition}, {"qos", w.qos}};
    return Ok(json{{"weights", weights}, {"jobs", jobs}});
  });

  // sshare: the fair-share tree (Level FS is null where it is infinite: no usage).
  r.Add("GET", "/v1/shares", [&c](const HttpRequest& req) {
    json rows = json::array();
    for (const FairShareRow& f : c.Shares()) {
      json level = std::isinf(f.level_fs) ? json(nullptr) : json(f.level_fs);
      rows.push_back({{"account", f.account},
                      {"user", f.user},
                      {"depth", f.depth},
                      {"raw_shares", f.raw_shares},
                      {"norm_shares", f.norm_shares},
                      {"raw_usage", f.raw_usage},
                      {"norm_usage", f.norm_usage},
                      {"level_fs", level},
                      {"fairshare", f.fairshare}});
    }
    // The caller's name, for sshare's default view (its own associations).
    std::string me = req.caller.authenticated ? Controller::UserNameOf(req.caller.uid) : "";
    return Ok(json{{"caller", me}, {"shares", rows}});
  });

  // sacctmgr: accounts (queues), user associations, QOS. Amounts: -1 = not set.
  r.Add("GET", "/v1/policy", [&c](const HttpRequest&) {
    const SchedPolicy p = c.Policy();
    json accounts = json::array(), users = json::array(), qos = json::array();
    auto tres = [](const TresAmounts& t) { return json{{"gpu", t.gpus}, {"cpu", t.cpus}, {"mem_mb", t.memory_mb}}; };
    for (const Account& a : p.accounts.accounts) {
      accounts.push_back({{"name", a.name}, {"parent", a.parent}, {"shares", a.shares}, {"quota", tres(a.quota)},
                          {"over_quota_weight", a.over_quota_weight}, {"limit", tres(a.limit)},
                          {"max_jobs", a.max_jobs}, {"max_wall_s", a.max_wall_s},
                          {"max_gpus_per_user", a.max_gpus_per_user}});
    }
    for (const UserAssociation& u : p.accounts.users) {
      users.push_back({{"user", u.user}, {"account", u.account}, {"shares", u.shares}});
    }
    for (const Qos& q : p.qos) {
      qos.push_back({{"name", q.name}, {"priority", q.priority}, {"preempt", q.preempt},
                     {"preempt_mode", q.has_preempt_mode ? PreemptModeName(q.preempt_mode) : ""},
                     {"grace_time_s", q.grace_time_s}, {"preempt_exempt_time_s", q.preempt_exempt_time_s},
                     {"max_gpus_per_user", q.max_gpus_per_user}, {"max_gpus_per_job", q.max_gpus_per_job},
                     {"max_jobs_per_user", q.max_jobs_per_user}, {"max_wall_s", q.max_wall_s},
                     {"grp_gpus", q.grp_gpus}});
    }
    const PreemptionSettings& s = p.preemption;
    json pre{{"by_qos", s.by_qos}, {"by_partition_tier", s.by_partition_tier}, {"reclaim_quota", s.reclaim_quota},
             {"mode", PreemptModeName(s.mode)}, {"grace_time_s", s.grace_time_s}, {"exempt_time_s", s.exempt_time_s}};
    return Ok(json{{"accounts", accounts}, {"users", users}, {"qos", qos}, {"preemption", pre},
                   {"warnings", c.policy_warnings()}});
  });

  r.Add("POST", "/v1/policy", [&c](const HttpRequest& req) {
    // Admins only, before anything of the body is looked at.
    if (!c.IsAdmin(req.caller)) {
      return ErrorResponse(Status(StatusCode::kPermissionDenied,
                                  "Access/permission denied: only an administrator may change accounts and QOS"));
    }
    StatusOr<json> body = ParseBody(req);
    if (!body.ok()) return ErrorResponse(body.status());
    StatusOr<PolicyOp> op = DecodePolicyOp(*body);
    if (!op.ok()) return ErrorResponse(op.status());
    Status st = c.ChangePolicy(*op, req.caller);
    if (!st.ok()) return ErrorResponse(st);
    return Ok(json::object());
  });

  r.Add("POST", "/v1/agent/register", [&c](const HttpRequest& req) {
    StatusOr<json> body = ParseBody(req);
    if (!body.ok()) return ErrorResponse(body.status());
    if (!body->contains("node")) return ErrorResponse(InvalidArgument("missing 'node'"));
    StatusOr<NodeRecord> node = NodeRecordFromJson((*body)["node"]);
    if (!node.ok()) return ErrorResponse(node.status());
    StatusOr<NodeReport> report = DecodeNodeReport(*body);
    if (!report.ok()) return ErrorResponse(report.status());
    StatusOr<NodeOrders> orders = c.RegisterNode(*node, *report, req.caller);
    if (!orders.ok()) return ErrorResponse(orders.status());
    json out = OrdersJson(*orders);
    out["cluster"] = c.cluster_name();
    return Ok(out);
  });

  r.Add("POST", "/v1/agent/heartbeat", [&c](const HttpRequest& req) {
    StatusOr<json> body = ParseBody(req);
    if (!body.ok()) return ErrorResponse(body.status());
    std::string node;
    Status err;
    if (!Get(*body, "node", node, err)) return ErrorResponse(err);
    StatusOr<NodeReport> report = DecodeNodeReport(*body);
    if (!report.ok()) return ErrorResponse(report.status());
    StatusOr<NodeOrders> orders = c.Heartbeat(node, *report, req.caller);
    if (!orders.ok()) return ErrorResponse(orders.status());
    return Ok(OrdersJson(*orders));
  });

  r.Add("POST", "/v1/agent/exit", [&c](const HttpRequest& req) {
    StatusOr<json> body = ParseBody(req);
    if (!body.ok()) return ErrorResponse(body.status());
    std::string node;
    Status err;
    if (!Get(*body, "node", node, err)) return ErrorResponse(err);
    StatusOr<RunExit> exit = DecodeRunExit(*body);
    if (!exit.ok()) return ErrorResponse(exit.status());
    Status st = c.JobExited(exit->job_id, node, exit->report, req.caller);
    if (!st.ok()) return ErrorResponse(st);
    return Ok(json::object());
  });
}



}  // namespace muster
