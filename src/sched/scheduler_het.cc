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

struct Scheduler::HetGang {
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
  const PendingJob& job;
  std::vector<Decision>& out;
  std::vector<Component> parts;
  std::vector<Filter*> filters;
  int64_t longest = 0;  // the longest component's time limit (an End from 0)
  // The same verdict for every component (one gang).
  void All(const Decision& verdict) {
    for (const Component& c : parts) {
      Decision d = verdict;
      d.job_id = c.id;
      out.push_back(std::move(d));
    }
  }
};

// Places every component on `plan`, one after the other (each takes what it was given, so the
// next one sees it gone); nothing when one does not fit, `plan` then as it was. `scored`: with the
// cycle's placement scorer and workload mix (else best fit: whether it fits is all that matters).
std::optional<std::vector<std::vector<NodeAllocation>>> Scheduler::PlaceHet(HetGang& gang, Plan& plan, bool scored) {
  Statement statement(plan);
  std::vector<std::vector<NodeAllocation>> allocs;
  for (const HetGang::Component& c : gang.parts) {
    Placer placer(index_, plan, scored ? options_.mix.get() : nullptr, scored ? options_.placement.get() : nullptr);
    std::optional<std::vector<NodeAllocation>> a = placer.Place(c.shape, *c.nodes);
    if (!a) {
      statement.Rollback();
      return std::nullopt;
    }
    allocs.push_back(std::move(*a));
  }
  return allocs;
}

std::optional<Decision> Scheduler::ResolveHet(HetGang& gang) {
  const PendingJob& job = gang.job;
  for (HetGang::Component& c : gang.parts) {
    const JobRequest& req = *c.request;
    const std::string& pname = req.partition.empty() ? index_.default_partition() : req.partition;
    c.partition = index_.FindPartition(pname);
    if (c.partition == nullptr) return Reject(job.id, "Invalid partition name specified: " + pname);
    StatusOr<RequestShape> shape = ResolveShape(req, *c.partition);
    if (!shape.ok()) return Reject(job.id, shape.status().message());
    c.shape = std::move(*shape);
    Filter& filter = Candidates(*c.partition, req);
    if (!filter.status.ok()) return Reject(job.id, filter.status.message());
    c.nodes = &filter.nodes;
    gang.filters.push_back(&filter);
    const Partition& part = *c.partition;
    if (!part.up) return Pending(job.id, PendingReason::kPartitionDown);
    if (part.max_time_s != kUnlimited && (req.time_limit_s == kUnlimited || req.time_limit_s > part.max_time_s)) {
      return Pending(job.id, PendingReason::kPartitionConfig);
    }
    if ((part.max_nodes != kUnlimited && c.shape.min_nodes > part.max_nodes) ||
        (c.shape.max_nodes > 0 && c.shape.max_nodes < part.min_nodes)) {
      return Pending(job.id, PendingReason::kPartitionNodeLimit);
    }
    c.limit = req.time_limit_s > 0 ? req.time_limit_s : part.default_time_s;
    gang.longest = std::max(gang.longest, End(0, c.limit));
  }
  // Can the gang ever run? All of it on the empty cluster, every node up; else with the nodes
  // now down or drained back. (A trial: each plan as it was afterwards.)
  auto fits_on = [&](Plan& plan) {
    Statement trial(plan);
    const bool fits = PlaceHet(gang, plan, false).has_value();
    trial.Rollback();
    return fits;
  };
  if (!fits_on(capacity_all_)) return Reject(job.id, "Requested node configuration is not available");
  if (fits_on(capacity_up_)) return std::nullopt;
  std::vector<std::string> down;
  for (const Filter* f : gang.filters) {
    f->nodes.ForEach([&](int i) {
      if (!index_.schedulable().test(i)) down.push_back(index_.node(i).node->name);
      return true;
    });
  }
  std::sort(down.begin(), down.end());
  down.erase(std::unique(down.begin(), down.end()), down.end());
  return Pending(job.id, PendingReason::kReqNodeNotAvail, "UnavailableNodes:" + CompressHostlist(down));
}

// Starts every component, or says why none may (a limit; a preemptor's claim: Priority). What
// the components took of the preemptors' claims is the caller's Statement's to give back.
PendingReason Scheduler::StartHet(HetGang& gang, std::vector<std::vector<NodeAllocation>> allocs) {
  const PendingJob& job = gang.job;
  if (gate_) {  // the limits, on what each component really holds
    for (size_t k = 0; k < gang.parts.size(); ++k) {
      const JobUse held = WithOwner(UseOf(allocs[k]), *gang.parts[k].account, job.user, *gang.parts[k].qos);
      if (PendingReason r = gate_->Check(held, gang.parts[k].limit); r != PendingReason::kNone) return r;
    }
  }
  for (const auto& a : allocs) {
    if (!Claimable(a)) return PendingReason::kPriority;
  }
  for (size_t k = 0; k < gang.parts.size(); ++k) {
    PendingJob who;
    who.id = gang.parts[k].id;
    who.user = job.user;
    who.account = *gang.parts[k].account;
    who.qos = *gang.parts[k].qos;
    gang.out.push_back(Start(who, std::move(allocs[k]), gang.parts[k].limit));
  }
  return PendingReason::kNone;
}

