#include "sched/plan.h"

#include <algorithm>
#include <bit>

namespace muster {

Plan::Plan(const ClusterIndex& index, const ClusterSnapshot& snapshot, View view)
    : index_(index) {
  Load(snapshot, view);
}

void Plan::Load(const ClusterSnapshot& snapshot, View view) {
  const ClusterIndex& index = index_;
  const int n = index.size();
  undo_.clear();
  nodes_.assign(n, NodeFree{});
  offset_.resize(n + 1);
  usable_ = view == View::kEmptyAll ? DynamicBitset(n, true) : index.schedulable();
  buckets_.assign(index.max_gpus_per_node() + 1, DynamicBitset(n));
  partial_nodes_ = DynamicBitset(n);
  int total_gpus = 0;
  for (int i = 0; i < n; ++i) {
    offset_[i] = total_gpus;
    total_gpus += static_cast<int>(index.node(i).node->gpus.size());
  }
  offset_[n] = total_gpus;
  gpu_used_.assign(total_gpus, 0);
  for (int i = 0; i < n; ++i) {
    const IndexedNode& in = index.node(i);
    const Node& node = *in.node;
    NodeFree& f = nodes_[i];
    f.cpu_milli = int64_t{node.cpus} * 1000;
    f.memory_mb = node.memory_mb;
    const int g = static_cast<int>(node.gpus.size());
    f.free_mask = g >= 64 ? ~uint64_t{0} : (uint64_t{1} << g) - 1;
    if (view == View::kCurrent && !snapshot.usage.empty()) {
      const NodeUsage& u = snapshot.usage[in.snapshot_pos];
      f.cpu_milli -= u.cpu_milli;
      f.memory_mb -= u.memory_mb;
      f.jobs = u.jobs;
      f.exclusive = u.exclusive;
      // (Without branches: a pass loads every GPU of the cluster.)
      const int m = std::min(static_cast<int>(u.gpus.size()), g);
      int16_t* used = gpu_used_.data() + offset_[i];
      uint64_t busy = 0, partial = 0;
      for (int k = 0; k < m; ++k) {
        const int milli = u.gpus[k].milli;
        used[k] = static_cast<int16_t>(milli);
        busy |= uint64_t{milli > 0} << k;
        partial |= uint64_t{milli > 0 && milli < kMilliPerGpu} << k;
      }
      f.free_mask &= ~busy;
      f.partial_mask |= partial;
    }
    if (usable_.test(i)) {
      buckets_[free_whole(i)].set(i);
      if (f.partial_mask) partial_nodes_.set(i);
    }
  }
}

int Plan::free_whole(int node) const {
  return std::popcount(nodes_[node].free_mask & index_.node(node).whole_mask);
}

void Plan::Reindex(int node, const NodeFree& before) {
  if (!usable_.test(node)) return;
  int old_k = std::popcount(before.free_mask & index_.node(node).whole_mask);
  int new_k = free_whole(node);
  if (old_k != new_k) {
    buckets_[old_k].reset(node);
    buckets_[new_k].set(node);
  }
  partial_nodes_.assign(node, nodes_[node].partial_mask != 0);
}

bool Plan::Fits(int node, const NodeAllocation& a) const {
  if (node < 0 || node >= static_cast<int>(nodes_.size()) || !usable_.test(node)) return false;
  const NodeFree& f = nodes_[node];
  if (a.cpu_milli > f.cpu_milli || a.memory_mb > f.memory_mb || f.exclusive || (a.exclusive && f.jobs > 0)) {
    return false;
  }
  const int gpus = offset_[node + 1] - offset_[node];
  for (const GpuShare& s : a.gpus) {
    if (s.index < 0 || s.index >= gpus || s.milli <= 0 || gpu_used_[offset_[node] + s.index] + s.milli > kMilliPerGpu) {
      return false;
    }
  }
  return true;
}

void Plan::Take(int node, const NodeAllocation& a, bool new_job) {
  NodeFree& f = nodes_[node];
  const NodeFree before = f;
  MUSTER_CHECK(a.cpu_milli <= f.cpu_milli && a.memory_mb <= f.memory_mb && !f.exclusive)
      << "over-allocation on node " << index_.node(node).node->name;
  MUSTER_CHECK(!a.exclusive || f.jobs == 0) << "exclusive allocation on a busy node";
  undo_.push_back(Undo{node, before, -1, 0});
  f.cpu_milli -= a.cpu_milli;
  f.memory_mb -= a.memory_mb;
  if (new_job) f.jobs += 1;
  f.exclusive = f.exclusive || a.exclusive;
  for (const GpuShare& s : a.gpus) {
    int16_t& used = gpu_used_[offset_[node] + s.index];
    MUSTER_CHECK(s.milli > 0 && used + s.milli <= kMilliPerGpu)
        << "GPU " << s.index << " of " << index_.node(node).node->name << " over-allocated";
    undo_.push_back(Undo{node, before, s.index, used});
    used = static_cast<int16_t>(used + s.milli);
    const uint64_t bit = uint64_t{1} << s.index;
    f.free_mask &= ~bit;
    if (used < kMilliPerGpu) {
      f.partial_mask |= bit;
    } else {
      f.partial_mask &= ~bit;
    }
  }
  Reindex(node, before);
}

void Plan::Release(int node, const NodeAllocation& a, bool job_leaves) {
  NodeFree& f = nodes_[node];
  const NodeFree before = f;
  const Node& n = *index_.node(node).node;
  MUSTER_CHECK(f.cpu_milli + a.cpu_milli <= int64_t{n.cpus} * 1000 && f.memory_mb + a.memory_mb <= n.memory_mb &&
               f.jobs > 0)
      << "release of more than is in use on node " << n.name;
  undo_.push_back(Undo{node, before, -1, 0});
  f.cpu_milli += a.cpu_milli;
  f.memory_mb += a.memory_mb;
  if (job_leaves) f.jobs -= 1;
  if (a.exclusive) f.exclusive = false;
  for (const GpuShare& s : a.gpus) {
    int16_t& used = gpu_used_[offset_[node] + s.index];
    MUSTER_CHECK(s.milli > 0 && used >= s.milli) << "GPU " << s.index << " of " << n.name << " released twice";
    undo_.push_back(Undo{node, before, s.index, used});
    used = static_cast<int16_t>(used - s.milli);
    const uint64_t bit = uint64_t{1} << s.index;
    if (used == 0) {
      f.free_mask |= bit;
      f.partial_mask &= ~bit;
    } else {
      f.partial_mask |= bit;
    }
  }
  Reindex(node, before);
}

void Plan::Rollback(int mark) {
  MUSTER_CHECK(mark >= 0 && mark <= static_cast<int>(undo_.size())) << "bad checkpoint " << mark;
  while (static_cast<int>(undo_.size()) > mark) {
    const Undo u = undo_.back();
    undo_.pop_back();
    if (u.gpu >= 0) {
      gpu_used_[offset_[u.node] + u.gpu] = u.gpu_used_before;
    } else {
      const NodeFree now = nodes_[u.node];
      nodes_[u.node] = u.before;
      Reindex(u.node, now);
    }
  }
}

}  // namespace muster
