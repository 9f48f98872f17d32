#include "cli/srun_args.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <optional>
#include <sstream>
#include <string_view>

#include "base/strings.h"
#include "model/job_array.h"
#include "model/job_option_table.h"
#include "model/job_request.h"
#include "model/option_engine.h"

namespace muster {

namespace {

// What srun does with each option (OptionSpec::id). kResource: an option for a new allocation (srun
// outside one), handed to the controller as given.
enum Opt : int {
  kNtasks, kNodes, kNtasksPerNode, kLabel, kJobName, kKillOnBadExit, kUnbuffered, kHelp, kUsage, kVersion,
  kResource, kAccount, kQos, kJobid, kExport, kMultiProg, kOutput, kError, kInput, kTaskProlog, kTaskEpilog,
  kCpuBind, kImmediate, kOverlap, kExact, kOvercommit, kNoAllocate, kPty, kGpuBind, kChdir, kHold, kTestOnly,
  kQuitOnInterrupt, kDependency, kNice, kMpi, kNotHonoured, kVerbose, kHetGroup,
};
using Arg = OptionArg;
using Kind = OptionUse;

constexpr OptionSpec kSrunOwnOptions[] = {  // and JobOptionTable()'s, put in by SrunOptionTable()
    {"account", 'A', Arg::kRequired, Kind::kOwn, Opt::kAccount},
    {"cpu-bind", 0, Arg::kRequired, Kind::kOwn, Opt::kCpuBind, nullptr,
     "accepted; tasks are not bound (the job's cgroup confines them)"},
    {"error", 'e', Arg::kRequired, Kind::kOwn, Opt::kError},
    {"export", 0, Arg::kRequired, Kind::kOwn, Opt::kExport},
    {"immediate", 'I', Arg::kOptional, Kind::kOwn, Opt::kImmediate},
    {"input", 'i', Arg::kRequired, Kind::kOwn, Opt::kInput},
    {"jobid", 0, Arg::kRequired, Kind::kOwn, Opt::kJobid},
    {"multi-prog", 0, Arg::kNone, Kind::kOwn, Opt::kMultiProg},
    {"no-allocate", 'Z', Arg::kNone, Kind::kOwn, Opt::kNoAllocate},
    {"pty", 0, Arg::kOptional, Kind::kOwn, Opt::kPty},
    {"output", 'o', Arg::kRequired, Kind::kOwn, Opt::kOutput},
    {"overlap", 0, Arg::kNone, Kind::kOwn, Opt::kOverlap},
    {"overcommit", 'O', Arg::kNone, Kind::kOwn, Opt::kOvercommit, nullptr,
     "the step's tasks share its CPUs; a new allocation gets one task's CPUs per node"},
    {"exact", 0, Arg::kNone, Kind::kOwn, Opt::kExact},
    {"task-epilog", 0, Arg::kRequired, Kind::kOwn, Opt::kTaskEpilog},
    {"task-prolog", 0, Arg::kRequired, Kind::kOwn, Opt::kTaskProlog},
    {"constraint", 'C', Arg::kRequired, Kind::kResource, Opt::kResource},
    {"cpus-per-gpu", 0, Arg::kRequired, Kind::kResource, Opt::kResource},
    {"cpus-per-task", 'c', Arg::kRequired, Kind::kResource, Opt::kResource},
    {"exclude", 'x', Arg::kRequired, Kind::kResource, Opt::kResource},
    {"exclusive", 0, Arg::kOptional, Kind::kResource, Opt::kResource, nullptr,
     "whole nodes for a new allocation; inside one, as --exact"},
    {"gpu-bind", 0, Arg::kRequired, Kind::kOwn, Opt::kGpuBind, nullptr,
     "closest gives all the step's GPUs (no CPU binding)"},
    {"gpus", 'G', Arg::kRequired, Kind::kResource, Opt::kResource},
    {"gpus-per-node", 0, Arg::kRequired, Kind::kResource, Opt::kResource},
    {"gpus-per-task", 0, Arg::kRequired, Kind::kResource, Opt::kResource},
    {"gres", 0, Arg::kRequired, Kind::kResource, Opt::kResource},
    {"help", 'h', Arg::kNone, Kind::kMeta, Opt::kHelp},
    {"mem", 0, Arg::kRequired, Kind::kResource, Opt::kResource},
    {"mem-per-cpu", 0, Arg::kRequired, Kind::kResource, Opt::kResource},
    {"mem-per-gpu", 0, Arg::kRequired, Kind::kResource, Opt::kResource},
    {"nodelist", 'w', Arg::kRequired, Kind::kResource, Opt::kResource},
    {"partition", 'p', Arg::kRequired, Kind::kResource, Opt::kResource},
    {"qos", 'q', Arg::kRequired, Kind::kOwn, Opt::kQos},
    {"time", 't', Arg::kRequired, Kind::kResource, Opt::kResource},
    {"job-name", 'J', Arg::kRequired, Kind::kOwn, Opt::kJobName},
    {"kill-on-bad-exit", 'K', Arg::kOptional, Kind::kOwn, Opt::kKillOnBadExit},
    {"label", 'l', Arg::kNone, Kind::kOwn, Opt::kLabel},
    {"nodes", 'N', Arg::kRequired, Kind::kOwn, Opt::kNodes, nullptr,
     "inside an allocation the step takes the minimum of min[-max]"},
    {"ntasks", 'n', Arg::kRequired, Kind::kOwn, Opt::kNtasks},
    {"ntasks-per-node", 0, Arg::kRequired, Kind::kOwn, Opt::kNtasksPerNode},
    {"unbuffered", 'u', Arg::kNone, Kind::kOwn, Opt::kUnbuffered},
    {"usage", 0, Arg::kNone, Kind::kMeta, Opt::kUsage},
    {"version", 'V', Arg::kNone, Kind::kMeta, Opt::kVersion},
    // The other options of Slurm 22.05's srun (src/common/slurm_opt.c, `srun --help`).
    {"chdir", 'D', Arg::kRequired, Kind::kOwn, Opt::kChdir, nullptr,
     "the tasks' directory; relative -o/-e/-i files are found from it"},
    {"hold", 'H', Arg::kNone, Kind::kOwn, Opt::kHold, nullptr,
     "a new allocation is submitted held; srun waits until it is released (inside one: no effect)"},
    {"test-only", 0, Arg::kNone, Kind::kOwn, Opt::kTestOnly, nullptr,
     "when and where a new allocation of the options would start; nothing runs, no job id is taken"},
    {"quit-on-interrupt", 0, Arg::kNone, Kind::kOwn, Opt::kQuitOnInterrupt, nullptr,
     "one Ctrl-C sends SIGINT to the tasks at once (Slurm aborts the step)"},
    {"dependency", 'd', Arg::kRequired, Kind::kOwn, Opt::kDependency, nullptr,
     "a new allocation's (inside one: no effect)"},
    {"nice", 0, Arg::kOptional, Kind::kOwn, Opt::kNice, nullptr, "a new allocation's (inside one: no effect)"},
    {"mpi", 0, Arg::kRequired, Kind::kOwn, Opt::kMpi, nullptr,
     "only none: Muster starts no PMI server (pmi2, pmix are refused)"},
    {"acctg-freq", 0, Arg::kRequired, Kind::kIgnored, Opt::kNotHonoured, nullptr,
     "no effect: Muster samples no per-task accounting"},
    {"compress", 0, Arg::kOptional, Kind::kIgnored, Opt::kNotHonoured, nullptr,
     "no effect: srun sends no files (--bcast is refused)"},
    {"cpu-freq", 0, Arg::kRequired, Kind::kIgnored, Opt::kNotHonoured, nullptr,
     "no effect: Muster sets no CPU frequency"},
    {"ctrl-comm-ifhn", 0, Arg::kRequired, Kind::kIgnored, Opt::kNotHonoured, nullptr,
     "no effect: the nodes reach srun through its own connection"},
    {"disable-status", 'X', Arg::kNone, Kind::kOwn, Opt::kQuitOnInterrupt, nullptr,
     "one Ctrl-C sends SIGINT to the tasks at once, without the tasks' states"},
    {"gpu-freq", 0, Arg::kRequired, Kind::kIgnored, Opt::kNotHonoured, nullptr,
     "no effect: Muster sets no GPU frequency"},
    {"profile", 0, Arg::kRequired, Kind::kIgnored, Opt::kNotHonoured, nullptr,
     "no effect: Muster has no profiling plugin"},
    {"propagate", 0, Arg::kOptional, Kind::kIgnored, Opt::kNotHonoured, nullptr,
     "no effect: the tasks have the job's limits"},
    {"quiet", 'Q', Arg::kNone, Kind::kIgnored, Opt::kNotHonoured, nullptr,
     "no effect: srun prints only Slurm's lines and errors"},
    {"slurmd-debug", 0, Arg::kRequired, Kind::kIgnored, Opt::kNotHonoured, nullptr,
     "no effect: musterd's log level is set on its command line"},
    {"slurmd_debug", 0, Arg::kRequired, Kind::kIgnored, Opt::kNotHonoured, "slurmd-debug",
     "no effect: musterd's log level is set on its command line"},
    {"threads", 'T', Arg::kRequired, Kind::kIgnored, Opt::kNotHonoured, nullptr,
     "no effect: each node's agent starts its tasks; there is no launch fan-out to tune"},
    {"verbose", 'v', Arg::kNone, Kind::kOwn, Opt::kVerbose, nullptr,
     "-v: Slurm's defined options and launch lines; more -v add none of Slurm's debug lines"},
    {"wait", 'W', Arg::kRequired, Kind::kIgnored, Opt::kNotHonoured, nullptr,
     "no effect: the other tasks run on after one exits, as with -W 0 (-K ends them on a failure)"},
    {"bb", 0, Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr, "Muster has no burst buffers"},
    {"bbf", 0, Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr, "Muster has no burst buffers"},
    {"bcast", 0, Arg::kOptional, Kind::kUnsupported, Opt::kNotHonoured, nullptr,
     "not implemented: files are not copied to the nodes (use a shared file system)"},
    {"bcast-exclude", 0, Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr,
     "not implemented: --bcast is refused"},
    {"begin", 'b', Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr,
     "not implemented for srun: `salloc --begin`, then srun inside"},
    {"cluster-constraint", 0, Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr,
     "one cluster: Muster has no other clusters to name"},
    {"clusters", 'M', Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr,
     "one cluster: Muster has no other clusters to name"},
    {"container", 0, Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr, "Muster runs no OCI containers"},
    {"contiguous", 0, Arg::kNone, Kind::kUnsupported, Opt::kNotHonoured, nullptr,
     "not implemented: nodes are not chosen for contiguity"},
    {"core-spec", 'S', Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr,
     "Muster reserves no cores for the system"},
    {"cores-per-socket", 0, Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr,
     "not implemented: Muster places CPUs, not sockets and cores"},
    {"deadline", 0, Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr, "not implemented"},
    {"delay-boot", 0, Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr, "Muster does not reboot nodes"},
    {"distribution", 'm', Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr,
     "not implemented: tasks fill each node in turn (block); arbitrary (SLURM_HOSTFILE) neither"},
    {"epilog", 0, Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr,
     "not implemented: --task-epilog runs on the nodes"},
    {"extra-node-info", 'B', Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr,
     "not implemented: Muster places CPUs, not sockets and cores"},
    {"gpus-per-socket", 0, Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr,
     "not implemented: Muster places GPUs per node"},
    {"gres-flags", 0, Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr, "not implemented"},
    {"het-group", 0, Arg::kRequired, Kind::kOwn, Opt::kHetGroup, nullptr,
     "one component (its job id from SLURM_JOB_ID_HET_GROUP_N); a step over several components is refused"},
    {"licenses", 'L', Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr, "Muster has no licenses"},
    {"mcs-label", 0, Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr, "Muster has no MCS labels"},
    {"mem-bind", 0, Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr,
     "not implemented: memory is not bound to NUMA nodes"},
    {"mincpus", 0, Arg::kRequired, Kind::kResource, Opt::kResource, nullptr,
     "for a new allocation: nodes of at least N CPUs, N of them on each"},
    {"mpi-combine", 0, Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr,
     "not implemented: a step runs in one component of a heterogeneous job"},
    {"network", 0, Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr, "Muster has no network plugin"},
    {"no-kill", 'k', Arg::kOptional, Kind::kUnsupported, Opt::kNotHonoured, nullptr,
     "not implemented: a node that fails ends the job (or requeues it)"},
    {"ntasks-per-core", 0, Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr,
     "not implemented: Muster places CPUs, not sockets and cores"},
    {"ntasks-per-socket", 0, Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr,
     "not implemented: Muster places CPUs, not sockets and cores"},
    {"oversubscribe", 's', Arg::kNone, Kind::kUnsupported, Opt::kNotHonoured, nullptr,
     "not implemented: jobs never share CPUs (steps share with --overlap)"},
    {"power", 0, Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr, "Muster has no power management"},
    {"preserve-env", 'E', Arg::kNone, Kind::kUnsupported, Opt::kNotHonoured, nullptr,
     "not implemented: SLURM_NNODES and SLURM_NTASKS are the step's"},
    {"priority", 0, Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr,
     "not implemented: priorities come from the priority factors"},
    {"prolog", 0, Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr,
     "not implemented: --task-prolog runs on the nodes"},
    {"reboot", 0, Arg::kNone, Kind::kUnsupported, Opt::kNotHonoured, nullptr, "Muster does not reboot nodes"},
    {"relative", 'r', Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr,
     "not implemented: -w names the step's nodes"},
    {"reservation", 0, Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr, "Muster has no reservations"},
    {"resv-ports", 0, Arg::kOptional, Kind::kUnsupported, Opt::kNotHonoured, nullptr,
     "not implemented: no ports are reserved for MPI"},
    {"send-libs", 0, Arg::kOptional, Kind::kUnsupported, Opt::kNotHonoured, nullptr,
     "not implemented: --bcast is refused"},
    {"signal", 0, Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr,
     "not implemented for srun: `sbatch --signal`"},
    {"sockets-per-node", 0, Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr,
     "not implemented: Muster places CPUs, not sockets and cores"},
    {"spread-job", 0, Arg::kNone, Kind::kUnsupported, Opt::kNotHonoured, nullptr, "not implemented"},
    {"switches", 0, Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr,
     "not implemented: no count of switches is asked"},
    {"thread-spec", 0, Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr,
     "Muster reserves no threads for the system"},
    {"threads-per-core", 0, Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr,
     "not implemented: Muster places CPUs, not sockets and cores"},
    {"time-min", 0, Arg::kRequired, Kind::kUnsupported, Opt::kNotHonoured, nullptr,
     "not implemented: a job runs for its --time"},
    {"tmp", 0, Arg::kRequired, Kind::kResource, Opt::kResource, nullptr,
     "for a new allocation: nodes whose TmpDisk= is at least SIZE"},
    {"use-min-nodes", 0, Arg::kNone, Kind::kUnsupported, Opt::kNotHonoured, nullptr, "not implemented"},
};

Status Error(const std::string& text) { return InvalidArgument(text); }
// --gpu-bind=map_gpu:<id>[*<count>],... or mask_gpu:<hex mask>[*<count>],...: one entry per
// local task (reused from the start when there are more tasks), each the GPU indexes it sees.
StatusOr<std::vector<std::vector<int>>> ParseGpuBindMap(const std::string& value) {
  const bool mask = value.rfind("mask_gpu:", 0) == 0;
  const Status bad = Error("srun: error: Invalid --gpu-bind argument: gpu:" + value + "\n");
  std::vector<std::vector<int>> out;
  std::stringstream in(value.substr(mask ? 9 : 8));
  for (std::string item; std::getline(in, item, ',');) {
    int count = 1;
    if (size_t star = item.find('*'); star != std::string::npos) {
      const std::string n = item.substr(star + 1);
      if (n.empty() || n.size() > 4 || n.find_first_not_of("0123456789") != std::string::npos) return bad;
      count = std::stoi(n);
      item.resize(star);
    }
    std::vector<int> gpus;
    if (mask) {
      std::string hex = item.rfind("0x", 0) == 0 || item.rfind("0X", 0) == 0 ? item.substr(2) : item;
      if (hex.empty() || hex.size() > 16 || hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
        return bad;
      }
      const uint64_t bits = std::stoull(hex, nullptr, 16);
      for (int g = 0; g < 64; ++g) {
        if (bits >> g & 1) gpus.push_back(g);
      }
    } else if (!item.empty() && item.size() <= 2 && item.find_first_not_of("0123456789") == std::string::npos) {
      gpus.push_back(std::stoi(item));
    }
    if (gpus.empty() || count < 1 || out.size() + static_cast<size_t>(count) > 4096) return bad;
    out.insert(out.end(), static_cast<size_t>(count), gpus);
  }
  if (out.empty()) return bad;
  return out;
}

// getopt's messages as srun prints them (exit 1).
constexpr GetoptStyle kGetoptStyle{.program = "srun", .end = "\n"};

StatusOr<int> Count(const std::string& value, const char* what, int min) {
  int v = 0;
  bool ok = !value.empty() && value.size() <= 9 && value.find_first_not_of("0123456789") == std::string::npos;
  if (ok) v = std::stoi(value);
  if (!ok || v < min) return Error("srun: error: Invalid numeric value \"" + value + "\" for " + what + ".\n");
  return v;
}

// --nice[=adj]. Without a value it is 100, as in Slurm; a negative one is for admins (the controller checks).
Status ApplyNice(bool has_value, const std::string& value, SrunOptions* out) {
  if (!has_value) {
    out->nice = 100;
    return Status::Ok();
  }
  char* end = nullptr;
  errno = 0;
  const long long n = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno != 0 || n > 2147483645LL || n < -2147483645LL) {
    return Error("srun: error: Invalid --nice value: " + value + "\n");
  }
  out->nice = n;
  return Status::Ok();
}

// -N "min[-max]": inside an allocation the step takes the minimum. An empty minimum ("-3") is 1,
// as Slurm's verify_node_count reads it.
Status ApplyNodes(const std::string& value, SrunOptions* out) {
  const size_t dash = value.find('-');
  std::string min = value.substr(0, dash);
  if (min.empty() && value.starts_with("-")) min = "1";
  StatusOr<int> n = Count(min, "--nodes", 1);
  if (!n.ok()) return Error("srun: error: \"" + min + "\" is not a valid node count\n");  // (Slurm's words)
  if (dash != std::string::npos && !Count(value.substr(dash + 1), "--nodes", 1).ok()) {
    return Error("srun: error: \"" + value.substr(dash + 1) + "\" is not a valid node count\n");
  }
  out->nnodes = *n;
  return Status::Ok();
}

// A resource option: kept for a new allocation; those that also shape a step read here.
Status ApplyResource(const OptionOccurrence& occurrence, SrunOptions* out) {
  const OptionSpec& o = *occurrence.spec;
  const std::string value = occurrence.value.value_or("");
  if (std::string_view(o.name) == "cpus-per-task") {
    ASSIGN_OR_RETURN(out->cpus_per_task, Count(value, "--cpus-per-task", 1));
  } else if (std::string_view(o.name) == "exclusive") {
    out->exclusive = true;
  } else if (std::string_view(o.name) == "time") {
    StatusOr<int64_t> t = ParseTimeSpec(value);
    if (!t.ok()) return Error("srun: error: Invalid time limit specification\n");
    out->time_limit_s = std::max<int64_t>(*t, 0);
  } else if (std::string_view(o.name).rfind("mem", 0) == 0) {  // --mem, --mem-per-cpu, --mem-per-gpu
    StatusOr<int64_t> mb = ParseMemoryMb(value);
    if (!mb.ok()) return Error("srun: error: Invalid --" + std::string(o.name) + " specification\n");
    const std::string_view name = o.name;
    (name == "mem" ? out->mem_mb : name == "mem-per-cpu" ? out->mem_per_cpu_mb : out->mem_per_gpu_mb) = *mb;
  }
  out->resource_args.push_back(occurrence.CanonicalArg());
  return Status::Ok();
}

// --gpu-bind=none|closest|single:N|per_task:N|map_gpu:...|mask_gpu:...
Status ApplyGpuBind(const std::string& value, SrunOptions* out) {
  if (value == "none" || value == "closest") {
    // closest: the GPUs near the task's CPUs; without CPU binding (Muster binds none) all of
    // the step's, as Slurm without task/affinity gives.
    out->gpu_bind_per_task = 0;
  } else if (value.rfind("single:", 0) == 0) {
    const std::string n = value.substr(7);
    if (n.empty() || n.size() > 4 || n.find_first_not_of("0123456789") != std::string::npos || std::stoi(n) < 1) {
      return Error("srun: error: Invalid --gpu-bind argument: gpu:" + value + "\n");
    }
    out->gpu_bind_single = std::stoi(n);
    out->gpu_bind_per_task = 0;
  } else if (value.rfind("per_task:", 0) == 0) {
    ASSIGN_OR_RETURN(out->gpu_bind_per_task, Count(value.substr(9), "--gpu-bind=per_task", 1));
  } else if (value.rfind("map_gpu:", 0) == 0 || value.rfind("mask_gpu:", 0) == 0) {
    ASSIGN_OR_RETURN(out->gpu_bind_map, ParseGpuBindMap(value));
    out->gpu_bind_per_task = 0;
  } else {
    return Error("srun: error: Invalid --gpu-bind argument: gpu:" + value + "\n");
  }
  return Status::Ok();
}

Status Apply(const OptionOccurrence& occurrence, SrunOptions* out) {
  const OptionSpec& o = *occurrence.spec;
  const std::string value = occurrence.value.value_or("");
  const bool has_value = occurrence.value.has_value();
  if (o.use == Kind::kUnsupported) return Error("srun: error: --" + o.Canonical() + " is not supported by Muster\n");
  if (o.use == Kind::kIgnored) return Status::Ok();
  if (o.use == Kind::kJob) {
    const Status s = ApplyJobOption(out->options, occurrence);
    return s.ok() ? s : Error("srun: error: " + s.message() + "\n");
  }
  switch (static_cast<Opt>(o.id)) {
    case Opt::kNotHonoured: break;
    case Opt::kVerbose: ++out->verbose; break;
    case Opt::kChdir: out->chdir = value; break;
    case Opt::kHold: out->hold = true; break;
    case Opt::kTestOnly: out->test_only = true; break;
    case Opt::kQuitOnInterrupt: out->quit_on_interrupt = true; break;
    case Opt::kDependency: out->dependency = value; break;
    case Opt::kNice: return ApplyNice(has_value, value, out);
    case Opt::kMpi:
      if (value != "none") {
        return Error("srun: error: --mpi=" + value + " is not supported by Muster: it starts no PMI server (only --mpi=none)\n");
      }
      break;
    case Opt::kNtasks: {
      ASSIGN_OR_RETURN(out->ntasks, Count(value, "--ntasks", 1));
      break;
    }
    case Opt::kNodes: return ApplyNodes(value, out);
    case Opt::kNtasksPerNode: {
      ASSIGN_OR_RETURN(out->ntasks_per_node, Count(value, "--ntasks-per-node", 1));
      break;
    }
    case Opt::kLabel: out->label = true; break;
    case Opt::kJobName: out->job_name = value; break;
    case Opt::kKillOnBadExit: out->kill_on_bad_exit = !has_value || value != "0"; break;
    case Opt::kUnbuffered: out->unbuffered = true; break;
    case Opt::kHelp: out->help = true; break;
    case Opt::kUsage: out->usage = true; break;
    case Opt::kVersion: out->version = true; break;
    case Opt::kResource: return ApplyResource(occurrence, out);
    case Opt::kAccount: out->account = value; break;
    case Opt::kQos: out->qos = value; break;
    case Opt::kHetGroup: {
      // One component: "1". Slurm's lists and ranges ("0,1", "0-2") start one step over
      // several components, which Muster does not do.
      if (value.empty() || value.size() > 3 || value.find_first_not_of("0123456789") != std::string::npos) {
        return Error("srun: error: --het-group=" + value +
                     ": Muster runs a step in one component of a heterogeneous job; give one number, "
                     "and one srun per component\n");
      }
      out->het_group = std::stoi(value);
      break;
    }
    case Opt::kJobid: {
      // "123" or "123.4" (a step id: the job's part counts).
      const std::string id = value.substr(0, value.find('.'));
      if (id.empty() || id.size() > 18 || id.find_first_not_of("0123456789") != std::string::npos) {
        return Error("srun: error: Invalid job id " + value + "\n");
      }
      out->jobid = std::stoll(id);
      break;
    }
    case Opt::kExport: out->export_mode = value; break;
    case Opt::kMultiProg: out->multi_prog = true; break;
    case Opt::kOutput: out->output = value; break;
    case Opt::kError: out->error = value; break;
    case Opt::kInput: out->input = value; break;
    case Opt::kTaskProlog: out->task_prolog = value; break;
    case Opt::kTaskEpilog: out->task_epilog = value; break;
    case Opt::kCpuBind:
      // Tasks are not bound to CPUs here (the job's cgroup confines them): as Slurm on a cluster
      // without task/affinity, srun says so and runs them unbound.
      out->cpu_bind = value;
      break;
    case Opt::kImmediate: {
      if (!has_value) {
        out->immediate = 0;
        break;
      }
      ASSIGN_OR_RETURN(out->immediate, Count(value, "immediate", 0));  // (Slurm names it so)
      break;
    }
    case Opt::kOverlap: out->overlap = true; break;
    case Opt::kExact: out->exact = true; break;
    case Opt::kOvercommit: out->overcommit = true; break;
    case Opt::kPty:
      // Slurm: task 0 on a pseudo-terminal; implies --unbuffered.
      out->pty = true;
      out->unbuffered = true;
      break;
    case Opt::kGpuBind: return ApplyGpuBind(value, out);
    case Opt::kNoAllocate: out->no_allocate = true; break;
  }
  return Status::Ok();
}

// The step's GPUs from the GPU options among resource_args, read as sbatch reads them.
Status ParseStepGpus(SrunOptions* out) {
  std::vector<std::string> gpu_args;
  for (const std::string& a : out->resource_args) {
    for (const char* p : {"--gres=", "--gpus=", "--gpus-per-node=", "--gpus-per-task="}) {
      if (a.rfind(p, 0) == 0) gpu_args.push_back(a);
    }
  }
  if (gpu_args.empty()) return Status::Ok();
  // Inside an allocation the step's task count may come from the job (no -n): any count lets
  // --gpus-per-task through here, the controller multiplies it by the tasks on each node.
  gpu_args.push_back("--ntasks=" + std::to_string(std::max(out->ntasks, 1)));
  StatusOr<JobRequest> r = ParseJobRequest(gpu_args);
  if (!r.ok()) return Error("srun: error: " + r.status().message() + "\n");
  out->gpus.given = true;
  out->gpus.per_node = r->gpus_per_node;
  out->gpus.total = r->gpus_total;
  out->gpus.per_task = r->gpus_per_task;
  if (out->gpu_bind_per_task < 0 && r->gpus_per_task > 0) out->gpu_bind_per_task = r->gpus_per_task;
  return Status::Ok();
}

}  // namespace

