// The controller's job steps (srun inside an allocation): creating them on the job's nodes,
// recording their ends, and ending those left running with their job.
#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ctld/controller.h"

namespace muster {

std::vector<StepRecord> Controller::ListSteps() const { return steps_.List(); }

namespace {

// The record of node `name` among `nodes`; nullptr: not there.
const NodeRecord* FindNode(const std::vector<NodeRecord>& nodes, const std::string& name) {
  for (const NodeRecord& n : nodes) {
    if (n.node.name == name) return &n;
  }
  return nullptr;
}

// The job's CPUs (at least one) and memory on a node.
int JobCpusOn(const JobRecord& job, const std::string& node) {
  int cpus = 1;
  for (const NodeAllocation& a : job.allocation) {
    if (a.node == node) cpus = std::max(static_cast<int>(CpusOf(a)), 1);
  }
  return cpus;
}
int64_t JobMemOn(const JobRecord& job, const std::string& node) {
  int64_t mem = 0;
  for (const NodeAllocation& a : job.allocation) {
    if (a.node == node) mem += a.memory_mb;
  }
  return mem;
}

// A step's CPUs per task, and whether it takes the job's CPUs on its nodes (no --exact nor
// --cpus-per-task).
int PerTaskCpus(const StepRequest& request) { return std::max(request.cpus_per_task, 1); }
bool TakesWholeNodes(const StepRequest& request) { return !request.exact && request.cpus_per_task <= 0; }
// The CPUs its tasks use on node i of its layout.
int64_t TaskCpus(const StepRequest& request, const StepLayout& layout, size_t i) {
  return int64_t{layout.tasks[i]} * PerTaskCpus(request);
}

// The step's shape, the job's nodes that do not satisfy its --constraint excluded.
StatusOr<StepShapeRequest> ConstrainedShape(const StepRequest& request, const JobRecord& job,
                                            const std::vector<NodeRecord>& job_nodes) {
  StepShapeRequest shape = request.shape;
  if (!request.constraint.empty()) {
    ASSIGN_OR_RETURN(const std::vector<std::vector<std::string>> terms, ParseConstraint(request.constraint));
    for (const NodeAllocation& a : job.allocation) {
      const NodeRecord* n = FindNode(job_nodes, a.node);
      if (n == nullptr || !SatisfiesConstraint(n->node, terms)) shape.exclude.push_back(a.node);
    }
  }
  return shape;
}

// The shape as placed beside the job's running steps: the nodes where they leave no room for one
// of its tasks go last.
StepShapeRequest BesideRunningSteps(StepShapeRequest placed, const StepRequest& request, const JobRecord& job,
                                    std::span<const StepRecord> running) {
  for (const NodeAllocation& a : job.allocation) {
    if (request.overlap) break;
    const int cpus = JobCpusOn(job, a.node);
    const int want = TakesWholeNodes(request) ? cpus : PerTaskCpus(request);
    if (StepTable::HeldOn(running, a.node, &StepRecord::node_cpus) + want > cpus) placed.busy.push_back(a.node);
  }
  return placed;
}

// The CPUs the step takes on each node of its layout, beside those the job's running steps hold
// (none listed for an --overlap step). `job_cpus`: the job's on each of those nodes.
StatusOr<std::vector<int>> StepCpus(const StepRequest& request, const StepLayout& layout,
                                    const std::vector<int>& job_cpus, std::span<const StepRecord> running) {
  // Never more tasks (times their CPUs) on a node than the job has CPUs there, unless overcommitted.
  for (size_t i = 0; i < layout.nodes.size() && !request.overcommit; ++i) {
    if (TaskCpus(request, layout, i) > job_cpus[i]) return InvalidArgument("More processors requested than permitted");
  }
  std::vector<int> need;
  if (request.overlap) return need;
  for (size_t i = 0; i < layout.nodes.size(); ++i) {
    const std::string& n = layout.nodes[i];
    const int want = TakesWholeNodes(request) ? job_cpus[i] : static_cast<int>(TaskCpus(request, layout, i));
    if (want > job_cpus[i]) {
      return InvalidArgument("Requested node configuration is not available (the step needs " +
                             std::to_string(want) + " CPUs on " + n + ", the job has " +
                             std::to_string(job_cpus[i]) + ")");
    }
    if (StepTable::HeldOn(running, n, &StepRecord::node_cpus) + want > job_cpus[i]) {
      return Status(StatusCode::kUnavailable, "Requested nodes are busy");
    }
    need.push_back(want);
  }
  return need;
}

// The memory the step takes on each node of its layout, beside the job's running steps (--overlap
// too); empty when it takes none. `need`, `gpus`: its CPUs and GPUs there; `job_cpus`, `job_mem`:
// the job's.
StatusOr<std::vector<int64_t>> StepMemory(const StepRequest& request, const JobRecord& job, const StepLayout& layout,
                                          const std::vector<int>& need, const std::vector<std::vector<int>>& gpus,
                                          const std::vector<int>& job_cpus, const std::vector<int64_t>& job_mem,
                                          std::span<const StepRecord> running) {
  std::vector<int64_t> mem(layout.nodes.size(), 0);
  bool holds_mem = false;
  for (size_t i = 0; i < layout.nodes.size(); ++i) {
    if (job_mem[i] <= 0) continue;  // no memory accounted on this cluster
    const int64_t cpus = request.overlap ? TaskCpus(request, layout, i) : need[i];
    int64_t want = 0;
    if (request.mem_mb >= 0) {
      want = request.mem_mb == 0 ? job_mem[i] : request.mem_mb;
    } else if (request.mem_per_cpu_mb > 0) {
      want = request.mem_per_cpu_mb * cpus;
    } else if (request.mem_per_gpu_mb > 0) {
      want = request.mem_per_gpu_mb * static_cast<int64_t>(i < gpus.size() ? gpus[i].size() : 0);
    } else if (job.request.mem_per_node_mb > 0) {
      want = job_mem[i];
    } else {
      want = job_mem[i] * cpus / job_cpus[i];
    }
    if (StepTable::HeldOn(running, layout.nodes[i], &StepRecord::node_mem_mb) + want > job_mem[i]) {
      return InvalidArgument("Memory required by task is not available");
    }
    mem[i] = want;
    holds_mem = holds_mem || want > 0;
  }
  if (!holds_mem) mem.clear();
  return mem;
}

}  // namespace

StatusOr<StepCreated> Controller::CreateStep(int64_t job_id, const StepRequest& request, const Caller& caller) {
  if (!caller.authenticated) return Status(StatusCode::kUnauthenticated, "authentication required: " + caller.error);
  StepCreated out;
  {
    JobsLock lock(this);
    const JobRecord* held = jobs_.Find(job_id);
    if (held == nullptr) return NotFound("Invalid job id specified");
    const JobRecord& job = *held;
    if (job.uid != caller.uid && !IsAdmin(caller)) return Status(StatusCode::kPermissionDenied, "Access/permission denied");
    if (job.state == JobState::kPending) return FailedPrecondition("Job is pending execution");
    if (job.state != JobState::kRunning) return FailedPrecondition("Job/step already completing or completed");
    // The job's nodes as they are now (their features, their agents' addresses).
    std::vector<std::string> names;
    for (const NodeAllocation& a : job.allocation) names.push_back(a.node);
    const std::vector<NodeRecord> job_nodes = nodes_.Get(names);
    ASSIGN_OR_RETURN(const StepShapeRequest shape, ConstrainedShape(request, job, job_nodes));
    std::optional<StepLayout> layout;
    // What it takes beside the job's running steps, decided and taken in one go (with its id).
    const auto plan = [&](std::span<const StepRecord> running) -> StatusOr<StepRecord> {
      ASSIGN_OR_RETURN(layout, PlanStepLayout(job.allocation, BesideRunningSteps(shape, request, job, running)));
      std::vector<int> job_cpus;
      std::vector<int64_t> job_mem;
      for (const std::string& n : layout->nodes) {
        job_cpus.push_back(JobCpusOn(job, n));
        job_mem.push_back(JobMemOn(job, n));
      }
      ASSIGN_OR_RETURN(std::vector<int> need, StepCpus(request, *layout, job_cpus, running));
      // Its GPUs, beside those the job's other running steps hold (an --overlap step shares them).
      const auto gpu_held = [&](const std::string& n, int gpu) { return StepTable::GpuHeld(running, n, gpu); };
      StatusOr<std::vector<std::vector<int>>> gpus =
          PlanStepGpus(job.allocation, *layout, request.gpus,
                       request.overlap ? std::function<bool(const std::string&, int)>() : gpu_held);
      if (!gpus.ok()) return gpus.status();
      ASSIGN_OR_RETURN(std::vector<int64_t> mem,
                       StepMemory(request, job, *layout, need, *gpus, job_cpus, job_mem, running));
      StepRecord step;
      step.name = request.name.empty() ? "step" : request.name;
      step.nodes = layout->nodes;
      step.node_cpus = std::move(need);
      if (!mem.empty()) step.node_mem_mb = std::move(mem);
      if (std::any_of(gpus->begin(), gpus->end(), [](const std::vector<int>& g) { return !g.empty(); })) {
        step.node_gpus = std::move(*gpus);
      }
      step.ntasks = layout->ntasks;
      step.time_limit_s = std::max<int64_t>(request.time_limit_s, 0);
      step.state = JobState::kRunning;
      step.start_time = clock_->NowSeconds();
      for (const std::string& n : layout->nodes) {
        const NodeRecord* node = FindNode(job_nodes, n);
        if (node == nullptr) return Internal("node '" + n + "' of job " + std::to_string(job_id) + " is not configured");
        out.nodes.push_back(*node);
      }
      return step;
    };
    ASSIGN_OR_RETURN(out.step, steps_.Create(job_id, plan));
    out.job = job;
    out.layout = std::move(*layout);
  }
  Status st = store_->SaveStep(out.step);
  if (!st.ok()) {
    steps_.Erase(job_id, out.step.step_id);
    return st;
  }
  return out;
}

Status Controller::FinishStep(int64_t job_id, int step_id, int exit_code, const Caller& caller) {
  if (!caller.authenticated) return Status(StatusCode::kUnauthenticated, "authentication required: " + caller.error);
  std::optional<StepRecord> ended;
  {
    JobsLock lock(this);
    const JobRecord* job = jobs_.Find(job_id);
    if (job == nullptr) return NotFound("Invalid job id specified");
    if (job->uid != caller.uid && !IsAdmin(caller)) {
      return Status(StatusCode::kPermissionDenied, "Access/permission denied");
    }
    ASSIGN_OR_RETURN(ended, steps_.Finish(job_id, step_id, exit_code, clock_->NowSeconds()));
  }
  if (!ended) return Status::Ok();  // already recorded
  return store_->SaveStep(*ended);
}

// Steps still RUNNING when their job ends (srun killed with the job, or gone without reporting)
// end with it, as CANCELLED at the job's end.
void Controller::EndStepsLocked(const JobRecord& job) { steps_.EndJob(job.id, job.end_time); }

}  // namespace muster
