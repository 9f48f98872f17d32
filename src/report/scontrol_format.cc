// scontrol's show blocks, after Slurm 22.05's src/api/job_info.c (slurm_sprint_job_info),
// node_info.c (slurm_sprint_node_table) and partition_info.c (slurm_sprint_partition_info), line for
// line as in the captures scontrol_show_job_running.txt, scontrol_show_job_pending.txt,
// scontrol_show_node_n1.txt and scontrol_show_partition.txt. Values Muster does not have print as
// Slurm prints them unset; slurm_format.cc lists them.
#include "report/scontrol_format.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "model/hostlist.h"
#include "model/job_array.h"
#include "model/partition_access.h"

namespace muster {
namespace {

std::string OrNull(const std::string& s) { return s.empty() ? "(null)" : s; }

}  // namespace

std::string ExpandStdPath(const std::string& pattern, const JobRecord& job) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%' || i + 1 >= pattern.size()) {
      out += pattern[i];
      continue;
    }
    const char c = pattern[i + 1];
    if (c == 'j') {
      out += std::to_string(job.id);
    } else if (c == 'A') {
      out += std::to_string(job.array_job_id != 0 ? job.array_job_id : job.id);
    } else if (c == 'a') {
      out += job.array_job_id != 0 ? std::to_string(job.array_task_id) : "4294967294";
    } else if (c == 'u') {
      out += job.user;
    } else if (c == 'x') {
      out += job.name;
    } else {
      out += pattern[i];
      continue;
    }
    ++i;
  }
  if (!out.empty() && out[0] == '/') return out;
  return job.workdir + "/" + out;
}

namespace {

std::string NodeAddress(const NodeRecord& n) {
  const std::string& a = n.agent_address;
  if (a.empty() || a.compare(0, 5, "unix:") == 0) return n.node.name;
  if (a[0] == '[') {
    const size_t close = a.find(']');
    return close == std::string::npos ? a : a.substr(1, close - 1);
  }
  const size_t colon = a.rfind(':');
  if (colon != std::string::npos && a.find(':') == colon) return a.substr(0, colon);
  return a;
}

}  // namespace

