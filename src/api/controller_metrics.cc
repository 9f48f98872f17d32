#include "api/controller_metrics.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "api/route_util.h"
#include "api/routes.h"
#include "ctld/controller_diag.h"
#include "net/prometheus_text.h"
#include "wire/diag.h"
#include "wire/jobs.h"

namespace muster::api {
namespace {

using prom::Family;
using prom::MetricType;
using prom::Series;

double Gpus(const JobRecord& j) {
  int64_t milli = 0;
  for (const NodeAllocation& a : j.allocation) {
    for (const GpuShare& g : a.gpus) milli += g.milli;
  }
  return static_cast<double>(milli) / kMilliPerGpu;
}

// Pending jobs by partition, reason and account; running ones by partition and account.
void AddJobFamilies(const std::map<std::tuple<std::string, std::string, std::string>, int>& pending,
                    const std::map<std::pair<std::string, std::string>, int>& running, std::vector<Family>& out) {
  Family jobs{"muster_jobs", "Jobs pending, by partition, reason and account.", MetricType::kGauge, {}};
  for (const auto& [k, n] : pending) {
    const auto& [partition, reason, account] = k;
    jobs.series.push_back(
        Series{{{"state", "pending"}, {"partition", partition}, {"reason", reason}, {"account", account}}, double(n), ""});
  }
  out.push_back(std::move(jobs));
  Family run{"muster_jobs_running", "Jobs running, by partition and account.", MetricType::kGauge, {}};
  for (const auto& [k, n] : running) run.series.push_back(Series{{{"partition", k.first}, {"account", k.second}}, double(n), ""});
  out.push_back(std::move(run));
}

Family GpuFamily(const std::vector<NodeRecord>& nodes, const std::map<std::string, NodeAllocated>& allocated) {
  // GPUs: unhealthy = failed (out of service); allocated = held by jobs; of the rest, those of
  // nodes that take no work (drained, down, not registered) are drained, the others idle.
  double gpu[4] = {0, 0, 0, 0};  // allocated, idle, drained, unhealthy
  for (const NodeRecord& n : nodes) {
    const auto it = allocated.find(n.node.name);
    const double held = it == allocated.end() ? 0 : it->second.gpus;
    const double failed = static_cast<double>(n.failed_gpus.size());
    const double rest = std::max(0.0, static_cast<double>(n.node.gpus.size()) - held - failed);
    gpu[0] += held;
    gpu[n.node.schedulable() ? 1 : 2] += rest;
    gpu[3] += failed;
  }
  Family gpus{"muster_gpus", "The cluster's GPUs by state: allocated to jobs, idle, drained (on nodes that take no work), unhealthy (failed).",
              MetricType::kGauge, {}};
  const char* names[4] = {"allocated", "idle", "drained", "unhealthy"};
  for (int i = 0; i < 4; ++i) gpus.series.push_back(Series{{{"state", names[i]}}, gpu[i], ""});
  return gpus;
}

// The accounts' fair share (sshare's columns), their GPU quotas and caps, the GPUs they hold.
void AddAccountFamilies(const std::vector<FairShareRow>& shares, const SchedPolicy& policy,
                        const std::map<std::string, double>& account_gpus, std::vector<Family>& out) {
  Family usage{"muster_account_fairshare_usage", "An account's share of the cluster's decayed usage (sshare's NormUsage).",
               MetricType::kGauge, {}};
  Family raw{"muster_account_usage_billing_seconds", "An account's decayed usage in billing-seconds (sshare's RawUsage).",
             MetricType::kGauge, {}};
  Family norm{"muster_account_fairshare_shares", "An account's share of the cluster (sshare's NormShares).", MetricType::kGauge, {}};
  for (const FairShareRow& r : shares) {
    if (!r.user.empty()) continue;
    usage.series.push_back(Series{{{"account", r.account}}, r.norm_usage, ""});
    raw.series.push_back(Series{{{"account", r.account}}, r.raw_usage, ""});
    norm.series.push_back(Series{{{"account", r.account}}, r.norm_shares, ""});
  }
  out.push_back(std::move(usage));
  out.push_back(std::move(raw));
  out.push_back(std::move(norm));
  Family quota{"muster_account_quota_gpus", "An account's guaranteed GPUs (its quota; accounts with one).", MetricType::kGauge, {}};
  Family limit{"muster_account_limit_gpus", "An account's GPU cap (GrpTRES gres/gpu; accounts with one).", MetricType::kGauge, {}};
  Family in_use{"muster_account_gpus_allocated", "GPUs held by an account's running jobs.", MetricType::kGauge, {}};
  for (const Account& a : policy.accounts.accounts) {
    if (a.quota.gpus != kUnlimited) quota.series.push_back(Series{{{"account", a.name}}, double(a.quota.gpus), ""});
    if (a.limit.gpus != kUnlimited) limit.series.push_back(Series{{{"account", a.name}}, double(a.limit.gpus), ""});
  }
  for (const auto& [account, g] : account_gpus) in_use.series.push_back(Series{{{"account", account}}, g, ""});
  out.push_back(std::move(quota));
  out.push_back(std::move(limit));
  out.push_back(std::move(in_use));
}

void Counter(std::vector<Family>& out, const char* name, const char* help, double v) {
  out.push_back(Family{name, help, MetricType::kCounter, {Series{{}, v, ""}}});
}

// The jobs the passes submitted, started, preempted and ended; the passes' times; backfill's work.
void AddSchedulerFamilies(const StatsSnapshot& s, std::vector<Family>& out) {
  Counter(out, "muster_jobs_submitted_total", "Jobs submitted (each array task and component counts).",
          double(s.submitted));
  Counter(out, "muster_jobs_started_total",
          "Job starts the scheduling passes applied (a requeued job counts each start).", double(s.started));
  Counter(out, "muster_jobs_preempted_total", "Running jobs stopped or suspended for a preemptor.",
          double(s.preempted));
  Family ended{"muster_jobs_ended_total", "Jobs ended, by final state.", MetricType::kCounter, {}};
  for (const auto& [state, n] : s.ended) ended.series.push_back(Series{{{"state", state}}, double(n), ""});
  out.push_back(std::move(ended));

  Family pass{"muster_scheduler_pass_seconds",
              "Wall time of each scheduling pass that ran the scheduler (input, decisions, apply, launch).",
              MetricType::kHistogram, {}};
  prom::AddHistogram(pass, {}, s.pass_seconds.bounds(), s.pass_seconds.cumulative(), s.pass_seconds.sum(),
                     s.pass_seconds.count());
  out.push_back(std::move(pass));
  Counter(out, "muster_scheduler_pass_jobs_considered_total", "Waiting jobs the passes considered, summed.",
          double(s.depth_total));
  Counter(out, "muster_backfill_passes_total", "Scheduling passes run with backfill on.", double(s.backfill_passes));
  Counter(out, "muster_backfill_reservations_total",
          "Backfill reservations the passes made (waiting jobs given a start time and nodes).",
          double(s.backfill_reservations_total));
  Counter(out, "muster_backfill_jobs_started_total",
          "Jobs a pass started after a job asking the same partition got a reservation in that pass (backfilled).",
          double(s.backfilled_jobs));
  out.push_back(Family{"muster_backfill_last_reservations", "Reservations the last backfill pass made.", MetricType::kGauge,
                       {Series{{}, double(s.backfill_last_reservations), ""}}});
  out.push_back(Family{"muster_backfill_last_depth", "Waiting jobs the last backfill pass considered.", MetricType::kGauge,
                       {Series{{}, double(s.backfill_last_depth), ""}}});
}

Family ApiFamily(const StatsSnapshot& s) {
  Family api{"muster_api_request_seconds", "Time the controller took to answer an API request, by route pattern and method.",
             MetricType::kHistogram, {}};
  for (const auto& [key, r] : s.api) {
    prom::AddHistogram(api, {{"route", key.first}, {"method", key.second}}, r.seconds.bounds(), r.seconds.cumulative(),
                       r.seconds.sum(), r.seconds.count());
  }
  return api;
}

// The outage rule's view, and (with controller.hosts) this controller's leadership: read now.
void AddControllerFamilies(Controller& c, std::vector<Family>& out) {
  // The outage rule (ctld/outage_guard.h): many nodes silent at once is the controller's own fault.
  const Controller::OutageView outage = c.outage();
  out.push_back(Family{"muster_nodes_out_of_touch",
                       "Nodes counted for the outage rule that have not been heard for a heartbeat interval and more.",
                       MetricType::kGauge, {Series{{}, double(outage.out), ""}}});
  out.push_back(Family{"muster_controller_outage",
                       "1 while so many nodes are silent at once (controller.outage_threshold) that the controller takes it for "
                       "its own fault and requeues no silent node's jobs.",
                       MetricType::kGauge, {Series{{}, outage.own_fault ? 1.0 : 0.0, ""}}});
  Counter(out, "muster_controller_outages_total", "Times the controller took many nodes' silence for its own fault.",
          double(outage.outages));
  if (const LeadershipStats l = c.stats().Leadership(); !l.address.empty()) {
    // controller.hosts: this one leads (a standby's /metrics says 0: api/standby.cc); the token counts the
    // cluster's leaderships, so its rises are the takeovers.
    out.push_back(Family{"muster_controller_leader", "1: this controller leads (controller.hosts).", MetricType::kGauge,
                         {Series{{{"address", l.address}}, 1, ""}}});
    out.push_back(Family{"muster_controller_leaderships_total",
                         "Leaderships of the cluster so far (the lease's fencing token): each takeover adds one.",
                         MetricType::kCounter, {Series{{}, double(l.token), ""}}});
    out.push_back(Family{"muster_controller_leader_since_seconds", "When this controller took the lease (Unix time).",
                         MetricType::kGauge, {Series{{}, double(l.since), ""}}});
    out.push_back(Family{"muster_controller_standby_seconds", "How long this controller stood by before it took the lease.",
                         MetricType::kGauge, {Series{{}, l.standby_s, ""}}});
  }
}

}  // namespace

StatusOr<std::string> ControllerMetricsText(Controller& c) {
  // Sampled: each read takes its part's lock briefly; nothing below formats under a lock.
  std::map<std::tuple<std::string, std::string, std::string>, int> pending;  // partition, reason, account
  std::map<std::pair<std::string, std::string>, int> running;              // partition, account
  std::map<std::string, double> account_gpus;                              // GPUs held by running jobs
  c.VisitJobs(JobQuery{.active_only = true}, [&](const std::vector<const JobRecord*>& jobs) {
    for (const JobRecord* j : jobs) {
      if (j->state == JobState::kPending) ++pending[{j->partition, j->reason, j->account}];
      if (j->state == JobState::kRunning) {
        ++running[{j->partition, j->account}];
        account_gpus[j->account] += Gpus(*j);
      }
    }
  });
  const std::map<std::string, NodeAllocated> allocated = c.AllocatedByNode();
  const std::vector<NodeRecord> nodes = c.ListNodes();
  const std::vector<FairShareRow> shares = c.Shares();
  const SchedPolicy policy = c.Policy();
  const StatsSnapshot s = c.stats().Snapshot();

  std::vector<Family> out;
  AddJobFamilies(pending, running, out);
  out.push_back(GpuFamily(nodes, allocated));
  AddAccountFamilies(shares, policy, account_gpus, out);
  AddSchedulerFamilies(s, out);
  out.push_back(ApiFamily(s));
  AddControllerFamilies(c, out);
  return prom::WriteText(std::move(out));
}

void AddMetricsRoutes(Controller& c, Router& r, int server_threads) {
  r.Add("GET", "/metrics", [&c](const HttpRequest&) {
    StatusOr<std::string> text = ControllerMetricsText(c);
    if (!text.ok()) return HttpResponse::Error(500, text.status().message());
    return HttpResponse{200, prom::kContentType, std::move(*text)};
  });
  r.Add("GET", "/v1/diag", [&c, server_threads](const HttpRequest&) { return Ok(ControllerDiag(c, server_threads)); });
  r.Add("POST", "/v1/diag/reset", kChangeBodyLimit, [&c](const HttpRequest& req) {
    if (!c.IsAdmin(req.caller)) return ErrorResponse(Status(StatusCode::kPermissionDenied, "Access/permission denied"));
    c.stats().Reset(c.NowSeconds());
    return Ok();
  });
}

}  // namespace muster::api
