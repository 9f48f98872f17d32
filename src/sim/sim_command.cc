#include "sim/sim_command.h"

#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <boost/json.hpp>
#include <optional>
#include <ostream>

#include "base/pretty_json.h"
#include "model/option_engine.h"
#include "sim/openb.h"
#include "sim/svg_plot.h"
#include "sim/tool_args.h"
#include "sim/trace.h"

namespace muster {

namespace {

// The FGD paper's figures (ATC'23; ../shared/data/traces/README.md), per pod list and policy:
// allocation at 100% and 130% arrived demand and fragmentation rate at 80% (NaN: not published).
struct Published {
  double alloc_100, alloc_130, frag_80;
};
const std::map<std::string, std::map<std::string, Published>>& PublishedFigures() {
  constexpr double kNo = NAN;
  static const std::map<std::string, std::map<std::string, Published>> p = {
      {"default",
       {{"random", {86.30, 87.47, 74.6}}, {"dotprod", {90.62, 90.85, 50.5}}, {"gpupacking", {91.78, 92.00, 46.4}},
        {"bestfit", {92.86, 93.08, 41.5}}, {"fgd", {95.23, 95.39, 29.9}}}},
      {"gpushare40",
       {{"random", {kNo, 86.00, kNo}}, {"dotprod", {kNo, 89.56, kNo}}, {"gpupacking", {kNo, 90.03, kNo}},
        {"bestfit", {kNo, 91.69, kNo}}, {"fgd", {kNo, 94.15, kNo}}}},
      {"multigpu20",
       {{"random", {kNo, 88.69, kNo}}, {"dotprod", {kNo, 92.06, kNo}}, {"gpupacking", {kNo, 93.71, kNo}},
        {"bestfit", {kNo, 93.93, kNo}}, {"fgd", {kNo, 95.65, kNo}}}},
      {"multigpu30",
       {{"random", {kNo, 89.27, kNo}}, {"dotprod", {kNo, 93.28, kNo}}, {"gpupacking", {kNo, 94.87, kNo}},
        {"bestfit", {kNo, 94.72, kNo}}, {"fgd", {kNo, 96.46, kNo}}}},
      {"multigpu40",
       {{"random", {kNo, 90.09, kNo}}, {"dotprod", {kNo, 94.19, kNo}}, {"gpupacking", {kNo, 95.74, kNo}},
        {"bestfit", {kNo, 95.23, kNo}}, {"fgd", {kNo, 96.99, kNo}}}},
      {"multigpu50",
       {{"random", {kNo, 90.28, kNo}}, {"dotprod", {kNo, 94.85, kNo}}, {"gpupacking", {kNo, 96.18, kNo}},
        {"bestfit", {kNo, 95.74, kNo}}, {"fgd", {kNo, 97.18, kNo}}}},
  };
  return p;
}

// "default" for .../openb_pod_list_default.csv, "" for a file not of the paper's.
std::string PodListName(const std::string& path) {
  const std::string file = path.substr(path.rfind('/') + 1);
  const std::string prefix = "openb_pod_list_";
  if (file.rfind(prefix, 0) != 0 || file.size() < prefix.size() + 4) return "";
  return file.substr(prefix.size(), file.size() - prefix.size() - 4);
}

struct OpenbArgs {
  std::string nodes, pods;
  std::vector<OpenbPolicy> policies = AllOpenbPolicies();
  int seeds = 10;
  uint64_t first_seed = 42;
  double ratio = 1.3;
  std::string json, csv, svg;
};

std::optional<double> Mean(const std::vector<std::optional<double>>& v) {
  double s = 0;
  int n = 0;
  for (const auto& x : v) {
    if (x) {
      s += *x;
      ++n;
    }
  }
  if (n == 0) return std::nullopt;
  return s / n;
}

std::string Fixed(std::optional<double> v, int digits) {
  if (!v) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, *v);
  return buf;
}

// Reads and parses one trace file; errors name the file (and the line).
template <typename Parse>
auto LoadTrace(const std::string& path, Parse parse) -> decltype(parse(std::string(), path)) {
  StatusOr<std::string> text = ReadTraceFile(path);
  if (!text.ok()) return text.status();
  return parse(*text, path);
}

enum OpenbOpt : int { kObNodes, kObPods, kObPolicy, kObSeeds, kObFirstSeed, kObRatio, kObJson, kObCsv, kObSvg };

constexpr OptionSpec kOpenbOptions[] = {
    {"nodes", 0, OptionArg::kRequired, OptionUse::kOwn, kObNodes},
    {"pods", 0, OptionArg::kRequired, OptionUse::kOwn, kObPods},
    {"policy", 0, OptionArg::kRequired, OptionUse::kOwn, kObPolicy},
    {"seeds", 0, OptionArg::kRequired, OptionUse::kOwn, kObSeeds},
    {"first-seed", 0, OptionArg::kRequired, OptionUse::kOwn, kObFirstSeed},
    {"ratio", 0, OptionArg::kRequired, OptionUse::kOwn, kObRatio},
    {"json", 0, OptionArg::kRequired, OptionUse::kOwn, kObJson},
    {"csv", 0, OptionArg::kRequired, OptionUse::kOwn, kObCsv},
    {"svg", 0, OptionArg::kRequired, OptionUse::kOwn, kObSvg},
    {"help", 'h', OptionArg::kNone, OptionUse::kMeta},
};

// A bad value is the value's message alone; a line getopt cannot read also gets the usage.
Status ApplyOpenbOption(const OptionOccurrence& o, OpenbArgs* a) {
  const std::string& v = *o.value;
  switch (static_cast<OpenbOpt>(o.spec->id)) {
    case kObNodes:
      a->nodes = v;
      break;
    case kObPods:
      a->pods = v;
      break;
    case kObPolicy:
      if (v != "all") {
        ASSIGN_OR_RETURN(OpenbPolicy p, ParseOpenbPolicy(v));
        a->policies = {p};
      }
      break;
    case kObSeeds:
    case kObFirstSeed: {
      const bool seeds = o.spec->id == kObSeeds;
      int64_t n = 0;
      auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (ec != std::errc() || p != v.data() + v.size() || n < (seeds ? 1 : 0) || n > 1000000) {
        return InvalidArgument("--" + std::string(o.spec->name) + " '" + v + "' is not a valid count");
      }
      if (seeds) {
        a->seeds = static_cast<int>(n);
      } else {
        a->first_seed = static_cast<uint64_t>(n);
      }
      break;
    }
    case kObRatio: {
      char* end = nullptr;
      a->ratio = std::strtod(v.c_str(), &end);
      if (end != v.c_str() + v.size() || !(a->ratio > 0 && a->ratio <= 10)) {
        return InvalidArgument("--ratio '" + v + "' must be a number in (0, 10]");
      }
      break;
    }
    case kObJson:
      a->json = v;
      break;
    case kObCsv:
      a->csv = v;
      break;
    case kObSvg:
      a->svg = v;
      break;
  }
  return Status::Ok();
}

// One policy's runs over the seeds: its figures per seed, and per arrived % (0..x130) the sums and
// counts of the seeds' allocation and fragmentation rates.
struct OpenbSeedRuns {
  std::vector<std::optional<double>> a100, a130, f80;
  std::vector<double> alloc_sum, frag_sum;
  std::vector<int> alloc_n, frag_n;
  int64_t failed = 0, total = 0;
};

StatusOr<OpenbSeedRuns> RunOpenbSeeds(const std::vector<OpenbNode>& nodes, const std::vector<OpenbPod>& pods,
                                      const OpenbArgs& a, OpenbPolicy policy, int x130, bool tty) {
  const int x100 = 100, x80 = 80;
  OpenbSeedRuns runs;
  auto& [a100, a130, f80, alloc_sum, frag_sum, alloc_n, frag_n, failed, total] = runs;
  alloc_sum.assign(x130 + 1, 0);
  frag_sum.assign(x130 + 1, 0);
  alloc_n.assign(x130 + 1, 0);
  frag_n.assign(x130 + 1, 0);
  for (int s = 0; s < a.seeds; ++s) {
    OpenbOptions o;
    o.policy = policy;
    o.seed = a.first_seed + static_cast<uint64_t>(s);
    o.ratio = a.ratio;
    auto progress = [&](int64_t done, int64_t all) {
      if (!tty) return;
      std::fprintf(stderr, "\r  %-10s seed %llu: %lld/%lld pods", OpenbPolicyName(policy),
                   static_cast<unsigned long long>(o.seed), static_cast<long long>(done), static_cast<long long>(all));
      std::fflush(stderr);
    };
    ASSIGN_OR_RETURN(OpenbRun r, RunOpenb(nodes, pods, o, progress));
    a100.push_back(x100 < static_cast<int>(r.alloc.size()) ? r.alloc[x100] : std::nullopt);
    a130.push_back(x130 < static_cast<int>(r.alloc.size()) ? r.alloc[x130] : std::nullopt);
    f80.push_back(x80 < static_cast<int>(r.frag_rate.size()) ? r.frag_rate[x80] : std::nullopt);
    failed += r.failed;
    total += r.pods;
    for (int x = 0; x <= x130 && x < static_cast<int>(r.alloc.size()); ++x) {
      if (r.alloc[x]) alloc_sum[x] += *r.alloc[x], ++alloc_n[x];
      if (r.frag_rate[x]) frag_sum[x] += *r.frag_rate[x], ++frag_n[x];
    }
  }
  return runs;
}

// The FGD paper's figures for policy `name` on this pod list (at --ratio 1.3 only): *pub for the
// table ("alloc@100, @130, frag@80"), *j_pub for the JSON.
void FindPublished(const OpenbArgs& a, const char* name, std::string* pub, boost::json::object* j_pub) {
  auto list = PublishedFigures().find(PodListName(a.pods));
  if (list != PublishedFigures().end() && std::abs(a.ratio - 1.3) < 1e-9) {
    if (auto it = list->second.find(name); it != list->second.end()) {
      auto num = [](double v, int d) { return std::isnan(v) ? std::string("-") : Fixed(v, d); };
      *pub = num(it->second.alloc_100, 2) + ", " + num(it->second.alloc_130, 2) + ", " + num(it->second.frag_80, 1);
      *j_pub = {{"alloc_100", it->second.alloc_100}, {"alloc_130", it->second.alloc_130},
                {"frag_rate_80", it->second.frag_80}};
    }
  }
}

// A policy's entry of --json: the means over the seeds, and the published figures (NaN: null).
boost::json::object PolicyJson(const OpenbSeedRuns& runs, int seeds, boost::json::object j_pub) {
  boost::json::object j;
  j["alloc_100"] = Mean(runs.a100) ? boost::json::value(*Mean(runs.a100)) : boost::json::value(nullptr);
  j["alloc_130"] = Mean(runs.a130) ? boost::json::value(*Mean(runs.a130)) : boost::json::value(nullptr);
  j["frag_rate_80"] = Mean(runs.f80) ? boost::json::value(*Mean(runs.f80)) : boost::json::value(nullptr);
  j["failed_pods_per_seed"] = static_cast<double>(runs.failed) / seeds;
  j["seeds"] = seeds;
  if (!j_pub.empty()) {
    for (boost::json::key_value_pair& kv : j_pub) {
      if (kv.value().is_double() && std::isnan(kv.value().get_double())) kv.value() = nullptr;
    }
    j["published"] = j_pub;
  }
  return j;
}

int Openb(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  OpenbArgs a;
  bool bad_value = false;
  StatusOr<ToolLine> parsed = ReadToolLine(kOpenbOptions, args, [&](const OptionOccurrence& o) {
    Status st = ApplyOpenbOption(o, &a);
    bad_value = !st.ok();
    return st;
  });
  if (parsed.ok() && parsed->help) {
    out << SimUsage();
    return 0;
  }
  if (parsed.ok()) {
    if (Status st = RefuseToolOperands(*parsed); !st.ok()) parsed = st;
  }
  if (!parsed.ok()) {
    err << "muster sim openb: " << parsed.status().message() << "\n" << (bad_value ? "" : SimUsage());
    return 2;
  }
  if (a.nodes.empty() || a.pods.empty()) {
    err << "muster sim openb: --nodes and --pods are required\n" << SimUsage();
    return 2;
  }
  if (std::string bad = UnwritableSimOutput({a.json, a.csv, a.svg}); !bad.empty()) {
    err << "muster sim openb: cannot write '" << bad << "'\n";
    return 1;
  }
  StatusOr<std::vector<OpenbNode>> nodes = LoadTrace(a.nodes, ParseOpenbNodes);
  StatusOr<std::vector<OpenbPod>> pods = nodes.ok() ? LoadTrace(a.pods, ParseOpenbPods) : nodes.status();
  if (!pods.ok()) {
    err << "muster sim openb: " << pods.status().message() << "\n";
    return 1;
  }
  const bool tty = isatty(STDERR_FILENO) != 0;
  const int x130 = static_cast<int>(std::floor(a.ratio * 100 + 1e-9));
  boost::json::object results;
  out << "openb placement (FGD protocol): " << nodes->size() << " nodes, " << pods->size() << " pods in "
      << a.pods.substr(a.pods.rfind('/') + 1) << ", demand to " << Fixed(a.ratio * 100, 0) << "%, seeds " << a.first_seed
      << ".." << a.first_seed + a.seeds - 1 << "\n";
  char line[256];
  std::snprintf(line, sizeof line, "%-11s %10s %10s %10s %9s   %s\n", "policy", "alloc@100%", ("alloc@" + std::to_string(x130) + "%").c_str(),
                "frag@80%", "failed", "published (alloc@100, @130, frag@80)");
  out << line;
  std::string csv = "policy,arrived_pct,alloc_pct,frag_rate_pct\n";
  LinePlot plot;
  plot.title = "GPU allocation as GPU demand arrives (" + PodListName(a.pods) + ", mean of " +
               std::to_string(a.seeds) + " seeds)";
  plot.x_label = "arrived GPU demand (% of capacity)";
  plot.y_label = "allocated GPUs (% of capacity)";
  // Where the policies part: below 70% arrived every policy places nearly everything.
  plot.x_lo = 70;
  plot.x_hi = x130;
  plot.y_lo = 70;
  plot.y_hi = 100;
  for (OpenbPolicy policy : a.policies) {
    StatusOr<OpenbSeedRuns> runs = RunOpenbSeeds(*nodes, *pods, a, policy, x130, tty);
    if (!runs.ok()) {
      err << "\nmuster sim openb: " << runs.status().message() << "\n";
      return 1;
    }
    const auto& [a100, a130, f80, alloc_sum, frag_sum, alloc_n, frag_n, failed, total] = *runs;
    if (tty) std::fprintf(stderr, "\r%60s\r", "");
    const char* name = OpenbPolicyName(policy);
    boost::json::object j_pub;
    std::string pub = "-";
    FindPublished(a, name, &pub, &j_pub);
    std::snprintf(line, sizeof line, "%-11s %10s %10s %10s %9s   %s\n", name, Fixed(Mean(a100), 2).c_str(),
                  Fixed(Mean(a130), 2).c_str(), Fixed(Mean(f80), 1).c_str(),
                  (std::to_string(failed / a.seeds) + "/" + std::to_string(total / a.seeds)).c_str(), pub.c_str());
    out << line << std::flush;
    PlotSeries series{name, {}};
    for (int x = 0; x <= x130; ++x) {
      if (alloc_n[x] == 0) continue;
      const double alloc = alloc_sum[x] / alloc_n[x];
      series.points.emplace_back(x, alloc);
      csv += std::string(name) + "," + std::to_string(x) + "," + Fixed(alloc, 2) + "," +
             (frag_n[x] > 0 ? Fixed(frag_sum[x] / frag_n[x], 2) : "") + "\n";
    }
    plot.series.push_back(std::move(series));
    results[name] = PolicyJson(*runs, a.seeds, std::move(j_pub));
  }
  if (std::string bad = WriteSimOutputs({{a.json, PrettyJson(results) + "\n"}, {a.csv, csv}, {a.svg, RenderSvg(plot)}});
      !bad.empty()) {
    err << "muster sim openb: cannot write '" << bad << "'\n";
    return 1;
  }
  return 0;
}

}  // namespace

