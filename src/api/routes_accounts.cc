// Accounts and policy: sacct's jobs, sprio's factors, sshare's tree, sacctmgr's reads and edits.
#include <nlohmann/json.hpp>

#include "api/decode.h"
#include "api/wire/policy.h"
#include "api/route_util.h"
#include "api/routes.h"
#include "model/job_list_json.h"
#include "model/record_json.h"

namespace muster::api {

using nlohmann::json;

namespace {

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

}  // namespace

void AddAccountRoutes(Controller& c, Router& r) {
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
    StatusOr<PolicyOp> op = wire::Decode<PolicyOp>(req.body);
    if (!op.ok()) return ErrorResponse(op.status());
    Status st = c.ChangePolicy(*op, req.caller);
    if (!st.ok()) return ErrorResponse(st);
    return Ok(json::object());
  });
}

}  // namespace muster::api
