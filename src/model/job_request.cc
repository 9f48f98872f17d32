// ParseJobRequest: sbatch/srun resource options -> JobRequest.
//
// Parsing follows getopt_long as sbatch uses it (model/option_engine.h), but accepts no operand; a
// repeated option overrides the earlier one. Each value is checked where it appears (errors come in
// argv order); combinations are checked once at the end.
//
// Combinations rejected, as Slurm rejects them (slurm_opt.c, proc_args.c, gres validation):
//   --mem / --mem-per-cpu / --mem-per-gpu together; --cpus-per-task with --cpus-per-gpu;
//   -N min greater than max; --gpus-per-task without -n, --ntasks-per-node or --gpus;
//   GPUs per node (--gres=gpu / --gpus-per-node) that do not equal --gpus-per-task times
//   --ntasks-per-node; -w and -x naming the same node; unknown gres names.
// Rejected deliberately where Slurm differs (Muster has no warnings channel here, and none of these
// could ever be placed as written):
//   -n fewer than -N min (Slurm lowers -N with a warning), -n more than --ntasks-per-node times the
//   largest node count (Slurm ignores --ntasks-per-node or fails at submit) -- ResolveShape in
//   sched/request_shape.cc rejects both too; -w naming more nodes than -N allows; -N 0 and --mem=0
//   (Slurm: a zero-node job, "all of the node's memory"; Muster's model keeps 0 as "not given").
// GPU counts of 0 ("--gres=gpu:0", "--gpus=0") are accepted as "no GPUs", as in Slurm, because
// templated scripts use them for CPU-only jobs.
// Muster extensions: --gpu-fraction=F (0<F<1, stored as milli-GPUs) and --gpu-memory=SIZE, one
// of the two, and never with whole-GPU counts.
#include "model/job_request.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "model/hostlist.h"
#include "model/limits.h"
#include "model/option_engine.h"