namespace {

// scontrol -d's lines for a job holding nodes: JOB_GRES, then each node's memory and GPUs with
// their indexes ("Nodes=n1 Mem=1000 GRES=gpu:2(IDX:0-1)"). Slurm's CPU_IDs are left out: the
// controller allocates CPUs by count, and each node picks which ones.
std::string DetailLines(const JobRecord& job, const std::string& eol) {
  if (job.allocation.empty()) return "";
  int64_t gpus = 0;
  for (const NodeAllocation& a : job.allocation) gpus += GpuCount(a);
  std::string o = "JOB_GRES=" + (gpus > 0 ? "gpu:" + std::to_string(gpus) : std::string("(null)")) + eol;
  for (const NodeAllocation& a : job.allocation) {
    o += "  Nodes=" + a.node + " Mem=" + std::to_string(a.memory_mb);
    const std::vector<int> indexes = GpuIndexes(a);
    if (!indexes.empty()) {  // (the indexes as a range list, "0-1,4", as array task lists are)
      o += " GRES=gpu:" + std::to_string(indexes.size()) + "(IDX:" + FormatArrayTasks(indexes) + ")";
    }
    o += eol;
  }
  return o;
}

// scontrol show job's lines, in Slurm's order: who the job is (ids, name, owner, priority).
std::string IdentityLines(const JobRecord& job, const std::string* array_tasks, const std::string& eol) {
  std::string o;
  o += "JobId=" + std::to_string(job.id);
  if (job.array_job_id != 0) {
    o += " ArrayJobId=" + std::to_string(job.array_job_id) +
         " ArrayTaskId=" + (array_tasks != nullptr ? *array_tasks : std::to_string(job.array_task_id));
    if (array_tasks != nullptr && job.array_max_running > 0) {
      o += " ArrayTaskThrottle=" + std::to_string(job.array_max_running);
    }
  }
  if (job.het_job_id != 0) {
    o += " HetJobId=" + std::to_string(job.het_job_id) + " HetJobOffset=" + std::to_string(job.het_job_offset);
  }
  o += " JobName=" + job.name + eol;
  if (job.het_job_id != 0) {
    o += "HetJobIdSet=" + std::to_string(job.het_job_id) + "-" + std::to_string(job.het_job_id + job.het_job_size - 1) + eol;
  }
  o += "UserId=" + job.user + "(" + std::to_string(job.uid) + ") GroupId=" + job.group + "(" +
       std::to_string(job.gid) + ") MCS_label=N/A" + eol;
  o += "Priority=" + std::to_string(job.priority) + " Nice=" + std::to_string(job.nice) +
       " Account=" + OrNull(job.account) + " QOS=" + (job.qos.empty() ? std::string(kDefaultQos) : job.qos) + eol;
  return o;
}

// Its state, exit and times.
std::string StateLines(const JobRecord& job, int64_t now, const int* derived_exit, const std::string& eol) {
  const bool pending = job.state == JobState::kPending;
  std::string o;
  // Slurm puts underscores for the blanks of a reason, for easier parsing.
  std::string reason = HoldsResources(job.state) ? "None" : JobReason(job);
  for (char& c : reason) {
    if (std::isspace(static_cast<unsigned char>(c))) c = '_';
  }
  o += std::string("JobState=") + JobStateName(job.state) + " Reason=" + reason +
       " Dependency=" + (job.dependency_left.empty() ? std::string("(null)") : job.dependency_left) + eol;
  o += "Requeue=" + std::to_string(job.requeue ? 1 : 0) + " Restarts=" + std::to_string(Restarts(job)) +
       " BatchFlag=" + (job.script.empty() ? "0" : "1") + " Reboot=0 ExitCode=" + std::to_string(job.exit_code) +
       ":" + std::to_string(job.exit_signal) + eol;
  if (derived_exit != nullptr) o += "DerivedExitCode=" + std::to_string(*derived_exit) + ":0" + eol;
  o += "RunTime=" + FormatTimeSpec(JobElapsed(job, now)) + " TimeLimit=" + FormatTimeSpec(job.time_limit_s) +
       " TimeMin=N/A" + eol;
  o += "SubmitTime=" + FormatSlurmTime(job.submit_time) + " EligibleTime=" + FormatSlurmTime(job.eligible_time) +
       eol;
  o += "AccrueTime=Unknown" + eol;
  o += "StartTime=" + FormatSlurmTime(pending ? 0 : job.start_time) +
       " EndTime=" + FormatSlurmTime(JobExpectedEnd(job)) + " Deadline=N/A" + eol;
  // Slurm prints this line where preemption is configured; Muster for a job that was preempted.
  if (job.preempt_time > 0) {
    o += "PreemptEligibleTime=" + FormatSlurmTime(job.preempt_time) + " PreemptTime=" +
         FormatSlurmTime(job.preempt_time) + eol;
  }
  // Slurm's SecsPreSuspend: how long the job had run when it was last suspended.
  o += "SuspendTime=" + (job.suspend_time > 0 ? FormatSlurmTime(job.suspend_time) : std::string("None")) +
       " SecsPreSuspend=" + std::to_string(job.suspend_time > 0 ? JobElapsed(job, job.suspend_time) : 0) +
       " LastSchedEval=Unknown Scheduler=Main" + eol;
  return o;
}

// Where it runs and what it holds (with scontrol -d, the detail lines).
std::string PlacementLines(const JobRecord& job, const int* derived_exit, const std::string& eol) {
  const JobRequest& r = job.request;
  const bool pending = job.state == JobState::kPending;
  std::string o;
  o += "Partition=" + job.partition + " AllocNode:Sid=" + (job.submit_host.empty() ? "(null)" : job.submit_host) + ":" +
       std::to_string(job.submit_sid) + eol;
  o += "ReqNodeList=" + OrNull(CompressHostlist(r.nodelist)) + " ExcNodeList=" + OrNull(CompressHostlist(r.exclude)) +
       eol;
  o += "NodeList=" + JobNodeList(job) + eol;
  std::string batch_host = job.batch_host;
  if (batch_host.empty() && !pending && !job.allocation.empty()) batch_host = job.allocation.front().node;
  if (!batch_host.empty()) o += "BatchHost=" + batch_host + eol;
  std::string num_nodes = std::to_string(JobNodeCount(job));
  if (job.allocation.empty() && r.max_nodes > r.min_nodes && r.min_nodes > 0) {
    num_nodes = std::to_string(r.min_nodes) + "-" + std::to_string(r.max_nodes);
  }
  const int cpus_per_task = std::max(1, r.cpus_per_task);
  o += "NumNodes=" + num_nodes + " NumCPUs=" + std::to_string(JobCpuCount(job)) + " NumTasks=" +
       std::to_string(JobTaskCount(job)) + " CPUs/Task=" + std::to_string(cpus_per_task) + " ReqB:S:C:T=0:0:*:*" +
       eol;
  o += "TRES=" + JobTres(job) + eol;
  o += "Socks/Node=* NtasksPerN:B:S:C=" + std::to_string(r.ntasks_per_node) + ":0:*:* CoreSpec=*" + eol;
  if (derived_exit != nullptr) o += DetailLines(job, eol);
  std::string min_memory = "MinMemoryNode=0";
  if (r.mem_per_cpu_mb > 0) {
    min_memory = "MinMemoryCPU=" + FormatMemoryExact(r.mem_per_cpu_mb);
  } else if (r.mem_per_node_mb > 0) {
    min_memory = "MinMemoryNode=" + FormatMemoryExact(r.mem_per_node_mb);
  }
  o += "MinCPUsNode=" + std::to_string(std::max(r.min_cpus_per_node, cpus_per_task * std::max(1, r.ntasks_per_node))) +
       " " + min_memory + " MinTmpDiskNode=" + (r.tmp_disk_mb > 0 ? FormatMemoryExact(r.tmp_disk_mb) : std::string("0")) + eol;
  o += "Features=" + OrNull(r.constraint) + " DelayBoot=00:00:00" + eol;
  o += std::string("OverSubscribe=") + (r.exclusive ? "NO" : "OK") +
       " Contiguous=0 Licenses=(null) Network=(null)" + eol;
  return o;
}

// Its command, directory and files, and its GPUs asked for per job, node or task, and shared.
std::string FileAndTresLines(const JobRecord& job, const std::set<std::string>& mps_nodes, const std::string& eol) {
  const JobRequest& r = job.request;
  std::string o;
  o += "Command=(null)" + eol;
  o += "WorkDir=" + job.workdir + eol;
  if (!job.options.comment.empty()) o += "Comment=" + job.options.comment + " " + eol;
  if (!job.script.empty()) {
    const char* default_out = job.array_job_id != 0 ? "slurm-%A_%a.out" : "slurm-%j.out";
    const std::string out = ExpandStdPath(job.stdout_pattern.empty() ? default_out : job.stdout_pattern, job);
    const std::string err = job.stderr_pattern.empty() ? out : ExpandStdPath(job.stderr_pattern, job);
    o += "StdErr=" + err + eol;
    o += "StdIn=" + (job.stdin_path.empty() ? std::string("/dev/null") : ExpandStdPath(job.stdin_path, job)) + eol;
    o += "StdOut=" + out + eol;
  }
  o += "Power=" + eol;
  if (r.cpus_per_gpu > 0) o += "CpusPerTres=gres:gpu:" + std::to_string(r.cpus_per_gpu) + eol;
  if (r.mem_per_gpu_mb > 0) o += "MemPerTres=gres:gpu:" + std::to_string(r.mem_per_gpu_mb) + eol;
  if (!JobTresPerJob(job).empty()) o += "TresPerJob=" + JobTresPerJob(job) + eol;
  if (!JobTresPerNode(job).empty()) o += "TresPerNode=" + JobTresPerNode(job) + eol;
  if (!JobTresPerTask(job).empty()) o += "TresPerTask=" + JobTresPerTask(job) + eol;
  // As slurmctld keeps it: the job's user when --mail-user was not given.
  if (job.options.mail_type != 0) {
    o += "MailUser=" + (job.options.mail_user.empty() ? job.user : job.options.mail_user) +
         " MailType=" + MailTypeText(job.options.mail_type) + eol;
  }
  for (const NodeAllocation& a : job.allocation) {
    const GpuShare* shared = SharedGpu(a);
    if (shared == nullptr) continue;
    o += "GpuShare=" + std::to_string(shared->milli) + "/1000 of GPU " + std::to_string(shared->index) + " on " + a.node +
         (mps_nodes.count(a.node) ? " (enforced by MPS)" : " (not enforced: no MPS on " + a.node + ")") + eol;
  }
  return o;
}

// `array_tasks`: the tasks a folded array record stands for ("2-7%2"), else null. `derived_exit`:
// with scontrol -d, the highest exit code of the job's steps, else null (no detail lines).
std::string FormatJob(const JobRecord& job, int64_t now, bool one_liner, const std::set<std::string>& mps_nodes,
                      const std::string* array_tasks, const int* derived_exit = nullptr) {
  const std::string eol = one_liner ? " " : "\n   ";
  std::string o = IdentityLines(job, array_tasks, eol);
  o += StateLines(job, now, derived_exit, eol);
  o += PlacementLines(job, derived_exit, eol);
  o += FileAndTresLines(job, mps_nodes, eol);
  o += one_liner ? "\n" : "\n\n";
  return o;
}

}  // namespace

