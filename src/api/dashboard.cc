// The dashboard's routes (api/dashboard.h): its files, and the JSON of its views gathered from the
// controller's records.
#include "api/dashboard.h"

#include "api/route_util.h"
#include "api/slurmrest/slurmrest.h"
#include "api/ui_assets.h"

namespace muster::api {

namespace bj = wire::bj;

namespace {

// The page may load only its own files and talk only to this server: no inline script or style,
// no other origin, not framed.
constexpr const char* kPolicy =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

HttpResponse Asset(std::string_view name) {
  for (const UiAsset& a : UiAssets()) {
    if (a.name != name) continue;
    std::string type = "application/octet-stream";
    if (name.ends_with(".html")) type = "text/html; charset=utf-8";
    if (name.ends_with(".js")) type = "text/javascript; charset=utf-8";
    if (name.ends_with(".css")) type = "text/css; charset=utf-8";
    HttpResponse r{200, type, std::string(a.content)};
    r.headers = {{"Content-Security-Policy", kPolicy},
                 {"X-Content-Type-Options", "nosniff"},
                 {"Referrer-Policy", "no-referrer"},
                 {"Cache-Control", "no-cache"}};
    return r;
  }
  return HttpResponse::Error(404, "no such file of the dashboard: " + std::string(name));
}

HttpResponse Data(bj::object view, const Controller& c, const Caller& who) {
  view["cluster"] = c.cluster_name();
  view["now"] = c.NowSeconds();
  view["caller"] = Controller::UserNameOf(who.uid);
  HttpResponse r = HttpResponse::Json(200, bj::serialize(view));
  r.headers = {{"Cache-Control", "no-store"}, {"X-Content-Type-Options", "nosniff"}};
  return r;
}

}  // namespace

bool IsDashboardPath(std::string_view path) {
  return path == "/ui" || path.starts_with("/ui/") || path.starts_with("/v1/ui/");
}

void AddDashboardRoutes(Controller& c, Router& r, const std::string& jwt_key) {
  r.Add("GET", "/ui", [](const HttpRequest&) { return Asset("index.html"); });
  r.Add("GET", "/ui/{file}", [](const HttpRequest& req) { return Asset(req.params.at("file")); });

  // Each data route runs for an authenticated caller: the server's (peer credentials, a cluster
  // token) or a browser's JWT (slurmrestd's rule, slurmrest::Authenticate); 401 otherwise.
  auto route = [&c, &r, jwt_key](const std::string& path,
                                 std::function<HttpResponse(const HttpRequest&, const Caller&)> fn) {
    r.Add("GET", path, [&c, jwt_key, fn](const HttpRequest& req) {
      if (req.caller.authenticated) return fn(req, req.caller);
      StatusOr<Caller> who = slurmrest::Authenticate(req, jwt_key, c.NowSeconds(), [&c](uint32_t uid) {
        return c.IsAdmin(Caller{true, uid, 0, "jwt", ""});
      });
      if (!who.ok()) {
        return HttpResponse::Error(401, "authentication required: open the dashboard with a token "
                                        "(/ui#token=..., from `scontrol token`): " + who.status().message());
      }
      return fn(req, *who);
    });
  };

  route("/v1/ui/cluster", [&c](const HttpRequest&, const Caller& who) {
    const std::vector<NodeRecord> nodes = c.ListNodes();
    bj::object view;
    JobQuery q;
    q.active_only = true;
    // A node's figures as long as it is not overdue (then they are not shown).
    const auto usage = c.gpu_usage().Recent(c.NowSeconds(), c.heartbeat_timeout_s());
    c.VisitJobs(q, [&](const std::vector<const JobRecord*>& jobs) { view = ClusterView(nodes, jobs, usage); });
    return Data(std::move(view), c, who);
  });

  route("/v1/ui/queue", [&c](const HttpRequest&, const Caller& who) {
    bj::object view;
    JobQuery q;
    q.active_only = true;
    const int64_t now = c.NowSeconds();
    c.VisitJobs(q, [&](const std::vector<const JobRecord*>& jobs) { view = QueueView(jobs, now); });
    view["backfill"] = c.backfill_enabled();
    return Data(std::move(view), c, who);
  });

  // ?hours=N (1 to 336, default 24): how far back the usage goes.
  route("/v1/ui/teams", [&c](const HttpRequest& req, const Caller& who) {
    int hours = 24;
    if (auto it = req.query.find("hours"); it != req.query.end()) {
      const std::string& v = it->second;
      if (v.empty() || v.size() > 3 || v.find_first_not_of("0123456789") != std::string::npos ||
          std::stoi(v) < 1 || std::stoi(v) > 336) {
        return ErrorResponse(InvalidArgument("hours: expected a whole number of hours from 1 to 336, got '" + v + "'"));
      }
      hours = std::stoi(v);
    }
    const int64_t now = c.NowSeconds();
    AccountingQuery q;
    q.start = now - int64_t{hours} * 3600 - 3600;
    StatusOr<std::vector<JobRecord>> jobs = c.Accounting(q);
    if (!jobs.ok()) return ErrorResponse(jobs.status());
    int64_t total_gpus = 0;
    for (const NodeRecord& n : c.ListNodes()) total_gpus += static_cast<int64_t>(n.node.gpus.size());
    const SchedPolicy policy = c.Policy();
    return Data(TeamsView(*jobs, policy.accounts, c.Shares(), total_gpus, now, hours), c, who);
  });

  // A job as `scontrol show job` shows it to anyone (never its script, arguments or environment),
  // and after it left the controller, as sacct keeps it.
  route("/v1/ui/jobs/{id}", [&c](const HttpRequest& req, const Caller& who) {
    StatusOr<int64_t> id = ParseId(req.params.at("id"));
    if (!id.ok()) return ErrorResponse(id.status());
    StatusOr<JobRecord> job = c.GetJob(*id);
    if (!job.ok()) {
      AccountingQuery q;
      q.ids = {*id};
      StatusOr<std::vector<JobRecord>> kept = c.Accounting(q);
      if (!kept.ok()) return ErrorResponse(kept.status());
      auto it = std::find_if(kept->begin(), kept->end(), [&](const JobRecord& j) { return j.id == *id; });
      if (it == kept->end()) return ErrorResponse(NotFound("Invalid job id specified"));
      job = std::move(*it);
    }
    StatusOr<std::vector<StepRecord>> steps = c.AccountingSteps({*id});
    if (!steps.ok()) return ErrorResponse(steps.status());
    return Data(JobView(*job, *steps, c.NowSeconds()), c, who);
  });
}

}  // namespace muster::api