namespace {

// How srun -v shows an option's value (slurm_opt.c's get functions).
std::string DefinedValue(const OptionSpec& o, const std::optional<std::string>& value, const SrunOptions& opt) {
  const std::string name = o.Canonical();
  if (name == "verbose") return std::to_string(opt.verbose);
  if (name == "exclusive") return value.value_or("exclusive");
  if (name == "kill-on-bad-exit") return value.value_or("1");
  if (name == "input" && value == "none") return "/dev/null";
  if (name == "gres" && value && value->rfind("gres:", 0) != 0 && *value != "none") return "gres:" + *value;
  if (name == "time" && value) {
    StatusOr<int64_t> t = ParseTimeSpec(*value);
    if (t.ok()) return *t == kUnlimited ? "UNLIMITED" : FormatTimeSpec(*t);
  }
  if (o.arg == Arg::kNone) return "set";
  return value.value_or("set");
}

// Slurm lists the options in its table's order: by name, but for these.
std::string DefinedOrderKey(const std::string& name) {
  if (name == "threads") return "max-threads";  // (-T, --threads: its max_threads)
  if (name == "(null)") return "alloc-nodelist";
  if (name == "jobid") return "job";
  return name;
}

}  // namespace

StatusOr<SrunOptions> ParseSrunArgs(const std::vector<std::string>& cli,
                                    const std::function<const char*(const char*)>& getenv) {
  SrunOptions out;
  std::vector<std::string> args = getenv ? SrunEnvironmentArgs(getenv) : std::vector<std::string>{};
  args.insert(args.end(), cli.begin(), cli.end());
  std::map<std::string, std::pair<const OptionSpec*, std::optional<std::string>>> given;  // by name: the last
  // Each variable is one word, one option: those after them are the command line's.
  size_t seen = 0;
  const size_t from_env = args.size() - cli.size();
  const auto apply = [&](const OptionOccurrence& o) {
    RETURN_IF_ERROR(Apply(o, &out));
    if (seen++ >= from_env && o.spec->Canonical() == "ntasks-per-node") out.ntasks_per_node_cli = true;
    given[o.spec->Canonical()] = {o.spec, o.value};
    return Status::Ok();
  };
  ASSIGN_OR_RETURN(const size_t i, Getopt(SrunOptionTable(), args, kGetoptStyle, apply));
  out.command.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  if (!out.command.empty() && out.command.front() == ":") {
    // Slurm's heterogeneous step or allocation ("srun -n1 : -n2 cmd"): ':' would otherwise run
    // as the command (the shell's no-op).
    return Error("srun: error: heterogeneous steps (':' between components) are not supported by Muster; "
                 "run one srun per component (--het-group=K inside a heterogeneous job)\n");
  }
  for (const auto& [name, o] : given) {
    if (o.first->use == Kind::kMeta) continue;
    out.defined.emplace_back(name, DefinedValue(*o.first, o.second, out));
  }
  if (getenv) {  // srun reads these too: its job (--jobid) and the allocation's nodes
    const char* job = getenv("SLURM_JOB_ID");
    if (job != nullptr && *job != '\0' && !given.count("jobid")) out.defined.emplace_back("jobid", job);
    if (const char* nodes = getenv("SLURM_JOB_NODELIST"); nodes != nullptr && *nodes != '\0') {
      out.defined.emplace_back("(null)", nodes);
    }
  }
  std::sort(out.defined.begin(), out.defined.end(),
            [](const auto& a, const auto& b) { return DefinedOrderKey(a.first) < DefinedOrderKey(b.first); });
  RETURN_IF_ERROR(ParseStepGpus(&out));
  if (out.command.empty() && !out.help && !out.usage && !out.version) {
    return Error("srun: fatal: No command given to execute.\n");
  }
  return out;
}