namespace muster {
namespace {

// Which option an OptionSpec is (its id), for Apply.
enum Opt : int {
  kJobName, kPartition, kNodes, kNtasks, kNtasksPerNode, kCpusPerTask, kMem, kMemPerCpu,
  kMemPerGpu, kGres, kGpus, kGpusPerNode, kGpusPerTask, kCpusPerGpu, kConstraint, kExclusive,
  kTime, kNodelist, kExclude, kGpuFraction, kGpuMemory, kOvercommit, kMinCpus, kTmp,
};

using Arg = OptionArg;
constexpr OptionUse kResource = OptionUse::kResource;

constexpr OptionSpec kResourceOptions[] = {
    {"job-name", 'J', Arg::kRequired, kResource, Opt::kJobName},
    {"partition", 'p', Arg::kRequired, kResource, Opt::kPartition},
    {"nodes", 'N', Arg::kRequired, kResource, Opt::kNodes, nullptr, "0 is refused; no :step or lists"},
    {"ntasks", 'n', Arg::kRequired, kResource, Opt::kNtasks, nullptr,
     "fewer than -N min is refused (Slurm lowers -N with a warning)"},
    {"ntasks-per-node", 0, Arg::kRequired, kResource, Opt::kNtasksPerNode, nullptr,
     "-n above it times the largest node count is refused"},
    {"cpus-per-task", 'c', Arg::kRequired, kResource, Opt::kCpusPerTask},
    {"mem", 0, Arg::kRequired, kResource, Opt::kMem, nullptr, "0 (all of a node's memory) is refused"},
    {"mem-per-cpu", 0, Arg::kRequired, kResource, Opt::kMemPerCpu},
    {"mem-per-gpu", 0, Arg::kRequired, kResource, Opt::kMemPerGpu},
    {"gres", 0, Arg::kRequired, kResource, Opt::kGres, nullptr, "only gpu[:type][:count], one GPU type (or none)"},
    {"gpus", 'G', Arg::kRequired, kResource, Opt::kGpus},
    {"gpus-per-node", 0, Arg::kRequired, kResource, Opt::kGpusPerNode},
    {"gpus-per-task", 0, Arg::kRequired, kResource, Opt::kGpusPerTask},
    {"cpus-per-gpu", 0, Arg::kRequired, kResource, Opt::kCpusPerGpu},
    {"constraint", 'C', Arg::kRequired, kResource, Opt::kConstraint},
    {"exclusive", 0, Arg::kOptional, kResource, Opt::kExclusive, nullptr, "only whole nodes (=user etc. refused)"},
    {"mincpus", 0, Arg::kRequired, kResource, Opt::kMinCpus, nullptr,
     "nodes of at least N CPUs, and N of them on each node of the job"},
    {"tmp", 0, Arg::kRequired, kResource, Opt::kTmp, nullptr, "nodes whose TmpDisk= is at least SIZE (MB by default)"},
    {"overcommit", 'O', Arg::kNone, kResource, Opt::kOvercommit, nullptr,
     "-c CPUs per node, as if one task ran on each; the tasks share them"},
    {"time", 't', Arg::kRequired, kResource, Opt::kTime},
    {"nodelist", 'w', Arg::kRequired, kResource, Opt::kNodelist, nullptr, "more nodes than -N allows is refused"},
    {"exclude", 'x', Arg::kRequired, kResource, Opt::kExclude},
    {"gpu-fraction", 0, Arg::kRequired, kResource, Opt::kGpuFraction, nullptr,
     "Muster: a fraction of one shared GPU (0 < F < 1), not with whole GPUs"},
    {"gpu-memory", 0, Arg::kRequired, kResource, Opt::kGpuMemory, nullptr,
     "Muster: this much memory on one shared GPU, not with whole GPUs"},
};

constexpr size_t kQuoteLimit = 80;  // so that a megabyte of junk in a message stays readable
// getopt's messages without a program name (the caller frames them).
constexpr GetoptStyle kGetoptStyle{.ambiguity_quotes_argument = true, .quote_limit = kQuoteLimit};

struct GpuSpec {
  std::string type;  // "" = any
  int count = 0;
};

// What the options said, before the combination checks. Set flags tell "given" from defaults.
struct ParseState {
  JobRequest req;
  bool cpus_per_task_set = false;
  bool mem_set = false, mem_per_cpu_set = false, mem_per_gpu_set = false;
  bool gpu_fraction_set = false, gpu_memory_set = false;
  std::optional<GpuSpec> gres_gpu;  // --gres=gpu...
  std::optional<GpuSpec> gpus, gpus_per_node, gpus_per_task;
};

// Quotes user input for a message, shortened.
std::string Quote(std::string_view s) {
  if (s.size() <= kQuoteLimit) return "'" + std::string(s) + "'";
  return "'" + std::string(s.substr(0, kQuoteLimit)) + "...'";
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// A decimal integer in [min_value, INT_MAX]; digits only (no sign, no blanks).
StatusOr<int> ParseCount(std::string_view s, int min_value, const char* expected) {
  int v = 0;
  if (AllDigits(s)) {
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && ptr == s.data() + s.size() && v >= min_value) return v;
    if (ec == std::errc::result_out_of_range) {
      return InvalidArgument("numeric value " + Quote(s) + " is too large");
    }
  }
  return InvalidArgument("invalid numeric value " + Quote(s) + " (expected " + expected + ")");
}

StatusOr<int> ParsePositive(std::string_view s) { return ParseCount(s, 1, "a positive integer"); }

// -N: "N" or "MIN-MAX" (Slurm also has ":step" and lists; not supported).
Status ParseNodes(const std::string& v, JobRequest* req) {
  const size_t dash = v.find('-');
  const char* expected = "a positive node count N or a range MIN-MAX";
  if (dash == std::string::npos) {
    ASSIGN_OR_RETURN(req->min_nodes, ParseCount(v, 1, expected));
    req->max_nodes = 0;
    return Status::Ok();
  }
  ASSIGN_OR_RETURN(int lo, ParseCount(std::string_view(v).substr(0, dash), 1, expected));
  ASSIGN_OR_RETURN(int hi, ParseCount(std::string_view(v).substr(dash + 1), 1, expected));
  if (hi < lo) {
    return InvalidArgument("Maximum node count " + std::to_string(hi) + " is less than minimum node count " +
                           std::to_string(lo));
  }
  req->min_nodes = lo;
  req->max_nodes = hi;
  return Status::Ok();
}

// A GPU type or MIG profile name: "a100", "h100-80gb", "1g.18gb". Starts with a letter or digit;
// not all digits (that is a count).
bool ValidGpuType(std::string_view t) {
  if (t.empty() || t.size() > 64 || AllDigits(t)) return false;
  if (t[0] == '.' || t[0] == '_' || t[0] == '-') return false;
  for (char c : t) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// --gpus, --gpus-per-node, --gpus-per-task: "[type:]N".
StatusOr<GpuSpec> ParseTypedCount(const std::string& v) {
  const char* expected = "[type:]N, e.g. 4 or a100:4";
  GpuSpec spec;
  std::string_view count = v;
  const size_t colon = v.find(':');
  if (colon != std::string::npos) {
    spec.type = v.substr(0, colon);
    count = std::string_view(v).substr(colon + 1);
    if (!ValidGpuType(spec.type)) {
      return InvalidArgument("invalid GPU type " + Quote(spec.type) + " in " + Quote(v) + " (expected " +
                             expected + ")");
    }
  }
  ASSIGN_OR_RETURN(spec.count, ParseCount(count, 0, expected));
  return spec;
}

// --gres: a comma list of name[:type][:count]; only "gpu" is known here ("none" clears it).
StatusOr<std::optional<GpuSpec>> ParseGres(const std::string& v) {
  auto invalid = [&v](const std::string& why) {
    return InvalidArgument("Invalid generic resource (gres) specification " + Quote(v) + ": " + why);
  };
  if (v.size() == 4 && (v[0] | 0x20) == 'n' && (v[1] | 0x20) == 'o' && (v[2] | 0x20) == 'n' &&
      (v[3] | 0x20) == 'e') {
    return std::optional<GpuSpec>();
  }
  std::optional<GpuSpec> gpu;
  size_t start = 0;
  while (start <= v.size()) {
    size_t comma = v.find(',', start);
    if (comma == std::string::npos) comma = v.size();
    const std::string item = v.substr(start, comma - start);
    start = comma + 1;
    std::vector<std::string> parts;
    size_t p = 0;
    while (true) {
      const size_t colon = item.find(':', p);
      parts.push_back(item.substr(p, colon == std::string::npos ? std::string::npos : colon - p));
      if (colon == std::string::npos) break;
      p = colon + 1;
    }
    if (parts[0] != "gpu") {
      if (parts[0].empty()) return invalid("empty entry");
      return invalid("unknown gres " + Quote(parts[0]) + " (expected gpu[:type][:count])");
    }
    if (gpu) return invalid("more than one gpu entry (one GPU type per job)");
    GpuSpec spec;
    spec.count = 1;  // "gpu" and "gpu:type" ask for one
    if (parts.size() > 3) return invalid("too many ':' (expected gpu[:type][:count])");
    if (parts.size() == 3 || (parts.size() == 2 && !AllDigits(parts[1]))) {
      spec.type = parts[1];
      if (!ValidGpuType(spec.type)) return invalid("bad GPU type " + Quote(spec.type));
    }
    if (parts.size() == 3 || (parts.size() == 2 && AllDigits(parts[1]))) {
      auto count = ParseCount(parts.back(), 0, "gpu[:type][:count]");
      if (!count.ok()) return invalid(count.status().message());
      spec.count = *count;
    }
    gpu = spec;
  }
  return gpu;
}

// --gpu-fraction: a plain decimal strictly between 0 and 1, rounded to whole milli-GPUs.
StatusOr<int> ParseGpuFraction(const std::string& v) {
  const std::string expected = " (expected a fraction of one GPU, 0 < F < 1, e.g. 0.25)";
  bool digit = false, dot = false, shape_ok = !v.empty() && v.size() <= 32;
  for (char c : v) {
    if (c >= '0' && c <= '9') {
      digit = true;
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      shape_ok = false;
    }
  }
  double f = 0;
  if (shape_ok && digit) {
    auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), f);
    shape_ok = ec == std::errc() && ptr == v.data() + v.size();
  }
  if (!shape_ok || !digit || !(f > 0.0 && f < 1.0)) {
    return InvalidArgument("invalid GPU fraction " + Quote(v) + expected);
  }
  const long milli = std::lround(f * kMilliPerGpu);
  if (milli < 1 || milli >= kMilliPerGpu) {
    return InvalidArgument("GPU fraction " + Quote(v) + " rounds to " + std::to_string(milli) +
                           "/1000 of a GPU (expected 0.001 to 0.999)");
  }
  return static_cast<int>(milli);
}

StatusOr<int64_t> ParsePositiveMemory(const std::string& v) {
  ASSIGN_OR_RETURN(int64_t mb, ParseMemoryMb(v));
  if (mb <= 0) return InvalidArgument("memory size " + Quote(v) + " must be positive");
  return mb;
}

// Expands a hostlist and drops repeated names (Slurm's hostlist_uniq), keeping first order.
StatusOr<std::vector<std::string>> ParseNodeNames(const std::string& v) {
  ASSIGN_OR_RETURN(std::vector<std::string> hosts, ExpandHostlist(v));
  std::set<std::string> seen;
  std::vector<std::string> out;
  for (std::string& h : hosts) {
    if (seen.insert(h).second) out.push_back(std::move(h));
  }
  return out;
}

// Parses one option's value into `st` (a repeated option overrides the earlier one).
Status Apply(const std::optional<std::string>& value, Opt id, ParseState* st) {
  JobRequest& r = st->req;
  const std::string v = value.value_or("");
  switch (id) {
    case Opt::kJobName: r.name = v; break;
    case Opt::kPartition: r.partition = v; break;
    case Opt::kConstraint: r.constraint = v; break;
    case Opt::kNodes: return ParseNodes(v, &r);
    case Opt::kNtasks: { ASSIGN_OR_RETURN(r.ntasks, ParsePositive(v)); break; }
    case Opt::kNtasksPerNode: { ASSIGN_OR_RETURN(r.ntasks_per_node, ParsePositive(v)); break; }
    case Opt::kCpusPerTask: {
      ASSIGN_OR_RETURN(r.cpus_per_task, ParsePositive(v));
      st->cpus_per_task_set = true;
      break;
    }
    case Opt::kCpusPerGpu: { ASSIGN_OR_RETURN(r.cpus_per_gpu, ParsePositive(v)); break; }
    case Opt::kMem: {
      ASSIGN_OR_RETURN(int64_t mb, ParseMemoryMb(v));
      if (mb == 0) {
        return InvalidArgument("0 (all of a node's memory) is not supported; give a size, or use --exclusive");
      }
      r.mem_per_node_mb = mb;
      st->mem_set = true;
      break;
    }
    case Opt::kMemPerCpu: {
      ASSIGN_OR_RETURN(r.mem_per_cpu_mb, ParsePositiveMemory(v));
      st->mem_per_cpu_set = true;
      break;
    }
    case Opt::kMemPerGpu: {
      ASSIGN_OR_RETURN(r.mem_per_gpu_mb, ParsePositiveMemory(v));
      st->mem_per_gpu_set = true;
      break;
    }
    case Opt::kGres: { ASSIGN_OR_RETURN(st->gres_gpu, ParseGres(v)); break; }
    case Opt::kGpus: { ASSIGN_OR_RETURN(st->gpus, ParseTypedCount(v)); break; }
    case Opt::kGpusPerNode: { ASSIGN_OR_RETURN(st->gpus_per_node, ParseTypedCount(v)); break; }
    case Opt::kGpusPerTask: { ASSIGN_OR_RETURN(st->gpus_per_task, ParseTypedCount(v)); break; }
    case Opt::kOvercommit:
      r.overcommit = true;
      break;
    case Opt::kMinCpus: { ASSIGN_OR_RETURN(r.min_cpus_per_node, ParsePositive(v)); break; }
    case Opt::kTmp: {
      ASSIGN_OR_RETURN(r.tmp_disk_mb, ParseMemoryMb(v));
      break;
    }
    case Opt::kExclusive:
      // Slurm also takes --exclusive=user|mcs|topo; Muster only has whole-node exclusivity.
      if (value && !value->empty()) {
        return InvalidArgument(Quote(*value) + " is not supported (only plain --exclusive: whole nodes)");
      }
      r.exclusive = true;
      break;
    case Opt::kTime: {
      ASSIGN_OR_RETURN(int64_t s, ParseTimeSpec(v));
      if (s == 0) {
        s = kUnlimited;  // Slurm: "A time limit of zero requests that no time limit be imposed"
      } else if (s != kUnlimited) {
        s = (s + 59) / 60 * 60;  // Slurm keeps limits in minutes (time_str2mins rounds up)
        // Slurm takes up to 68 years (and squeue then prints INVALID): past a year a limit is
        // a mistake, and no limit is said so.
        if (s > kMaxJobTimeLimitS) {
          return InvalidArgument("Invalid --time specification: " + v + " is over a year (" +
                                 FormatTimeSpec(kMaxJobTimeLimitS) +
                                 "), the longest time limit a job may ask; -t UNLIMITED (or none) asks for none");
        }
      }
      r.time_limit_s = s;
      break;
    }
    case Opt::kNodelist: { ASSIGN_OR_RETURN(r.nodelist, ParseNodeNames(v)); break; }
    case Opt::kExclude: { ASSIGN_OR_RETURN(r.exclude, ParseNodeNames(v)); break; }
    case Opt::kGpuFraction: {
      ASSIGN_OR_RETURN(r.gpu_milli, ParseGpuFraction(v));
      st->gpu_fraction_set = true;
      break;
    }
    case Opt::kGpuMemory: {
      ASSIGN_OR_RETURN(r.gpu_memory_mb, ParsePositiveMemory(v));
      st->gpu_memory_set = true;
      break;
    }
  }
  return Status::Ok();
}

Status CheckCombinations(const JobRequest& r);

// Checks the options against each other and fills the GPU fields of the request.
Status Finish(ParseState& st) {
  JobRequest& r = st.req;
  if (st.mem_set + st.mem_per_cpu_set + st.mem_per_gpu_set > 1) {
    return InvalidArgument("--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive");
  }
  if (st.cpus_per_task_set && r.cpus_per_gpu > 0) {
    return InvalidArgument("--cpus-per-task and --cpus-per-gpu are mutually exclusive");
  }

  // Whole GPUs. A count of 0 asks for nothing (its type too).
  struct Source { const char* name; const std::optional<GpuSpec>* spec; };
  const Source sources[] = {{"--gres=gpu", &st.gres_gpu}, {"--gpus", &st.gpus},
                            {"--gpus-per-node", &st.gpus_per_node}, {"--gpus-per-task", &st.gpus_per_task}};
  const char* type_from = nullptr;
  for (const Source& s : sources) {
    if (!*s.spec || (*s.spec)->count == 0 || (*s.spec)->type.empty()) continue;
    if (type_from && (*s.spec)->type != r.gpu_type) {
      return InvalidArgument("conflicting GPU types " + Quote(r.gpu_type) + " (" + type_from + ") and " +
                             Quote((*s.spec)->type) + " (" + s.name + ")");
    }
    r.gpu_type = (*s.spec)->type;
    type_from = s.name;
  }
  auto count = [](const std::optional<GpuSpec>& s) { return s ? s->count : 0; };
  if (count(st.gres_gpu) > 0 && count(st.gpus_per_node) > 0) {
    return InvalidArgument("--gres=gpu and --gpus-per-node both give the GPUs per node; use one of them");
  }
  r.gpus_per_node = count(st.gres_gpu) > 0 ? count(st.gres_gpu) : count(st.gpus_per_node);
  r.gpus_total = count(st.gpus);
  r.gpus_per_task = count(st.gpus_per_task);
  return CheckCombinations(r);
}

// The checks of the options against each other that the request alone tells (no "given" flags).
Status CheckCombinations(const JobRequest& r) {
  if (r.gpus_per_task > 0 && r.ntasks == 0 && r.ntasks_per_node == 0 && r.gpus_total == 0) {
    return InvalidArgument("--gpus-per-task used without either --gpus or -n/--ntasks is not allowed");
  }
  if (r.gpus_per_task > 0 && r.gpus_per_node > 0 && r.ntasks_per_node > 0 &&
      int64_t{r.gpus_per_task} * r.ntasks_per_node != r.gpus_per_node) {
    return InvalidArgument("--gpus-per-task=" + std::to_string(r.gpus_per_task) + " times --ntasks-per-node=" +
                           std::to_string(r.ntasks_per_node) + " differs from the " +
                           std::to_string(r.gpus_per_node) + " GPUs per node of --gres=gpu/--gpus-per-node");
  }

  // Fractional GPUs (Muster): each is positive when given.
  if (r.gpu_milli > 0 && r.gpu_memory_mb > 0) {
    return InvalidArgument("--gpu-fraction and --gpu-memory are mutually exclusive");
  }
  if (r.wants_fraction() && r.wants_gpus()) {
    return InvalidArgument(std::string(r.gpu_milli > 0 ? "--gpu-fraction" : "--gpu-memory") +
                           " (one shared GPU) cannot be combined with whole GPUs "
                           "(--gres=gpu, --gpus, --gpus-per-node, --gpus-per-task)");
  }

  // Tasks against nodes.
  const int max_nodes = r.max_nodes > 0 ? r.max_nodes : r.min_nodes;  // 0 = unbounded
  if (r.ntasks > 0 && r.min_nodes > 0 && r.ntasks < r.min_nodes) {
    return InvalidArgument("-n " + std::to_string(r.ntasks) + " tasks cannot run on " +
                           std::to_string(r.min_nodes) + " nodes (at least one task per node)");
  }
  if (r.ntasks > 0 && r.ntasks_per_node > 0 && max_nodes > 0 &&
      int64_t{r.ntasks_per_node} * max_nodes < r.ntasks) {
    return InvalidArgument("-n " + std::to_string(r.ntasks) + " tasks do not fit on " + std::to_string(max_nodes) +
                           " nodes at --ntasks-per-node=" + std::to_string(r.ntasks_per_node));
  }

  // Node lists.
  if (max_nodes > 0 && r.nodelist.size() > static_cast<size_t>(max_nodes)) {
    return InvalidArgument("--nodelist names " + std::to_string(r.nodelist.size()) +
                           " nodes but --nodes allows at most " + std::to_string(max_nodes));
  }
  const std::set<std::string> excluded(r.exclude.begin(), r.exclude.end());
  for (const std::string& h : r.nodelist) {
    if (excluded.count(h)) {
      return InvalidArgument("required and excluded node lists overlap: " + Quote(h) + " is in both -w and -x");
    }
  }
  return Status::Ok();
}

}  // namespace

