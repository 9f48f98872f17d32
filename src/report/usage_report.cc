#include "report/usage_report.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "report/slurm_format.h"

namespace muster {
namespace {

constexpr int64_t kHour = 3600;
enum Tres { kCpu = 0, kGpu = 1 };

struct Hour {
  int64_t begin = 0, end = 0;
  int64_t alloc[2] = {0, 0}, down[2] = {0, 0}, pdown[2] = {0, 0};
  int64_t plan = 0;  // CPU only
};

// Calls add(hour, seconds) for each hour that [a, b) overlaps.
template <class F>
void Spread(std::vector<Hour>& hours, int64_t a, int64_t b, F add) {
  if (hours.empty()) return;
  const int64_t first = hours.front().begin;
  a = std::max(a, first);
  b = std::min(b, hours.back().end);
  if (a >= b) return;
  // hours[0] may begin inside its hour (at `since`); the others at the period's hour boundaries.
  const int64_t aligned = hours.size() > 1 ? hours[1].begin - kHour : first;
  for (size_t i = static_cast<size_t>((a - aligned) / kHour); i < hours.size() && hours[i].begin < b; ++i) {
    const int64_t s = Overlap(a, b, hours[i].begin, hours[i].end);
    if (s > 0) add(hours[i], s);
  }
}

// Whether a job holding resources now has a share of `node`.
bool Busy(const std::set<std::string>& busy, const std::string& node) { return busy.count(node) > 0; }

}  // namespace

int64_t Overlap(int64_t a, int64_t b, int64_t lo, int64_t hi) {
  return std::max<int64_t>(0, std::min(b, hi) - std::max(a, lo));
}

UsageReport ComputeUsage(std::span<const JobRecord> jobs, std::span<const NodeRecord> nodes, int64_t start,
                         int64_t end, int64_t now, int64_t since) {
  UsageReport r;
  r.start = start;
  r.end = end;
  r.measured_start = std::min(std::max(start, since), end);
  r.measured_end = std::max(r.measured_start, std::min(end, now));
  for (const NodeRecord& n : nodes) {
    r.cpu.count += n.node.cpus;
    r.gpu.count += static_cast<int64_t>(n.node.gpus.size());
  }
  std::vector<Hour> hours;
  for (int64_t t = start; t < r.measured_end; t += kHour) {  // hours from the period's start
    if (t + kHour > r.measured_start) hours.push_back({std::max(t, r.measured_start), std::min(t + kHour, r.measured_end)});
  }

  std::map<std::pair<std::string, std::string>, AssocUsage> by_assoc;  // (account, user)
  std::set<std::string> busy;                                        // nodes held by a job now
  for (const JobRecord& j : jobs) {
    if (HoldsResources(j.state)) {
      for (const NodeAllocation& a : j.allocation) busy.insert(a.node);
    }
    // Planned: an eligible job's wait (until it started, or ended without starting), its CPUs.
    if (j.eligible_time > 0 && !j.held) {
      const int64_t wait_end = j.start_time > 0 ? j.start_time : (IsFinished(j.state) && j.end_time > 0 ? j.end_time : now);
      const int64_t cpus = JobCpuCount(j);
      Spread(hours, j.eligible_time, wait_end, [&](Hour& h, int64_t s) { h.plan += s * cpus; });
    }
    if (j.start_time <= 0 || j.state == JobState::kPending) continue;
    // The current run, as sacct's Elapsed counts it (earlier runs of a requeued job are not dated).
    const bool runs = j.state == JobState::kRunning || j.state == JobState::kSuspended;
    const int64_t until = !runs && j.end_time > 0 ? j.end_time : now;
    const int64_t cpus = JobCpuCount(j), gpus = JobGpuCount(j);
    // The CPUs are not held while suspended: the current suspension is dated (suspend_time); the
    // earlier ones are kept as a sum only, and taken from the start of the run.
    const int64_t cpu_from = j.start_time + j.suspended_s;
    const int64_t cpu_until = j.suspend_time > 0 ? std::min(j.suspend_time, until) : until;
    Spread(hours, cpu_from, cpu_until, [&](Hour& h, int64_t s) { h.alloc[kCpu] += s * cpus; });
    Spread(hours, j.start_time, until, [&](Hour& h, int64_t s) { h.alloc[kGpu] += s * gpus; });
    const int64_t cpu_s = Overlap(cpu_from, cpu_until, r.measured_start, r.measured_end) * cpus;
    const int64_t gpu_s = Overlap(j.start_time, until, r.measured_start, r.measured_end) * gpus;
    if (cpu_s == 0 && gpu_s == 0) continue;
    AssocUsage& a = by_assoc[{j.account, j.user}];
    a.user = j.user;
    a.account = j.account;
    a.cpu_s += cpu_s;
    a.gpu_s += gpu_s;
  }

  for (const NodeRecord& n : nodes) {
    const Node& node = n.node;
    const bool down = node.state == NodeState::kDown || (node.drain && !Busy(busy, node.name));
    const bool future = node.state == NodeState::kFuture;
    if ((!down && !future) || node.reason_time <= 0) continue;
    const int64_t cpus = node.cpus, gpus = static_cast<int64_t>(node.gpus.size());
    Spread(hours, node.reason_time, now, [&](Hour& h, int64_t s) {
      int64_t* into = future ? h.pdown : h.down;
      into[kCpu] += s * cpus;
      into[kGpu] += s * gpus;
    });
  }

  for (Hour& h : hours) {
    for (int t : {kCpu, kGpu}) {
      ClusterTresUsage& u = t == kCpu ? r.cpu : r.gpu;
      const int64_t total = u.count * (h.end - h.begin);
      int64_t alloc = std::min(h.alloc[t], total), down = h.down[t], pdown = h.pdown[t];
      int64_t plan = t == kCpu ? h.plan : 0, over = 0;
      // As the rollup: what does not fit comes out of Down first, then PLND Down.
      if (alloc + down > total) down = std::max<int64_t>(0, total - alloc);
      if (alloc + down + pdown > total) pdown = std::max<int64_t>(0, total - alloc - down);
      int64_t idle = total - alloc - down - pdown - plan;
      if (idle < 0) {
        plan = std::max<int64_t>(0, plan + idle);
        over -= idle;
        idle = 0;
      }
      u.alloc_s += alloc;
      u.down_s += down;
      u.pdown_s += pdown;
      u.idle_s += idle;
      u.plan_s += plan;
      u.over_s += over;
    }
  }
  for (auto& [key, a] : by_assoc) r.assocs.push_back(std::move(a));
  return r;
}

}  // namespace muster