std::vector<std::string> SrunEnvironmentArgs(const std::function<const char*(const char*)>& getenv) {
  enum class VarKind { kValue, kFlag, kOptional };
  static constexpr struct {
    const char* var;
    const char* option;
    VarKind kind;
  } kVars[] = {
      {"SLURM_ACCOUNT", "--account", VarKind::kValue},         {"SLURM_EXACT", "--exact", VarKind::kFlag},
      {"SLURM_EXCLUSIVE", "--exclusive", VarKind::kOptional},  {"SLURM_EXPORT_ENV", "--export", VarKind::kValue},
      {"SLURM_KILL_BAD_EXIT", "--kill-on-bad-exit", VarKind::kOptional},
      {"SLURM_LABELIO", "--label", VarKind::kFlag},            {"SLURM_NNODES", "--nodes", VarKind::kValue},
      {"SLURM_NPROCS", "--ntasks", VarKind::kValue},           {"SLURM_NTASKS", "--ntasks", VarKind::kValue},
      {"SLURM_NTASKS_PER_NODE", "--ntasks-per-node", VarKind::kValue},
      {"SLURM_OVERCOMMIT", "--overcommit", VarKind::kFlag},    {"SLURM_OVERLAP", "--overlap", VarKind::kFlag},
      {"SLURM_PARTITION", "--partition", VarKind::kValue},     {"SLURM_QOS", "--qos", VarKind::kValue},
      {"SLURM_STDERRMODE", "--error", VarKind::kValue},        {"SLURM_STDINMODE", "--input", VarKind::kValue},
      {"SLURM_STDOUTMODE", "--output", VarKind::kValue},       {"SLURM_TIMELIMIT", "--time", VarKind::kValue},
      {"SLURM_UNBUFFEREDIO", "--unbuffered", VarKind::kFlag},  {"SLURM_WORKING_DIR", "--chdir", VarKind::kValue},
      {"SRUN_CPUS_PER_TASK", "--cpus-per-task", VarKind::kValue},
  };
  std::vector<std::string> args;
  for (const auto& v : kVars) {
    const char* value = getenv(v.var);
    if (value == nullptr) continue;
    const std::string text = value;
    // Slurm's srun passes over a SLURM_NNODES it cannot read (srun's -N would refuse it).
    if (std::string_view(v.var) == "SLURM_NNODES" &&
        (text.empty() || text.find_first_not_of("0123456789-") != std::string::npos)) {
      continue;
    }
    switch (v.kind) {
      case VarKind::kFlag: {
        char* end = nullptr;
        const long n = std::strtol(value, &end, 10);
        if (text.empty() || Lower(text) == "yes" || (n != 0 && *end == '\0')) args.push_back(v.option);
        break;
      }
      case VarKind::kOptional: args.push_back(text.empty() ? std::string(v.option) : v.option + ("=" + text)); break;
      case VarKind::kValue: args.push_back(v.option + ("=" + text)); break;
    }
  }
  if (const char* debug = getenv("SLURM_DEBUG"); debug != nullptr) {
    char* end = nullptr;
    const long n = std::strtol(debug, &end, 10);
    if (*end == '\0') {
      for (long k = 0; k < std::min(n, 10L); ++k) args.push_back("--verbose");
    }
  }
  return args;
}

