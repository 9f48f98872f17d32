// Shared pieces of the Slurm-compatible output (see slurm_format.h), checked against Slurm 22.05.8's
// captures in shared/peers/slurm/captures/ and its source (squeue/print.c, sinfo/print.c,
// api/job_info.c, node_info.c, partition_info.c, common/slurm_protocol_defs.c).
//
// Slurm fields with no Muster equivalent yet, and what is printed for them (Slurm's unset value,
// never an invented one), across squeue_format.cc, sinfo_format.cc and scontrol_format.cc:
//   squeue:   %o COMMAND "(null)" (the script path is not kept); %k COMMENT "(null)";
//             %q QOS ("normal" when the job names none);
//             %E DEPENDENCY "(null)"; %v RESERVATION "(null)"; %y NICE "0"; %d MIN_TMP_DISK "0".
//   sinfo:    TMP_DISK 0, WEIGHT 1, ROOT "no", OVERSUBSCRIBE "NO", GROUPS "all" (Slurm's defaults);
//             CPU_LOAD / FREE_MEM "N/A" unless the caller's NodeActivity has them.
//   scontrol show job: MCS_label=N/A, Nice=0, QOS=normal, Dependency=(null), Reboot=0,
//             TimeMin=N/A, AccrueTime=Unknown, Deadline=N/A, SuspendTime=None, SecsPreSuspend=0,
//             LastSchedEval=Unknown, Scheduler=Main, AllocNode:Sid=(null):0, ReqB:S:C:T=0:0:*:*,
//             Socks/Node=*, NtasksPerN:B:S:C=<n>:0:*:*, CoreSpec=*, MinTmpDiskNode=0,
//             DelayBoot=00:00:00, Contiguous=0, Licenses=(null), Network=(null), Command=(null),
//             Power= .
//   scontrol show node: Arch and OS lines omitted (Slurm omits them when unknown), CPULoad=N/A,
//             FreeMem=N/A (unless reported), TmpDisk=0, Weight=1, Owner=N/A, MCS_label=N/A,
//             Boards=1, SlurmdStartTime=None, LastBusyTime=Unknown (unless given), CapWatts=n/a,
//             CurrentWatts=0 AveWatts=0, ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s,
//             Version=(null) when the agent did not report one; no "[user@time]" after Reason=.
//   scontrol show partition: AllocNodes=ALL (the Allow/Deny lists are the partition's), QoS=N/A,
//             DisableRootJobs=NO, ExclusiveUser=NO, GraceTime=0, Hidden=NO, LLN=NO,
//             MaxCPUsPerNode=UNLIMITED, PriorityJobFactor=1, RootOnly=NO, ReqResv=NO,
//             OverSubscribe=NO, OverTimeLimit=NONE, PreemptMode=OFF, SelectTypeParameters=NONE,
//             JobDefaults=(null), MaxMemPerNode=UNLIMITED.
#include "report/slurm_format.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <utility>

#include "model/hostlist.h"

