// squeue's format engine, after Slurm 22.05's src/squeue/print.c (the field headers and the
// values) and opts.c (the format syntax, the default sort "P,t,-p"). Fields with no Muster value
// print what Slurm prints when the field is unset; they are listed in slurm_format.cc.
#include "report/squeue_format.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/strings.h"
#include "model/hostlist.h"
#include "model/job_array.h"

namespace muster {
namespace {

// Slurm's numeric job states, for the sort by state (COMPLETING sorts with the ended states).
int SlurmStateNumber(JobState s) {
  switch (s) {
    case JobState::kPending: return 0;
    case JobState::kRunning: return 1;
    case JobState::kSuspended: return 2;
    case JobState::kCompleting: return 3;
    case JobState::kCompleted: return 3;
    case JobState::kCancelled: return 4;
    case JobState::kFailed: return 5;
    case JobState::kTimeout: return 6;
    case JobState::kNodeFail: return 7;
    case JobState::kPreempted: return 8;
    case JobState::kBootFail: return 9;
    case JobState::kDeadline: return 10;
    case JobState::kOutOfMemory: return 11;
  }
  return 0;
}

// squeue shows "(reason)" instead of the nodes for these states (_print_job_reason_list).
bool ShowsReason(const JobRecord& job) {
  switch (job.state) {
    case JobState::kPending:
    case JobState::kTimeout:
    case JobState::kOutOfMemory:
    case JobState::kDeadline:
    case JobState::kFailed:
      return true;
    default:
      return false;
  }
}

std::string OrNull(const std::string& s) { return s.empty() ? "(null)" : s; }

std::string MinMemory(const JobRecord& job) {
  const JobRequest& r = job.request;
  if (r.mem_per_cpu_mb > 0) return FormatMemoryExact(r.mem_per_cpu_mb);
  if (r.mem_per_node_mb > 0) return FormatMemoryExact(r.mem_per_node_mb);
  return "0";
}

std::string TimeLimit(const JobRecord& job) {
  return job.time_limit_s == kUnlimited ? "UNLIMITED" : FormatElapsed(job.time_limit_s);
}

std::string TimeLeft(const JobRecord& job, int64_t now) {
  if (job.time_limit_s == kUnlimited) return "UNLIMITED";
  return FormatElapsed(job.time_limit_s - JobElapsed(job, now));
}

// The header of a field type; nullptr for a type squeue does not know.
const char* Header(char type) {
  switch (type) {
    case 'i': return "JOBID";
    case 'j': return "NAME";
    case 'u': return "USER";
    case 't': return "ST";
    case 'T': return "STATE";
    case 'M': return "TIME";
    case 'l': return "TIME_LIMIT";
    case 'D': return "NODES";
    case 'R': return "NODELIST(REASON)";
    case 'P': return "PARTITION";
    case 'N': return "NODELIST";
    case 'r': return "REASON";
    case 'C': return "CPUS";
    case 'b': return "TRES_PER_NODE";
    case 'm': return "MIN_MEMORY";
    case 'S': return "START_TIME";
    case 'V': return "SUBMIT_TIME";
    case 'e': return "END_TIME";
    case 'L': return "TIME_LEFT";
    case 'a': return "ACCOUNT";
    case 'g': return "GROUP";
    case 'q': return "QOS";
    case 'Q': return "PRIORITY";
    case 'Z': return "WORK_DIR";
    case 'o': return "COMMAND";
    case 'k': return "COMMENT";
    case 'U': return "UID";
    case 'G': return "GID";
    case 'x': return "EXC_NODES";
    case 'n': return "REQ_NODES";
    case 'f': return "FEATURES";
    case 'c': return "MIN_CPUS";
    case 'd': return "MIN_TMP_DISK";
    case 'E': return "DEPENDENCY";
    case 'h': return "OVER_SUBSCRIBE";
    case 'B': return "EXEC_HOST";
    case 'y': return "NICE";
    case 'v': return "RESERVATION";
    case 'A': return "JOBID";  // the job's own id (an array task's too)
    case 'F': return "ARRAY_JOB_ID";
    case 'K': return "ARRAY_TASK_ID";
    case 'Y': return "SCHEDNODES";
    default: return nullptr;
  }
}

// A job's id as squeue prints it: "123", "120_3" for task 3 of job array 120, or "130+1" for
// the second component of heterogeneous job 130.
std::string JobIdText(const JobRecord& job) {
  if (job.het_job_id != 0) return std::to_string(job.het_job_id) + "+" + std::to_string(job.het_job_offset);
  if (job.array_job_id == 0) return std::to_string(job.id);
  return std::to_string(job.array_job_id) + "_" + std::to_string(job.array_task_id);
}

std::string Value(char type, const JobRecord& job, int64_t now, const std::string* id_text = nullptr) {
  const JobRequest& r = job.request;
  switch (type) {
    case 'i': return id_text != nullptr ? *id_text : JobIdText(job);
    case 'A': return std::to_string(job.id);  // each array task's own job id
    case 'F': return std::to_string(job.array_job_id != 0 ? job.array_job_id : job.id);
    case 'K': return job.array_job_id != 0 ? std::to_string(job.array_task_id) : std::string("N/A");
    case 'j': return job.name;
    case 'u': return job.user;
    case 't': return JobStateCompact(job.state);
    case 'T': return JobStateName(job.state);
    case 'M': return FormatElapsed(JobElapsed(job, now));
    case 'l': return TimeLimit(job);
    case 'D': return std::to_string(JobNodeCount(job));
    case 'R': return ShowsReason(job) ? std::string("(").append(JobReason(job)).append(")") : JobNodeList(job);
    case 'P': return job.partition;
    case 'N': return JobNodeList(job);
    case 'r': return HoldsResources(job.state) ? "None" : JobReason(job);
    case 'C': return std::to_string(JobCpuCount(job));
    case 'b': {
      const std::string t = JobTresPerNode(job);
      return t.empty() ? "N/A" : t;
    }
    case 'm': return MinMemory(job);
    case 'S': return FormatSlurmTime(job.state == JobState::kPending ? job.expected_start : job.start_time, "N/A");
    case 'V': return FormatSlurmTime(job.submit_time, "N/A");
    case 'e': return FormatSlurmTime(JobExpectedEnd(job), "N/A");
    case 'L': return TimeLeft(job, now);
    case 'a': return OrNull(job.account);
    case 'g': return job.group;
    case 'q': return job.qos.empty() ? std::string(kDefaultQos) : job.qos;
    case 'Q': return std::to_string(job.priority);
    case 'Z': return job.workdir;
    case 'o': return "(null)";
    case 'k': return job.options.comment.empty() ? std::string("(null)") : job.options.comment;
    case 'U': return std::to_string(job.uid);
    case 'G': return std::to_string(job.gid);
    case 'x': return CompressHostlist(r.exclude);
    case 'n': return CompressHostlist(r.nodelist);
    case 'f': return OrNull(r.constraint);
    case 'c': return std::to_string(std::max(1, r.cpus_per_task) * std::max(1, r.ntasks_per_node));
    case 'd': return "0";
    case 'E': return job.dependency_left.empty() ? "(null)" : job.dependency_left;
    case 'h': return r.exclusive ? "NO" : "OK";
    case 'B': return job.batch_host.empty() ? "n/a" : job.batch_host;
    case 'y': return std::to_string(job.nice);
    case 'v': return "(null)";
    case 'Y': return job.sched_nodes.empty() ? std::string("(null)") : job.sched_nodes;
    default: return "";
  }
}

struct SortKey {
  char type;
  bool descending;
};

// -S: "P,-p,i" or "-i" (Slurm also accepts a leading '%' and '+').
StatusOr<std::vector<SortKey>> ParseSortKeys(const std::string& spec) {
  std::vector<SortKey> keys;
  for (std::string k : Split(spec, ',')) {
    bool desc = false;
    if (!k.empty() && (k[0] == '-' || k[0] == '+')) {
      desc = k[0] == '-';
      k.erase(0, 1);
    }
    if (!k.empty() && k[0] == '%') k.erase(0, 1);
    if (k.size() != 1 || Header(k[0]) == nullptr) return InvalidArgument("Invalid sort specification: " + spec);
    keys.push_back({k[0], desc});
  }
  return keys;
}

template <typename T>
int Cmp(const T& a, const T& b) {
  return a < b ? -1 : b < a ? 1 : 0;
}

// Numbers compare as numbers; everything else by its printed value.
int CompareBy(char type, const JobRecord& a, const JobRecord& b, int64_t now) {
  switch (type) {
    case 'i': case 'A': return Cmp(a.id, b.id);
    case 'p': case 'Q': return Cmp(a.priority, b.priority);
    case 't': case 'T': return Cmp(SlurmStateNumber(a.state), SlurmStateNumber(b.state));
    case 'M': return Cmp(JobElapsed(a, now), JobElapsed(b, now));
    case 'l': return Cmp(a.time_limit_s, b.time_limit_s);
    case 'D': return Cmp(JobNodeCount(a), JobNodeCount(b));
    case 'C': return Cmp(JobCpuCount(a), JobCpuCount(b));
    case 'V': return Cmp(a.submit_time, b.submit_time);
    case 'S': return Cmp(a.start_time, b.start_time);
    case 'e': return Cmp(JobExpectedEnd(a), JobExpectedEnd(b));
    case 'y': return Cmp(a.nice, b.nice);
    default: return Cmp(Value(type, a, now), Value(type, b, now));
  }
}

}  // namespace

StatusOr<std::string> SqueueFormatFromFields(const std::string& fields) {
  // Slurm's -O names (case-insensitive) for the fields Muster has.
  static const std::pair<const char*, char> kNames[] = {
      {"account", 'a'},      {"arrayjobid", 'A'},   {"batchhost", 'B'},   {"command", 'o'},
      {"comment", 'k'},      {"dependency", 'E'},   {"endtime", 'e'},
      {"feature", 'f'},      {"gres", 'b'},         {"groupid", 'G'},     {"groupname", 'g'},
      {"jobid", 'i'},        {"minmemory", 'm'},    {"mincpus", 'c'},     {"name", 'j'},
      {"nice", 'y'},         {"nodelist", 'N'},     {"numcpus", 'C'},     {"numnodes", 'D'},
      {"numtasks", 'n'},     {"partition", 'P'},    {"priority", 'Q'},    {"prioritylong", 'Q'},
      {"qos", 'q'},          {"reason", 'r'},       {"reasonlist", 'R'},  {"reqnodes", 'n'},
      {"schednodes", 'Y'},   {"starttime", 'S'},    {"state", 'T'},       {"statecompact", 't'},
      {"submittime", 'V'},   {"timeleft", 'L'},     {"timelimit", 'l'},   {"timeused", 'M'},
      {"tres-per-node", 'b'}, {"userid", 'U'},      {"username", 'u'},    {"workdir", 'Z'},
      {"excnodes", 'x'},     {"reservation", 'v'},
  };
  std::string out;
  size_t pos = 0;
  while (pos <= fields.size()) {
    size_t comma = fields.find(',', pos);
    if (comma == std::string::npos) comma = fields.size();
    std::string item = fields.substr(pos, comma - pos);
    pos = comma + 1;
    if (item.empty()) continue;
    std::string name = item, width = "20";
    bool right = false;
    if (size_t colon = item.find(':'); colon != std::string::npos) {
      name = item.substr(0, colon);
      std::string w = item.substr(colon + 1);
      if (!w.empty() && w[0] == '.') {
        right = true;
        w.erase(0, 1);
      }
      if (!w.empty()) width = w;
      if (width.find_first_not_of("0123456789") != std::string::npos) {
        return InvalidArgument("Invalid job format specification: " + item);
      }
    }
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    char type = 0;
    for (const auto& [n, t] : kNames) {
      if (name == n) type = t;
    }
    if (type == 0 || Header(type) == nullptr) return InvalidArgument("Invalid job format specification: " + item);
    out += std::string("%") + (right ? "." : "") + width + type;
  }
  return out;
}

SqueueOptions SqueueLongOptions() {
  SqueueOptions o;
  o.format = kSqueueLongFormat;
  o.date_line = true;
  return o;
}

StatusOr<std::string> FormatSqueue(const std::vector<JobRecord>& jobs, const SqueueOptions& options,
                                   int64_t now) {
  std::vector<const JobRecord*> order;
  order.reserve(jobs.size());
  for (const JobRecord& j : jobs) order.push_back(&j);
  return FormatSqueueJobs(std::move(order), options, now);
}

StatusOr<std::string> FormatSqueueJobs(std::vector<const JobRecord*> order, const SqueueOptions& options, int64_t now) {
  ASSIGN_OR_RETURN(std::vector<FormatField> fields, ParseFormat(options.format, "job"));
  for (const FormatField& f : fields) {
    if (Header(f.type) == nullptr) {
      return InvalidArgument(std::string("Invalid job format specification: ") + f.type);
    }
  }
  if (!options.sort_keys.empty()) {
    ASSIGN_OR_RETURN(std::vector<SortKey> keys, ParseSortKeys(options.sort_keys));
    std::stable_sort(order.begin(), order.end(), [&](const JobRecord* a, const JobRecord* b) {
      for (const SortKey& k : keys) {
        const int c = CompareBy(k.type, *a, *b, now);
        if (c != 0) return k.descending ? c > 0 : c < 0;
      }
      return false;
    });
  } else if (options.sort) {
    std::stable_sort(order.begin(), order.end(), [](const JobRecord* a, const JobRecord* b) {
      if (a->partition != b->partition) return a->partition < b->partition;
      const int sa = SlurmStateNumber(a->state), sb = SlurmStateNumber(b->state);
      if (sa != sb) return sa < sb;
      if (a->priority != b->priority) return a->priority > b->priority;
      return a->id < b->id;
    });
  }
  // The waiting tasks of a job array show as one line, "120_[1-3]" (its first task stands for
  // them), unless -r asks for a line each.
  std::map<const JobRecord*, std::string> ids;
  if (!options.expand_arrays) {
    std::map<int64_t, std::vector<const JobRecord*>> waiting;
    for (const JobRecord* j : order) {
      if (j->array_job_id != 0 && j->state == JobState::kPending) waiting[j->array_job_id].push_back(j);
    }
    std::set<const JobRecord*> folded;
    for (auto& [array, tasks] : waiting) {
      if (tasks.size() < 2) continue;
      std::sort(tasks.begin(), tasks.end(),
                [](const JobRecord* a, const JobRecord* b) { return a->array_task_id < b->array_task_id; });
      std::vector<int> task_ids;
      for (const JobRecord* t : tasks) task_ids.push_back(t->array_task_id);
      ids[tasks.front()] =
          std::to_string(array) + "_[" + FormatArrayTasks(task_ids, tasks.front()->array_max_running) + "]";
      folded.insert(tasks.begin() + 1, tasks.end());
    }
    std::erase_if(order, [&](const JobRecord* j) { return folded.count(j) > 0; });
  }
  std::string out;
  if (options.date_line) out += FormatDateLine(now) + "\n";
  if (!options.no_header) {
    for (const FormatField& f : fields) out += PrintField(Header(f.type), f.width, f.right) + f.suffix;
    out += "\n";
  }
  for (const JobRecord* j : order) {
    auto it = ids.find(j);
    const std::string* id_text = it == ids.end() ? nullptr : &it->second;
    for (const FormatField& f : fields) out += PrintField(Value(f.type, *j, now, id_text), f.width, f.right) + f.suffix;
    out += "\n";
  }
  return out;
}

bool SqueueSelection::Matches(const JobRecord& j) const {
  // An array's id selects its tasks; a heterogeneous job's (its leader's) all its components.
  if (!ids.empty() && !ids.count(j.id) && !(j.array_job_id != 0 && ids.count(j.array_job_id)) &&
      !(j.het_job_id != 0 && ids.count(j.het_job_id))) {
    return false;
  }
  if (!users.empty() && !users.count(j.user) && !users.count(std::to_string(j.uid))) return false;
  if (!partitions.empty() && !partitions.count(j.partition)) return false;
  if (!accounts.empty() && !accounts.count(j.account)) return false;
  if (!names.empty() && !names.count(j.name)) return false;
  if (states.empty()) return !IsFinished(j.state);  // as Slurm's squeue, with -j too
  return states.count("ALL") || states.count(JobStateName(j.state));
}

namespace {

std::string Join(const std::set<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ",") + s;
  return out;
}

std::set<std::string> SplitSet(const std::string& s) {
  std::set<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    if (comma > start) out.insert(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

// Query values are percent-encoded except for unreserved characters (RFC 3986) and the commas
// that separate a list's items.
std::string Encode(const std::string& s) { return PercentEncode(s, ","); }

}  // namespace

std::string SqueueQuery(const SqueueSelection& sel, const SqueueOptions& opt) {
  std::string q = "render=squeue&format=" + Encode(opt.format);
  if (opt.no_header) q += "&header=0";
  if (opt.date_line) q += "&date_line=1";
  if (!opt.sort) q += "&sort=0";
  if (!opt.sort_keys.empty()) q += "&sort_keys=" + Encode(opt.sort_keys);
  if (opt.expand_arrays) q += "&expand_arrays=1";
  return q + "&" + SqueueSelectionQuery(sel);
}

std::string SqueueSelectionQuery(const SqueueSelection& sel) {
  std::string q;
  auto add = [&](const char* key, const std::string& value) {
    if (!q.empty()) q += '&';
    q.append(key).append("=").append(value);
  };
  std::set<std::string> ids;
  for (int64_t id : sel.ids) ids.insert(std::to_string(id));
  if (!ids.empty()) add("ids", Join(ids));
  if (!sel.users.empty()) add("users", Encode(Join(sel.users)));
  if (!sel.partitions.empty()) add("partitions", Encode(Join(sel.partitions)));
  if (!sel.accounts.empty()) add("accounts", Encode(Join(sel.accounts)));
  if (!sel.names.empty()) add("names", Encode(Join(sel.names)));
  if (!sel.states.empty()) add("states", Encode(Join(sel.states)));
  if (sel.ids.empty() && sel.states.empty()) add("active", "1");
  return q;
}

StatusOr<std::pair<SqueueSelection, SqueueOptions>> ParseSqueueQuery(const std::map<std::string, std::string>& q) {
  SqueueSelection sel;
  SqueueOptions opt;
  auto get = [&](const char* key) -> std::string {
    auto it = q.find(key);
    return it == q.end() ? "" : it->second;
  };
  if (q.count("format")) opt.format = get("format");
  opt.no_header = get("header") == "0";
  opt.date_line = get("date_line") == "1";
  opt.sort = get("sort") != "0";
  opt.sort_keys = get("sort_keys");
  opt.expand_arrays = get("expand_arrays") == "1";
  sel.accounts = SplitSet(get("accounts"));
  sel.names = SplitSet(get("names"));
  for (const std::string& s : SplitSet(get("ids"))) {
    if (s.find_first_not_of("0123456789") != std::string::npos || s.size() > 18) {
      return InvalidArgument("ids: invalid job id '" + s + "'");
    }
    sel.ids.insert(std::stoll(s));
  }
  sel.users = SplitSet(get("users"));
  sel.partitions = SplitSet(get("partitions"));
  for (const std::string& s : SplitSet(get("states"))) {
    if (s == "ALL") {
      sel.states.insert(s);
      continue;
    }
    StatusOr<JobState> st = ParseJobState(s);
    if (!st.ok()) return InvalidArgument("states: " + st.status().message());
    sel.states.insert(JobStateName(*st));
  }
  return std::make_pair(std::move(sel), std::move(opt));
}

std::vector<StepRecord> BatchSteps(const std::vector<JobRecord>& jobs) {
  std::vector<StepRecord> out;
  for (const JobRecord& j : jobs) {
    if (j.state != JobState::kRunning || j.interactive || j.batch_host.empty()) continue;
    StepRecord s;
    s.job_id = j.id;
    s.step_id = kBatchStepId;
    s.name = "batch";
    s.nodes = {j.batch_host};
    s.ntasks = 1;
    s.start_time = j.start_time;
    out.push_back(std::move(s));
  }
  return out;
}

SlurmOutput FormatSqueueSteps(std::vector<StepRecord> steps, const std::vector<JobRecord>& jobs,
                              const std::string& format, bool header, bool date_line, int64_t now) {
  SlurmOutput o;
  StatusOr<std::vector<FormatField>> fields = ParseFormat(format, "job step");
  if (!fields.ok()) {
    o.err = "squeue: error: " + fields.status().message() + "\n";
    o.exit_code = 1;
    return o;
  }
  std::map<int64_t, const JobRecord*> by_id;
  for (const JobRecord& j : jobs) by_id[j.id] = &j;
  std::erase_if(steps, [&](const StepRecord& s) { return s.state != JobState::kRunning || !by_id.count(s.job_id); });
  // Job by job, its steps in order, the batch step last (Slurm's 0xfffffffb).
  const auto key = [](const StepRecord& s) {
    return std::pair<int64_t, int64_t>(s.job_id, s.step_id == kBatchStepId ? int64_t{1} << 32 : s.step_id);
  };
  std::sort(steps.begin(), steps.end(), [&](const StepRecord& a, const StepRecord& b) { return key(a) < key(b); });
  std::set<char> unknown;
  for (const FormatField& f : *fields) {
    if (std::string_view("ijPuMlNASb").find(f.type) == std::string_view::npos) unknown.insert(f.type);
  }
  const auto header_of = [&](char type) -> std::string {
    switch (type) {
      case 'i': return "STEPID";
      case 'j': return "NAME";
      case 'P': return "PARTITION";
      case 'u': return "USER";
      case 'M': return "TIME";
      case 'l': return "TIME_LIMIT";
      case 'N': return "NODELIST";
      case 'A': return "TASKS";
      case 'S': return "START_TIME";
      case 'b': return "TRES_PER_NODE";
      default: return std::string("%") + type;
    }
  };
  const auto value_of = [&](char type, const StepRecord& s) -> std::string {
    const JobRecord& j = *by_id.at(s.job_id);
    const bool batch = s.step_id == kBatchStepId;
    switch (type) {
      case 'i': return std::to_string(j.id) + "." + (batch ? std::string("batch") : std::to_string(s.step_id));
      case 'j': return s.name;
      case 'P': return j.partition;
      case 'u': return j.user;
      case 'M': return FormatElapsed(std::max<int64_t>(0, now - s.start_time - (batch ? j.suspended_s : 0)));
      case 'l': return j.time_limit_s > 0 && j.time_limit_s != kUnlimited ? FormatElapsed(j.time_limit_s) : "UNLIMITED";
      case 'N': return CompressHostlist(s.nodes);
      case 'A': return std::to_string(s.ntasks);
      case 'S': return FormatSlurmTime(s.start_time);
      case 'b': return "(null)";
      default: return std::string("%") + type;
    }
  };
  const auto line = [&](const std::function<std::string(char)>& cell) {
    std::string l;
    for (const FormatField& f : *fields) l += PrintField(cell(f.type), f.width, f.right) + f.suffix;
    return l + "\n";
  };
  if (date_line) o.out += FormatDateLine(now) + "\n";
  if (header) o.out += line(header_of);
  for (const StepRecord& s : steps) o.out += line([&](char type) { return value_of(type, s); });
  for (char c : unknown) o.err += std::string("squeue: error: Invalid job step format specification: ") + c + "\n";
  return o;
}

}  // namespace muster