std::string DefinedOptionsText(const SrunOptions& opt) {
  std::string out = "srun: defined options\nsrun: -------------------- --------------------\n";
  for (const auto& [name, value] : opt.defined) {
    std::string padded = name;
    if (padded.size() < 20) padded.resize(20, ' ');
    out += "srun: " + padded + ": " + value + "\n";
  }
  return out + "srun: -------------------- --------------------\nsrun: end of defined options\n";
}

OptionTable SrunOptionTable() {
  // The job-carried options past --quit-on-interrupt, where --comment always stood (--wckey goes
  // last, after --wait): the order of an "is ambiguous" message stays. They set up a new allocation
  // only.
  static const std::vector<OptionSpec> table =
      WithJobOptions(kSrunOwnOptions, "quit-on-interrupt", "a new allocation's (inside one: no effect)");
  return table;
}

std::string StepDirectory(const std::string& chdir, const std::string& cwd) {
  if (chdir.empty()) return cwd;
  if (chdir[0] == '/' || cwd.empty()) return chdir;
  return cwd + (cwd.back() == '/' ? "" : "/") + chdir;
}

bool ShapesStep(const std::string& resource_arg) {
  for (const char* p : {"--cpus-per-task=", "--exclusive=", "--mem=", "--mem-per-cpu=", "--mem-per-gpu=", "--gres=",
                        "--gpus=", "--constraint=",
                        "--gpus-per-node=", "--gpus-per-task=", "--nodelist=", "--exclude=", "--time="}) {
    if (resource_arg.rfind(p, 0) == 0) return true;
  }
  return resource_arg == "--exclusive";
}

