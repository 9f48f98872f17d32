// The web dashboard (docs/dashboard.md): musterctld serves its page and files (GET /ui,
// /ui/app.js, /ui/style.css, compiled in: api/ui_assets.h) and the JSON its views read:
//   GET /v1/ui/cluster     nodes x GPUs, each GPU's state and the jobs holding it
//   GET /v1/ui/queue       pending jobs (position, reason, expected start), running jobs and GPUs
//   GET /v1/ui/teams       each account's GPU usage per hour against its quota and fair share
//   GET /v1/ui/jobs/{id}   a job's timeline, placement, steps and output paths
// The views are built by pure functions of the controller's records (below), so that they are
// tested and timed in process; the routes only gather the records.
// Who sees what: any authenticated caller sees all four, as squeue, sinfo, sshare and `scontrol
// show job` show every job (none of the views carries a job's script, arguments or
// environment). Nothing here changes state. A browser authenticates with the JWT `scontrol
// token` makes (X-SLURM-USER-TOKEN), as slurmrestd's routes do; the Unix socket's peer
// credentials and the cluster's tokens count too.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ctld/controller.h"
#include "ctld/gpu_usage_board.h"
#include "model/account.h"
#include "model/job_record.h"
#include "net/http.h"
#include "sched/fair_tree.h"
#include "wire/codec.h"

namespace muster::api {

// Adds GET /ui, /ui/{file} and the /v1/ui data routes. `jwt_key`: controller.jwt_key ("" = none).
void AddDashboardRoutes(Controller& c, Router& r, const std::string& jwt_key);
// Whether a path is the dashboard's (its routes authenticate for themselves, as above).
bool IsDashboardPath(std::string_view path);

// {"nodes": [{"name", "state", "reason", "cpus", "cpus_allocated", "memory_mb",
// "memory_allocated_mb", "util_at", "gpus": [{"index", "model", "state", "fault", "util_pct",
// "fb_used_mib", "jobs": [{"id", "user", "milli"}]}]}], "totals": {...}, "utilization_reported"}.
// A GPU's state: "unhealthy" (its agent's health watch took it out), "allocated" (a job holds it),
// "drained" or "down" (its node), "idle". `jobs`: the active jobs (those holding resources place
// GPUs). `usage`: the utilization the nodes' heartbeats carried (ctld/gpu_usage_board.h); a GPU
// without a figure has no "util_pct", and "utilization_reported" says whether any node had one.
wire::bj::object ClusterView(const std::vector<NodeRecord>& nodes, const std::vector<const JobRecord*>& jobs,
                             const std::map<std::string, NodeGpuUsage>& usage = {});

// {"pending": [...], "running": [...]}: pending jobs in the order the scheduler considers them
// (priority, then submission; "position" from 1), each with its reason and expected start (0:
// none planned), the first `max_pending` of them ("pending_total" counts all), and jobs holding
// resources with their nodes and GPUs.
wire::bj::object QueueView(const std::vector<const JobRecord*>& jobs, int64_t now, int64_t max_pending = 1000);

// Each account's GPUs in use, averaged over each hour of the `hours` before `now` (from the
// jobs that ran then: `jobs`, sacct's records), with its quota, limit and fair share of
// `total_gpus` (its normalized shares from sshare's tree); an account counts its sub-accounts'.
wire::bj::object TeamsView(const std::vector<JobRecord>& jobs, const AccountTree& accounts,
                           const std::vector<FairShareRow>& shares, int64_t total_gpus, int64_t now, int hours);

// One job: its fields, timeline (submit, eligible, start, preemptions, end), placement, steps and
// output paths (as scontrol prints StdOut/StdErr).
wire::bj::object JobView(const JobRecord& job, const std::vector<StepRecord>& steps, int64_t now);

}  // namespace muster::api
