// srun: options, then a step to run: one the controller creates in the current job (or in a new
// allocation srun makes first), or with -Z one on named nodes without a job. The step itself
// runs in cli/srun_step.cc.
#include "cli/srun.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <thread>

#include "cli/command_args.h"
#include "cli/ctld_client.h"
#include "cli/salloc_command.h"
#include "cli/srun_args.h"
#include "cli/srun_step.h"
#include "model/hostlist.h"
#include "model/step_layout.h"
#include "report/slurm_format.h"

namespace muster {


namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

// A step of job `job_id`: the controller creates it (srun waits while other steps hold what it
// needs, as Slurm's does), then it runs.
int CreateAndRunStep(const SrunOptions& opt, int64_t job_id, std::ostream& out, std::ostream& err) {
  StatusOr<std::unique_ptr<CtldClient>> ctld = CtldClient::Connect();
  if (!ctld.ok()) {
    err << "srun: error: " + ctld.status().message() + "\n" << std::flush;
    return 1;
  }
  std::string name = opt.job_name;
  if (name.empty()) name = std::filesystem::path(opt.command[0]).filename().string();
  // Inside an allocation -c and --exclusive shape the step (its CPUs), as --exact does.
  const bool exact = opt.exact || opt.exclusive || opt.cpus_per_task > 0;
  StepCreate req;
  req.name = name;
  req.ntasks = opt.ntasks;
  req.nnodes = opt.nnodes;
  req.ntasks_per_node = opt.ntasks_per_node;
  req.overlap = opt.overlap;
  req.exact = exact;
  req.cpus_per_task = opt.cpus_per_task;
  req.overcommit = opt.overcommit;
  req.mem_mb = opt.mem_mb;
  req.mem_per_cpu_mb = opt.mem_per_cpu_mb;
  req.mem_per_gpu_mb = opt.mem_per_gpu_mb;
  req.time_limit_s = std::max<int64_t>(opt.time_limit_s, 0);
  for (const std::string& a : opt.resource_args) {  // -w / -x: which of the job's nodes
    if (a.rfind("--nodelist=", 0) == 0) req.nodelist = a.substr(11);
    if (a.rfind("--exclude=", 0) == 0) req.exclude = a.substr(10);
    if (a.rfind("--constraint=", 0) == 0) req.constraint = a.substr(13);
  }
  if (opt.gpus.given) {
    req.gpus = StepGpus{opt.gpus.per_node, opt.gpus.total, opt.gpus.per_task};
  } else if (Env("SLURM_STEP_GRES") == "none") {
    req.gpus = StepGpus{};  // Slurm: no GPUs for the step
  }
  // Busy (other steps hold the CPUs): asked again until they are free, as Slurm's srun waits.
  StatusOr<StepAnswer> created = Status(StatusCode::kInternal, "not asked");
  for (int attempt = 0;; ++attempt) {
    created = (*ctld)->CreateStep(job_id, req);
    if (created.ok() || created.status().code() != StatusCode::kUnavailable ||
        created.status().message() != "Requested nodes are busy") {
      if (created.ok() && attempt > 0) {
        err << "srun: Step created for job " + std::to_string(job_id) + "\n" << std::flush;  // Slurm 22.05's words
      }
      break;
    }
    if (attempt == 0) {
      err << "srun: Job " + std::to_string(job_id) +
                     " step creation temporarily disabled, retrying (Requested nodes are busy)\n" << std::flush;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(attempt < 10 ? 100 : 500));
  }
  if (!created.ok()) {
    err << "srun: error: Unable to create step for job " + std::to_string(job_id) + ": " +
                   created.status().message() + "\n" << std::flush;
    return 1;
  }
  return RunCreatedStep(opt, job_id, /*no_allocate=*/false, *created, ctld->get(), out, err);
}

// srun -Z: the step on the -w nodes without a job (the agents run it as us, when they trust us).
int RunWithoutAllocation(const SrunOptions& opt, std::ostream& out, std::ostream& err) {
  std::string list;
  for (const std::string& a : opt.resource_args) {
    if (a.rfind("--nodelist=", 0) == 0) list = a.substr(11);
  }
  if (list.empty()) {
    err << "srun: error: --no-allocate (-Z) needs the nodes to run on: -w/--nodelist\n" << std::flush;
    return 1;
  }
  StatusOr<std::vector<std::string>> names = ExpandHostlist(list);
  if (!names.ok() || names->empty()) {
    err << "srun: error: Invalid node name specified: " + list + "\n" << std::flush;
    return 1;
  }
  err << "srun: do not allocate resources\n" << std::flush;  // Slurm's line
  StatusOr<std::unique_ptr<CtldClient>> ctld = CtldClient::Connect();
  StatusOr<std::vector<NodeRecord>> nodes =
      ctld.ok() ? (*ctld)->Nodes() : StatusOr<std::vector<NodeRecord>>(ctld.status());
  if (!nodes.ok()) {
    err << "srun: error: " + nodes.status().message() + "\n" << std::flush;
    return 1;
  }
  // The tasks in blocks over the nodes, as a step of a job holding them would place them.
  std::vector<NodeAllocation> held;
  for (const std::string& n : *names) {
    NodeAllocation a;
    a.node = n;
    a.tasks = 1;
    held.push_back(a);
  }
  StatusOr<StepLayout> layout =
      PlanStepLayout(held, {.ntasks = opt.ntasks, .nnodes = opt.nnodes, .ntasks_per_node = opt.ntasks_per_node});
  if (!layout.ok()) {
    err << "srun: error: " + layout.status().message() + "\n" << std::flush;
    return 1;
  }
  StepAnswer step;
  step.ntasks = layout->ntasks;
  step.warning = layout->warning;
  step.time_limit_s = opt.time_limit_s;
  for (size_t i = 0; i < layout->nodes.size(); ++i) {
    std::string agent;
    for (const NodeRecord& n : *nodes) {
      if (n.node.name == layout->nodes[i]) agent = n.agent_address;
    }
    if (agent.empty()) {
      err << "srun: error: Invalid node name specified: " + layout->nodes[i] + "\n" << std::flush;
      return 1;
    }
    StepNode node{layout->nodes[i], agent, {}, std::nullopt};
    for (int t = 0; t < layout->tasks[i]; ++t) node.tasks.push_back(layout->first_task(i) + t);
    step.nodes.push_back(std::move(node));
  }
  // A job id no job of the controller's has: Slurm's range for them (0xffff0000..0xfffffffd).
  std::random_device rd;
  const int64_t job_id = 0xffff0000LL + static_cast<int64_t>(rd() % (0xfffffffdULL - 0xffff0000ULL + 1));
  step.job.id = job_id;
  return RunCreatedStep(opt, job_id, /*no_allocate=*/true, step, nullptr, out, err);
}

// srun outside an allocation: allocate one (an interactive job with srun's resource options),
// run the step in it, release it with the step's exit status.
int RunInNewAllocation(const SrunOptions& opt, std::ostream& out, std::ostream& err) {
  std::vector<std::string> resources;
  if (opt.nnodes > 0) resources.push_back("--nodes=" + std::to_string(opt.nnodes));
  if (opt.ntasks > 0) resources.push_back("--ntasks=" + std::to_string(opt.ntasks));
  if (opt.ntasks_per_node > 0) resources.push_back("--ntasks-per-node=" + std::to_string(opt.ntasks_per_node));
  if (opt.overcommit) resources.push_back("--overcommit");  // the allocation's CPUs as the step's
  resources.insert(resources.end(), opt.resource_args.begin(), opt.resource_args.end());
  StatusOr<std::unique_ptr<CtldClient>> c = CtldClient::Connect();
  if (!c.ok()) {
    err << "srun: error: Unable to allocate resources: " << c.status().message() << "\n";
    return 1;
  }
  char cwd[4096] = {0};
  if (getcwd(cwd, sizeof cwd) == nullptr) std::strcpy(cwd, "/");
  const std::string name = !opt.job_name.empty() ? opt.job_name : opt.command.front().substr(opt.command.front().rfind('/') + 1);
  JobSpec submit;
  // srun's resource options and dependency, read once, here (the controller takes them typed).
  Status st = SetResourceOptions(submit, std::move(resources));
  if (st.ok()) st = SetDependency(submit, opt.dependency);
  if (!st.ok()) {
    err << (opt.test_only ? "allocation failure: " : "srun: error: Unable to allocate resources: ") << st.message()
        << "\n";
    return 1;
  }
  submit.name = name;
  submit.interactive = true;
  submit.workdir = StepDirectory(opt.chdir, cwd);
  submit.account = opt.account;
  submit.qos = opt.qos;
  submit.requeue = false;
  submit.submit_host = LocalHostname();
  submit.submit_sid = static_cast<int64_t>(getsid(0));
  submit.hold = opt.hold;
  submit.options = opt.options;
  submit.nice = opt.nice;
  if (opt.test_only) {
    // As sbatch --test-only, in Slurm's words (src/api/allocate.c): "srun: Job 7 to start at ...
    // using 2 processors on nodes n[1-2] in partition gpu", or "allocation failure: <why>".
    StatusOr<WillRun> w = (*c)->TestOnly(submit);
    if (!w.ok()) {
      err << "allocation failure: " << w.status().message() << "\n";
      return 1;
    }
    err << WillRunLine("srun", *w);
    return 0;
  }
  StatusOr<int64_t> r = (*c)->Submit(submit);
  if (!r.ok()) {
    if (!(*c)->user_msg().empty()) err << "srun: error: " << (*c)->user_msg() << "\n";
    err << "srun: error: Unable to allocate resources: " << r.status().message() << "\n";
    return 1;
  }
  const int64_t id = *r;
  StatusOr<JobRecord> job = AwaitAllocation(**c, id, "srun", err, opt.immediate);
  if (!job.ok()) return 1;
  // The step sees the job as a step inside sbatch or salloc would.
  setenv("SLURM_JOB_ID", std::to_string(id).c_str(), 1);
  setenv("SLURM_JOBID", std::to_string(id).c_str(), 1);
  setenv("SLURM_JOB_NUM_NODES", std::to_string(job->allocation.size()).c_str(), 1);
  const int rc = CreateAndRunStep(opt, id, out, err);
  (void)(*c)->Complete(id, rc);
  return rc;
}

// srun --het-group=N inside a heterogeneous job: the component's variables (SLURM_JOB_ID_HET_GROUP_N,
// ...) stand for the job's, so that the step is sized and placed as one in that component's
// allocation (its tasks, nodes and CPUs), as Slurm's srun reads them.
void EnterHetGroup(const std::vector<std::string>& args) {
  std::string group;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") break;
    if (args[i].rfind("--het-group=", 0) == 0) group = args[i].substr(12);
    if (args[i] == "--het-group" && i + 1 < args.size()) group = args[i + 1];
  }
  if (group.empty() || group.find_first_not_of("0123456789") != std::string::npos) return;
  const std::string suffix = "_HET_GROUP_" + group;
  if (std::getenv(("SLURM_JOB_ID" + suffix).c_str()) == nullptr) return;  // (srun says what is wrong)
  static const char* const kVars[] = {"SLURM_JOB_ID", "SLURM_JOB_NODELIST", "SLURM_JOB_NUM_NODES", "SLURM_NTASKS",
                                      "SLURM_NPROCS", "SLURM_TASKS_PER_NODE", "SLURM_JOB_CPUS_PER_NODE",
                                      "SLURM_JOB_PARTITION", "SLURM_JOB_ACCOUNT", "SLURM_JOB_QOS", "SLURM_MEM_PER_CPU",
                                      "SLURM_MEM_PER_GPU", "SLURM_MEM_PER_NODE"};
  for (const char* var : kVars) {
    const char* v = std::getenv((std::string(var) + suffix).c_str());
    if (v != nullptr) {
      setenv(var, v, 1);
    } else {
      unsetenv(var);
    }
  }
  setenv("SLURM_JOBID", std::getenv("SLURM_JOB_ID"), 1);
  for (const auto& [alias, var] : {std::pair{"SLURM_NODELIST", "SLURM_JOB_NODELIST"}, std::pair{"SLURM_NNODES", "SLURM_JOB_NUM_NODES"}}) {
    if (const char* v = std::getenv(var); v != nullptr) setenv(alias, v, 1);
  }
  unsetenv("SLURM_NTASKS_PER_NODE");  // (the leader's)
}

}  // namespace

int SrunMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (std::getenv("SLURM_HET_SIZE") != nullptr) EnterHetGroup(args);
  StatusOr<SrunOptions> opt = ParseSrunArgs(args, [](const char* name) { return std::getenv(name); });
  if (!opt.ok()) {
    err << opt.status().message();
    // getopt's complaints end like Slurm's option errors, which exit -1 (255), and so do a bad
    // node count and --gpu-bind; the rest exit 1 (as Slurm 22.05's srun on the peer).
    const std::string& m = opt.status().message();
    const bool fatal = m.find("Try \"srun --help\"") != std::string::npos ||
                       m.find("is not a valid node count") != std::string::npos ||
                       m.find("Invalid --gpu-bind argument") != std::string::npos;
    return fatal ? 255 : 1;
  }
  if (opt->help) return out << SrunHelp(), 0;
  if (opt->usage) return out << SrunUsage(), 0;
  if (opt->version) return out << "muster 0.1.0 (srun)\n", 0;
  if (!opt->cpu_bind.empty()) err << "srun: cluster configuration lacks support for cpu binding\n";
  if (opt->verbose > 0) err << DefinedOptionsText(*opt);
  if (opt->no_allocate) return RunWithoutAllocation(*opt, out, err);
  // --test-only asks about a new allocation of the options, inside one too; nothing runs.
  if (opt->test_only) return RunInNewAllocation(*opt, out, err);
  std::string job = opt->jobid > 0 ? std::to_string(opt->jobid) : Env("SLURM_JOB_ID");
  if (job.empty()) job = Env("SLURM_JOBID");
  std::string job_nodelist = Env("SLURM_JOB_NODELIST");
  if (opt->het_group >= 0) {
    // A heterogeneous job's component: the step runs in that component's job, on its nodes.
    const std::string size = Env("SLURM_HET_SIZE");
    if (job.empty() || size.empty()) {
      err << "srun: error: --het-group: not inside a heterogeneous job's allocation (SLURM_HET_SIZE is not set)\n";
      return 1;
    }
    const std::string suffix = "_HET_GROUP_" + std::to_string(opt->het_group);
    if (Env(("SLURM_JOB_ID" + suffix).c_str()).empty()) {
      err << "srun: error: Attempt to run a job step with het group value of " << opt->het_group
          << ", but the job allocation has maximum value of " << (std::atoi(size.c_str()) - 1) << "\n";
      return 1;
    }
    // (EnterHetGroup made the component's variables the job's.)
  }
  if (job.empty()) return RunInNewAllocation(*opt, out, err);
  for (const std::string& a : opt->resource_args) {
    if (ShapesStep(a)) continue;
    err << "srun: warning: " << a << " applies to a new allocation only; the step runs on the job's resources\n";
    break;
  }
  if (job.size() > 18 || job.find_first_not_of("0123456789") != std::string::npos) {
    err << "srun: error: Invalid job id specified: SLURM_JOB_ID=" << job << "\n";
    return 1;
  }
  // A task count that --ntasks-per-node times the nodes does not make: Slurm drops the per-node
  // count (saying so when the command line gave it, not SLURM_NTASKS_PER_NODE).
  if (opt->ntasks > 0 && opt->ntasks_per_node > 0 && opt->nnodes > 0 && opt->ntasks != opt->nnodes * opt->ntasks_per_node) {
    if (opt->ntasks_per_node_cli) {
      err << "srun: Warning: can't honor --ntasks-per-node set to " << opt->ntasks_per_node
          << " which doesn't match the requested tasks " << opt->ntasks << " with the number of requested nodes "
          << opt->nnodes << ". Ignoring --ntasks-per-node.\n";
    }
    opt->ntasks_per_node = 0;
  }
  // More nodes than the job has (less the -x ones), as srun checks before asking (Slurm's words).
  StatusOr<std::vector<std::string>> job_nodes = ExpandHostlist(job_nodelist);
  if (opt->nnodes > 0 && job_nodes.ok() && !job_nodes->empty()) {
    std::vector<std::string> excluded;
    for (const std::string& a : opt->resource_args) {
      if (a.rfind("--exclude=", 0) != 0) continue;
      StatusOr<std::vector<std::string>> x = ExpandHostlist(a.substr(10));
      if (x.ok()) excluded.insert(excluded.end(), x->begin(), x->end());
    }
    const long usable = std::count_if(job_nodes->begin(), job_nodes->end(), [&](const std::string& n) {
      return std::find(excluded.begin(), excluded.end(), n) == excluded.end();
    });
    if (opt->nnodes > usable) {
      err << "srun: error: Only allocated " << usable << " nodes asked for " << opt->nnodes << "\n";
      if (usable < static_cast<long>(job_nodes->size())) err << "srun: error: Are required nodes explicitly excluded?\n";
      return 1;
    }
  }
  return CreateAndRunStep(*opt, std::stoll(job), out, err);
}

}  // namespace muster
