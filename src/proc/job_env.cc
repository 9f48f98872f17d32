// Slurm's job environment, checked against captures from a real Slurm (see job_env_test.cc).
// Per-node lists (SLURM_TASKS_PER_NODE, SLURM_JOB_CPUS_PER_NODE) follow the node order of the
// compressed node list, as Slurm's follow its node bitmap, and compress runs as "2(x3),1".
//
// CUDA_VISIBLE_DEVICES holds device indexes (renumbered from 0 when the job's cgroup hides the
// other GPUs), and for a MIG slice its "MIG-..." UUID, which is how CUDA selects a slice.
#include "proc/job_env.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/job_array.h"
#include "model/step_layout.h"
#include "model/hostlist.h"

namespace muster {
namespace {

// An environment that keeps the submit order and replaces a variable in place.
class Env {
 public:
  explicit Env(const std::vector<std::string>& initial) {
    for (const std::string& kv : initial) {
      size_t eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) continue;
      Set(kv.substr(0, eq), kv.substr(eq + 1));
    }
  }
  void Set(const std::string& key, const std::string& value) {
    auto it = index_.find(key);
    if (it != index_.end()) {
      vars_[it->second].second = value;
      return;
    }
    index_[key] = vars_.size();
    vars_.emplace_back(key, value);
  }
  void Set(const std::string& key, int64_t value) { Set(key, std::to_string(value)); }
  template <typename Pred>
  void UnsetIf(Pred pred) {
    std::vector<std::pair<std::string, std::string>> kept;
    for (auto& kv : vars_) {
      if (!pred(kv.first)) kept.push_back(std::move(kv));
    }
    vars_ = std::move(kept);
    index_.clear();
    for (size_t i = 0; i < vars_.size(); ++i) index_[vars_[i].first] = i;
  }
  std::vector<std::string> Lines() const {
    std::vector<std::string> out;
    out.reserve(vars_.size());
    for (const auto& [k, v] : vars_) out.push_back(k + "=" + v);
    return out;
  }

 private:
  std::vector<std::pair<std::string, std::string>> vars_;
  std::map<std::string, size_t> index_;
};

bool StartsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// Variables that describe a job, step or task: inherited ones (a job submitted from inside
// another) would be stale. srun's input variables (SLURM_CPU_BIND, SLURM_OVERLAP, ...) stay.
bool IsOutputVariable(const std::string& key) {
  static const char* const kPrefixes[] = {"SLURM_JOB_", "SLURM_STEP_", "SLURM_MEM_PER_", "SLURM_SUBMIT_",
                                          "SLURM_TOPOLOGY_", "SLURM_ARRAY_", "SLURM_GPUS"};
  for (const char* p : kPrefixes) {
    if (StartsWith(key, p)) return true;
  }
  static const char* const kNames[] = {
      "SLURM_JOBID",       "SLURM_STEPID",        "SLURM_PROCID",         "SLURM_LOCALID",
      "SLURM_NODEID",      "SLURM_GTIDS",         "SLURM_NNODES",         "SLURM_NODELIST",
      "SLURM_NTASKS",      "SLURM_NPROCS",        "SLURM_TASKS_PER_NODE", "SLURM_CPUS_ON_NODE",
      "SLURM_CLUSTER_NAME", "SLURMD_NODENAME",    "SLURM_TASK_PID",       "SLURM_RESTART_COUNT",
      "SLURM_NTASKS_PER_NODE", "SLURM_CPUS_PER_TASK", "SLURM_PRIO_PROCESS", "SLURM_NODE_ALIASES",
      "SLURM_WORKING_CLUSTER", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "SLURM_OVERCOMMIT",
  };
  for (const char* n : kNames) {
    if (key == n) return true;
  }
  return false;
}


std::string JoinInts(const std::vector<int>& v) {
  std::string out;
  for (int x : v) {
    if (!out.empty()) out += ',';
    out += std::to_string(x);
  }
  return out;
}

// Node names in Slurm's order: the order of the compressed list once expanded.
std::vector<std::string> OrderedNodes(const std::vector<std::string>& names) {
  StatusOr<std::vector<std::string>> ordered = ExpandHostlist(CompressHostlist(names));
  return ordered.ok() ? *ordered : names;
}

// Tasks of a step spread over its nodes in blocks, the first nodes taking the remainder.
std::vector<int64_t> BlockDistribution(int64_t tasks, size_t nodes) {
  std::vector<int64_t> out(nodes, 0);
  if (nodes == 0) return out;
  for (size_t i = 0; i < nodes; ++i) {
    out[i] = tasks / static_cast<int64_t>(nodes) + (static_cast<int64_t>(i) < tasks % static_cast<int64_t>(nodes));
  }
  return out;
}

std::string GtidRange(int64_t first, int64_t count) {
  std::string out;
  for (int64_t t = first; t < first + count; ++t) {
    if (!out.empty()) out += ',';
    out += std::to_string(t);
  }
  return out;
}

}  // namespace

