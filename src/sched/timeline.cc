#include "sched/timeline.h"

#include <algorithm>
#include <utility>

namespace muster {
namespace {

void Apply(NodeUsage& u, const NodeAllocation& a, int sign) {
  u.cpu_milli += sign * a.cpu_milli;
  u.memory_mb += sign * a.memory_mb;
  u.jobs += sign;
  if (a.exclusive) u.exclusive = sign > 0;  // an exclusive job is the node's only one
  for (const GpuShare& g : a.gpus) {
    if (g.index >= 0 && g.index < static_cast<int>(u.gpus.size())) u.gpus[g.index].milli += sign * g.milli;
  }
}

void Raise(NodeUsage& peak, const NodeUsage& now) {
  peak.cpu_milli = std::max(peak.cpu_milli, now.cpu_milli);
  peak.memory_mb = std::max(peak.memory_mb, now.memory_mb);
  peak.jobs = std::max(peak.jobs, now.jobs);
  peak.exclusive = peak.exclusive || now.exclusive;
  for (size_t g = 0; g < peak.gpus.size(); ++g) peak.gpus[g].milli = std::max(peak.gpus[g].milli, now.gpus[g].milli);
}

}  // namespace

Timeline::Timeline(const ClusterIndex& index, const ClusterSnapshot& snapshot) : index_(index) {
  residual_.resize(snapshot.nodes.size());
  for (size_t i = 0; i < snapshot.nodes.size(); ++i) {
    if (i < snapshot.usage.size()) residual_[i] = snapshot.usage[i];
    residual_[i].gpus.resize(snapshot.nodes[i].gpus.size());
  }
  for (const RunningJob& r : snapshot.running) {
    // A job past its time limit still holds what it has until it is gone (SIGTERM, then SIGKILL):
    // it counts as held for this second at least, never as free.
    const int64_t end = r.end_time == kUnlimited ? kForever : std::max(r.end_time, snapshot.now + 1);
    Add(r.allocation, snapshot.now, end);
    // What the running job holds is in `usage` already: it leaves the residual.
    for (const Held& h : intervals_.back().held) Apply(residual_[h.pos], h.a, -1);
  }
  for (NodeUsage& u : residual_) {  // an inconsistent snapshot must not free more than it has
    u.cpu_milli = std::max<int64_t>(0, u.cpu_milli);
    u.memory_mb = std::max<int64_t>(0, u.memory_mb);
    u.jobs = std::max(0, u.jobs);
    for (GpuUsage& g : u.gpus) g.milli = std::max(0, g.milli);
  }
}

void Timeline::Add(const std::vector<NodeAllocation>& allocation, int64_t start, int64_t end) {
  Interval iv{start, end, {}};
  for (const NodeAllocation& a : allocation) {
    const int i = index_.Find(a.node);
    if (i < 0) continue;  // not a node of this cluster: Validate() rejects such snapshots
    iv.held.push_back({index_.node(i).snapshot_pos, a});
  }
  intervals_.push_back(std::move(iv));
}

void Timeline::PeakUsage(int64_t a, int64_t b, std::vector<NodeUsage>& peak) const {
  std::vector<NodeUsage>& now = now_;
  now = residual_;  // (assigned over: the buffers of each node's GPUs are reused)
  // (time, interval, +1 start / -1 end): ends sort before starts at the same time.
  std::vector<std::pair<int64_t, std::pair<int, int>>>& events = events_;
  events.clear();
  for (size_t k = 0; k < intervals_.size(); ++k) {
    const Interval& iv = intervals_[k];
    if (iv.end <= a || iv.start >= b || iv.start >= iv.end) continue;
    if (iv.start <= a) {
      for (const Held& h : iv.held) Apply(now[h.pos], h.a, +1);
    } else {
      events.push_back({iv.start, {1, static_cast<int>(k)}});
    }
    if (iv.end < b) events.push_back({iv.end, {0, static_cast<int>(k)}});
  }
  std::sort(events.begin(), events.end());
  peak = now;
  for (size_t e = 0; e < events.size();) {
    const int64_t t = events[e].first;
    const size_t first = e;
    for (; e < events.size() && events[e].first == t; ++e) {
      const Interval& iv = intervals_[events[e].second.second];
      const int sign = events[e].second.first == 1 ? +1 : -1;
      for (const Held& h : iv.held) Apply(now[h.pos], h.a, sign);
    }
    // Only a node an interval starts on can hold more than before: an end only gives back, and
    // every other node is as it was, at most its peak already.
    for (size_t k = first; k < e; ++k) {
      if (events[k].second.first != 1) continue;
      for (const Held& h : intervals_[events[k].second.second].held) Raise(peak[h.pos], now[h.pos]);
    }
  }
}

std::vector<int64_t> Timeline::StartTimes(int64_t from, int64_t until) const {
  std::vector<int64_t> t{from};
  for (const Interval& iv : intervals_) {
    if (iv.end > from && iv.end <= until) t.push_back(iv.end);
  }
  std::sort(t.begin(), t.end());
  t.erase(std::unique(t.begin(), t.end()), t.end());
  return t;
}

}  // namespace muster
