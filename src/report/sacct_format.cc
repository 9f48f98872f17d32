#include "report/sacct_format.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>

#include <boost/json.hpp>

#include "base/strings.h"
#include "model/hostlist.h"
#include "report/slurm_format.h"

namespace muster {
namespace {

namespace bj = boost::json;

// One output row: a job, its batch script, or one of its srun steps.
struct Row {
  const JobRecord* job = nullptr;
  const StepRecord* step = nullptr;  // srun step
  bool batch = false;                // the batch step
  bool is_job() const { return step == nullptr && !batch; }
};

struct Ctx {
  int64_t now = 0;
  const std::string* cluster = nullptr;
};

// Slurm 22.05 sacct's fields: name, default width (negative: left-justified).
struct FieldSpec {
  const char* name;
  int width;
};
constexpr FieldSpec kFields[] = {
    {"Account", 10}, {"AdminComment", 15}, {"AllocCPUS", 10}, {"AllocNodes", 10}, {"AllocTRES", 10},
    {"AssocID", 7}, {"AveCPU", 10}, {"AveCPUFreq", 10}, {"AveDiskRead", 14}, {"AveDiskWrite", 14},
    {"AvePages", 10}, {"AveRSS", 10}, {"AveVMSize", 10}, {"BlockID", 16}, {"Cluster", 10}, {"Comment", 14},
    {"Constraints", 19}, {"ConsumedEnergy", 14}, {"ConsumedEnergyRaw", 17}, {"Container", 19}, {"CPUTime", 10},
    {"CPUTimeRAW", 10}, {"DBIndex", -21}, {"DerivedExitCode", 15}, {"Elapsed", 10}, {"ElapsedRaw", 10},
    {"Eligible", 19}, {"End", 19}, {"ExitCode", 8}, {"Flags", 19}, {"GID", 6}, {"Group", 9}, {"JobID", -12},
    {"JobIDRaw", -12}, {"JobName", 10}, {"Layout", 9}, {"MaxDiskRead", 12}, {"MaxDiskReadNode", 15},
    {"MaxDiskReadTask", 15}, {"MaxDiskWrite", 12}, {"MaxDiskWriteNode", 16}, {"MaxDiskWriteTask", 16},
    {"MaxPages", 8}, {"MaxPagesNode", 12}, {"MaxPagesTask", 14}, {"MaxRSS", 10}, {"MaxRSSNode", 10},
    {"MaxRSSTask", 10}, {"MaxVMSize", 10}, {"MaxVMSizeNode", 14}, {"MaxVMSizeTask", 14}, {"McsLabel", 12},
    {"MinCPU", 10}, {"MinCPUNode", 10}, {"MinCPUTask", 10}, {"NCPUS", 10}, {"NNodes", 8}, {"NodeList", 15},
    {"NTasks", 8}, {"Partition", 10}, {"Priority", 10}, {"QOS", 10}, {"QOSRAW", 6}, {"Reason", 22},
    {"ReqCPUFreq", 10}, {"ReqCPUFreqGov", 13}, {"ReqCPUFreqMax", 13}, {"ReqCPUFreqMin", 13}, {"ReqCPUS", 8},
    {"ReqMem", 10}, {"ReqNodes", 8}, {"ReqTRES", 10}, {"Reservation", 20}, {"ReservationId", 8},
    {"Reserved", 10}, {"ResvCPU", 10}, {"ResvCPURAW", 10}, {"Start", 19}, {"State", 10}, {"Submit", 19},
    {"SubmitLine", 20}, {"Suspended", 10}, {"SystemComment", 15}, {"SystemCPU", 10}, {"Timelimit", 10},
    {"TimelimitRaw", 10}, {"TotalCPU", 10}, {"TRESUsageInAve", 14}, {"TRESUsageInMax", 14},
    {"TRESUsageInMaxNode", 18}, {"TRESUsageInMaxTask", 18}, {"TRESUsageInMin", 14}, {"TRESUsageInMinNode", 18},
    {"TRESUsageInMinTask", 18}, {"TRESUsageInTot", 14}, {"TRESUsageOutAve", 15}, {"TRESUsageOutMax", 15},
    {"TRESUsageOutMaxNode", 19}, {"TRESUsageOutMaxTask", 19}, {"TRESUsageOutMin", 15},
    {"TRESUsageOutMinNode", 19}, {"TRESUsageOutMinTask", 19}, {"TRESUsageOutTot", 15}, {"UID", 6},
    {"User", 9}, {"UserCPU", 10}, {"WCKey", 10}, {"WCKeyID", 10}, {"WorkDir", 20},
};

SacctField FieldOf(const FieldSpec& f) { return {f.name, f.width < 0 ? -f.width : f.width, f.width > 0}; }

std::vector<SacctField> Named(std::initializer_list<const char*> names) {
  std::vector<SacctField> out;
  for (const char* n : names) out.push_back(*ParseSacctFields(n)->begin());
  return out;
}

// "billing=4,cpu=4,gres/gpu=8,mem=2000M,node=1": Slurm's TRES strings, names in alphabetical order.
std::string Tres(int64_t cpus, int64_t mem_mb, int64_t nodes, int64_t gpus, bool billing) {
  std::string s;
  if (billing) s += "billing=" + std::to_string(cpus) + ",";
  s += "cpu=" + std::to_string(cpus);
  if (gpus > 0) s += ",gres/gpu=" + std::to_string(gpus);
  if (mem_mb > 0) s += ",mem=" + FormatMemoryExact(mem_mb);
  s += ",node=" + std::to_string(nodes);
  return s;
}

const NodeAllocation* BatchAllocation(const JobRecord& j) {
  for (const NodeAllocation& a : j.allocation) {
    if (a.node == j.batch_host) return &a;
  }
  return j.allocation.empty() ? nullptr : &j.allocation.front();
}

int64_t RowCpus(const Row& r) {
  if (r.batch) {
    const NodeAllocation* a = BatchAllocation(*r.job);
    return a ? CpusOf(*a) : 0;
  }
  if (r.step && !r.step->node_cpus.empty()) {  // the CPUs it held (Slurm 22.05: all the job's by default)
    int64_t cpus = 0;
    for (int c : r.step->node_cpus) cpus += c;
    return cpus;
  }
  if (r.step) return static_cast<int64_t>(r.step->ntasks) * std::max(1, r.job->request.cpus_per_task);
  return JobCpuCount(*r.job);
}

int64_t RowElapsed(const Row& r, int64_t now) {
  if (r.step) {
    if (r.step->start_time == 0) return 0;
    return std::max<int64_t>(0, (r.step->end_time > 0 ? r.step->end_time : now) - r.step->start_time);
  }
  return JobElapsed(*r.job, now);
}

std::string ExitCode(int code, int signal) { return std::to_string(code) + ":" + std::to_string(signal); }

std::string Date(int64_t t) { return FormatSlurmTime(t, "Unknown"); }

std::string RowState(const Row& r) {
  if (r.step) return JobStateName(r.step->state);
  const JobRecord& j = *r.job;
  std::string s = JobStateName(j.state);
  if (r.is_job() && j.state == JobState::kCancelled && j.cancelled_by >= 0) s += " by " + std::to_string(j.cancelled_by);
  return s;
}

int DerivedExit(const JobRecord& j, const std::vector<StepRecord>& steps) {
  int code = 0;
  for (const StepRecord& s : steps) {
    if (s.job_id == j.id) code = std::max(code, s.exit_code);
  }
  return code;
}

using Getter = std::function<std::string(const Row&, const Ctx&)>;

std::string JobOnly(const Row& r, const std::string& v) { return r.is_job() ? v : ""; }

const std::map<std::string, Getter>& Getters() {
  static const auto* m = new std::map<std::string, Getter>{
      {"jobid", [](const Row& r, const Ctx&) {
         // An array task shows as <array id>_<task id>, a heterogeneous job's component as
         // <job id>+<offset> (JobIDRaw keeps its own job id).
         std::string id = r.job->het_job_id != 0
                              ? std::to_string(r.job->het_job_id) + "+" + std::to_string(r.job->het_job_offset)
                          : r.job->array_job_id != 0
                              ? std::to_string(r.job->array_job_id) + "_" + std::to_string(r.job->array_task_id)
                              : std::to_string(r.job->id);
         if (r.batch) return id + ".batch";
         if (r.step) return id + "." + std::to_string(r.step->step_id);
         return id;
       }},
      {"jobidraw", [](const Row& r, const Ctx&) {
         std::string id = std::to_string(r.job->id);
         if (r.batch) return id + ".batch";
         if (r.step) return id + "." + std::to_string(r.step->step_id);
         return id;
       }},
      {"jobname", [](const Row& r, const Ctx&) {
         return r.batch ? std::string("batch") : r.step ? r.step->name : r.job->name;
       }},
      {"partition", [](const Row& r, const Ctx&) { return JobOnly(r, r.job->partition); }},
      {"account", [](const Row& r, const Ctx&) { return r.job->account; }},
      {"alloccpus", [](const Row& r, const Ctx&) { return std::to_string(RowCpus(r)); }},
      {"allocnodes", [](const Row& r, const Ctx&) {
         if (r.batch) return std::string("1");
         if (r.step) return std::to_string(r.step->nodes.size());
         return std::to_string(r.job->allocation.size());
       }},
      {"alloctres", [](const Row& r, const Ctx&) -> std::string {
         const JobRecord& j = *r.job;
         if (j.allocation.empty()) return "";
         if (r.batch) {
           const NodeAllocation* a = BatchAllocation(j);
           return Tres(RowCpus(r), a->memory_mb, 1, GpuCount(*a), false);
         }
         if (r.step) {
           int64_t mem = 0, gpus = 0;
           for (int64_t m : r.step->node_mem_mb) mem += m;
           for (const std::vector<int>& g : r.step->node_gpus) gpus += static_cast<int64_t>(g.size());
           return Tres(RowCpus(r), mem, static_cast<int64_t>(r.step->nodes.size()), gpus, false);
         }
         return Tres(JobCpuCount(j), JobMemoryMb(j), JobNodeCount(j), JobGpuCount(j), true);
       }},
      {"reqtres", [](const Row& r, const Ctx&) {
         const JobRecord& j = *r.job;
         return JobOnly(r, Tres(JobCpuCount(j), JobMemoryMb(j), JobNodeCount(j), JobGpuCount(j), true));
       }},
      {"reqmem", [](const Row& r, const Ctx&) {
         const int64_t mb = JobMemoryMb(*r.job);
         return JobOnly(r, mb > 0 ? FormatMemoryExact(mb) : "0");
       }},
      {"reqcpus", [](const Row& r, const Ctx&) { return JobOnly(r, std::to_string(JobCpuCount(*r.job))); }},
      {"reqnodes", [](const Row& r, const Ctx&) { return JobOnly(r, std::to_string(JobNodeCount(*r.job))); }},
      {"nnodes", [](const Row& r, const Ctx&) {
         if (r.batch) return std::string("1");
         if (r.step) return std::to_string(r.step->nodes.size());
         return std::to_string(JobNodeCount(*r.job));
       }},
      {"nodelist", [](const Row& r, const Ctx&) -> std::string {
         if (r.batch) return r.job->batch_host;
         if (r.step) return CompressHostlist(r.step->nodes);
         return r.job->allocation.empty() ? "None assigned" : JobNodeList(*r.job);
       }},
      {"ntasks", [](const Row& r, const Ctx&) -> std::string {
         if (r.batch) return "1";
         if (r.step) return std::to_string(r.step->ntasks);
         return "";
       }},
      {"state", [](const Row& r, const Ctx&) { return RowState(r); }},
      {"exitcode", [](const Row& r, const Ctx&) {
         return r.step ? ExitCode(r.step->exit_code, 0) : ExitCode(r.job->exit_code, r.job->exit_signal);
       }},
      {"elapsed", [](const Row& r, const Ctx& c) { return SacctElapsed(RowElapsed(r, c.now)); }},
      {"elapsedraw", [](const Row& r, const Ctx& c) { return std::to_string(RowElapsed(r, c.now)); }},
      {"cputime", [](const Row& r, const Ctx& c) { return SacctElapsed(RowElapsed(r, c.now) * RowCpus(r)); }},
      {"cputimeraw", [](const Row& r, const Ctx& c) { return std::to_string(RowElapsed(r, c.now) * RowCpus(r)); }},
      {"submit", [](const Row& r, const Ctx&) {
         if (r.step) return Date(r.step->start_time);
         return Date(r.batch ? r.job->start_time : r.job->submit_time);
       }},
      {"eligible", [](const Row& r, const Ctx&) {
         if (r.step) return Date(r.step->start_time);
         return Date(r.batch ? r.job->start_time : r.job->eligible_time);
       }},
      {"start", [](const Row& r, const Ctx&) { return Date(r.step ? r.step->start_time : r.job->start_time); }},
      {"end", [](const Row& r, const Ctx&) { return Date(r.step ? r.step->end_time : r.job->end_time); }},
      {"timelimit", [](const Row& r, const Ctx&) { return JobOnly(r, FormatTimeSpec(r.job->time_limit_s)); }},
      {"timelimitraw", [](const Row& r, const Ctx&) {
         const int64_t t = r.job->time_limit_s;
         return JobOnly(r, t == kUnlimited ? "UNLIMITED" : std::to_string(t / 60));
       }},
      {"suspended", [](const Row& r, const Ctx& c) { return SacctElapsed(SuspendedSeconds(*r.job, c.now)); }},
      {"user", [](const Row& r, const Ctx&) { return JobOnly(r, r.job->user); }},
      {"uid", [](const Row& r, const Ctx&) { return JobOnly(r, std::to_string(r.job->uid)); }},
      {"group", [](const Row& r, const Ctx&) { return JobOnly(r, r.job->group); }},
      {"gid", [](const Row& r, const Ctx&) { return JobOnly(r, std::to_string(r.job->gid)); }},
      {"qos", [](const Row& r, const Ctx&) {
         return JobOnly(r, r.job->qos.empty() ? std::string(kDefaultQos) : r.job->qos);
       }},
      {"priority", [](const Row& r, const Ctx&) { return JobOnly(r, std::to_string(r.job->priority)); }},
      {"reason", [](const Row& r, const Ctx&) {
         return JobOnly(r, r.job->reason.empty() ? std::string("None") : r.job->reason);
       }},
      {"workdir", [](const Row& r, const Ctx&) { return JobOnly(r, r.job->workdir); }},
      {"comment", [](const Row& r, const Ctx&) { return JobOnly(r, r.job->options.comment); }},
      {"wckey", [](const Row& r, const Ctx&) { return JobOnly(r, r.job->options.wckey); }},
      {"cluster", [](const Row&, const Ctx& c) { return *c.cluster; }},
      {"constraints", [](const Row& r, const Ctx&) { return JobOnly(r, r.job->request.constraint); }},
      {"restarts", [](const Row& r, const Ctx&) { return JobOnly(r, std::to_string(Restarts(*r.job))); }},
      {"ncpus", [](const Row& r, const Ctx&) { return std::to_string(RowCpus(r)); }},
  };
  return *m;
}

std::string Cell(const std::string& value, const SacctField& f) {
  if (static_cast<int>(value.size()) > f.width) return value.substr(0, f.width - 1) + "+";
  return PrintField(value, f.width, f.right);
}

}  // namespace

std::string SacctElapsed(int64_t seconds) {
  if (seconds < 0) seconds = 0;
  const int64_t days = seconds / 86400, h = seconds / 3600 % 24, m = seconds / 60 % 60, s = seconds % 60;
  char buf[64];
  if (days > 0) {
    std::snprintf(buf, sizeof buf, "%lld-%02lld:%02lld:%02lld", static_cast<long long>(days), static_cast<long long>(h),
                  static_cast<long long>(m), static_cast<long long>(s));
  } else {
    std::snprintf(buf, sizeof buf, "%02lld:%02lld:%02lld", static_cast<long long>(h), static_cast<long long>(m),
                  static_cast<long long>(s));
  }
  return buf;
}

StatusOr<std::vector<SacctField>> ParseSacctFields(std::string_view list) {
  std::vector<SacctField> out;
  for (const std::string& piece : Split(list, ',')) {
    std::string_view item = piece;
    std::string_view name = item;
    int width = -1;
    if (size_t pct = item.find('%'); pct != std::string_view::npos) {
      name = item.substr(0, pct);
      std::string_view w = item.substr(pct + 1);
      if (w.empty() || w.size() > 4 || w.find_first_not_of("0123456789") != std::string_view::npos) {
        return InvalidArgument("Invalid field requested: \"" + std::string(item) + "\"");
      }
      width = std::stoi(std::string(w));
    }
    const FieldSpec* found = nullptr;
    for (const FieldSpec& f : kFields) {
      if (Lower(f.name) == Lower(name)) found = &f;
    }
    if (found == nullptr) return InvalidArgument("Invalid field requested: \"" + std::string(name) + "\"");
    SacctField f = FieldOf(*found);
    if (width >= 0) f.width = width;
    out.push_back(f);
  }
  return out;
}

std::vector<SacctField> SacctDefaultFields() {
  return Named({"JobID", "JobName", "Partition", "Account", "AllocCPUS", "State", "ExitCode"});
}

std::vector<SacctField> SacctBriefFields() { return Named({"JobID", "State", "ExitCode"}); }

std::vector<SacctField> SacctLongFields() {
  return Named({"JobID", "JobIDRaw", "JobName", "Partition", "MaxVMSize", "MaxVMSizeNode", "MaxVMSizeTask",
                "AveVMSize", "MaxRSS", "MaxRSSNode", "MaxRSSTask", "AveRSS", "MaxPages", "MaxPagesNode",
                "MaxPagesTask", "AvePages", "MinCPU", "MinCPUNode", "MinCPUTask", "AveCPU", "NTasks", "AllocCPUS",
                "Elapsed", "State", "ExitCode", "AveCPUFreq", "ReqCPUFreqMin", "ReqCPUFreqMax", "ReqCPUFreqGov",
                "ReqMem", "ConsumedEnergy", "MaxDiskRead", "MaxDiskReadNode", "MaxDiskReadTask", "AveDiskRead",
                "MaxDiskWrite", "MaxDiskWriteNode", "MaxDiskWriteTask", "AveDiskWrite", "ReqTRES", "AllocTRES",
                "TRESUsageInAve", "TRESUsageInMax", "TRESUsageInMaxNode", "TRESUsageInMaxTask", "TRESUsageInMin",
                "TRESUsageInMinNode", "TRESUsageInMinTask", "TRESUsageInTot", "TRESUsageOutMax",
                "TRESUsageOutMaxNode", "TRESUsageOutMaxTask", "TRESUsageOutAve", "TRESUsageOutTot"});
}

std::vector<std::string> SacctFieldNames() {
  std::vector<std::string> out;
  for (const FieldSpec& f : kFields) out.push_back(f.name);
  return out;
}

std::string FormatSacct(const std::vector<JobRecord>& jobs, const std::vector<StepRecord>& steps,
                        const SacctOptions& o, int64_t now) {
  Ctx ctx{now, &o.cluster};
  std::vector<Row> rows;
  for (const JobRecord& j : jobs) {
    rows.push_back({&j, nullptr, false});
    if (!o.steps) continue;
    if (!j.interactive && j.start_time > 0 && !j.batch_host.empty()) rows.push_back({&j, nullptr, true});
    for (const StepRecord& s : steps) {
      if (s.job_id == j.id && s.step_id >= 0) rows.push_back({&j, &s, false});
    }
  }
  const auto& getters = Getters();
  std::string out;
  auto emit = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) {
      switch (o.layout) {
        case SacctLayout::kColumns: out += Cell(cells[i], o.fields[i]) + " "; break;
        case SacctLayout::kParsable: out += cells[i] + "|"; break;
        case SacctLayout::kParsable2: out += (i ? "|" : "") + cells[i]; break;
      }
    }
    out += "\n";
  };
  if (o.header) {
    std::vector<std::string> names, dashes;
    for (const SacctField& f : o.fields) {
      names.push_back(f.name);
      dashes.push_back(std::string(f.width, '-'));
    }
    emit(names);
    if (o.layout == SacctLayout::kColumns) emit(dashes);
  }
  for (const Row& r : rows) {
    std::vector<std::string> cells;
    for (const SacctField& f : o.fields) {
      auto it = getters.find(Lower(f.name));
      cells.push_back(it == getters.end() ? std::string() : it->second(r, ctx));
    }
    emit(cells);
  }
  return out;
}