namespace muster {

std::string PrintField(std::string_view value, int width, bool right) {
  if (width <= 0) return std::string(value);
  std::string s(value.substr(0, static_cast<size_t>(width)));
  const std::string pad(static_cast<size_t>(width) - s.size(), ' ');
  return right ? pad + s : s + pad;
}

std::string FormatElapsed(int64_t seconds) {
  if (seconds < 0 || seconds > int64_t{365} * 24 * 3600) return "INVALID";
  const long long s = seconds % 60, m = seconds / 60 % 60, h = seconds / 3600 % 24, d = seconds / 86400;
  char buf[64];
  if (d > 0) {
    std::snprintf(buf, sizeof buf, "%lld-%02lld:%02lld:%02lld", d, h, m, s);
  } else if (h > 0) {
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", h, m, s);
  } else {
    std::snprintf(buf, sizeof buf, "%lld:%02lld", m, s);
  }
  return buf;
}

namespace {

bool LocalTime(int64_t t, std::tm* tm) {
  const std::time_t tt = static_cast<std::time_t>(t);
  return localtime_r(&tt, tm) != nullptr;
}

// Slurm's convert_num_unit2 for a size in MiB.
std::string ConvertMb(int64_t mb, bool exact) {
  if (mb == 0) return "0";
  static constexpr char kUnits[] = "MGTP";
  double num = static_cast<double>(mb);
  int unit = 0;
  if (exact) {
    // "convert until we would lose precision; half values (2.5G) are still precise"
    while (num >= 1024 && unit < 3 && static_cast<int64_t>(num) % 512 == 0) {
      num /= 1024;
      ++unit;
    }
  } else {
    while (num >= 1024 && unit < 3) {
      num /= 1024;
      ++unit;
    }
  }
  char buf[64];
  const auto whole = static_cast<long long>(num);
  if (static_cast<double>(whole) == num) {
    std::snprintf(buf, sizeof buf, "%lld%c", whole, kUnits[unit]);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f%c", num, kUnits[unit]);
  }
  return buf;
}

}  // namespace

std::string FormatSlurmTime(int64_t t, const char* unset) {
  std::tm tm{};
  if (t == 0 || !LocalTime(t, &tm)) return unset;
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return buf;
}

std::string FormatDateLine(int64_t now) {
  std::tm tm{};
  if (!LocalTime(now, &tm)) return "";
  char buf[64];
  std::strftime(buf, sizeof buf, "%a %b %e %H:%M:%S %Y", &tm);
  return buf;
}

StatusOr<std::vector<FormatField>> ParseFormat(std::string_view format, const char* what) {
  // strtok(format, "%"): empty pieces vanish; the piece before the first '%' is dropped.
  std::vector<std::string_view> tokens;
  size_t pos = 0;
  while (pos <= format.size()) {
    size_t next = format.find('%', pos);
    if (next == std::string_view::npos) next = format.size();
    if (next > pos) tokens.push_back(format.substr(pos, next - pos));
    pos = next + 1;
  }
  if (!tokens.empty() && !format.empty() && format[0] != '%') tokens.erase(tokens.begin());
  std::vector<FormatField> fields;
  int64_t width = 0;
  for (std::string_view t : tokens) {
    FormatField f;
    size_t i = 0;
    if (i < t.size() && t[i] == '.') {
      f.right = true;
      ++i;
    } else if (i < t.size() && t[i] == '-') {
      ++i;
    }
    if (i < t.size() && t[i] == '#') {
      f.computed = true;
      ++i;
    }
    while (i < t.size() && t[i] >= '0' && t[i] <= '9' && f.width < 100000) f.width = f.width * 10 + (t[i++] - '0');
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;  // absurd widths stop growing
    if (i >= t.size()) {
      return InvalidArgument(std::string("Invalid ") + what + " format specification: %" + std::string(t));
    }
    f.type = t[i++];
    f.suffix = std::string(t.substr(i));
    width += f.width + static_cast<int64_t>(f.suffix.size());
    fields.push_back(std::move(f));
    // Every row is rendered as wide as the fields ask: a format a thousand times wider than any
    // real one would make a table of gigabytes (and hold the controller while it is rendered).
    if (fields.size() > kMaxFormatFields || width > kMaxFormatWidth) {
      return InvalidArgument(std::string("Invalid ") + what + " format specification: more than " +
                             std::to_string(kMaxFormatFields) + " fields or " + std::to_string(kMaxFormatWidth) +
                             " columns");
    }
  }
  return fields;
}

std::string FormatMemoryExact(int64_t mb) { return ConvertMb(mb, true); }
std::string FormatMemoryRounded(int64_t mb) { return ConvertMb(mb, false); }

// ---- Nodes ----

NodeActivityMap UsageFromJobs(const std::vector<JobRecord>& jobs) {
  std::map<std::string, NodeAllocated> by_node;
  for (const JobRecord& j : jobs) SumAllocation(j, by_node);
  return UsageFromAllocated(by_node);
}

NodeActivityMap UsageFromAllocated(const std::map<std::string, NodeAllocated>& by_node) {
  NodeActivityMap usage;
  for (const auto& [node, a] : by_node) {
    NodeActivity& u = usage[node];
    u.cpus = a.cpus;
    u.gpus = a.gpus;
    u.memory_mb = a.memory_mb;
  }
  return usage;
}

bool NodeResponding(const NodeRecord& node, int64_t now, int64_t timeout_s) {
  return node.last_heartbeat > 0 && now - node.last_heartbeat <= timeout_s;
}

SlurmNodeState NodeStateOf(const NodeRecord& record, const NodeActivity& usage, bool responding) {
  const Node& n = record.node;
  // Slurm's numbers: UNKNOWN 0, DOWN 1, IDLE 2, ALLOCATED 3, MIXED 5, FUTURE 6; DRAIN 0x200,
  // COMPLETING 0x400, NO_RESPOND 0x800.
  std::string compact, long_name, complete;
  int rank = 0;
  switch (n.state) {
    case NodeState::kDown: compact = long_name = "down"; complete = "DOWN"; rank = 1; break;
    case NodeState::kFuture: compact = "futr"; long_name = "future"; complete = "FUTURE"; rank = 6; break;
    case NodeState::kUnknown: compact = "unk"; long_name = "unknown"; complete = "UNKNOWN"; rank = 0; break;
    default:
      if (usage.cpus <= 0 && usage.gpus <= 0 && usage.memory_mb <= 0) {
        compact = long_name = "idle"; complete = "IDLE"; rank = 2;
      } else if (usage.cpus >= n.cpus) {
        compact = "alloc"; long_name = "allocated"; complete = "ALLOCATED"; rank = 3;
      } else {
        compact = "mix"; long_name = "mixed"; complete = "MIXED"; rank = 5;
      }
      break;
  }
  const bool completing = n.state == NodeState::kCompleting;
  const bool busy = rank == 3 || rank == 5;
  if (n.drain) {
    if (busy || completing) {
      compact = "drng";
      long_name = "draining";
    } else {
      compact = "drain";
      long_name = "drained";
    }
    complete += "+DRAIN";
    rank |= 0x200;
  } else if (completing) {
    compact = "comp";
    long_name = "completing";
  }
  if (completing) {
    complete += "+COMPLETING";
    rank |= 0x400;
  }
  if (!responding) {
    compact += "*";
    long_name += "*";
    complete += "+NOT_RESPONDING";
    rank |= 0x800;
  }
  return {compact, long_name, complete, rank};
}

std::string NodeGres(const Node& node) {
  std::vector<std::pair<std::string, int>> types;  // in order of first appearance
  for (const Gpu& g : node.gpus) {
    auto it = std::find_if(types.begin(), types.end(), [&](const auto& t) { return t.first == g.type(); });
    if (it == types.end()) {
      types.emplace_back(g.type(), 1);
    } else {
      ++it->second;
    }
  }
  if (types.empty()) return "(null)";
  std::string out;
  for (const auto& [type, count] : types) {
    if (!out.empty()) out += ",";
    out += "gpu:" + (type.empty() ? "" : type + ":") + std::to_string(count);
  }
  return out;
}

// ---- Jobs ----

int64_t JobElapsed(const JobRecord& job, int64_t now) {
  if (job.start_time <= 0 || job.state == JobState::kPending) return 0;
  const bool runs = job.state == JobState::kRunning || job.state == JobState::kSuspended;
  const int64_t until = !runs && job.end_time > 0 ? job.end_time : now;
  return std::max<int64_t>(0, until - job.start_time - SuspendedSeconds(job, until));
}

int64_t JobExpectedEnd(const JobRecord& job) {
  if (job.start_time <= 0 || job.state == JobState::kPending) return 0;
  const bool runs = job.state == JobState::kRunning || job.state == JobState::kSuspended;
  if (!runs && job.end_time > 0) return job.end_time;  // ended (or completing)
  if (job.time_limit_s == kUnlimited) return job.start_time + int64_t{365} * 24 * 3600;
  return job.start_time + job.time_limit_s + job.suspended_s;  // (a suspended job's end moves on)
}

int JobNodeCount(const JobRecord& job) {
  if (!job.allocation.empty()) return static_cast<int>(job.allocation.size());
  return std::max(1, job.request.min_nodes);
}

int JobTaskCount(const JobRecord& job) {
  const JobRequest& r = job.request;
  if (r.ntasks > 0) return r.ntasks;
  if (r.ntasks_per_node > 0) return r.ntasks_per_node * std::max(1, r.min_nodes);
  return 1;
}

int64_t JobGpuCount(const JobRecord& job) {
  if (!job.allocation.empty()) {
    int64_t n = 0;
    for (const NodeAllocation& a : job.allocation) n += static_cast<int64_t>(WholeGpus(a).size());  // a shared GPU is not counted
    return n;
  }
  const JobRequest& r = job.request;
  if (r.gpus_total > 0) return r.gpus_total;
  if (r.gpus_per_node > 0) return int64_t{r.gpus_per_node} * JobNodeCount(job);
  if (r.gpus_per_task > 0) return int64_t{r.gpus_per_task} * JobTaskCount(job);
  return 0;
}

int64_t JobCpuCount(const JobRecord& job) {
  if (!job.allocation.empty()) {
    int64_t n = 0;
    for (const NodeAllocation& a : job.allocation) n += CpusOf(a);
    return n;
  }
  const JobRequest& r = job.request;
  int64_t cpus = int64_t{JobTaskCount(job)} * std::max(1, r.cpus_per_task);
  if (r.cpus_per_gpu > 0) cpus = std::max(cpus, int64_t{r.cpus_per_gpu} * JobGpuCount(job));
  return std::max<int64_t>(1, cpus);
}

int64_t JobMemoryMb(const JobRecord& job) {
  if (!job.allocation.empty()) {
    int64_t mb = 0;
    for (const NodeAllocation& a : job.allocation) mb += a.memory_mb;
    return mb;
  }
  const JobRequest& r = job.request;
  if (r.mem_per_node_mb > 0) return r.mem_per_node_mb * JobNodeCount(job);
  if (r.mem_per_cpu_mb > 0) return r.mem_per_cpu_mb * JobCpuCount(job);
  if (r.mem_per_gpu_mb > 0) return r.mem_per_gpu_mb * JobGpuCount(job);
  return 0;
}

std::string JobNodeList(const JobRecord& job) {
  if (job.state == JobState::kPending) return "";
  std::vector<std::string> names;
  for (const NodeAllocation& a : job.allocation) names.push_back(a.node);
  return CompressHostlist(names);
}

std::string JobReason(const JobRecord& job) {
  std::string reason = job.reason.empty() ? "None" : job.reason;
  if (!job.reason_detail.empty()) reason += ", " + job.reason_detail;
  return reason;
}

namespace {
std::string GresGpu(const std::string& type, int count) {
  return "gres:gpu:" + (type.empty() ? "" : type + ":") + std::to_string(count);
}
}  // namespace

std::string JobTresPerNode(const JobRecord& job) {
  const JobRequest& r = job.request;
  return r.gpus_per_node > 0 ? GresGpu(r.gpu_type, r.gpus_per_node) : "";
}
std::string JobTresPerJob(const JobRecord& job) {
  const JobRequest& r = job.request;
  return r.gpus_total > 0 ? GresGpu(r.gpu_type, r.gpus_total) : "";
}
std::string JobTresPerTask(const JobRecord& job) {
  const JobRequest& r = job.request;
  return r.gpus_per_task > 0 ? GresGpu(r.gpu_type, r.gpus_per_task) : "";
}

std::string JobTres(const JobRecord& job) {
  const int64_t cpus = JobCpuCount(job);
  std::string s = "cpu=" + std::to_string(cpus);
  const int64_t mem = JobMemoryMb(job);
  if (mem > 0) s += ",mem=" + FormatMemoryExact(mem);
  s += ",node=" + std::to_string(JobNodeCount(job));
  s += ",billing=" + std::to_string(cpus);
  const int64_t gpus = JobGpuCount(job);
  if (gpus > 0) s += ",gres/gpu=" + std::to_string(gpus);
  return s;
}

// ---- Errors ----

SlurmOutput InvalidJobIdError() { return {1, "", "slurm_load_jobs error: Invalid job id specified\n"}; }

SlurmOutput NodeNotFoundError(const std::string& name) { return {1, "", "Node " + name + " not found\n"}; }

SlurmOutput PartitionNotFoundError(const std::string& name) {
  return {1, "", "Partition " + name + " not found\n"};
}

SlurmOutput ScancelInvalidJob(int64_t job_id, bool verbose) {
  if (!verbose) return {0, "", ""};
  return {0, "", "scancel: error: Kill job error on job id " + std::to_string(job_id) +
                     ": Invalid job id specified\n"};
}

}  // namespace muster