Status ValidateJobRequest(const JobRequest& r) {
  auto bad = [](const std::string& what) { return InvalidArgument("invalid resources: " + what); };
  if (r.min_nodes < 0 || r.max_nodes < 0 || (r.max_nodes > 0 && (r.min_nodes < 1 || r.max_nodes < r.min_nodes))) {
    return bad("node count " + std::to_string(r.min_nodes) + "-" + std::to_string(r.max_nodes));
  }
  const struct {
    const char* name;
    int64_t value;
    int64_t least;
  } counts[] = {
      {"ntasks", r.ntasks, 0},          {"ntasks_per_node", r.ntasks_per_node, 0},
      {"cpus_per_task", r.cpus_per_task, 1}, {"cpus_per_gpu", r.cpus_per_gpu, 0},
      {"min_cpus_per_node", r.min_cpus_per_node, 0}, {"mem_per_node_mb", r.mem_per_node_mb, 0},
      {"mem_per_cpu_mb", r.mem_per_cpu_mb, 0}, {"mem_per_gpu_mb", r.mem_per_gpu_mb, 0},
      {"tmp_disk_mb", r.tmp_disk_mb, 0}, {"gpus_per_node", r.gpus_per_node, 0},
      {"gpus_total", r.gpus_total, 0},  {"gpus_per_task", r.gpus_per_task, 0},
      {"gpu_milli", r.gpu_milli, 0},    {"gpu_memory_mb", r.gpu_memory_mb, 0},
  };
  for (const auto& c : counts) {
    if (c.value < c.least) return bad(std::string(c.name) + " " + std::to_string(c.value));
  }
  if (r.gpu_milli >= kMilliPerGpu) return bad("gpu_milli " + std::to_string(r.gpu_milli) + " (at most 999)");
  if (!r.gpu_type.empty() && !ValidGpuType(r.gpu_type)) return bad("GPU type " + Quote(r.gpu_type));
  if (r.time_limit_s != kUnlimited && (r.time_limit_s < 0 || r.time_limit_s > kMaxJobTimeLimitS)) {
    return bad("time limit " + std::to_string(r.time_limit_s) + " s");
  }
  if ((r.mem_per_node_mb > 0) + (r.mem_per_cpu_mb > 0) + (r.mem_per_gpu_mb > 0) > 1) {
    return InvalidArgument("--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive");
  }
  if (r.cpus_per_task > 1 && r.cpus_per_gpu > 0) {
    return InvalidArgument("--cpus-per-task and --cpus-per-gpu are mutually exclusive");
  }
  return CheckCombinations(r);
}