std::string FormatScontrolJob(const JobRecord& job, int64_t now, bool one_liner, const std::set<std::string>& mps_nodes) {
  return FormatJob(job, now, one_liner, mps_nodes, nullptr);
}

std::string FormatScontrolJobs(const std::vector<const JobRecord*>& jobs, int64_t now, bool one_liner,
                               const std::set<std::string>& mps_nodes, bool details,
                               const std::map<int64_t, int>& derived_exit) {
  // The waiting tasks of each array, by task id: the first stands for the rest.
  std::map<int64_t, std::map<int, const JobRecord*>> waiting;
  for (const JobRecord* j : jobs) {
    if (j->array_job_id != 0 && j->state == JobState::kPending) waiting[j->array_job_id][j->array_task_id] = j;
  }
  std::map<const JobRecord*, std::string> folded_tasks;  // the record standing for its array -> its tasks
  std::set<const JobRecord*> folded;                      // the others, not shown
  for (const auto& [array, tasks] : waiting) {
    if (tasks.size() < 2) continue;
    std::vector<int> ids;
    for (const auto& [task, j] : tasks) {
      ids.push_back(task);
      if (j != tasks.begin()->second) folded.insert(j);
    }
    const JobRecord* first = tasks.begin()->second;
    folded_tasks[first] = FormatArrayTasks(ids, first->array_max_running);
  }
  std::string out;
  for (const JobRecord* j : jobs) {
    if (folded.count(j)) continue;
    auto it = folded_tasks.find(j);
    auto derived = derived_exit.find(j->id);
    const int derived_code = derived == derived_exit.end() ? 0 : derived->second;
    out += FormatJob(*j, now, one_liner, mps_nodes, it == folded_tasks.end() ? nullptr : &it->second,
                     details ? &derived_code : nullptr);
  }
  return out;
}

