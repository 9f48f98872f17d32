// `muster sim philly`: the queueing benchmark (sim/queue_bench.h) on the Philly trace, replayed
// through the real controller (sim/replay.h) once per policy.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/sim_command.h"
#include "base/strings.h"
#include "config/slurm_conf.h"
#include "model/job_request.h"
#include "sim/metrics.h"
#include "sim/queue_bench.h"
#include "sim/svg_plot.h"
#include "sim/trace.h"

namespace muster {

namespace {

struct PhillyArgs {
  std::string trace;
  std::vector<QueuePolicy> policies = AllQueuePolicies();
  QueueCluster cluster;
  std::string cluster_file;  // instead of `cluster`
  int64_t slice = 0;  // 0: every job
  double overestimate = 2.0;
  int64_t restart_penalty_s = 30;
  std::vector<int64_t> las_limits;  // muster: its queues' ends in GPU-seconds ({}: the default)
  int64_t min_runtime_s = -1;       // muster and srtf_oracle: PreemptExemptTime (-1: the default)
  std::string json, csv, svg;
};

std::string Num(double v, int digits) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

// A progress bar on a terminal: the policy, a bar of the jobs finished, the count.
void Bar(const char* policy, int64_t done, int64_t total) {
  const int width = 30;
  const int fill = total > 0 ? static_cast<int>(width * done / total) : width;
  std::fprintf(stderr, "\r  %-14s [%s%s] %lld/%lld jobs", policy, std::string(fill, '#').c_str(),
               std::string(width - fill, '.').c_str(), static_cast<long long>(done), static_cast<long long>(total));
  std::fflush(stderr);
}

int Fail(std::ostream& err, const std::string& msg, int code) {
  err << "muster sim philly: " << msg << "\n";
  if (code == 2) err << SimPhillyUsage();
  return code;
}

}  // namespace

std::string SimPhillyUsage() {
  return "usage: muster sim philly --trace philly.csv [--policy NAME|all] [--nodes N | --cluster FILE] [--slice N]\n"
         "                         [--overestimate F] [--restart-penalty S] [--json FILE] [--csv FILE] [--svg FILE]\n"
         "\n"
         "The queueing benchmark: replays the Philly trace (arrivals, durations, GPUs) through the real\n"
         "controller in virtual time, once per policy, on N (60) nodes of 8 GPUs under leaf switches of 6,\n"
         "and prints the average, median and p99 job completion time, the average queueing delay and\n"
         "slowdown, the makespan, the GPU utilization and each virtual cluster's share.\n"
         "\n"
         "  --policy NAME         fifo, fifo_backfill, sjf_oracle, srtf_oracle, muster, or all (the default)\n"
         "  --cluster FILE        the cluster of a cluster file (YAML) or slurm.conf instead; its default\n"
         "                        partition takes the jobs\n"
         "  --slice N             only the first N jobs by arrival\n"
         "  --overestimate F      fifo_backfill's time limits: F (2) x the duration\n"
         "  --restart-penalty S   work a preempted job loses (30 s)\n"
         "  --las-queues T,...    muster: where its least-attained-service queues end, in GPU-time\n"
         "                        (Slurm time specs; default 5:00,20:00,1:20:00, ... x4 ..., 341:20:00)\n"
         "  --min-runtime S       muster and srtf_oracle: seconds a job runs before it may be preempted\n"
         "                        (muster 300, srtf_oracle 0)\n"
         "  --json FILE           the figures as JSON\n"
         "  --csv FILE            the time series (allocated GPUs, pending jobs, idle GPUs while jobs wait)\n"
         "  --svg FILE            plots: FILE with the JCT CDF per policy, and FILE with '-alloc' before\n"
         "                        the extension with the allocated GPUs over time\n";
}

int SimPhilly(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  PhillyArgs a;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& k = args[i];
    if (k == "-h" || k == "--help") {
      out << SimPhillyUsage();
      return 0;
    }
    if (i + 1 >= args.size()) return Fail(err, k + " needs a value (or is unknown)", 2);
    const std::string& v = args[++i];
    auto number = [&](double lo, double hi, double* outv) {
      char* end = nullptr;
      const double d = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || !std::isfinite(d) || d < lo || d > hi) return false;
      *outv = d;
      return true;
    };
    double d = 0;
    if (k == "--trace") {
      a.trace = v;
    } else if (k == "--cluster") {
      a.cluster_file = v;
    } else if (k == "--policy") {
      if (v != "all") {
        StatusOr<QueuePolicy> p = ParseQueuePolicy(v);
        if (!p.ok()) return Fail(err, p.status().message(), 2);
        a.policies = {*p};
      }
    } else if (k == "--nodes") {
      if (!number(1, 100000, &d) || d != std::floor(d)) return Fail(err, "--nodes '" + v + "' is not a node count", 2);
      a.cluster.nodes = static_cast<int>(d);
    } else if (k == "--slice") {
      if (!number(1, 1e9, &d) || d != std::floor(d)) return Fail(err, "--slice '" + v + "' is not a job count", 2);
      a.slice = static_cast<int64_t>(d);
    } else if (k == "--overestimate") {
      if (!number(1, 1000, &d)) return Fail(err, "--overestimate '" + v + "' is not a factor of at least 1", 2);
      a.overestimate = d;
    } else if (k == "--restart-penalty") {
      if (!number(0, 1e7, &d) || d != std::floor(d)) return Fail(err, "--restart-penalty '" + v + "' is not seconds", 2);
      a.restart_penalty_s = static_cast<int64_t>(d);
    } else if (k == "--las-queues") {
      a.las_limits.clear();
      for (const std::string& part : Split(v, ',')) {
        StatusOr<int64_t> t = ParseTimeSpec(part);
        if (!t.ok() || *t <= 0 || (!a.las_limits.empty() && *t <= a.las_limits.back())) {
          return Fail(err, "--las-queues '" + v + "' is not a list of ascending times (GPU-seconds)", 2);
        }
        a.las_limits.push_back(*t);
      }
    } else if (k == "--min-runtime") {
      if (!number(0, 1e7, &d) || d != std::floor(d)) return Fail(err, "--min-runtime '" + v + "' is not seconds", 2);
      a.min_runtime_s = static_cast<int64_t>(d);
    } else if (k == "--json") {
      a.json = v;
    } else if (k == "--csv") {
      a.csv = v;
    } else if (k == "--svg") {
      a.svg = v;
    } else {
      return Fail(err, "unknown option '" + k + "'", 2);
    }
  }
  if (a.trace.empty()) return Fail(err, "--trace is required", 2);
  std::string svg2 = a.svg;
  if (!svg2.empty()) {
    const size_t dot = svg2.rfind('.');
    svg2 = dot == std::string::npos ? svg2 + "-alloc" : svg2.substr(0, dot) + "-alloc" + svg2.substr(dot);
  }
  if (std::string bad = UnwritableSimOutput({a.json, a.csv, a.svg, svg2}); !bad.empty()) {
    return Fail(err, "cannot write '" + bad + "'", 1);
  }
  StatusOr<std::string> text = ReadTraceFile(a.trace);
  StatusOr<std::vector<PhillyJob>> trace = text.ok() ? ParsePhilly(*text, a.trace) : text.status();
  if (!trace.ok()) return Fail(err, trace.status().message(), 1);
  if (a.slice > 0 && static_cast<int64_t>(trace->size()) > a.slice) trace->resize(a.slice);
  if (trace->empty()) return Fail(err, "'" + a.trace + "' holds no jobs", 1);

  ClusterSnapshot cluster;
  std::string shape;
  if (!a.cluster_file.empty()) {
    StatusOr<ClusterConfig> c = LoadAnyClusterFile(a.cluster_file);
    if (!c.ok()) return Fail(err, c.status().message(), 1);
    cluster = std::move(c->snapshot);
    shape = std::to_string(cluster.nodes.size()) + " nodes of " + a.cluster_file;
  } else {
    cluster = QueueBenchCluster(a.cluster);
    shape = std::to_string(a.cluster.nodes) + " nodes x " + std::to_string(a.cluster.gpus_per_node) +
            " GPUs under leaf switches of " + std::to_string(a.cluster.nodes_per_leaf);
  }
  int64_t capacity = 0;
  for (const Node& n : cluster.nodes) capacity += static_cast<int64_t>(n.gpus.size());
  if (capacity == 0) return Fail(err, "the cluster has no GPUs", 1);
  int max_gpus = 0;
  for (const PhillyJob& j : *trace) max_gpus = std::max(max_gpus, j.gpus);
  if (max_gpus > capacity) {
    return Fail(err, "a job asks for " + std::to_string(max_gpus) + " GPUs, more than the cluster's " +
                         std::to_string(capacity), 1);
  }
  const bool tty = isatty(STDERR_FILENO) != 0;
  out << "Philly queueing: " << trace->size() << " jobs, " << shape << " (" << capacity << " GPUs), offered load "
      << Num(OfferedLoad(*trace, capacity), 2) << ", backfill time limits " << Num(a.overestimate, 1)
      << " x duration, restart penalty " << a.restart_penalty_s << " s\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-14s %11s %10s %11s %11s %9s %11s %6s %8s %7s\n", "policy", "avg JCT h", "p50 JCT h",
                "p99 JCT h", "avg queue h", "slowdown", "makespan d", "util", "preempt", "wall s");
  out << line;
  nlohmann::json results = nlohmann::json::object();
  std::string csv = "policy,time_s,allocated_gpus,pending_jobs,running_jobs,idle_gpus_while_waiting\n";
  LinePlot cdf, alloc;
  cdf.title = "Job completion time CDF (Philly, " + std::to_string(trace->size()) + " jobs)";
  cdf.x_label = "JCT (log10 seconds)";
  cdf.y_label = "fraction of jobs";
  alloc.title = "Allocated GPUs over time (Philly, " + std::to_string(capacity) + " GPUs)";
  alloc.x_label = "days since the first arrival";
  alloc.y_label = "allocated GPUs";
  const int64_t t0 = trace->front().arrival_s;
  for (QueuePolicy policy : a.policies) {
    const char* key = QueuePolicyKey(policy);
    ReplayOptions o = QueueOptions(policy, cluster);
    o.restart_penalty_s = a.restart_penalty_s;
    if (policy == QueuePolicy::kMuster && !a.las_limits.empty()) o.controller.priority.las_queue_limits_gpu_s = a.las_limits;
    if (a.min_runtime_s >= 0 && o.controller.scheduler.policy != nullptr) {
      SchedPolicy p = *o.controller.scheduler.policy;
      p.preemption.exempt_time_s = a.min_runtime_s;
      o.controller.scheduler.policy = std::make_shared<SchedPolicy>(p);
    }
    if (tty) o.progress = [&](int64_t done, int64_t total) { Bar(key, done, total); };
    const auto start = std::chrono::steady_clock::now();
    StatusOr<ReplayResult> r = Replay(QueueJobs(*trace, policy, a.overestimate), o);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (tty) std::fprintf(stderr, "\r%80s\r", "");
    if (!r.ok()) return Fail(err, std::string(key) + ": " + r.status().message(), 1);
    StatusOr<QueueMetrics> m = ComputeQueueMetrics(r->jobs, capacity);
    if (!m.ok()) return Fail(err, std::string(key) + ": " + m.status().message(), 1);
    std::snprintf(line, sizeof line, "%-14s %11s %10s %11s %11s %9s %11s %5s%% %8lld %7s\n", key,
                  Num(m->avg_jct_s / 3600, 2).c_str(), Num(m->p50_jct_s / 3600, 2).c_str(),
                  Num(m->p99_jct_s / 3600, 1).c_str(), Num(m->avg_queue_s / 3600, 2).c_str(),
                  Num(m->avg_slowdown, 1).c_str(), Num(m->makespan_s / 86400.0, 1).c_str(),
                  Num(m->gpu_utilization * 100, 1).c_str(), static_cast<long long>(r->preemptions),
                  Num(wall, 1).c_str());
    out << line << std::flush;
    nlohmann::json j = {{"avg_jct_s", m->avg_jct_s},     {"p50_jct_s", m->p50_jct_s},
                        {"p99_jct_s", m->p99_jct_s},     {"avg_queue_s", m->avg_queue_s},
                        {"avg_slowdown", m->avg_slowdown}, {"makespan_s", m->makespan_s},
                        {"gpu_utilization", m->gpu_utilization}, {"vc_share", m->vc_share},
                        {"jobs", m->jobs},               {"preemptions", r->preemptions},
                        {"timeouts", r->timeouts},       {"scheduling_passes", r->cycles},
                        {"wall_s", wall}};
    results[key] = j;
    for (const ReplaySample& s : r->series) {
      csv += std::string(key) + "," + std::to_string(s.time_s) + "," + std::to_string(s.allocated_gpus) + "," +
             std::to_string(s.pending_jobs) + "," + std::to_string(s.running_jobs) + "," +
             std::to_string(s.idle_gpus_while_waiting) + "\n";
    }
    std::vector<double> jct;
    for (const FinishedJob& f : r->jobs) jct.push_back(static_cast<double>(std::max<int64_t>(1, f.end_s - f.arrival_s)));
    std::sort(jct.begin(), jct.end());
    PlotSeries c{key, {}};
    const size_t step = std::max<size_t>(1, jct.size() / 400);
    for (size_t i = 0; i < jct.size(); i += step) c.points.emplace_back(std::log10(jct[i]), (i + 1.0) / jct.size());
    c.points.emplace_back(std::log10(jct.back()), 1.0);
    cdf.series.push_back(std::move(c));
    PlotSeries s{key, {}};
    for (const ReplaySample& p : r->series) s.points.emplace_back((p.time_s - t0) / 86400.0, p.allocated_gpus);
    alloc.series.push_back(std::move(s));
  }
  nlohmann::json doc = {{"trace", a.trace},
                        {"jobs", trace->size()},
                        {"cluster", a.cluster_file.empty()
                                        ? nlohmann::json{{"nodes", a.cluster.nodes},
                                                         {"gpus_per_node", a.cluster.gpus_per_node},
                                                         {"nodes_per_leaf", a.cluster.nodes_per_leaf},
                                                         {"gpus", capacity}}
                                        : nlohmann::json{{"file", a.cluster_file},
                                                         {"nodes", cluster.nodes.size()},
                                                         {"gpus", capacity}}},
                        {"offered_load", OfferedLoad(*trace, capacity)},
                        {"overestimate", a.overestimate},
                        {"restart_penalty_s", a.restart_penalty_s},
                        {"policies", results}};
  if (std::string bad = WriteSimOutputs({{a.json, doc.dump(2) + "\n"}, {a.csv, csv}, {a.svg, RenderSvg(cdf)},
                                        {svg2, RenderSvg(alloc)}});
      !bad.empty()) {
    return Fail(err, "cannot write '" + bad + "'", 1);
  }
  return 0;
}

}  // namespace muster
