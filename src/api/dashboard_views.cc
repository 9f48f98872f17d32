// The dashboard's views (api/dashboard.h): pure functions of the controller's records.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "api/dashboard.h"
#include "model/allocation.h"
#include "report/scontrol_format.h"

namespace muster::api {

namespace bj = wire::bj;

namespace {

std::string UserOf(const JobRecord& j) { return j.user.empty() ? std::to_string(j.uid) : j.user; }

// "1234" or, for a task of an array, "1234_5" (squeue's %i).
std::string JobLabel(const JobRecord& j) {
  if (j.array_job_id != 0) return std::to_string(j.array_job_id) + "_" + std::to_string(j.array_task_id);
  if (j.het_job_id != 0) return std::to_string(j.het_job_id) + "+" + std::to_string(j.het_job_offset);
  return std::to_string(j.id);
}

// What a job asks of GPUs, in words: "4 per node", "8", "2 per task", "0.25 of one", "" for none.
std::string GpuAsk(const JobRequest& r) {
  std::string type = r.gpu_type.empty() ? "" : r.gpu_type + " ";
  if (r.gpu_milli > 0) return type + std::to_string(r.gpu_milli / 1000.0).substr(0, 4) + " of one per node";
  if (r.gpu_memory_mb > 0) return type + std::to_string(r.gpu_memory_mb) + " MB of one per node";
  if (r.gpus_total > 0) return type + std::to_string(r.gpus_total);
  if (r.gpus_per_node > 0) return type + std::to_string(r.gpus_per_node) + " per node";
  if (r.gpus_per_task > 0) return type + std::to_string(r.gpus_per_task) + " per task";
  return "";
}

double JobGpus(const JobRecord& j) {
  double units = 0;
  for (const NodeAllocation& a : j.allocation) units += GpuUnits(a);
  return units;
}

bj::array Placement(const JobRecord& j) {
  bj::array out;
  for (const NodeAllocation& a : j.allocation) {
    bj::array gpus;
    for (const GpuShare& g : a.gpus) gpus.push_back(bj::object{{"index", g.index}, {"milli", g.milli}});
    out.push_back(bj::object{{"node", a.node},
                             {"cpus", CpusOf(a)},
                             {"memory_mb", a.memory_mb},
                             {"tasks", a.tasks},
                             {"exclusive", a.exclusive},
                             {"gpus", std::move(gpus)}});
  }
  return out;
}

// The node's state as sinfo's long form names it, with the drain flag.
std::string NodeWord(const Node& n) {
  const std::string base = NodeStateName(n.state);
  if (!n.drain) return base;
  if (n.state == NodeState::kIdle) return "drained";
  if (n.state == NodeState::kDown) return "down+drain";
  return "draining";
}

}  // namespace

bj::object ClusterView(const std::vector<NodeRecord>& nodes, const std::vector<const JobRecord*>& jobs,
                       const std::map<std::string, NodeGpuUsage>& usage) {
  // Who holds each GPU: (node, index) -> the jobs (a shared GPU may have several).
  std::map<std::string, std::map<int, bj::array>> holders;
  std::map<std::string, std::pair<int64_t, int64_t>> held;  // node -> CPUs, memory
  for (const JobRecord* j : jobs) {
    if (!HoldsResources(j->state)) continue;
    for (const NodeAllocation& a : j->allocation) {
      auto& h = held[a.node];
      if (HoldsCpus(*j)) h.first += CpusOf(a);
      h.second += a.memory_mb;
      for (const GpuShare& g : a.gpus) {
        holders[a.node][g.index].push_back(bj::object{
            {"id", j->id}, {"label", JobLabel(*j)}, {"user", UserOf(*j)}, {"account", j->account}, {"milli", g.milli}});
      }
    }
  }
  bool utilization_reported = false;
  int64_t gpus = 0, allocated = 0, idle = 0, drained = 0, down = 0, unhealthy = 0, nodes_down = 0, nodes_drained = 0;
  bj::array out;
  for (const NodeRecord& n : nodes) {
    std::map<int, std::string> faults;
    for (const GpuFault& f : n.failed_gpus) faults[f.index] = f.reason.empty() ? "failed" : f.reason;
    const bool node_down = n.node.state == NodeState::kDown || n.node.state == NodeState::kUnknown;
    if (node_down) ++nodes_down;
    if (n.node.drain) ++nodes_drained;
    bj::array gpu_list;
    auto node_holders = holders.find(n.node.name);
    const auto node_usage = usage.find(n.node.name);
    for (const Gpu& g : n.node.gpus) {
      bj::array by;
      if (node_holders != holders.end()) {
        if (auto it = node_holders->second.find(g.index); it != node_holders->second.end()) by = std::move(it->second);
      }
      std::string state;
      if (faults.count(g.index)) {
        state = "unhealthy";
        ++unhealthy;
      } else if (!by.empty()) {
        state = "allocated";
        ++allocated;
      } else if (node_down) {
        state = "down";
        ++down;
      } else if (n.node.drain) {
        state = "drained";
        ++drained;
      } else {
        state = "idle";
        ++idle;
      }
      ++gpus;
      bj::object gpu{{"index", g.index},
                     {"model", g.is_mig() ? g.mig_profile : g.model},
                     {"memory_mb", g.memory_mb},
                     {"state", state},
                     {"jobs", std::move(by)}};
      if (auto f = faults.find(g.index); f != faults.end()) gpu["fault"] = f->second;
      if (node_usage != usage.end() && !node_down) {
        for (const GpuUtilization& u : node_usage->second.gpus) {
          if (u.index != g.index) continue;
          gpu["util_pct"] = u.util_pct;
          if (u.fb_used_mib) gpu["fb_used_mib"] = *u.fb_used_mib;
          utilization_reported = true;
        }
      }
      gpu_list.push_back(std::move(gpu));
    }
    const auto h = held.count(n.node.name) ? held.at(n.node.name) : std::pair<int64_t, int64_t>{0, 0};
    out.push_back(bj::object{{"name", n.node.name},
                             {"state", NodeWord(n.node)},
                             {"reason", n.node.reason},
                             {"cpus", n.node.cpus},
                             {"cpus_allocated", h.first},
                             {"memory_mb", n.node.memory_mb},
                             {"memory_allocated_mb", h.second},
                             {"last_heartbeat", n.last_heartbeat},
                             {"util_at", node_usage != usage.end() ? node_usage->second.at : 0},
                             {"gpus", std::move(gpu_list)}});
  }
  return bj::object{{"nodes", std::move(out)},
                    {"utilization_reported", utilization_reported},
                    {"totals", bj::object{{"nodes", static_cast<int64_t>(nodes.size())},
                                          {"nodes_down", nodes_down},
                                          {"nodes_drained", nodes_drained},
                                          {"gpus", gpus},
                                          {"allocated", allocated},
                                          {"idle", idle},
                                          {"drained", drained},
                                          {"down", down},
                                          {"unhealthy", unhealthy}}}};
}

bj::object QueueView(const std::vector<const JobRecord*>& jobs, int64_t now, int64_t max_pending) {
  std::vector<const JobRecord*> pending;
  bj::array running;
  for (const JobRecord* j : jobs) {
    if (j->state == JobState::kPending) pending.push_back(j);
  }
  // The order the scheduler takes them in (and squeue lists them): priority, then submission.
  std::sort(pending.begin(), pending.end(), [](const JobRecord* a, const JobRecord* b) {
    if (a->priority != b->priority) return a->priority > b->priority;
    if (a->submit_time != b->submit_time) return a->submit_time < b->submit_time;
    return a->id < b->id;
  });
  bj::array waiting;
  int64_t position = 0;
  for (const JobRecord* j : pending) {
    if (position >= max_pending) break;
    waiting.push_back(bj::object{{"id", j->id},
                                 {"label", JobLabel(*j)},
                                 {"position", ++position},
                                 {"name", j->name},
                                 {"user", UserOf(*j)},
                                 {"account", j->account},
                                 {"partition", j->partition},
                                 {"priority", j->priority},
                                 {"held", j->held},
                                 {"reason", j->reason},
                                 {"reason_detail", j->reason_detail},
                                 {"submit_time", j->submit_time},
                                 {"waited_s", j->submit_time > 0 ? std::max<int64_t>(0, now - j->submit_time) : 0},
                                 {"expected_start", j->expected_start},
                                 {"sched_nodes", j->sched_nodes},
                                 {"gpus", GpuAsk(j->request)},
                                 {"time_limit_s", j->time_limit_s}});
  }
  std::vector<const JobRecord*> holding;
  for (const JobRecord* j : jobs) {
    if (HoldsResources(j->state)) holding.push_back(j);
  }
  std::sort(holding.begin(), holding.end(), [](const JobRecord* a, const JobRecord* b) { return a->id < b->id; });
  for (const JobRecord* j : holding) {
    running.push_back(bj::object{{"id", j->id},
                                 {"label", JobLabel(*j)},
                                 {"name", j->name},
                                 {"user", UserOf(*j)},
                                 {"account", j->account},
                                 {"partition", j->partition},
                                 {"state", JobStateName(j->state)},
                                 {"start_time", j->start_time},
                                 {"run_s", RunSeconds(*j, now)},
                                 {"time_limit_s", j->time_limit_s},
                                 {"gpus", JobGpus(*j)},
                                 {"placement", Placement(*j)}});
  }
  return bj::object{{"pending", std::move(waiting)},
                    {"pending_total", static_cast<int64_t>(pending.size())},
                    {"running", std::move(running)}};
}

bj::object TeamsView(const std::vector<JobRecord>& jobs, const AccountTree& accounts,
                     const std::vector<FairShareRow>& shares, int64_t total_gpus, int64_t now, int hours) {
  constexpr int64_t kBucket = 3600;
  const int64_t end = (now / kBucket + 1) * kBucket;  // the current hour is the last bucket
  const int64_t start = end - int64_t{hours} * kBucket;
  // GPU-seconds by account and hour; an account's sub-accounts count in it too.
  std::map<std::string, std::vector<double>> used;
  std::map<std::string, double> now_gpus;
  auto chain = [&accounts](const std::string& account) {
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (std::string a = account; seen.insert(a).second;) {
      out.push_back(a);
      const Account* found = accounts.Find(a);
      if (found == nullptr || found->parent.empty()) break;
      a = found->parent;
    }
    return out;
  };
  for (const JobRecord& j : jobs) {
    if (j.start_time <= 0) continue;
    const double gpus = JobGpus(j);
    if (gpus <= 0) continue;
    const int64_t from = std::max(j.start_time, start);
    const int64_t to = std::min(j.end_time > 0 ? j.end_time : now, end);
    const std::vector<std::string> up = chain(j.account);
    if (HoldsResources(j.state)) {
      for (const std::string& a : up) now_gpus[a] += gpus;
    }
    if (to <= from) continue;
    for (const std::string& a : up) {
      std::vector<double>& series = used[a];
      series.resize(hours, 0.0);
      for (int64_t b = (from - start) / kBucket; b < hours && start + b * kBucket < to; ++b) {
        const int64_t lo = std::max(from, start + b * kBucket), hi = std::min(to, start + (b + 1) * kBucket);
        if (hi > lo) series[b] += gpus * static_cast<double>(hi - lo);
      }
    }
  }
  std::map<std::string, const FairShareRow*> account_rows;
  for (const FairShareRow& r : shares) {
    if (r.user.empty()) account_rows[r.account] = &r;
  }
  std::vector<std::string> names;
  for (const Account& a : accounts.accounts) names.push_back(a.name);
  for (const auto& [name, series] : used) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  bj::array out;
  for (const std::string& name : names) {
    const Account* a = accounts.Find(name);
    bj::array series;
    // Each hour's GPU-seconds over the seconds of it that have passed: the GPUs held on average.
    std::vector<double> s = used.count(name) ? used.at(name) : std::vector<double>(hours, 0.0);
    for (int b = 0; b < hours; ++b) {
      const int64_t span = std::min(now, start + (b + 1) * int64_t{kBucket}) - (start + b * kBucket);
      series.push_back(span > 0 ? std::round(s[b] / static_cast<double>(span) * 100) / 100 : 0.0);
    }
    double gpu_hours = 0;
    for (double v : s) gpu_hours += v / 3600;
    const FairShareRow* row = account_rows.count(name) ? account_rows.at(name) : nullptr;
    bj::object o{{"name", name.empty() ? "(none)" : name},
                 {"parent", a ? a->parent : ""},
                 {"shares", a ? a->shares : 0},
                 {"quota_gpus", a && a->quota.gpus != kUnlimited ? bj::value(a->quota.gpus) : bj::value(nullptr)},
                 {"limit_gpus", a && a->limit.gpus != kUnlimited ? bj::value(a->limit.gpus) : bj::value(nullptr)},
                 {"norm_shares", row ? row->norm_shares : 0.0},
                 {"norm_usage", row ? row->norm_usage : 0.0},
                 {"fair_share_gpus", row ? std::round(row->norm_shares * static_cast<double>(total_gpus) * 100) / 100
                                         : 0.0},
                 {"gpus_now", now_gpus.count(name) ? now_gpus.at(name) : 0.0},
                 {"gpu_hours", std::round(gpu_hours * 100) / 100},
                 {"usage", std::move(series)}};
    out.push_back(std::move(o));
  }
  return bj::object{{"start", start}, {"bucket_s", kBucket}, {"hours", hours}, {"total_gpus", total_gpus},
                    {"accounts", std::move(out)}};
}

bj::object JobView(const JobRecord& j, const std::vector<StepRecord>& steps, int64_t now) {
  bj::array timeline;
  auto event = [&timeline](const char* what, int64_t t, bj::object more = {}) {
    if (t <= 0) return;
    more["event"] = what;
    more["time"] = t;
    timeline.push_back(std::move(more));
  };
  event("submit", j.submit_time);
  event("eligible", j.eligible_time);
  for (const PreemptionEvent& p : j.preemptions) {
    event("preempted", p.time, bj::object{{"by", p.by}, {"mode", p.mode}, {"reason", p.reason}});
  }
  event("start", j.start_time);
  if (j.suspend_time > 0) event("suspended", j.suspend_time);
  if (IsFinished(j.state)) event("end", j.end_time, bj::object{{"state", JobStateName(j.state)}});
  std::stable_sort(timeline.begin(), timeline.end(), [](const bj::value& a, const bj::value& b) {
    return a.at("time").as_int64() < b.at("time").as_int64();
  });
  bj::array step_list;
  for (const StepRecord& s : steps) {
    if (s.job_id != j.id) continue;
    bj::array nodes;
    for (size_t i = 0; i < s.nodes.size(); ++i) {
      bj::array gpus;
      if (i < s.node_gpus.size()) {
        for (int g : s.node_gpus[i]) gpus.push_back(g);
      }
      nodes.push_back(bj::object{{"node", s.nodes[i]}, {"gpus", std::move(gpus)}});
    }
    step_list.push_back(bj::object{{"id", s.step_id == -5 ? std::string("batch") : std::to_string(s.step_id)},
                                   {"name", s.name},
                                   {"ntasks", s.ntasks},
                                   {"state", JobStateName(s.state)},
                                   {"start_time", s.start_time},
                                   {"end_time", s.end_time},
                                   {"exit_code", s.exit_code},
                                   {"nodes", std::move(nodes)}});
  }
  bj::object paths;
  if (!j.interactive) {
    const char* default_out = j.array_job_id != 0 ? "slurm-%A_%a.out" : "slurm-%j.out";
    const std::string out = ExpandStdPath(j.stdout_pattern.empty() ? default_out : j.stdout_pattern, j);
    paths["stdout"] = out;
    paths["stderr"] = j.stderr_pattern.empty() ? out : ExpandStdPath(j.stderr_pattern, j);
  }
  bj::object job{{"id", j.id},
                 {"label", JobLabel(j)},
                 {"name", j.name},
                 {"user", UserOf(j)},
                 {"account", j.account},
                 {"partition", j.partition},
                 {"qos", j.qos.empty() ? "normal" : j.qos},
                 {"state", JobStateName(j.state)},
                 {"reason", j.reason},
                 {"reason_detail", j.reason_detail},
                 {"priority", j.priority},
                 {"held", j.held},
                 {"restarts", Restarts(j)},
                 {"submit_time", j.submit_time},
                 {"eligible_time", j.eligible_time},
                 {"start_time", j.start_time},
                 {"end_time", j.end_time},
                 {"expected_start", j.state == JobState::kPending ? j.expected_start : 0},
                 {"sched_nodes", j.state == JobState::kPending ? j.sched_nodes : ""},
                 {"time_limit_s", j.time_limit_s},
                 {"run_s", j.start_time > 0 ? RunSeconds(j, now) : 0},
                 {"gpus_asked", GpuAsk(j.request)},
                 {"gpus", JobGpus(j)},
                 {"exit_code", j.exit_code},
                 {"exit_signal", j.exit_signal},
                 {"workdir", j.workdir},
                 {"dependency", DependencyText(j.dependency)}};
  return bj::object{{"job", std::move(job)},
                    {"timeline", std::move(timeline)},
                    {"placement", Placement(j)},
                    {"steps", std::move(step_list)},
                    {"output", std::move(paths)},
                    // `muster why` (another route) explains a pending job; linked, not called.
                    {"why_url", "/v1/jobs/" + std::to_string(j.id) + "/why"}};
}

}  // namespace muster::api