struct JobRequestBuilder::State : ParseState {};

JobRequestBuilder::JobRequestBuilder() : st_(std::make_unique<State>()) {}
JobRequestBuilder::~JobRequestBuilder() = default;
JobRequestBuilder::JobRequestBuilder(JobRequestBuilder&&) noexcept = default;
JobRequestBuilder& JobRequestBuilder::operator=(JobRequestBuilder&&) noexcept = default;

Status JobRequestBuilder::Apply(const OptionOccurrence& o) {
  // The command's own table gives the option its own id: find ours by the canonical name.
  const std::string name = o.spec->Canonical();
  for (const OptionSpec& spec : kResourceOptions) {
    if (name == spec.name) return muster::Apply(o.value, static_cast<Opt>(spec.id), st_.get()).WithPrefix("--" + name);
  }
  return InvalidArgument("--" + name + " is not a resource option");
}

StatusOr<JobRequest> JobRequestBuilder::Finish() {
  RETURN_IF_ERROR(muster::Finish(*st_));
  return std::move(st_->req);
}

StatusOr<JobRequest> ParseJobRequest(const std::vector<std::string>& args) {
  JobRequestBuilder builder;
  const auto apply = [&builder](const OptionOccurrence& o) { return builder.Apply(o); };
  ASSIGN_OR_RETURN(const size_t first_operand, Getopt(kResourceOptions, args, kGetoptStyle, apply));
  if (first_operand < args.size()) {
    return InvalidArgument("unexpected argument " + Quote(args[first_operand]) +
                           " (only resource options are accepted here)");
  }
  return builder.Finish();
}

OptionTable JobRequestOptionTable() { return kResourceOptions; }

}  // namespace muster
