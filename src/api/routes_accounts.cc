// Accounts and policy: sacct's jobs, sreport's usage, sprio's factors, sshare's tree, sacctmgr's reads and edits.

#include <pwd.h>

#include <map>
#include <string>
#include <vector>

#include "api/decode.h"
#include "wire/policy.h"
#include "wire/priority.h"
#include "wire/usage.h"
#include "api/route_util.h"
#include "api/routes.h"
#include "model/job_list_json.h"
#include "wire/records.h"
#include "report/usage_report.h"

namespace muster::api {

namespace bj = wire::bj;

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
    ASSIGN_OR_RETURN(std::optional<int64_t> seconds, QueryEpochSeconds(query, key));
    if (seconds) *out = *seconds;
  }
  return q;
}

// The user's full name as sreport's "Proper Name" shows it: the GECOS field up to its first comma.
std::string ProperName(const std::string& user) {
  struct passwd pw {};
  struct passwd* found = nullptr;
  std::vector<char> buf(16384);
  if (getpwnam_r(user.c_str(), &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr) return "";
  const std::string gecos = found->pw_gecos != nullptr ? found->pw_gecos : "";
  return gecos.substr(0, gecos.find(','));
}

StatusOr<UsageAnswer> UsageReportAnswer(const Controller& c, const std::map<std::string, std::string>& query) {
  ASSIGN_OR_RETURN(AccountingQuery q, ParseAccountingQuery(query));
  if (q.start <= 0 || q.end <= q.start) {
    return InvalidArgument("a report needs start and end (seconds since the epoch), start before end");
  }
  AccountingQuery period;  // every job of the period: sreport shows all users' usage, as sacct -a
  period.start = q.start;
  period.end = q.end;
  ASSIGN_OR_RETURN(std::vector<JobRecord> jobs, c.Accounting(period));
  const std::vector<NodeRecord> nodes = c.ListNodes();
  const UsageReport u = ComputeUsage(jobs, nodes, q.start, q.end, c.NowSeconds(), c.records_since());
  UsageAnswer a;
  a.cluster = c.cluster_name();
  a.start = u.start;
  a.end = u.end;
  a.measured_start = u.measured_start;
  a.measured_end = u.measured_end;
  for (const ClusterTresUsage* t : {&u.cpu, &u.gpu}) {
    a.tres.push_back({t->tres, t->count, t->alloc_s, t->down_s, t->pdown_s, t->idle_s, t->plan_s, t->over_s});
  }
  std::map<std::string, std::string> proper;
  for (const AssocUsage& x : u.assocs) {
    auto it = proper.find(x.user);
    if (it == proper.end()) it = proper.emplace(x.user, ProperName(x.user)).first;
    a.assocs.push_back({x.user, x.account, it->second, x.cpu_s, x.gpu_s});
  }
  for (const Account& acct : c.Policy().accounts.accounts) a.accounts.push_back({acct.name, acct.parent});
  return a;
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
    return Ok(StepsAnswer{std::move(*steps)});
  });

  // sreport: GET /v1/reports/usage?start=&end= (seconds since the epoch): the cluster's figures and
  // each association's usage over the period, computed from the job and node records. Everyone's,
  // as sacct -a shows every job (Muster has no PrivateData).
  r.Add("GET", "/v1/reports/usage", [&c](const HttpRequest& req) {
    StatusOr<UsageAnswer> a = UsageReportAnswer(c, req.query);
    if (!a.ok()) return ErrorResponse(a.status());
    return Ok(*a);
  });

  // sprio: the pending jobs' weighted priority factors, and the weights.
  r.Add("GET", "/v1/priority", [&c](const HttpRequest&) {
    const PriorityWeights& w = c.priority_weights();
    PriorityAnswer answer;
    answer.weights = {w.age, w.fairshare, w.job_size, w.partition, w.qos};
    for (const Controller::JobPriority& p : c.PendingPriorities()) {
      const PriorityFactors& f = p.factors;
      answer.jobs.push_back({p.job_id, p.partition, p.user, p.account, p.priority,
                             {f.age, f.fairshare, f.job_size, f.partition, f.qos}});
    }
    return Ok(answer);
  });

  // sshare: the fair-share tree (Level FS left out where it is infinite: no usage).
  r.Add("GET", "/v1/shares", [&c](const HttpRequest& req) {
    SharesAnswer answer;
    for (const FairShareRow& f : c.Shares()) {
      answer.shares.push_back({f.account, f.user, f.depth, f.raw_shares, f.norm_shares, f.raw_usage, f.norm_usage,
                               std::isinf(f.level_fs) ? std::nullopt : std::optional<double>(f.level_fs),
                               f.fairshare});
    }
    // The caller's name, for sshare's default view (its own associations).
    answer.caller = req.caller.authenticated ? Controller::UserNameOf(req.caller.uid) : "";
    return Ok(answer);
  });

  // sacctmgr: accounts (queues), user associations, QOS. Amounts: -1 = not set.
  r.Add("GET", "/v1/policy", [&c](const HttpRequest&) {
    const SchedPolicy p = c.Policy();
    const PreemptionSettings& s = p.preemption;
    PolicyAnswer answer{p.accounts.accounts, p.accounts.users, p.qos,
                        {s.by_qos, s.by_partition_tier, s.reclaim_quota, PreemptModeName(s.mode), s.grace_time_s,
                         s.exempt_time_s},
                        c.policy_warnings()};
    return Ok(answer);
  });

  r.Add("POST", "/v1/policy", kChangeBodyLimit, [&c](const HttpRequest& req) {
    // Admins only, before anything of the body is looked at.
    if (!c.IsAdmin(req.caller)) {
      return ErrorResponse(Status(StatusCode::kPermissionDenied,
                                  "Access/permission denied: only an administrator may change accounts and QOS"));
    }
    StatusOr<PolicyOp> op = wire::Decode<PolicyOp>(req.body);
    if (!op.ok()) return ErrorResponse(op.status());
    Status st = c.ChangePolicy(*op, req.caller);
    if (!st.ok()) return ErrorResponse(st);
    return Ok();
  });
}

}  // namespace muster::api