std::string FormatScontrolNode(const NodeRecord& record, const std::vector<Partition>& partitions,
                               const NodeActivity& usage, int64_t now, bool one_liner, int64_t slurmd_timeout_s,
                               bool details) {
  const std::string eol = one_liner ? " " : "\n   ";
  const Node& n = record.node;
  const SlurmNodeState state = NodeStateOf(record, usage, NodeResponding(record, now, slurmd_timeout_s));
  std::string o;
  o += "NodeName=" + n.name + (record.arch.empty() ? "" : " Arch=" + record.arch) +
       " CoresPerSocket=" + std::to_string(n.cores_per_socket) + " " + eol;
  char load[32] = "N/A";
  if (usage.cpu_load >= 0) std::snprintf(load, sizeof load, "%.2f", usage.cpu_load);
  o += "CPUAlloc=" + std::to_string(usage.cpus) + " CPUEfctv=" + std::to_string(n.cpus) +
       " CPUTot=" + std::to_string(n.cpus) + " CPULoad=" + load + eol;
  std::string features;
  for (const std::string& f : n.features) features += (features.empty() ? "" : ",") + f;
  o += "AvailableFeatures=" + OrNull(features) + eol;
  o += "ActiveFeatures=" + OrNull(features) + eol;
  o += "Gres=" + NodeGres(n) + eol;
  if (details) o += "GresDrain=N/A" + eol + "GresUsed=gpu:" + std::to_string(usage.gpus) + eol;
  o += "NodeAddr=" + NodeAddress(record) + " NodeHostName=" + (record.hostname.empty() ? n.name : record.hostname) +
       " Version=" + OrNull(record.version) + eol;
  if (!record.os.empty()) o += "OS=" + record.os + " " + eol;
  o += "RealMemory=" + std::to_string(n.memory_mb) + " AllocMem=" + std::to_string(usage.memory_mb) +
       " FreeMem=" + (usage.free_memory_mb < 0 ? std::string("N/A") : std::to_string(usage.free_memory_mb)) +
       " Sockets=" + std::to_string(n.sockets) + " Boards=1" + eol;
  o += "State=" + state.complete + " ThreadsPerCore=" + std::to_string(n.threads_per_core) +
       " TmpDisk=" + std::to_string(n.tmp_disk_mb) + " Weight=1 Owner=N/A MCS_label=N/A" + eol;
  std::string parts;
  for (const Partition& p : partitions) {
    if (std::find(p.nodes.begin(), p.nodes.end(), n.name) != p.nodes.end()) {
      parts += (parts.empty() ? "" : ",") + p.name;
    }
  }
  if (!parts.empty()) o += "Partitions=" + parts + " " + eol;
  o += "BootTime=" + FormatSlurmTime(record.boot_time, "None") +
       " SlurmdStartTime=" + FormatSlurmTime(record.start_time, "None") + eol;
  o += "LastBusyTime=" + FormatSlurmTime(usage.last_busy) + eol;
  int64_t gpus = static_cast<int64_t>(n.gpus.size());
  o += "CfgTRES=cpu=" + std::to_string(n.cpus) + ",mem=" + FormatMemoryRounded(n.memory_mb) +
       ",billing=" + std::to_string(n.cpus) + (gpus > 0 ? ",gres/gpu=" + std::to_string(gpus) : "") + eol;
  std::string alloc;
  if (usage.cpus > 0) alloc += "cpu=" + std::to_string(usage.cpus);
  if (usage.memory_mb > 0) alloc += std::string(alloc.empty() ? "" : ",") + "mem=" + FormatMemoryExact(usage.memory_mb);
  if (usage.gpus > 0) alloc += std::string(alloc.empty() ? "" : ",") + "gres/gpu=" + std::to_string(usage.gpus);
  o += "AllocTRES=" + alloc + eol;
  o += "CapWatts=n/a" + eol;
  o += "CurrentWatts=0 AveWatts=0" + eol;
  o += "ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s";
  if (!n.reason.empty()) o += eol + "Reason=" + n.reason;
  o += one_liner ? "\n" : "\n\n";
  return o;
}

