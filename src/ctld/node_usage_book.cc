#include "ctld/node_usage_book.h"

#include <algorithm>

#include "base/check.h"

namespace muster {

const std::vector<NodeUsage>& NodeUsageBook::Current(NodeTable::Access& nodes, const ActiveJobs& jobs) {
  if (stale_ || epoch_ != nodes.epoch()) {
    Recount(nodes, jobs, usage_, exclusive_);
    stale_ = false;
    epoch_ = nodes.epoch();
  } else {
#ifndef NDEBUG
    // Debug builds (the test suites) check the count kept against a recount at every read.
    std::vector<NodeUsage> fresh;
    std::vector<int> exclusive;
    Recount(nodes, jobs, fresh, exclusive);
    MUSTER_CHECK(fresh == usage_ && exclusive == exclusive_) << "the usage kept drifted from the jobs";
#endif
  }
  return usage_;
}

void NodeUsageBook::Count(const JobRecord& job, int sign) {
  if (!stale_) CountInto(job, sign, usage_, exclusive_);
}

void NodeUsageBook::Add(std::vector<NodeUsage>& usage, const NodeAllocation& a) const {
  const int p = nodes_.Pos(a.node);
  if (p < 0) return;
  NodeUsage& u = usage[p];
  u.cpu_milli += a.cpu_milli;
  u.memory_mb += a.memory_mb;
  u.jobs += 1;
  u.exclusive = u.exclusive || a.exclusive;
  for (const GpuShare& g : a.gpus) {
    if (g.index >= 0 && g.index < static_cast<int>(u.gpus.size())) u.gpus[g.index].milli += g.milli;
  }
}

void NodeUsageBook::SetNodeStates(NodeTable::Access& nodes, const ActiveJobs& jobs) {
  const std::vector<NodeUsage>& usage = Current(nodes, jobs);
  for (size_t i = 0; i < nodes.size(); ++i) {
    NodeRecord& r = nodes.at(i);
    if (r.node.state == NodeState::kDown || r.node.state == NodeState::kUnknown || r.node.state == NodeState::kFuture) {
      continue;
    }
    const NodeUsage& u = usage[i];
    const bool any_gpu_free =
        std::any_of(u.gpus.begin(), u.gpus.end(), [](const GpuUsage& g) { return g.milli < kMilliPerGpu; });
    const bool full = u.exclusive || u.cpu_milli >= int64_t{r.node.cpus} * 1000 ||
                      (!u.gpus.empty() && !any_gpu_free);
    r.node.state = u.jobs == 0 ? NodeState::kIdle : (full ? NodeState::kAllocated : NodeState::kMixed);
  }
}

void NodeUsageBook::Recount(NodeTable::Access& nodes, const ActiveJobs& jobs, std::vector<NodeUsage>& usage,
                            std::vector<int>& exclusive) const {
  usage.assign(nodes.size(), NodeUsage{});
  exclusive.assign(nodes.size(), 0);
  for (size_t i = 0; i < nodes.size(); ++i) usage[i].gpus.resize(nodes.at(i).node.gpus.size());
  for (const auto& [id, job] : jobs) CountInto(*job, 1, usage, exclusive);
  // A GPU its node's health watch took out is taken: no job gets it.
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const GpuFault& f : nodes.at(i).failed_gpus) {
      if (f.index >= 0 && f.index < static_cast<int>(usage[i].gpus.size())) usage[i].gpus[f.index].milli += kMilliPerGpu;
    }
  }
}

void NodeUsageBook::CountInto(const JobRecord& j, int sign, std::vector<NodeUsage>& usage,
                              std::vector<int>& exclusive) const {
  if (!HoldsResources(j.state)) return;
  const bool cpus = HoldsCpus(j);  // a suspended job gave its CPUs back
  for (const NodeAllocation& a : j.allocation) {
    const int p = nodes_.Pos(a.node);
    if (p < 0) continue;
    NodeUsage& u = usage[p];
    if (cpus) u.cpu_milli += sign * a.cpu_milli;
    u.memory_mb += sign * a.memory_mb;
    u.jobs += sign;
    if (a.exclusive) exclusive[p] += sign;
    u.exclusive = exclusive[p] > 0;
    for (const GpuShare& g : a.gpus) {
      if (g.index >= 0 && g.index < static_cast<int>(u.gpus.size())) u.gpus[g.index].milli += sign * g.milli;
    }
  }
}

}  // namespace muster