std::string SrunUsage() {  // Slurm 22.05's, word for word
  return
      "Usage: srun [-N nnodes] [-n ntasks] [-i in] [-o out] [-e err]\n"
      "            [-c ncpus] [-r n] [-p partition] [--hold] [-t minutes]\n"
      "            [-D path] [--immediate[=secs]] [--overcommit] [--overlap] [--no-kill]\n"
      "            [--oversubscribe] [--label] [--unbuffered] [-m dist] [-J jobname]\n"
      "            [--jobid=id] [--verbose] [--slurmd_debug=#] [--gres=list]\n"
      "            [-T threads] [-W sec] [--gres-flags=opts]\n"
      "            [--licenses=names] [--clusters=cluster_names]\n"
      "            [--qos=qos] [--time-min=minutes]\n"
      "            [--contiguous] [--mincpus=n] [--mem=MB] [--tmp=MB] [-C list]\n"
      "            [--mpi=type] [--account=name] [--dependency=type:jobid[+time]]\n"
      "            [--kill-on-bad-exit] [--propagate[=rlimits] [--comment=name]\n"
      "            [--cpu-bind=...] [--mem-bind=...] [--network=type]\n"
      "            [--ntasks-per-node=n] [--ntasks-per-socket=n] [reservation=name]\n"
      "            [--ntasks-per-core=n] [--mem-per-cpu=MB] [--preserve-env]\n"
      "            [--profile=...] [--exact]\n"
      "            [--mail-type=type] [--mail-user=user] [--nice[=value]]\n"
      "            [--prolog=fname] [--epilog=fname]\n"
      "            [--task-prolog=fname] [--task-epilog=fname]\n"
      "            [--ctrl-comm-ifhn=addr] [--multi-prog] [--mcs-label=mcs]\n"
      "            [--cpu-freq=min[-max[:gov]]] [--power=flags] [--spread-job]\n"
      "            [--switches=max-switches{@max-time-to-wait}] [--reboot]\n"
      "            [--core-spec=cores] [--thread-spec=threads]\n"
      "            [--bb=burst_buffer_spec] [--bbf=burst_buffer_file]\n"
      "            [--bcast=<dest_path>] [--bcast-exclude=<NONE|path1,...,pathN>]\n"
      "            [--send-libs[=y|n]] [--compress[=library]]\n"
      "            [--acctg-freq=<datatype>=<interval>] [--delay-boot=mins]\n"
      "            [-w hosts...] [-x hosts...] [--use-min-nodes]\n"
      "            [--mpi-combine=yes|no] [--het-group=value]\n"
      "            [--cpus-per-gpu=n] [--gpus=n] [--gpu-bind=...] [--gpu-freq=...]\n"
      "            [--gpus-per-node=n] [--gpus-per-socket=n] [--gpus-per-task=n]\n"
      "            [--mem-per-gpu=MB]\n"
      "            executable [args...]\n";
}