std::string CompressCounts(const std::vector<int64_t>& values) {
  std::string out;
  for (size_t i = 0; i < values.size();) {
    size_t j = i;
    while (j < values.size() && values[j] == values[i]) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(values[i]);
    if (j - i > 1) out += "(x" + std::to_string(j - i) + ")";
    i = j;
  }
  return out;
}

std::vector<std::string> HetJobEnvironment(const std::vector<JobRecord>& components, const std::string& cluster_name) {
  static constexpr const char* kPerGroup[] = {
      "SLURM_JOB_ACCOUNT",  "SLURM_JOB_CPUS_PER_NODE", "SLURM_JOB_ID",        "SLURM_JOB_NAME",
      "SLURM_JOB_NODELIST", "SLURM_JOB_NUM_NODES",     "SLURM_JOB_PARTITION", "SLURM_JOB_QOS",
      "SLURM_MEM_PER_CPU",  "SLURM_MEM_PER_GPU",       "SLURM_MEM_PER_NODE",  "SLURM_NPROCS",
      "SLURM_NTASKS",       "SLURM_TASKS_PER_NODE"};
  std::vector<std::string> out;
  const std::string size = std::to_string(components.size());
  out.push_back("SLURM_HET_SIZE=" + size);
  out.push_back("SLURM_PACK_SIZE=" + size);
  for (size_t k = 0; k < components.size(); ++k) {
    JobRecord c = components[k];
    c.environment.clear();
    c.het_environment.clear();
    const std::string node = c.allocation.empty() ? std::string() : c.allocation.front().node;
    std::map<std::string, std::string> own;
    for (const std::string& kv : BuildJobEnvironment(c, node, TaskPlacement{}, cluster_name)) {
      const size_t eq = kv.find('=');
      if (eq != std::string::npos) own[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    for (const char* name : kPerGroup) {
      auto it = own.find(name);
      if (it == own.end()) continue;
      out.push_back(std::string(name) + "_HET_GROUP_" + std::to_string(k) + "=" + it->second);
      out.push_back(std::string(name) + "_PACK_GROUP_" + std::to_string(k) + "=" + it->second);
    }
  }
  return out;
}

namespace {

// The job's nodes in the order of its node list, each one's task count and CPUs, and this node's
// allocation (null when it holds none).
struct JobLayout {
  std::vector<std::string> nodes;
  std::vector<int64_t> tasks, cpus;
  int64_t total_tasks = 0;
  const NodeAllocation* here = nullptr;
};

JobLayout LayoutOf(const JobRecord& job, const std::string& node_name) {
  JobLayout l;
  std::map<std::string, const NodeAllocation*> alloc_of;
  std::vector<std::string> names;
  for (const NodeAllocation& a : job.allocation) {
    if (!alloc_of.count(a.node)) names.push_back(a.node);
    alloc_of[a.node] = &a;
  }
  if (names.empty()) names.push_back(node_name);
  l.nodes = OrderedNodes(names);
  for (const std::string& n : l.nodes) {
    auto it = alloc_of.find(n);
    // A node always runs at least one task of the job (the batch script, or a task of a step).
    int64_t tasks = it != alloc_of.end() ? std::max(1, it->second->tasks) : 1;
    l.tasks.push_back(tasks);
    l.cpus.push_back(it != alloc_of.end() ? CpusOf(*it->second) : 0);
    l.total_tasks += tasks;
  }
  auto here = alloc_of.find(node_name);
  l.here = here != alloc_of.end() ? here->second : nullptr;
  return l;
}

// Who and where the job is: its ids, names, owner, nodes, submit place, restarts and array task.
void SetJobVariables(Env& env, const JobRecord& job, const JobLayout& l, const std::string& node_name,
                     const std::string& cluster_name) {
  env.Set("SLURM_CLUSTER_NAME", cluster_name);
  for (const std::string& kv : job.het_environment) {
    const size_t eq = kv.find('=');
    if (eq != std::string::npos) env.Set(kv.substr(0, eq), kv.substr(eq + 1));
  }
  env.Set("SLURM_JOB_ID", job.id);
  env.Set("SLURM_JOBID", job.id);
  env.Set("SLURM_JOB_NAME", job.name);
  env.Set("SLURM_JOB_USER", job.user);
  env.Set("SLURM_JOB_UID", static_cast<int64_t>(job.uid));
  env.Set("SLURM_JOB_GID", static_cast<int64_t>(job.gid));
  if (!job.account.empty()) env.Set("SLURM_JOB_ACCOUNT", job.account);
  if (!job.partition.empty()) env.Set("SLURM_JOB_PARTITION", job.partition);
  env.Set("SLURM_JOB_QOS", job.qos.empty() ? std::string("normal") : job.qos);  // Slurm's default QOS name
  env.Set("SLURM_JOB_NODELIST", CompressHostlist(l.nodes));
  env.Set("SLURM_JOB_NUM_NODES", static_cast<int64_t>(l.nodes.size()));
  env.Set("SLURM_JOB_CPUS_PER_NODE", CompressCounts(l.cpus));
  env.Set("SLURM_SUBMIT_DIR", job.workdir);
  env.Set("SLURM_SUBMIT_HOST", job.submit_host);
  env.Set("SLURMD_NODENAME", node_name);
  env.Set("SLURM_TOPOLOGY_ADDR", node_name);
  env.Set("SLURM_TOPOLOGY_ADDR_PATTERN", "node");
  env.Set("SLURM_PRIO_PROCESS", "0");
  // Lost launches left out: a script that resumes from its checkpoint when this is > 0 must see 0
  // until a run of it has started.
  if (Restarts(job) > 0) env.Set("SLURM_RESTART_COUNT", static_cast<int64_t>(Restarts(job)));
  if (job.array_job_id != 0) {
    env.Set("SLURM_ARRAY_JOB_ID", job.array_job_id);
    env.Set("SLURM_ARRAY_TASK_ID", static_cast<int64_t>(job.array_task_id));
    if (StatusOr<ArraySpec> spec = ParseArraySpec(job.array_tasks); spec.ok() && !spec->tasks.empty()) {
      env.Set("SLURM_ARRAY_TASK_COUNT", static_cast<int64_t>(spec->tasks.size()));
      env.Set("SLURM_ARRAY_TASK_MIN", static_cast<int64_t>(spec->tasks.front()));
      env.Set("SLURM_ARRAY_TASK_MAX", static_cast<int64_t>(spec->tasks.back()));
      env.Set("SLURM_ARRAY_TASK_STEP", static_cast<int64_t>(ArrayTaskStep(spec->tasks)));
    }
  }
  env.Set("SLURM_CPUS_ON_NODE", l.here != nullptr ? CpusOf(*l.here) : 0);
}

// What the job (or the step) asked for of CPUs and memory.
void SetRequestVariables(Env& env, const JobRequest& req, const TaskPlacement& where, const NodeAllocation* here) {
  const bool step = where.step_id >= 0;
  // A step's is srun's -c when given, else the job's (which srun reads from its environment).
  if (step && where.cpus_per_task > 0) {
    env.Set("SLURM_CPUS_PER_TASK", where.cpus_per_task);
  } else if (req.cpus_per_task > 1) {
    env.Set("SLURM_CPUS_PER_TASK", req.cpus_per_task);
  }
  if (req.ntasks_per_node > 0) env.Set("SLURM_NTASKS_PER_NODE", req.ntasks_per_node);
  if (req.overcommit) env.Set("SLURM_OVERCOMMIT", "1");  // (srun inside reads it: its steps overcommit too)
  if (req.mem_per_cpu_mb > 0) {
    env.Set("SLURM_MEM_PER_CPU", req.mem_per_cpu_mb);
  } else if (req.mem_per_gpu_mb > 0) {
    env.Set("SLURM_MEM_PER_GPU", req.mem_per_gpu_mb);
  } else if (req.mem_per_node_mb > 0) {
    env.Set("SLURM_MEM_PER_NODE", req.mem_per_node_mb);
  } else if (!step && here != nullptr && here->memory_mb > 0) {
    // The batch script always learns its memory (Slurm fills in the default); a step only
    // repeats what was asked for explicitly, as srun does.
    env.Set("SLURM_MEM_PER_NODE", here->memory_mb);
  }
}

// Which nodes and tasks the processes here belong to (the step's, else the job's), this node's
// place among them, and for a step where srun listens.
void SetTaskVariables(Env& env, const JobRequest& req, const TaskPlacement& where, const JobLayout& l,
                      const std::string& node_name) {
  const bool step = where.step_id >= 0;
  std::vector<std::string> nodes = l.nodes;
  std::vector<int64_t> tasks = l.tasks;
  int64_t ntasks = l.total_tasks;
  if (step) {
    if (!where.step_nodes.empty()) nodes = OrderedNodes(where.step_nodes);
    ntasks = where.step_ntasks > 0 ? where.step_ntasks : static_cast<int64_t>(nodes.size());
    tasks = BlockDistribution(ntasks, nodes.size());
  }
  int node_id = where.node_index;
  auto pos = std::find(nodes.begin(), nodes.end(), node_name);
  if (pos != nodes.end()) node_id = static_cast<int>(pos - nodes.begin());
  int64_t first_task = 0;
  for (int i = 0; i < node_id && i < static_cast<int>(tasks.size()); ++i) first_task += tasks[i];
  int64_t tasks_here = node_id >= 0 && node_id < static_cast<int>(tasks.size()) ? tasks[node_id] : 1;

  env.Set("SLURM_NODELIST", CompressHostlist(nodes));
  env.Set("SLURM_NNODES", static_cast<int64_t>(nodes.size()));
  // The batch script's only when the job named its task count (-n, --ntasks-per-node), as in
  // Slurm: srun reads them as its -n, which a job of -N alone leaves to srun.
  if (step || req.ntasks > 0 || req.ntasks_per_node > 0) {
    env.Set("SLURM_NTASKS", ntasks);
    env.Set("SLURM_NPROCS", ntasks);
  }
  env.Set("SLURM_TASKS_PER_NODE", CompressCounts(tasks));
  env.Set("SLURM_NODEID", node_id);
  if (step) {
    // Where srun listens (its I/O connection): Slurm's srun address variables.
    if (!where.srun_host.empty()) {
      env.Set("SLURM_LAUNCH_NODE_IPADDR", where.srun_host);
      env.Set("SLURM_SRUN_COMM_HOST", where.srun_host);
    }
    if (where.srun_port > 0) {
      env.Set("SLURM_SRUN_COMM_PORT", where.srun_port);
      env.Set("SLURM_STEP_LAUNCHER_PORT", where.srun_port);
    }
    env.Set("SLURM_STEP_ID", where.step_id);
    env.Set("SLURM_STEPID", where.step_id);
    env.Set("SLURM_STEP_NODELIST", CompressHostlist(nodes));
    env.Set("SLURM_STEP_NUM_NODES", static_cast<int64_t>(nodes.size()));
    env.Set("SLURM_STEP_NUM_TASKS", ntasks);
    env.Set("SLURM_STEP_TASKS_PER_NODE", CompressCounts(tasks));
    env.Set("SLURM_PROCID", std::max(where.procid, 0));
    env.Set("SLURM_LOCALID", std::max(where.localid, 0));
    env.Set("SLURM_GTIDS", GtidRange(first_task, tasks_here));
  } else {
    // The batch script is task 0 of the batch step.
    env.Set("SLURM_PROCID", "0");
    env.Set("SLURM_LOCALID", "0");
    env.Set("SLURM_GTIDS", "0");
  }
}

// This node's GPUs as the processes here see them: the job's or the step's, the task's own share
// under --gpu-bind, numbered as the cgroup shows them. `env` is done after this.
void SetGpuVariables(Env& env, const JobRecord& job, const TaskPlacement& where, const std::string& node_name,
                     bool devices_constrained) {
  const bool step = where.step_id >= 0;
  // GPUs of this node: the whole ones, plus the shared one of a fractional job; a step's own.
  const std::vector<int> job_gpus = JobGpusOn(job.allocation, node_name);
  std::vector<int> gpus = job_gpus;
  if (step && where.step_gpus) {
    gpus.clear();
    for (int g : *where.step_gpus) {
      if (std::binary_search(job_gpus.begin(), job_gpus.end(), g)) gpus.push_back(g);
    }
    std::sort(gpus.begin(), gpus.end());
    gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());
  }
  if (gpus.empty()) {
    // srun's environment (the batch job's) must not name GPUs a step without any does not have.
    if (step && where.step_gpus) {
      env.UnsetIf([](const std::string& k) {
        return k == "SLURM_GPUS_ON_NODE" || k == "SLURM_STEP_GPUS" || k == "CUDA_VISIBLE_DEVICES" ||
               k == "GPU_DEVICE_ORDINAL";
      });
    }
    return;
  }
  env.Set("SLURM_GPUS_ON_NODE", static_cast<int64_t>(gpus.size()));
  env.Set(step ? "SLURM_STEP_GPUS" : "SLURM_JOB_GPUS", JoinInts(gpus));
  // The task's own: its share of the step's with --gpu-bind=per_task:N.
  std::vector<int> mine = gpus;
  if (step && !where.gpu_bind_map.empty()) {
    mine.clear();
    const std::vector<int>& entry = where.gpu_bind_map[static_cast<size_t>(std::max(where.localid, 0)) % where.gpu_bind_map.size()];
    for (int k : entry) {
      if (k >= 0 && k < static_cast<int>(gpus.size())) mine.push_back(gpus[static_cast<size_t>(k)]);
    }
    std::sort(mine.begin(), mine.end());
    if (mine.empty()) mine = gpus;
  } else if (step && where.gpu_bind_single > 0) {
    mine = {gpus[static_cast<size_t>(std::max(where.localid, 0) / where.gpu_bind_single) % gpus.size()]};
  } else if (step && where.gpu_bind_per_task > 0) {
    const size_t per = static_cast<size_t>(where.gpu_bind_per_task);
    const size_t first = static_cast<size_t>(std::max(where.localid, 0)) * per;
    mine.assign(gpus.begin() + static_cast<std::ptrdiff_t>(std::min(first, gpus.size())),
                gpus.begin() + static_cast<std::ptrdiff_t>(std::min(first + per, gpus.size())));
  }
  std::vector<int> visible = mine;
  if (devices_constrained) {
    // What the cgroup shows, in node order: the step's own GPUs, else the job's.
    const std::vector<int>& shown = step && where.step_gpus && where.step_cgroup ? gpus : job_gpus;
    for (int& v : visible) v = static_cast<int>(std::lower_bound(shown.begin(), shown.end(), v) - shown.begin());
  }
  std::string cuda;
  for (size_t i = 0; i < mine.size(); ++i) {
    const int g = mine[i];
    const bool mig = g >= 0 && g < static_cast<int>(where.mig_uuids.size()) && !where.mig_uuids[g].empty();
    if (!cuda.empty()) cuda += ',';
    cuda += mig ? where.mig_uuids[g] : std::to_string(visible[i]);
  }
  env.Set("CUDA_VISIBLE_DEVICES", cuda);
  env.Set("GPU_DEVICE_ORDINAL", JoinInts(visible));
}

}  // namespace

std::vector<std::string> BuildJobEnvironment(const JobRecord& job, const std::string& node_name,
                                             const TaskPlacement& where, const std::string& cluster_name,
                                             bool devices_constrained) {
  Env env(job.environment);
  env.UnsetIf(IsOutputVariable);
  const JobLayout layout = LayoutOf(job, node_name);
  SetJobVariables(env, job, layout, node_name, cluster_name);
  SetRequestVariables(env, job.request, where, layout.here);
  SetTaskVariables(env, job.request, where, layout, node_name);
  SetGpuVariables(env, job, where, node_name, devices_constrained);
  return env.Lines();
}

std::vector<std::string> MigUuids(const std::vector<Gpu>& gpus) {
  std::vector<std::string> out;
  bool any = false;
  for (const Gpu& g : gpus) {
    out.push_back(g.is_mig() ? g.uuid : "");
    any = any || g.is_mig();
  }
  if (!any) out.clear();
  return out;
}

std::string ExpandOutputPattern(const std::string& pattern, const JobRecord& job, const std::string& node_name,
                                const TaskPlacement& where) {
  // Slurm: a backslash anywhere turns expansion off (and the backslashes are dropped).
  if (pattern.find('\\') != std::string::npos) {
    std::string out;
    for (char c : pattern) {
      if (c != '\\') out += c;
    }
    return out;
  }
  std::string node = node_name;
  if (node.empty()) node = !job.batch_host.empty() ? job.batch_host
                           : !job.allocation.empty() ? job.allocation[0].node : "";
  node = node.substr(0, node.find('.'));
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c != '%' || i + 1 >= pattern.size()) {
      out += c;
      continue;
    }
    size_t j = i + 1;
    int width = 0;
    while (j < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[j])) && j - i <= 2) {
      width = width * 10 + (pattern[j] - '0');
      ++j;
    }
    if (j >= pattern.size()) {
      out += pattern.substr(i);
      break;
    }
    auto number = [&](int64_t v) {
      std::string s = std::to_string(v);
      if (static_cast<int>(s.size()) < width) s.insert(0, width - s.size(), '0');
      out += s;
    };
    switch (pattern[j]) {
      case '%': out += '%'; break;
      case 'j': number(job.id); break;
      case 'A': number(job.array_job_id != 0 ? job.array_job_id : job.id); break;  // a job is its own array
      case 'a': number(job.array_job_id != 0 ? job.array_task_id : 4294967294LL); break;  // Slurm's NO_VAL
      case 'x': out += job.name; break;
      case 'u': out += job.user; break;
      case 'N': out += node; break;
      case 'n': number(where.node_index); break;
      case 't': number(std::max(where.procid, 0)); break;
      case 's':
        if (where.step_id >= 0) number(where.step_id);
        else out += "batch";
        break;
      case 'J':  // job.step
        number(job.id);
        out += where.step_id >= 0 ? "." + std::to_string(where.step_id) : std::string(".batch");
        break;
      default:
        out += pattern.substr(i, j - i + 1);  // unknown: kept as written
    }
    i = j;
  }
  return out;
}

bool IsStepFilePattern(const std::string& how) {
  return !how.empty() && how != "none" && how.find_first_not_of("0123456789") != std::string::npos;
}

std::optional<int> StepStreamTask(const std::string& how) {
  if (how.empty() || how.size() >= 10 || IsStepFilePattern(how) || how == "none") return std::nullopt;
  return std::stoi(how);
}

bool PatternPerTaskOrNode(const std::string& pattern) {
  return pattern.find("%t") != std::string::npos || pattern.find("%n") != std::string::npos ||
         pattern.find("%N") != std::string::npos;
}

}  // namespace muster