std::string WriteSimOutputs(const std::vector<std::pair<std::string, std::string>>& files) {
  for (const auto& [path, text] : files) {
    if (path.empty()) continue;
    std::ofstream f(path);
    f << text;
    f.flush();
    if (!f) return path;
  }
  return "";
}

std::string UnwritableSimOutput(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    if (path.empty()) continue;
    std::ofstream f(path, std::ios::app);
    if (!f) return path;
  }
  return "";
}

std::string SimUsage() {
  return "usage: muster sim philly ... (muster sim philly --help)\n"
         "       muster sim swf ... (muster sim swf --help)\n"
         "       muster sim openb --nodes NODES.csv --pods PODS.csv [--policy NAME|all] [--seeds N]\n"
         "                        [--first-seed S] [--ratio R] [--json FILE] [--csv FILE] [--svg FILE]\n"
         "\n"
         "The FGD paper's placement benchmark (ATC'23) on the openb trace: every pod of the list arrives\n"
         "once in a shuffled order, then clones drawn from it until the arrived GPU demand reaches R (1.3)\n"
         "times the GPU capacity; nothing departs; a pod that fits nowhere fails. Prints, per policy and\n"
         "averaged over N seeds (10, from S = 42), the GPU allocation ratio at 100% and at R of arrived\n"
         "demand and the fragmentation rate at 80%, beside the paper's figures for its pod lists.\n"
         "\n"
         "  --nodes FILE   openb_node_list_gpu_node.csv (the GPU nodes are the cluster)\n"
         "  --pods FILE    an openb_pod_list_*.csv\n"
         "  --policy NAME  random, dotprod, gpupacking, bestfit, fgd, muster, or all (the default)\n"
         "  --json FILE    also write the figures as JSON\n"
         "  --csv FILE     also write the curves: allocation and fragmentation rate at each percent\n"
         "                 of arrived demand, per policy (mean over the seeds)\n"
         "  --svg FILE     also plot the allocation curves (SVG)\n";
}

int SimMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  static constexpr OptionSpec kSimOptions[] = {{"help", 'h', OptionArg::kNone, OptionUse::kMeta}};
  StatusOr<ToolLine> line = ReadToolLine(kSimOptions, args, [](const OptionOccurrence&) { return Status::Ok(); });
  if (!line.ok()) {
    err << "muster sim: " << line.status().message() << "\n" << SimUsage();
    return 2;
  }
  if (line->help || line->operands.empty()) {
    (line->help ? out : err) << SimUsage();
    return line->help ? 0 : 2;
  }
  const std::string& benchmark = line->operands[0];
  const std::vector<std::string> rest(line->operands.begin() + 1, line->operands.end());
  if (benchmark == "openb") return Openb(rest, out, err);
  if (benchmark == "philly") return SimPhilly(rest, out, err);
  if (benchmark == "swf") return SimSwf(rest, out, err);
  err << "muster sim: unknown benchmark '" << benchmark << "'\n" << SimUsage();
  return 2;
}

}  // namespace muster