namespace {

// Slurm's second line (partition_info.c): AllowGroups, then AllowAccounts (DenyAccounts when only
// that is set), then AllowQos (DenyQos likewise).
std::string AccessLine(const PartitionAccess& a) {
  auto allow_or_deny = [](const char* kind, const std::vector<std::string>& allow, const std::vector<std::string>& deny) {
    if (!allow.empty() || deny.empty()) return std::string(" Allow") + kind + "=" + FormatAccessList(allow);
    return std::string(" Deny") + kind + "=" + FormatAccessList(deny);
  };
  return "AllowGroups=" + FormatAccessList(a.allow_groups) + allow_or_deny("Accounts", a.allow_accounts, a.deny_accounts) +
         allow_or_deny("Qos", a.allow_qos, a.deny_qos);
}

}  // namespace

std::string FormatScontrolPartition(const Partition& p, const std::vector<NodeRecord>& nodes, bool one_liner) {
  const std::string eol = one_liner ? " " : "\n   ";
  int64_t cpus = 0, mem = 0, gpus = 0;
  for (const NodeRecord& r : nodes) {
    if (std::find(p.nodes.begin(), p.nodes.end(), r.node.name) == p.nodes.end()) continue;
    cpus += r.node.cpus;
    mem += r.node.memory_mb;
    gpus += static_cast<int64_t>(r.node.gpus.size());
  }
  const std::string total_nodes = std::to_string(p.nodes.size());
  std::string o;
  o += "PartitionName=" + p.name + eol;
  o += AccessLine(p.access) + eol;
  o += std::string("AllocNodes=ALL Default=") + (p.is_default ? "YES" : "NO") + " QoS=N/A" + eol;
  o += "DefaultTime=" + (p.default_time_s == kUnlimited ? std::string("NONE") : FormatTimeSpec(p.default_time_s)) +
       " DisableRootJobs=NO ExclusiveUser=NO GraceTime=" +
       std::to_string(p.grace_time_s == kUnlimited ? 0 : p.grace_time_s) + " Hidden=NO" + eol;
  o += "MaxNodes=" + (p.max_nodes == kUnlimited ? std::string("UNLIMITED") : std::to_string(p.max_nodes)) +
       " MaxTime=" + FormatTimeSpec(p.max_time_s) + " MinNodes=" + std::to_string(p.min_nodes) +
       " LLN=NO MaxCPUsPerNode=UNLIMITED" + eol;
  o += "Nodes=" + OrNull(CompressHostlist(p.nodes)) + eol;
  o += "PriorityJobFactor=1 PriorityTier=" + std::to_string(p.priority_tier) +
       " RootOnly=NO ReqResv=NO OverSubscribe=NO" + eol;
  o += std::string("OverTimeLimit=NONE PreemptMode=") + (p.has_preempt_mode ? PreemptModeName(p.preempt_mode) : "OFF") +
       eol;
  o += std::string("State=") + (p.up ? "UP" : "DOWN") + " TotalCPUs=" + std::to_string(cpus) +
       " TotalNodes=" + total_nodes + " SelectTypeParameters=NONE" + eol;
  o += "JobDefaults=(null)" + eol;
  o += (p.def_mem_per_cpu_mb > 0 && !p.def_mem_from_cluster ? "DefMemPerCPU=" + std::to_string(p.def_mem_per_cpu_mb)
                                 : std::string("DefMemPerNode=UNLIMITED")) +
       " MaxMemPerNode=UNLIMITED" + eol;
  o += "TRES=cpu=" + std::to_string(cpus) + ",mem=" + FormatMemoryRounded(mem) + ",node=" + total_nodes +
       ",billing=" + std::to_string(cpus) + (gpus > 0 ? ",gres/gpu=" + std::to_string(gpus) : "");
  o += one_liner ? "\n" : "\n\n";
  return o;
}

std::string FormatScontrolConfig(const std::vector<std::pair<std::string, std::string>>& config, int64_t now) {
  std::string out = "Configuration data as of " + FormatSlurmTime(now) + "\n";
  for (const auto& [k, v] : config) out += k + std::string(k.size() < 24 ? 24 - k.size() : 1, ' ') + "= " + v + "\n";
  return out;
}

}  // namespace muster
