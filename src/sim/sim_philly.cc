// `muster sim philly` and `muster sim swf`: the queueing benchmark (sim/queue_bench.h) on the
// Philly trace (GPU jobs) or on a Standard Workload Format log (CPU jobs, as in the Parallel
// Workloads Archive), replayed through the real controller (sim/replay.h) once per policy.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <boost/json.hpp>
#include <ostream>

#include "sim/sim_command.h"
#include "base/pretty_json.h"
#include "base/strings.h"
#include "config/slurm_conf.h"
#include "model/job_request.h"
#include "model/option_engine.h"
#include "sched/placement_scorer.h"
#include "sim/metrics.h"
#include "sim/queue_bench.h"
#include "sim/svg_plot.h"
#include "sim/tool_args.h"
#include "sim/trace.h"

namespace muster {

namespace {

enum class TraceKind { kPhilly, kSwf };

struct QueueArgs {
  TraceKind kind = TraceKind::kPhilly;
  std::string trace;
  int cpus_per_node = 0;  // swf: 0 = from the log's header
  bool nodes_given = false;
  std::vector<QueuePolicy> policies = AllQueuePolicies();
  QueueCluster cluster;
  std::string cluster_file;  // instead of `cluster`
  int64_t slice = 0;  // 0: every job
  double overestimate = 2.0;
  int64_t restart_penalty_s = 30;
  std::vector<int64_t> las_limits;  // muster: its queues' ends in GPU-seconds ({}: the default)
  int64_t min_runtime_s = -1;       // muster and srtf_oracle: PreemptExemptTime (-1: the default)
  // --placement: learned (the controller's default) or bestfit (sched/placement_scorer.h)
  std::shared_ptr<const PlacementScorer> placement = PlacementScorerRegistry::Create(PlacementScorerRegistry::kDefault);
  bool check_caches = false;        // every pass decided again from nothing and compared
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

int Fail(std::ostream& err, TraceKind kind, const std::string& msg, int code) {
  err << (kind == TraceKind::kSwf ? "muster sim swf: " : "muster sim philly: ") << msg << "\n";
  if (code == 2) err << (kind == TraceKind::kSwf ? SimSwfUsage() : SimPhillyUsage());
  return code;
}

}  // namespace

std::string SimPhillyUsage() {
  return "usage: muster sim philly --trace philly.csv [--policy NAME|all] [--nodes N | --cluster FILE] [--slice N]\n"
         "                         [--overestimate F] [--restart-penalty S] [--placement learned|bestfit]\n"
         "                         [--json FILE] [--csv FILE] [--svg FILE] [--check-caches]\n"
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
         "                        (Slurm time specs; default 5:00,10:00,20:00, ... x2 ..., 21845:20:00)\n"
         "  --min-runtime S       muster and srtf_oracle: seconds a job runs before it may be preempted\n"
         "                        (muster 300, srtf_oracle 0)\n"
         "  --placement P         learned (the controller's default: one-node jobs go where they leave\n"
         "                        the least fragment the jobs seen lately could not use) or bestfit\n"
         "  --json FILE           the figures as JSON\n"
         "  --csv FILE            the time series (allocated GPUs, pending jobs, idle GPUs while jobs wait)\n"
         "  --svg FILE            plots: FILE with the JCT CDF per policy, and FILE with '-alloc' before\n"
         "                        the extension with the allocated GPUs over time\n"
         "  --check-caches        decide every pass twice, through the scheduler's kept caches and from\n"
         "                        nothing, and fail on the first pass where they differ (slower)\n";
}

std::string SimSwfUsage() {
  return "usage: muster sim swf --trace LOG.swf [--policy NAME|all] [--nodes N --cpus-per-node C | --cluster FILE]\n"
         "                      [--slice N] [--restart-penalty S] [--json FILE] [--csv FILE] [--svg FILE]\n"
         "\n"
         "The queueing benchmark on a Standard Workload Format log (the Parallel Workloads Archive): each\n"
         "job's processors as tasks of one CPU, its run time as its work, its queue as its account,\n"
         "replayed through the real controller in virtual time once per policy. fifo_backfill uses the\n"
         "time each user asked for (EASY backfill, as these logs were made to study); the oracles know\n"
         "run times. Jobs that never ran, or are larger than the cluster, are left out and counted.\n"
         "\n"
         "  --nodes N, --cpus-per-node C   the cluster (default: the log's MaxNodes and MaxProcs)\n"
         "  --cluster FILE        the cluster of a cluster file (YAML) or slurm.conf instead\n"
         "  other options as for muster sim philly (--las-queues counts CPU-time as one GPU's)\n";
}

namespace {

enum QueueOpt : int {
  kQuTrace, kQuCluster, kQuPolicy, kQuNodes, kQuSlice, kQuOverestimate, kQuRestartPenalty, kQuLasQueues,
  kQuMinRuntime, kQuPlacement, kQuJson, kQuCsv, kQuSvg, kQuCheckCaches, kQuCpusPerNode,
};

// swf's options; philly's are all but the last (--cpus-per-node).
constexpr OptionSpec kQueueOptions[] = {
    {"trace", 0, OptionArg::kRequired, OptionUse::kOwn, kQuTrace},
    {"cluster", 0, OptionArg::kRequired, OptionUse::kOwn, kQuCluster},
    {"policy", 0, OptionArg::kRequired, OptionUse::kOwn, kQuPolicy},
    {"nodes", 0, OptionArg::kRequired, OptionUse::kOwn, kQuNodes},
    {"slice", 0, OptionArg::kRequired, OptionUse::kOwn, kQuSlice},
    {"overestimate", 0, OptionArg::kRequired, OptionUse::kOwn, kQuOverestimate},
    {"restart-penalty", 0, OptionArg::kRequired, OptionUse::kOwn, kQuRestartPenalty},
    {"las-queues", 0, OptionArg::kRequired, OptionUse::kOwn, kQuLasQueues},
    {"min-runtime", 0, OptionArg::kRequired, OptionUse::kOwn, kQuMinRuntime},
    {"placement", 0, OptionArg::kRequired, OptionUse::kOwn, kQuPlacement},
    {"json", 0, OptionArg::kRequired, OptionUse::kOwn, kQuJson},
    {"csv", 0, OptionArg::kRequired, OptionUse::kOwn, kQuCsv},
    {"svg", 0, OptionArg::kRequired, OptionUse::kOwn, kQuSvg},
    {"check-caches", 0, OptionArg::kNone, OptionUse::kOwn, kQuCheckCaches},
    {"help", 'h', OptionArg::kNone, OptionUse::kMeta},
    {"cpus-per-node", 0, OptionArg::kRequired, OptionUse::kOwn, kQuCpusPerNode},
};

// One option's value into `a`; a bad value is InvalidArgument with the message the command prints.
Status ApplyQueueOption(const OptionOccurrence& o, QueueArgs* a) {
  const std::string v = o.value.value_or("");
  auto number = [&](double lo, double hi, double* outv) {
    char* end = nullptr;
    const double d = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || !std::isfinite(d) || d < lo || d > hi) return false;
    *outv = d;
    return true;
  };
  // A whole number in [lo, hi], else "--name 'v' is not <what>".
  auto whole = [&](double lo, double hi, const char* what, int64_t* outv) -> Status {
    double d = 0;
    if (!number(lo, hi, &d) || d != std::floor(d)) {
      return InvalidArgument("--" + std::string(o.spec->name) + " '" + v + "' is not " + what);
    }
    *outv = static_cast<int64_t>(d);
    return Status::Ok();
  };
  int64_t n = 0;
  switch (static_cast<QueueOpt>(o.spec->id)) {
    case kQuTrace:
      a->trace = v;
      break;
    case kQuCluster:
      a->cluster_file = v;
      break;
    case kQuPolicy:
      if (v != "all") {
        ASSIGN_OR_RETURN(QueuePolicy p, ParseQueuePolicy(v));
        a->policies = {p};
      }
      break;
    case kQuNodes:
      RETURN_IF_ERROR(whole(1, 100000, "a node count", &n));
      a->cluster.nodes = static_cast<int>(n);
      a->nodes_given = true;
      break;
    case kQuCpusPerNode:
      RETURN_IF_ERROR(whole(1, 100000, "a CPU count", &n));
      a->cpus_per_node = static_cast<int>(n);
      break;
    case kQuSlice:
      RETURN_IF_ERROR(whole(1, 1e9, "a job count", &a->slice));
      break;
    case kQuOverestimate:
      if (!number(1, 1000, &a->overestimate)) {
        return InvalidArgument("--overestimate '" + v + "' is not a factor of at least 1");
      }
      break;
    case kQuRestartPenalty:
      RETURN_IF_ERROR(whole(0, 1e7, "seconds", &a->restart_penalty_s));
      break;
    case kQuLasQueues:
      a->las_limits.clear();
      for (const std::string& part : Split(v, ',')) {
        StatusOr<int64_t> t = ParseTimeSpec(part);
        if (!t.ok() || *t <= 0 || (!a->las_limits.empty() && *t <= a->las_limits.back())) {
          return InvalidArgument("--las-queues '" + v + "' is not a list of ascending times (GPU-seconds)");
        }
        a->las_limits.push_back(*t);
      }
      break;
    case kQuMinRuntime:
      RETURN_IF_ERROR(whole(0, 1e7, "seconds", &a->min_runtime_s));
      break;
    case kQuPlacement: {
      StatusOr<std::shared_ptr<const PlacementScorer>> scorer = PlacementScorerRegistry::Parse(v);
      if (!scorer.ok()) return InvalidArgument("--placement " + scorer.status().message());
      a->placement = *std::move(scorer);
      break;
    }
    case kQuJson:
      a->json = v;
      break;
    case kQuCsv:
      a->csv = v;
      break;
    case kQuSvg:
      a->svg = v;
      break;
    case kQuCheckCaches:
      a->check_caches = true;
      break;
  }
  return Status::Ok();
}

// The trace's jobs, sorted and sliced (one of the two lists, by the trace's kind).
struct QueueTrace {
  std::vector<PhillyJob> philly;
  std::vector<SwfJob> swf_jobs;
  size_t size = 0;
};

Status ReadQueueTrace(const QueueArgs& a, const std::string& text, QueueTrace* t) {
  if (a.kind == TraceKind::kSwf) {
    StatusOr<std::vector<SwfJob>> jobs = ParseSwf(text, a.trace);
    if (!jobs.ok()) return jobs.status();
    t->swf_jobs = std::move(*jobs);
    std::stable_sort(t->swf_jobs.begin(), t->swf_jobs.end(),
                     [](const SwfJob& x, const SwfJob& y) { return x.submit_s < y.submit_s; });
    if (a.slice > 0 && static_cast<int64_t>(t->swf_jobs.size()) > a.slice) t->swf_jobs.resize(a.slice);
    t->size = t->swf_jobs.size();
  } else {
    StatusOr<std::vector<PhillyJob>> jobs = ParsePhilly(text, a.trace);
    if (!jobs.ok()) return jobs.status();
    t->philly = std::move(*jobs);
    if (a.slice > 0 && static_cast<int64_t>(t->philly.size()) > a.slice) t->philly.resize(a.slice);
    t->size = t->philly.size();
  }
  return Status::Ok();
}

// The cluster the trace is replayed on, as the header and the JSON describe it.
struct QueueMachine {
  ClusterSnapshot cluster;
  std::string shape;
  boost::json::object json;
};

// The cluster: the SWF log's machine, --cluster's file, or the bench cluster of the options.
// 0, or the exit code (the message written).
int SetUpQueueMachine(const QueueArgs& a, const std::string& text, QueueMachine* m, std::ostream& err) {
  if (a.kind == TraceKind::kSwf && a.cluster_file.empty()) {
    // The log's machine: MaxNodes nodes of MaxProcs / MaxNodes CPUs, or MaxProcs of one CPU.
    const SwfHeader h = ParseSwfHeader(text);
    int64_t nodes = a.nodes_given ? a.cluster.nodes : h.max_nodes > 0 ? h.max_nodes : h.max_procs;
    int64_t per = a.cpus_per_node > 0 ? a.cpus_per_node
                  : h.max_procs > 0 && nodes > 0 ? std::max<int64_t>(1, h.max_procs / nodes) : 0;
    if (nodes <= 0 || per <= 0) {
      return Fail(err, a.kind, "'" + a.trace + "' has no MaxNodes/MaxProcs header: give --nodes and --cpus-per-node", 2);
    }
    m->cluster = CpuBenchCluster(static_cast<int>(nodes), static_cast<int>(per));
    m->shape = std::to_string(nodes) + (nodes == 1 ? " node x " : " nodes x ") + std::to_string(per) + " CPUs";
    m->json = {{"nodes", nodes}, {"cpus_per_node", per}};
  } else if (!a.cluster_file.empty()) {
    StatusOr<ClusterConfig> c = LoadAnyClusterFile(a.cluster_file);
    if (!c.ok()) return Fail(err, a.kind, c.status().message(), 1);
    m->cluster = ClusterSnapshot(std::move(c->spec));
    m->cluster.usage = std::move(c->usage);
    m->shape = std::to_string(m->cluster.nodes.size()) + " nodes of " + a.cluster_file;
    m->json = {{"file", a.cluster_file}, {"nodes", m->cluster.nodes.size()}};
  } else {
    m->cluster = QueueBenchCluster(a.cluster);
    m->json = {{"nodes", a.cluster.nodes}, {"gpus_per_node", a.cluster.gpus_per_node},
               {"nodes_per_leaf", a.cluster.nodes_per_leaf}};
    m->shape = std::to_string(a.cluster.nodes) + " nodes x " + std::to_string(a.cluster.gpus_per_node) +
               " GPUs under leaf switches of " + std::to_string(a.cluster.nodes_per_leaf);
  }
  return 0;
}

// SWF times count from the log's start: they are placed at a fixed epoch (2001-09-09).
constexpr int64_t kSwfEpoch = 1000000000;

// What is written once every policy has run: the JSON's results, the CSV, the two plots.
struct QueueOutputs {
  boost::json::object results;
  std::string csv;
  LinePlot cdf, alloc;
};

// One policy's run, with its row of the table; its results go into *o. 0, or the exit code (the
// message written).
int RunQueuePolicy(QueuePolicy policy, const QueueArgs& a, const QueueTrace& t, const ClusterSnapshot& cluster,
                   int64_t capacity, int64_t t0, std::ostream& out, std::ostream& err, QueueOutputs* o) {
  const bool swf = a.kind == TraceKind::kSwf;
  const bool tty = isatty(STDERR_FILENO) != 0;
  const char* key = QueuePolicyKey(policy);
  ReplayOptions ro = QueueOptions(policy, cluster);
  ro.restart_penalty_s = a.restart_penalty_s;
  ro.count_cpus = swf;
  ro.controller.scheduler.placement = a.placement;
  ro.controller.check_caches = a.check_caches;
  if (policy == QueuePolicy::kMuster && !a.las_limits.empty()) ro.controller.priority.las_queue_limits_gpu_s = a.las_limits;
  if (a.min_runtime_s >= 0 && ro.controller.scheduler.policy != nullptr) {
    SchedPolicy p = *ro.controller.scheduler.policy;
    p.preemption.exempt_time_s = a.min_runtime_s;
    ro.controller.scheduler.policy = std::make_shared<SchedPolicy>(p);
  }
  if (tty) ro.progress = [&](int64_t done, int64_t total) { Bar(key, done, total); };
  const auto start = std::chrono::steady_clock::now();
  int64_t ignored = 0;
  StatusOr<ReplayResult> r = Replay(swf ? SwfQueueJobs(t.swf_jobs, policy, capacity, kSwfEpoch, &ignored)
                                        : QueueJobs(t.philly, policy, a.overestimate),
                                    ro);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (tty) std::fprintf(stderr, "\r%80s\r", "");
  if (!r.ok()) return Fail(err, a.kind, std::string(key) + ": " + r.status().message(), 1);
  StatusOr<QueueMetrics> m = ComputeQueueMetrics(r->jobs, capacity);
  if (!m.ok()) return Fail(err, a.kind, std::string(key) + ": " + m.status().message(), 1);
  char line[512];
  std::snprintf(line, sizeof line, "%-14s %11s %10s %11s %11s %9s %11s %5s%% %8lld %7s\n", key,
                Num(m->avg_jct_s / 3600, 2).c_str(), Num(m->p50_jct_s / 3600, 2).c_str(),
                Num(m->p99_jct_s / 3600, 1).c_str(), Num(m->avg_queue_s / 3600, 2).c_str(),
                Num(m->avg_slowdown, 1).c_str(), Num(m->makespan_s / 86400.0, 1).c_str(),
                Num(m->gpu_utilization * 100, 1).c_str(), static_cast<long long>(r->preemptions),
                Num(wall, 1).c_str());
  out << line << std::flush;
  if (a.check_caches) {
    out << "  cache check: " << r->cache_check_passes << " passes decided twice, " << r->cache_check_differences
        << " differ\n" << std::flush;
    if (r->cache_check_differences > 0) {
      return Fail(err, a.kind, std::string(key) + ": the scheduler's kept caches decided otherwise than a fresh pass: " +
                                   r->cache_check_first, 1);
    }
  }
  boost::json::object j = {{"avg_jct_s", m->avg_jct_s},     {"p50_jct_s", m->p50_jct_s},
                      {"p99_jct_s", m->p99_jct_s},     {"avg_queue_s", m->avg_queue_s},
                      {"avg_slowdown", m->avg_slowdown}, {"makespan_s", m->makespan_s},
                      {"gpu_utilization", m->gpu_utilization}, {"vc_share", boost::json::value_from(m->vc_share)},
                      {"jobs", m->jobs},               {"preemptions", r->preemptions},
                      {"timeouts", r->timeouts},       {"scheduling_passes", r->cycles},
                      {"wall_s", wall}};
  o->results[key] = j;
  for (const ReplaySample& s : r->series) {
    o->csv += std::string(key) + "," + std::to_string(s.time_s) + "," + std::to_string(s.allocated_gpus) + "," +
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
  o->cdf.series.push_back(std::move(c));
  PlotSeries s{key, {}};
  for (const ReplaySample& p : r->series) s.points.emplace_back((p.time_s - t0) / 86400.0, p.allocated_gpus);
  o->alloc.series.push_back(std::move(s));
  return 0;
}

// The capacity (CPUs of an SWF trace, else GPUs) the trace fits in; -1 when it does not (the
// message written: exit code 1). *skipped: the SWF jobs left out.
int64_t QueueCapacity(const QueueArgs& a, const QueueTrace& t, const ClusterSnapshot& cluster, int64_t* skipped,
                      std::ostream& err) {
  const bool swf = a.kind == TraceKind::kSwf;
  int64_t capacity = 0;
  for (const Node& n : cluster.nodes) capacity += swf ? n.cpus : static_cast<int64_t>(n.gpus.size());
  if (capacity == 0) {
    Fail(err, a.kind, std::string("the cluster has no ") + (swf ? "CPUs" : "GPUs"), 1);
    return -1;
  }
  if (swf) {
    (void)SwfQueueJobs(t.swf_jobs, QueuePolicy::kFifo, capacity, 0, skipped);
    if (*skipped == static_cast<int64_t>(t.size)) {
      Fail(err, a.kind, "no job of '" + a.trace + "' can run here", 1);
      return -1;
    }
  } else {
    int max_gpus = 0;
    for (const PhillyJob& j : t.philly) max_gpus = std::max(max_gpus, j.gpus);
    if (max_gpus > capacity) {
      Fail(err, a.kind, "a job asks for " + std::to_string(max_gpus) + " GPUs, more than the cluster's " +
                            std::to_string(capacity), 1);
      return -1;
    }
  }
  return capacity;
}

// The header: the trace, the cluster and the settings, then the table's heading.
void PrintQueueHeader(const QueueArgs& a, size_t trace_size, int64_t skipped, const std::string& shape,
                      int64_t capacity, double load, std::ostream& out) {
  const bool swf = a.kind == TraceKind::kSwf;
  out << (swf ? "SWF" : "Philly") << " queueing: " << trace_size << " jobs";
  if (swf) out << " (" << skipped << " left out: never ran or larger than the cluster)";
  out << ", " << shape << " (" << capacity << " " << (swf ? "CPUs" : "GPUs") << "), offered load " << Num(load, 2);
  if (swf) {
    out << ", backfill time limits as requested";
  } else {
    out << ", backfill time limits " << Num(a.overestimate, 1) << " x duration";
  }
  out << ", restart penalty " << a.restart_penalty_s << " s\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-14s %11s %10s %11s %11s %9s %11s %6s %8s %7s\n", "policy", "avg JCT h", "p50 JCT h",
                "p99 JCT h", "avg queue h", "slowdown", "makespan d", "util", "preempt", "wall s");
  out << line;
}

int SimQueue(TraceKind kind, const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  QueueArgs a;
  a.kind = kind;
  const bool swf = kind == TraceKind::kSwf;
  const OptionTable all = kQueueOptions;
  const OptionTable table = swf ? all : all.first(all.size() - 1);
  StatusOr<ToolLine> parsed =
      ReadToolLine(table, args, [&](const OptionOccurrence& o) { return ApplyQueueOption(o, &a); });
  if (parsed.ok() && parsed->help) {
    out << (swf ? SimSwfUsage() : SimPhillyUsage());
    return 0;
  }
  if (parsed.ok()) {
    if (Status st = RefuseToolOperands(*parsed); !st.ok()) parsed = st;
  }
  if (!parsed.ok()) return Fail(err, a.kind, parsed.status().message(), 2);
  if (a.trace.empty()) return Fail(err, a.kind, "--trace is required", 2);
  std::string svg2 = a.svg;
  if (!svg2.empty()) {
    const size_t dot = svg2.rfind('.');
    svg2 = dot == std::string::npos ? svg2 + "-alloc" : svg2.substr(0, dot) + "-alloc" + svg2.substr(dot);
  }
  if (std::string bad = UnwritableSimOutput({a.json, a.csv, a.svg, svg2}); !bad.empty()) {
    return Fail(err, a.kind, "cannot write '" + bad + "'", 1);
  }
  StatusOr<std::string> text = ReadTraceFile(a.trace);
  if (!text.ok()) return Fail(err, a.kind, text.status().message(), 1);
  QueueTrace trace;
  if (Status st = ReadQueueTrace(a, *text, &trace); !st.ok()) return Fail(err, a.kind, st.message(), 1);
  if (trace.size == 0) return Fail(err, a.kind, "'" + a.trace + "' holds no jobs", 1);
  const char* unit = swf ? "CPUs" : "GPUs";
  const char* title = swf ? "SWF" : "Philly";
  QueueMachine machine;
  if (int code = SetUpQueueMachine(a, *text, &machine, err); code != 0) return code;
  int64_t skipped = 0;
  const int64_t capacity = QueueCapacity(a, trace, machine.cluster, &skipped, err);
  if (capacity < 0) return 1;
  machine.json[swf ? "cpus" : "gpus"] = capacity;
  const double load = swf ? SwfOfferedLoad(trace.swf_jobs, capacity) : OfferedLoad(trace.philly, capacity);
  PrintQueueHeader(a, trace.size, skipped, machine.shape, capacity, load, out);
  QueueOutputs o;
  o.csv = swf ? "policy,time_s,allocated_cpus,pending_jobs,running_jobs,idle_cpus_while_waiting\n"
              : "policy,time_s,allocated_gpus,pending_jobs,running_jobs,idle_gpus_while_waiting\n";
  o.cdf.title = std::string("Job completion time CDF (") + title + ", " + std::to_string(trace.size) + " jobs)";
  o.cdf.x_label = "JCT (log10 seconds)";
  o.cdf.y_label = "fraction of jobs";
  o.alloc.title =
      std::string("Allocated ") + unit + " over time (" + title + ", " + std::to_string(capacity) + " " + unit + ")";
  o.alloc.x_label = "days since the first arrival";
  o.alloc.y_label = std::string("allocated ") + unit;
  const int64_t t0 = swf ? kSwfEpoch + trace.swf_jobs.front().submit_s : trace.philly.front().arrival_s;
  for (QueuePolicy policy : a.policies) {
    if (int rc = RunQueuePolicy(policy, a, trace, machine.cluster, capacity, t0, out, err, &o); rc != 0) return rc;
  }
  boost::json::object doc = {{"trace", a.trace},
                        {"jobs", trace.size},
                        {"left_out", skipped},
                        {"unit", swf ? "cpus" : "gpus"},
                        {"cluster", machine.json},
                        {"offered_load", load},
                        {"overestimate", swf ? boost::json::value() : boost::json::value(a.overestimate)},
                        {"restart_penalty_s", a.restart_penalty_s},
                        {"policies", o.results}};
  if (std::string bad = WriteSimOutputs({{a.json, PrettyJson(doc) + "\n"}, {a.csv, o.csv}, {a.svg, RenderSvg(o.cdf)},
                                        {svg2, RenderSvg(o.alloc)}});
      !bad.empty()) {
    return Fail(err, a.kind, "cannot write '" + bad + "'", 1);
  }
  return 0;
}
}  // namespace

int SimPhilly(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return SimQueue(TraceKind::kPhilly, args, out, err);
}

int SimSwf(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  return SimQueue(TraceKind::kSwf, args, out, err);
}

}  // namespace muster
