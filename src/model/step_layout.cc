#include "model/step_layout.h"

#include <algorithm>
#include <map>

#include "model/hostlist.h"

namespace muster {

int StepLayout::first_task(size_t node_index) const {
  int first = 0;
  for (size_t i = 0; i < node_index && i < tasks.size(); ++i) first += tasks[i];
  return first;
}

std::vector<int> BlockTaskCounts(int ntasks, int nnodes) {
  if (nnodes <= 0) return {};
  std::vector<int> out(nnodes, ntasks / nnodes);
  for (int i = 0; i < ntasks % nnodes; ++i) out[i] += 1;
  return out;
}

StatusOr<StepLayout> PlanStepLayout(const std::vector<NodeAllocation>& allocation, const StepShapeRequest& request) {
  if (request.ntasks < 0) return InvalidArgument("Invalid number of tasks (-n " + std::to_string(request.ntasks) + ")");
  if (request.nnodes < 0) return InvalidArgument("invalid number of nodes (-N " + std::to_string(request.nnodes) + ")");
  if (request.ntasks_per_node < 0) return InvalidArgument("Invalid --ntasks-per-node");
  std::map<std::string, int> tasks_on;
  std::vector<std::string> names;
  for (const NodeAllocation& a : allocation) {
    if (!tasks_on.count(a.node)) names.push_back(a.node);
    tasks_on[a.node] = std::max(1, a.tasks);
  }
  if (names.empty()) return FailedPrecondition("the job has no allocated nodes");
  // Slurm's node order (that of the compressed node list), as SLURM_NODEID counts them.
  StatusOr<std::vector<std::string>> ordered = ExpandHostlist(CompressHostlist(names));
  if (ordered.ok()) names = *ordered;
  const auto listed = [](const std::vector<std::string>& list, const std::string& n) {
    return std::find(list.begin(), list.end(), n) != list.end();
  };
  for (const std::string& w : request.nodelist) {
    if (!tasks_on.count(w) || listed(request.exclude, w)) {
      return InvalidArgument("Requested node configuration is not available");
    }
  }
  if (request.nnodes > 0 && static_cast<size_t>(request.nnodes) < request.nodelist.size()) {
    return InvalidArgument("Requested node configuration is not available");
  }
  const std::vector<std::string> job_order = names;
  std::erase_if(names, [&](const std::string& n) { return listed(request.exclude, n); });
  // -w's nodes first (in the job's order), then the others for a larger -N.
  // Then those with room for the step before the busy ones.
  std::stable_partition(names.begin(), names.end(), [&](const std::string& n) { return !listed(request.busy, n); });
  std::stable_partition(names.begin(), names.end(), [&](const std::string& n) { return listed(request.nodelist, n); });
  if (names.empty()) return InvalidArgument("Requested node configuration is not available");
  const int allocated = static_cast<int>(names.size());
  if (request.nnodes > allocated) {
    return InvalidArgument("Only allocated " + std::to_string(allocated) + " nodes asked for " +
                           std::to_string(request.nnodes));
  }
  StepLayout layout;
  int nnodes = request.nnodes > 0        ? request.nnodes
               : !request.nodelist.empty() ? static_cast<int>(request.nodelist.size())
                                           : allocated;
  int ntasks = request.ntasks;
  if (ntasks == 0) {
    if (request.ntasks_per_node > 0) {
      ntasks = nnodes * request.ntasks_per_node;
    } else {
      for (int i = 0; i < nnodes; ++i) ntasks += tasks_on[names[i]];
    }
  }
  if (ntasks < nnodes) {
    if (request.nnodes > 0) {
      layout.warning = "can't run " + std::to_string(ntasks) + " processes on " + std::to_string(nnodes) +
                       " nodes, setting nnodes to " + std::to_string(ntasks);
    }
    nnodes = ntasks;
  }
  if (request.ntasks_per_node > 0 && ntasks > nnodes * request.ntasks_per_node) {
    return InvalidArgument("Requested node configuration is not available");
  }
  layout.nodes.assign(names.begin(), names.begin() + nnodes);
  std::sort(layout.nodes.begin(), layout.nodes.end(), [&](const std::string& a, const std::string& b) {
    return std::find(job_order.begin(), job_order.end(), a) < std::find(job_order.begin(), job_order.end(), b);
  });
  layout.tasks = BlockTaskCounts(ntasks, nnodes);
  layout.ntasks = ntasks;
  return layout;
}

std::vector<int> JobGpusOn(const std::vector<NodeAllocation>& allocation, const std::string& node) {
  std::vector<int> gpus;
  for (const NodeAllocation& a : allocation) {
    if (a.node != node) continue;
    for (const GpuShare& g : a.gpus) gpus.push_back(g.index);
  }
  std::sort(gpus.begin(), gpus.end());
  gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());
  return gpus;
}

StatusOr<std::vector<std::vector<int>>> PlanStepGpus(
    const std::vector<NodeAllocation>& allocation, const StepLayout& layout, const StepGpuRequest& request,
    const std::function<bool(const std::string& node, int gpu)>& held) {
  const int n = static_cast<int>(layout.nodes.size());
  std::vector<std::vector<int>> out;
  for (int i = 0; i < n; ++i) {
    const std::string& node = layout.nodes[i];
    const std::vector<int> job = JobGpusOn(allocation, node);
    int64_t want = static_cast<int64_t>(job.size());
    if (request.given) {
      const int tasks = i < static_cast<int>(layout.tasks.size()) ? layout.tasks[i] : 0;
      want = request.per_task > 0 ? int64_t{request.per_task} * tasks
             : request.per_node > 0 ? request.per_node
             : request.total > 0    ? request.total / n + (i < request.total % n ? 1 : 0)
                                    : 0;
    }
    if (want > static_cast<int64_t>(job.size())) {
      return InvalidArgument("Invalid generic resource (gres) specification (the step asks " + std::to_string(want) +
                             " GPUs on " + node + ", the job has " + std::to_string(job.size()) + ")");
    }
    std::vector<int> take;
    for (int g : job) {
      if (static_cast<int64_t>(take.size()) == want) break;
      if (held == nullptr || !held(node, g)) take.push_back(g);
    }
    if (static_cast<int64_t>(take.size()) < want) return Status(StatusCode::kUnavailable, "Requested nodes are busy");
    out.push_back(std::move(take));
  }
  return out;
}

}  // namespace muster