bj::value SacctJson(const std::vector<JobRecord>& jobs, const std::vector<StepRecord>& steps, const std::string& cluster,
               int64_t now) {
  auto tres_list = [](int64_t cpus, int64_t mem, int64_t nodes, int64_t gpus) {
    bj::array a;
    a.push_back(bj::object{{"type", "cpu"}, {"name", nullptr}, {"id", 1}, {"count", cpus}});
    a.push_back(bj::object{{"type", "mem"}, {"name", nullptr}, {"id", 2}, {"count", mem}});
    a.push_back(bj::object{{"type", "node"}, {"name", nullptr}, {"id", 4}, {"count", nodes}});
    a.push_back(bj::object{{"type", "billing"}, {"name", nullptr}, {"id", 5}, {"count", cpus}});
    if (gpus > 0) a.push_back(bj::object{{"type", "gres"}, {"name", "gpu"}, {"id", 1001}, {"count", gpus}});
    return a;
  };
  auto exit_json = [](int code, int signal) {
    bj::object e{{"status", signal ? "SIGNALED" : code ? "FAILED" : "SUCCESS"}, {"return_code", code}};
    if (signal) e["signal"] = bj::object{{"signal_id", signal}};
    return e;
  };
  bj::array out_jobs;
  for (const JobRecord& j : jobs) {
    const int64_t cpus = JobCpuCount(j), mem = JobMemoryMb(j), nodes = JobNodeCount(j), gpus = JobGpuCount(j);
    bj::array js;
    for (const StepRecord& s : steps) {
      if (s.job_id != j.id) continue;
      js.push_back(bj::object{{"step", {{"job_id", j.id}, {"id", std::to_string(j.id) + "." + std::to_string(s.step_id)},
                              {"name", s.name}}},
                    {"state", JobStateName(s.state)},
                    {"exit_code", exit_json(s.exit_code, 0)},
                    {"tasks", {{"count", s.ntasks}}},
                    {"nodes", {{"count", s.nodes.size()}, {"range", CompressHostlist(s.nodes)}, {"list", bj::value_from(s.nodes)}}},
                    {"time", {{"start", s.start_time}, {"end", s.end_time},
                              {"elapsed", s.start_time ? (s.end_time ? s.end_time : now) - s.start_time : 0}}}});
    }
    out_jobs.push_back(bj::object{
        {"account", j.account},
        {"allocation_nodes", j.allocation.size()},
        {"array", {{"job_id", 0}, {"task_id", nullptr}, {"task", nullptr}}},
        {"association", {{"account", j.account}, {"cluster", cluster}, {"partition", nullptr}, {"user", j.user}}},
        {"cluster", cluster},
        {"comment", {{"administrator", nullptr}, {"job", j.options.comment.empty() ? bj::value(nullptr) : bj::value(j.options.comment)}, {"system", nullptr}}},
        {"constraints", j.request.constraint},
        {"container", nullptr},
        {"derived_exit_code", exit_json(DerivedExit(j, steps), 0)},
        {"exit_code", exit_json(j.exit_code, j.exit_signal)},
        {"flags", bj::array()},
        {"group", j.group},
        {"het", {{"job_id", 0}, {"job_offset", nullptr}}},
        {"job_id", j.id},
        {"kill_request_user", j.cancelled_by >= 0 ? bj::value(std::to_string(j.cancelled_by)) : bj::value(nullptr)},
        {"mcs", {{"label", ""}}},
        {"name", j.name},
        {"nodes", j.allocation.empty() ? std::string("None assigned") : JobNodeList(j)},
        {"partition", j.partition},
        {"priority", j.priority},
        {"qos", j.qos.empty() ? std::string(kDefaultQos) : j.qos},
        {"required", {{"CPUs", cpus}, {"memory", mem}}},
        {"reservation", {{"id", 0}, {"name", 0}}},
        {"state", {{"current", JobStateName(j.state)}, {"reason", j.reason.empty() ? "None" : j.reason}}},
        {"steps", js},
        {"time", {{"elapsed", JobElapsed(j, now)},
                  {"eligible", j.eligible_time},
                  {"end", j.end_time},
                  {"start", j.start_time},
                  {"submission", j.submit_time},
                  {"suspended", SuspendedSeconds(j, now)},
                  {"limit", j.time_limit_s == kUnlimited ? bj::value(nullptr) : bj::value(j.time_limit_s / 60)}}},
        {"tres", {{"allocated", j.allocation.empty() ? bj::array() : tres_list(cpus, mem, nodes, gpus)},
                  {"requested", tres_list(cpus, mem, nodes, gpus)}}},
        {"user", j.user},
        {"wckey", {{"wckey", j.options.wckey}, {"flags", bj::array()}}},
        {"working_directory", j.workdir},
    });
  }
  return bj::object{{"meta", {{"plugin", {{"type", "openapi/dbv0.0.38"}, {"name", "Muster sacct"}}},
                        {"Slurm", {{"version", {{"major", 22}, {"minor", 5}, {"micro", 8}}}, {"release", "22.05.8"}}}}},
              {"errors", bj::array()},
              {"jobs", out_jobs}};
}

std::string FormatSacctHelpFormat() {
  const std::vector<std::string> names = SacctFieldNames();
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    out += names[i] + std::string(names[i].size() < 20 ? 20 - names[i].size() : 1, ' ');
    if (i % 4 == 3 || i + 1 == names.size()) out += "\n";
  }
  return out;
}

}  // namespace muster