std::string SrunHelp() {
  return "Usage: srun [OPTIONS...] executable [args...]\n"
         "\n"
         "Runs a job step inside the current allocation (a batch job, or salloc): one set of tasks\n"
         "spread over the job's nodes, their output forwarded here, srun's exit code the highest of\n"
         "theirs. Outside an allocation it first allocates one (the resource options below), runs the\n"
         "step in it and releases it.\n"
         "\n"
         "Parallel run options:\n"
         "  -J, --job-name=jobname      name of the step\n"
         "  -K, --kill-on-bad-exit      kill the step if any task exits with a non-zero code\n"
         "  -l, --label                 prepend the task number to lines of output\n"
         "  -N, --nodes=N               number of nodes on which to run (at most the job's)\n"
         "  -n, --ntasks=ntasks         number of tasks to run\n"
         "      --ntasks-per-node=n     number of tasks to invoke on each node\n"
         "  -u, --unbuffered            pass output on as it comes (default: whole lines, so that\n"
         "                              tasks' lines never mix)\n"
         "      --jobid=id              run the step in this job (default: $SLURM_JOB_ID)\n"
         "      --multi-prog            the command is a file of \"ranks program args\" lines\n"
         "  -o, --output=out            each task's stdout to this file pattern (%t %n %N %j %s %u %x),\n"
         "                              \"none\", or a task id (only that task's output comes here)\n"
         "  -e, --error=err             the same for stderr (default: as --output)\n"
         "  -i, --input=in              each task's stdin from this file pattern, \"none\", or a task\n"
         "                              id (only that task reads srun's stdin; default: every task)\n"
         "      --pty                   run task 0 on a pseudo-terminal (an interactive shell)\n"
         "      --export=ALL|NONE|list  environment the tasks get (default ALL)\n"
         "      --task-prolog=program   run before each task; its \"export NAME=value\" lines set the\n"
         "                              task's environment\n"
         "      --task-epilog=program   run after each task\n"
         "      --cpu-bind=type         accepted; tasks are not bound (the job's cgroup confines them)\n"
         "      --overlap               share the CPUs other steps of the job hold\n"
         "  -O, --overcommit            allow more tasks on a node than the job has CPUs there\n"
         "      --exact                 hold only the CPUs the tasks need (-c, --exclusive too);\n"
         "                              by default a step holds all the job's CPUs on its nodes and\n"
         "                              waits while other steps hold them\n"
         "  -I, --immediate[=secs]      a new allocation: give up unless granted within secs\n"
         "  -Z, --no-allocate           run on the -w nodes without a job (root and the cluster's\n"
         "                              own user only; nothing is held or accounted)\n"
         "  -D, --chdir=path            the tasks' working directory (default: srun's)\n"
         "      --quit-on-interrupt     one Ctrl-C signals the tasks (default: two within a second)\n"
         "      --mpi=none              no PMI server (the only type Muster has)\n"
         "      --test-only             when and where a new allocation would start; nothing runs\n"
         "  -H, --hold                  a new allocation is submitted held (srun waits for its release)\n"
         "  -d, --dependency=list       a new allocation's dependency;  --nice[=adj], --comment=text\n"
         "\n"
         "Allocation options (-c, --mem, --mem-per-cpu, --mem-per-gpu, -w, -x, -C, -t and the GPU\n"
         "options also shape a step inside an allocation; the others apply to a new allocation\n"
         "only):\n"
         "  -c, --cpus-per-task=ncpus   CPUs per task\n"
         "  -G, --gpus=n                GPUs in all; --gres=gpu:N (or none), --gpus-per-node,\n"
         "                              --gpus-per-task. A step gets all the job's GPUs unless one\n"
         "                              is given, and holds them while it runs (not with --overlap)\n"
         "      --gpu-bind=none|per_task:n  each task sees n of the step's GPUs on its node\n"
         "      --gpu-bind=map_gpu:i,j|mask_gpu:m,n  task L sees the L-th entry: the step's GPU\n"
         "                              with that index on its node, or those of the hex mask\n"
         "      --gpu-bind=single:n     n tasks share each of the step's GPUs; closest: all\n"
         "                              (no CPU binding here)\n"
         "                              (per_task is implied by --gpus-per-task)\n"
         "      --mem=MB                memory per node; --mem-per-cpu, --mem-per-gpu\n"
         "  -p, --partition=partition   partition\n"
         "  -t, --time=minutes          time limit (of the step, inside an allocation)\n"
         "  -w, --nodelist=hosts        these nodes;  -x, --exclude=hosts  not these\n"
         "  -C, --constraint=list       node features;  --exclusive  whole nodes\n"
         "  -A, --account=name          account;  -q, --qos=qos  quality of service\n"
         "\n"
         "Help options:\n"
         "  -h, --help                  show this help message\n"
         "      --usage                 display brief usage message\n"
         "\n"
         "Other options:\n"
         "  -V, --version               output version information and exit\n";
}