// What is free throughout [t, t + the longest limit), for every component at once.
std::optional<std::vector<std::vector<NodeAllocation>>> Scheduler::PlaceHetDuring(HetGang& gang, int64_t t) {
  return PlaceHet(gang, WindowPlan(t, gang.longest >= kForever ? kForever : t + gang.longest), true);
}

void Scheduler::ReserveHet(HetGang& gang, PendingReason why) {
  for (const HetGang::Component& c : gang.parts) blocked_.insert(c.partition);
  if (timeline_) {
    const int64_t now = snapshot_.now;
    for (int64_t t : timeline_->StartTimes(now, now + options_.backfill_horizon_s)) {
      if (reservations_ >= options_.backfill_depth) break;
      if (t == now) continue;
      std::optional<std::vector<std::vector<NodeAllocation>>> allocs = PlaceHetDuring(gang, t);
      if (!allocs) continue;
      ++reservations_;
      for (size_t k = 0; k < gang.parts.size(); ++k) {
        timeline_->Add((*allocs)[k], t, End(t, gang.parts[k].limit));
        Decision d = Pending(gang.parts[k].id, why);
        d.start_time = t;
        d.nodes = std::move((*allocs)[k]);
        gang.out.push_back(std::move(d));
      }
      return;
    }
    for (const HetGang::Component& c : gang.parts) unreserved_[c.partition->name] = true;
  }
  gang.All(Pending(gang.job.id, why));
}

// Backfill: now only where it delays no reservation.
void Scheduler::BackfillHet(HetGang& gang) {
  const PendingJob& job = gang.job;
  if (backfill_tested_ >= options_.backfill_depth) return gang.All(Pending(job.id, PendingReason::kPriority));
  ++backfill_tested_;
  std::optional<std::vector<std::vector<NodeAllocation>>> allocs = PlaceHetDuring(gang, snapshot_.now);
  if (!allocs) {
    Statement trial(plan_);
    const bool fits_now = PlaceHet(gang, plan_, false).has_value();
    trial.Rollback();
    return ReserveHet(gang, fits_now ? PendingReason::kPriority : PendingReason::kResources);
  }
  Statement statement = Checkpoint(&gang.out);
  for (const auto& a : *allocs) {
    for (const NodeAllocation& x : a) {
      if (!plan_.Fits(index_.Find(x.node), x)) {
        statement.Rollback();
        return gang.All(Pending(job.id, PendingReason::kPriority));
      }
      plan_.Take(index_.Find(x.node), x);
    }
  }
  if (PendingReason r = StartHet(gang, std::move(*allocs)); r != PendingReason::kNone) {
    statement.Rollback();
    gang.All(Pending(job.id, r));
  }
}

void Scheduler::DecideHet(const PendingJob& job, std::vector<Decision>& out) {
  HetGang gang{job, out};
  gang.parts.reserve(job.het.size() + 1);
  gang.parts.push_back({job.id, &job.request, &job.account, &job.qos});
  for (const PendingComponent& c : job.het) gang.parts.push_back({c.id, &c.request, &c.account, &c.qos});
  if (std::optional<Decision> verdict = ResolveHet(gang)) return gang.All(*verdict);
  // Behind a waiting job of one of its partitions, without backfill: it waits its turn.
  const bool behind = std::any_of(gang.parts.begin(), gang.parts.end(),
                                  [&](const HetGang::Component& c) { return blocked_.contains(c.partition); });
  if (options_.strict_priority && behind && !timeline_) return gang.All(Pending(job.id, PendingReason::kPriority));
  if (timeline_ && (reservations_ > 0 || (options_.strict_priority && behind))) return BackfillHet(gang);
  // Everything the gang takes (the plan, the preemptors' claims) goes back if it may not start.
  Statement statement = Checkpoint(&out);
  std::optional<std::vector<std::vector<NodeAllocation>>> allocs = PlaceHet(gang, plan_, true);
  if (!allocs) return ReserveHet(gang, PendingReason::kResources);
  if (PendingReason r = StartHet(gang, std::move(*allocs)); r != PendingReason::kNone) {
    statement.Rollback();
    gang.All(Pending(job.id, r));
  }
}

}  // namespace muster
