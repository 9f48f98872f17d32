// Heterogeneous jobs (Slurm's hetjob): components with requests of their own, started together as
// one gang. The leader's entry carries the other components (PendingJob::het); each component is
// resolved and checked as an ordinary job would be (partition, shape, limits of the partition),
// then all of them are placed on the cycle's plan one after the other, and all start or none
// does. With backfill, a gang that cannot start now gets one reservation at the earliest time
// every component fits at once, and a gang that fits now starts only where it delays no
// reservation. They do not preempt (a component is never a preemptor).
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "model/hostlist.h"
#include "sched/placer.h"
#include "sched/request_shape.h"
#include "sched/scheduler.h"
#include "sched/scheduler_internal.h"

namespace muster {

using scheduler_internal::End;
using scheduler_internal::Pending;
using scheduler_internal::Reject;
using scheduler_internal::WithOwner;

namespace {

struct Component {
  int64_t id = 0;
  const JobRequest* request = nullptr;
  const std::string* account = nullptr;
  const std::string* qos = nullptr;
  const Partition* partition = nullptr;
  RequestShape shape;
  const DynamicBitset* nodes = nullptr;
  int64_t limit = 0;
};

// Places every component on `plan`, one after the other (each takes what it was given, so the
// next one sees it gone); nothing when one does not fit, `plan` then as it was.
std::optional<std::vector<std::vector<NodeAllocation>>> PlaceAll(const ClusterIndex& index, Plan& plan,
                                                                 const WorkloadMix* mix,
                                                                 const PlacementScorer* scorer,
                                                                 const std::vector<Component>& parts) {
  const int mark = plan.Mark();
  std::vector<std::vector<NodeAllocation>> allocs;
  for (const Component& c : parts) {
    Placer placer(index, plan, mix, scorer);
    std::optional<std::vector<NodeAllocation>> a = placer.Place(c.shape, *c.nodes);
    if (!a) {
      plan.Rollback(mark);
      return std::nullopt;
    }
    allocs.push_back(std::move(*a));
  }
  return allocs;
}

}  // namespace

void Scheduler::DecideHet(const PendingJob& job, std::vector<Decision>& out) {
  std::vector<Component> parts;
  parts.reserve(job.het.size() + 1);
  parts.push_back({job.id, &job.request, &job.account, &job.qos});
  for (const PendingComponent& c : job.het) parts.push_back({c.id, &c.request, &c.account, &c.qos});
  // The same verdict for every component (one gang).
  auto all = [&](const Decision& verdict) {
    for (const Component& c : parts) {
      Decision d = verdict;
      d.job_id = c.id;
      out.push_back(std::move(d));
    }
  };
  std::vector<Filter*> filters;
  int64_t longest = 0;
  for (Component& c : parts) {
    const JobRequest& req = *c.request;
    const std::string& pname = req.partition.empty() ? index_.default_partition() : req.partition;
    c.partition = index_.FindPartition(pname);
    if (c.partition == nullptr) return all(Reject(job.id, "Invalid partition name specified: " + pname));
    StatusOr<RequestShape> shape = ResolveShape(req, *c.partition);
    if (!shape.ok()) return all(Reject(job.id, shape.status().message()));
    c.shape = std::move(*shape);
    Filter& filter = Candidates(pname, req);
    if (!filter.status.ok()) return all(Reject(job.id, filter.status.message()));
    c.nodes = &filter.nodes;
    filters.push_back(&filter);
    const Partition& part = *c.partition;
    if (!part.up) return all(Pending(job.id, PendingReason::kPartitionDown));
    if (part.max_time_s != kUnlimited && (req.time_limit_s == kUnlimited || req.time_limit_s > part.max_time_s)) {
      return all(Pending(job.id, PendingReason::kPartitionConfig));
    }
    if ((part.max_nodes != kUnlimited && c.shape.min_nodes > part.max_nodes) ||
        (c.shape.max_nodes > 0 && c.shape.max_nodes < part.min_nodes)) {
      return all(Pending(job.id, PendingReason::kPartitionNodeLimit));
    }
    c.limit = req.time_limit_s > 0 ? req.time_limit_s : part.default_time_s;
    longest = std::max(longest, End(0, c.limit));
  }
  auto fits_on = [&](Plan& plan) {
    const int mark = plan.Mark();
    const bool fits = PlaceAll(index_, plan, nullptr, nullptr, parts).has_value();
    plan.Rollback(mark);
    return fits;
  };
  // Can the gang ever run? All of it on the empty cluster, every node up; else with the nodes
  // now down or drained back.
  if (!fits_on(capacity_all_)) return all(Reject(job.id, "Requested node configuration is not available"));
  if (!fits_on(capacity_up_)) {
    std::vector<std::string> down;
    for (const Filter* f : filters) {
      f->nodes.ForEach([&](int i) {
        if (!index_.schedulable().test(i)) down.push_back(index_.node(i).node->name);
        return true;
      });
    }
    std::sort(down.begin(), down.end());
    down.erase(std::unique(down.begin(), down.end()), down.end());
    return all(Pending(job.id, PendingReason::kReqNodeNotAvail, "UnavailableNodes:" + CompressHostlist(down)));
  }
  // Behind a waiting job of one of its partitions, without backfill: it waits its turn.
  const bool behind = std::any_of(parts.begin(), parts.end(), [&](const Component& c) { return blocked_.contains(c.partition); });
  if (options_.strict_priority && behind && !timeline_) return all(Pending(job.id, PendingReason::kPriority));

  const int64_t now = snapshot_.now;
  // Starts every component, or says why none may (a limit; a preemptor's claim: Priority).
  auto start_all = [&](std::vector<std::vector<NodeAllocation>> allocs) {
    if (gate_) {  // the limits, on what each component really holds
      for (size_t k = 0; k < parts.size(); ++k) {
        const JobUse held = WithOwner(UseOf(allocs[k]), *parts[k].account, job.user, *parts[k].qos);
        if (PendingReason r = gate_->Check(held, parts[k].limit); r != PendingReason::kNone) return r;
      }
    }
    for (const auto& a : allocs) {
      if (!Claimable(a)) return PendingReason::kPriority;
    }
    for (size_t k = 0; k < parts.size(); ++k) {
      PendingJob who;
      who.id = parts[k].id;
      who.user = job.user;
      who.account = *parts[k].account;
      who.qos = *parts[k].qos;
      out.push_back(Start(who, std::move(allocs[k]), parts[k].limit));
    }
    return PendingReason::kNone;
  };
  // What is free throughout [t, t + the longest limit), for every component at once.
  auto place_during = [&](int64_t t) -> std::optional<std::vector<std::vector<NodeAllocation>>> {
    ClusterSnapshot window;
    window.usage = timeline_->PeakUsage(t, longest >= kForever ? kForever : t + longest);
    Plan free_then(index_, window);
    return PlaceAll(index_, free_then, options_.mix.get(), options_.placement.get(), parts);
  };
  auto reserve = [&](PendingReason why) {
    for (const Component& c : parts) blocked_.insert(c.partition);
    if (timeline_) {
      for (int64_t t : timeline_->StartTimes(now, now + options_.backfill_horizon_s)) {
        if (reservations_ >= options_.backfill_depth) break;
        if (t == now) continue;
        std::optional<std::vector<std::vector<NodeAllocation>>> allocs = place_during(t);
        if (!allocs) continue;
        ++reservations_;
        for (size_t k = 0; k < parts.size(); ++k) {
          timeline_->Add((*allocs)[k], t, End(t, parts[k].limit));
          Decision d = Pending(parts[k].id, why);
          d.start_time = t;
          d.nodes = std::move((*allocs)[k]);
          out.push_back(std::move(d));
        }
        return;
      }
      for (const Component& c : parts) unreserved_[c.partition->name] = true;
    }
    all(Pending(job.id, why));
  };

  if (timeline_ && (reservations_ > 0 || (options_.strict_priority && behind))) {
    // Backfill: now only where it delays no reservation.
    if (backfill_tested_ >= options_.backfill_depth) return all(Pending(job.id, PendingReason::kPriority));
    ++backfill_tested_;
    std::optional<std::vector<std::vector<NodeAllocation>>> allocs = place_during(now);
    if (!allocs) {
      const bool fits_now = fits_on(plan_);
      return reserve(fits_now ? PendingReason::kPriority : PendingReason::kResources);
    }
    const int mark = plan_.Mark();
    for (const auto& a : *allocs) {
      for (const NodeAllocation& x : a) {
        if (!plan_.Fits(index_.Find(x.node), x)) {
          plan_.Rollback(mark);
          return all(Pending(job.id, PendingReason::kPriority));
        }
        plan_.Take(index_.Find(x.node), x);
      }
    }
    if (PendingReason r = start_all(std::move(*allocs)); r != PendingReason::kNone) {
      plan_.Rollback(mark);
      all(Pending(job.id, r));
    }
    return;
  }
  const int mark = plan_.Mark();
  std::optional<std::vector<std::vector<NodeAllocation>>> allocs =
      PlaceAll(index_, plan_, options_.mix.get(), options_.placement.get(), parts);
  if (!allocs) return reserve(PendingReason::kResources);
  if (PendingReason r = start_all(std::move(*allocs)); r != PendingReason::kNone) {
    plan_.Rollback(mark);
    all(Pending(job.id, r));
  }
}

}  // namespace muster