std::string TaskLabel(int procid, int ntasks) {
  const size_t width = std::to_string(ntasks > 1 ? ntasks - 1 : 0).size();
  std::string id = std::to_string(procid);
  if (id.size() < width) id.insert(0, width - id.size(), ' ');
  return id + ": ";
}

std::string LineLabeler::Add(const std::string& bytes) {
  partial_ += bytes;
  std::string out;
  size_t start = 0;
  for (size_t nl; (nl = partial_.find('\n', start)) != std::string::npos; start = nl + 1) {
    out += label_;
    out.append(partial_, start, nl + 1 - start);
  }
  partial_.erase(0, start);
  return out;
}

std::string LineLabeler::Finish() {
  if (partial_.empty()) return "";
  std::string out = label_ + partial_;
  partial_.clear();
  return out;
}

std::string TaskExitMessage(const std::string& node, int procid, int exit_code, int signal, bool core_dumped) {
  const std::string who = node + ": task " + std::to_string(procid) + ": ";
  if (signal > 0) {
    const char* name = strsignal(signal);
    return who + (name != nullptr ? name : "Signal " + std::to_string(signal)) + (core_dumped ? " (core dumped)" : "");
  }
  if (exit_code != 0) return who + "Exited with exit code " + std::to_string(exit_code);
  return "";
}

int TaskExitStatus(int exit_code, int signal) { return signal > 0 ? 128 + signal : exit_code; }

std::string TaskRanges(const std::vector<int>& procids) {
  return (procids.size() == 1 ? "task " : "tasks ") + FormatArrayTasks(procids);
}

}  // namespace muster
