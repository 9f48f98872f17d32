#include "sched/scheduler.h"

#include <algorithm>
#include <array>
#include <limits>

#include "base/check.h"
#include "model/hostlist.h"
#include "sched/placer.h"
#include "sched/priority_policy.h"
#include "sched/queue_order.h"
#include "sched/request_shape.h"
#include "sched/scheduler_internal.h"

namespace muster {

using scheduler_internal::CpusOnly;
using scheduler_internal::End;
using scheduler_internal::Keys3;
using scheduler_internal::Pending;
using scheduler_internal::Reject;
using scheduler_internal::WithOwner;

namespace {

// `out`: pointers to `items` in ascending order of keys(item), an array compared element by
// element. The keys are copied beside the pointers, so that the sort reads one array instead of
// the records (a pass sorts every waiting and every running job).
template <typename T, typename KeysOf>
void OrderByKeys(const std::vector<T>& items, std::vector<const T*>& out, KeysOf keys_of) {
  struct Keyed {
    Keys3 keys;
    const T* item;
  };
  std::vector<Keyed> keyed;
  keyed.reserve(items.size());
  for (const T& x : items) keyed.push_back({keys_of(x), &x});
  std::sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) { return a.keys < b.keys; });
  out.clear();
  out.reserve(items.size());
  for (const Keyed& k : keyed) out.push_back(k.item);
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + ",";
  return s;
}

// What a pending job would hold, before it is placed: its GPUs and CPUs as asked, and the memory
// its shape gives every node and unit, set in `u`. (The amounts only: its owner is the job's.)
void SetEstimate(const PendingJob& job, const RequestShape& shape, JobUse& u) {
  u.gpu_milli = static_cast<int64_t>(RequestedGpus(job.request) * kMilliPerGpu + 0.5);
  u.cpu_milli = static_cast<int64_t>(RequestedCpus(job.request) * 1000);
  u.memory_mb = shape.per_node.memory_mb * shape.min_nodes + shape.unit.memory_mb * shape.units;
}

}  // namespace

JobUse UseOf(const std::vector<NodeAllocation>& allocation) {
  JobUse u;
  for (const NodeAllocation& a : allocation) {
    u.cpu_milli += a.cpu_milli;
    u.memory_mb += a.memory_mb;
    for (const GpuShare& g : a.gpus) u.gpu_milli += g.milli;
  }
  return u;
}

JobUse HeldBy(const RunningJob& r) {
  if (r.held_gpu_milli < 0) return UseOf(r.allocation);
  JobUse u;
  u.gpu_milli = r.held_gpu_milli;
  u.cpu_milli = r.held_cpu_milli;
  u.memory_mb = r.held_memory_mb;
  return u;
}

Scheduler::Scheduler(const ClusterSnapshot& snapshot, SchedulerOptions options)
    : snapshot_(snapshot),
      options_(options),
      own_index_(std::in_place, snapshot),
      index_(*own_index_),
      plan_(index_, snapshot),
      capacity_up_(index_, snapshot, Plan::View::kEmptyUp),
      capacity_all_(index_, snapshot, Plan::View::kEmptyAll) {}

Scheduler::Scheduler(const ClusterSnapshot& snapshot, const ClusterIndex& index, SchedulerOptions options)
    : snapshot_(snapshot),
      options_(options),
      index_(index),
      plan_(index_, snapshot),
      capacity_up_(index_, snapshot, Plan::View::kEmptyUp),
      capacity_all_(index_, snapshot, Plan::View::kEmptyAll) {}

void Scheduler::Reload(SchedulerOptions options) {
  options_ = std::move(options);
  plan_.Load(snapshot_);
}

Scheduler::Filter& Scheduler::Candidates(const Partition& part, const JobRequest& req) {
  const bool plain = req.constraint.empty() && req.nodelist.empty() && req.exclude.empty() && req.tmp_disk_mb == 0 &&
                     req.min_cpus_per_node == 0;
  if (plain && plain_filter_ != nullptr && plain_partition_ == &part) return *plain_filter_;
  Filter& f = CandidatesByKey(part.name, req);
  if (plain) {
    plain_partition_ = &part;
    plain_filter_ = &f;
  }
  return f;
}

Scheduler::ShapeName& Scheduler::ShapeKey(const Filter& filter, const RequestShape& shape) {
  auto [it, inserted] = shape_keys_.try_emplace(ShapeIdent{&filter, shape});
  if (inserted) it->second.name = "#" + std::to_string(shape_keys_.size());
  return it->second;
}

Scheduler::Filter& Scheduler::CandidatesByKey(const std::string& partition, const JobRequest& req) {
  std::string key = partition + "\n" + req.constraint + "\n" + Join(req.nodelist) + "\n" + Join(req.exclude) + "\n" +
                    std::to_string(req.tmp_disk_mb) + "\n" + std::to_string(req.min_cpus_per_node);
  auto it = filters_.find(key);
  if (it != filters_.end()) return it->second;
  Filter f;
  f.key = key;
  f.nodes = index_.PartitionNodes(partition);
  StatusOr<DynamicBitset> feat = index_.MatchConstraint(req.constraint);
  if (!feat.ok()) {
    f.status = feat.status();
  } else {
    f.nodes &= *feat;
    if (!req.nodelist.empty()) {
      DynamicBitset only(index_.size());
      for (const std::string& n : req.nodelist) {
        int i = index_.Find(n);
        if (i < 0) {
          f.status = InvalidArgument("Invalid node name specified: " + n);
          break;
        }
        only.set(i);
      }
      f.nodes &= only;
    }
    for (const std::string& n : req.exclude) {
      int i = index_.Find(n);
      if (i >= 0) f.nodes.reset(i);
    }
    // --tmp and --mincpus: only nodes that have that much temporary disk and that many CPUs.
    if (req.tmp_disk_mb > 0 || req.min_cpus_per_node > 0) {
      for (int i = 0; i < index_.size(); ++i) {
        const Node& n = *index_.node(i).node;
        if (n.tmp_disk_mb < req.tmp_disk_mb || n.cpus < req.min_cpus_per_node) f.nodes.reset(i);
      }
    }
  }
  return filters_.emplace(std::move(key), std::move(f)).first->second;
}

std::optional<Decision> Scheduler::Resolve(const PendingJob& job, JobStep& step) {
  const JobRequest& req = job.request;
  const std::string& pname = req.partition.empty() ? index_.default_partition() : req.partition;
  // A job seen in an earlier cycle, unchanged since (its revision): what was resolved for it then.
  JobMemo* memo = nullptr;
  if (job.revision != 0) {
    auto [it, added] = job_memos_.try_emplace(job.id);
    memo = &it->second;
    if (memo->revision != job.revision) memo->revision = 0;
    memo->cycle = cycles_;
  }
  if (memo == nullptr || memo->revision == 0) {
    const Partition* found = index_.FindPartition(pname);
    if (found == nullptr) return Reject(job.id, "Invalid partition name specified: " + pname);
    StatusOr<RequestShape> shape_or = ResolveShape(req, *found);
    if (!shape_or.ok()) return Reject(job.id, shape_or.status().message());
    Filter& found_filter = Candidates(*found, req);
    if (!found_filter.status.ok()) return Reject(job.id, found_filter.status.message());
    // Whether it can ever fit (more than the partition has: reject now rather than wait forever).
    ShapeName& named = ShapeKey(found_filter, *shape_or);
    if (named.fit < 0) {
      named.fit = 0;
      if (TryPlace(index_, capacity_all_, *shape_or, found_filter.nodes)) {
        named.fit = TryPlace(index_, capacity_up_, *shape_or, found_filter.nodes) ? 2 : 1;
      }
    }
    // Filled in place (the shape moved once; the estimate's owner strings stay empty).
    if (memo == nullptr) memo = &scratch_memo_;
    memo->revision = job.revision;
    memo->partition = found;
    memo->shape = std::move(*shape_or);
    memo->filter = &found_filter;
    memo->key = &named.name;
    memo->fit = named.fit;
    SetEstimate(job, memo->shape, memo->estimate);
    memo->cycle = cycles_;
  }
  step.partition_name = &pname;
  step.part = memo->partition;
  step.shape = &memo->shape;
  step.nodes = &memo->filter->nodes;
  step.unavailable = &memo->filter->unavailable;
  step.key = memo->key;
  step.fit = memo->fit;
  step.use = &memo->estimate;
  step.limit = req.time_limit_s > 0 ? req.time_limit_s : step.part->default_time_s;
  if (memo->fit != 0) return std::nullopt;
  const RequestShape& shape = memo->shape;
  if (!memo->filter->nodes.any() && !req.constraint.empty()) return Reject(job.id, "Invalid feature specification");
  Decision rejected = Reject(job.id, "Requested node configuration is not available");
  RequestShape without_memory = shape;
  without_memory.per_node.memory_mb = 0;
  without_memory.unit.memory_mb = 0;
  if ((shape.per_node.memory_mb > 0 || shape.unit.memory_mb > 0) &&
      TryPlace(index_, capacity_all_, without_memory, memo->filter->nodes)) {
    rejected.user_msg = "Memory specification can not be satisfied";
  }
  return rejected;
}

Decision Scheduler::Decide(const PendingJob& job) {
  JobStep step{job};
  if (std::optional<Decision> rejected = Resolve(job, step)) return std::move(*rejected);
  // The stages in order (sched/scheduling_action.h): the first that decides ends the job's turn.
  PassContext ctx(*this);
  for (const SchedulingAction* action : ActionRegistry::Pass()) {
    if (std::optional<Decision> d = action->Execute(ctx, step)) return std::move(*d);
  }
  MUSTER_CHECK(false) << "no stage decided for job " << job.id << " (the last one, reserve, always does)";
  return Pending(job.id, PendingReason::kResources);
}

Statement Scheduler::Checkpoint(std::vector<Decision>* out) {
  return Statement(Statement::Ledgers{.plan = &plan_,
                                      .claims = claims_ ? &*claims_ : nullptr,
                                      .timeline = timeline_ ? &*timeline_ : nullptr,
                                      .doomed = &doomed_,
                                      .out = out});
}

Decision Scheduler::Start(const PendingJob& job, std::vector<NodeAllocation> alloc, int64_t limit) {
  preempt_failed_.clear();  // what runs changed
  if (gate_) {
    const JobUse held = WithOwner(UseOf(alloc), job.account, job.user, job.qos);
    gate_->Add(held);
    if (staying_) staying_->Add(held);
  }
  if (timeline_) timeline_->Add(alloc, snapshot_.now, End(snapshot_.now, limit));
  Decision d;
  d.job_id = job.id;
  d.kind = DecisionKind::kStart;
  d.nodes = std::move(alloc);
  return d;
}

bool Scheduler::FitsNow(const RequestShape& shape, const DynamicBitset& nodes, const std::string& key) {
  if (failed_.contains(&key)) return false;
  const bool fits = TryPlace(index_, plan_, shape, nodes).has_value();
  if (!fits) failed_.insert(&key);
  return fits;
}

bool Scheduler::Claimable(const std::vector<NodeAllocation>& alloc) {
  if (!claims_) return true;
  for (const NodeAllocation& a : alloc) {
    if (!claims_->Fits(index_.Find(a.node), a)) return false;
  }
  for (const NodeAllocation& a : alloc) claims_->Take(index_.Find(a.node), a);
  return true;
}

std::optional<std::vector<NodeAllocation>> Scheduler::PlaceDuring(const RequestShape& shape,
                                                                  const DynamicBitset& nodes, int64_t start,
                                                                  int64_t limit) {
  Placer placer(index_, WindowPlan(start, End(start, limit)), options_.mix.get(), options_.placement.get());
  return placer.Place(shape, nodes);
}

Plan& Scheduler::WindowPlan(int64_t a, int64_t b) {
  timeline_->PeakUsage(a, b, window_.usage);  // (a Plan reads only the usage)
  if (!window_plan_) {
    window_plan_.emplace(index_, window_);
  } else {
    window_plan_->Load(window_);
  }
  return *window_plan_;
}

Decision Scheduler::Reserve(Decision pending, const std::string& partition, const RequestShape& shape,
                            const DynamicBitset& nodes, int64_t limit) {
  if (!timeline_) return pending;
  const int64_t now = snapshot_.now;
  for (int64_t t : timeline_->StartTimes(now, now + options_.backfill_horizon_s)) {
    if (reservations_ >= options_.backfill_depth) break;
    if (t == now) continue;  // it does not fit now: that is why it waits
    std::optional<std::vector<NodeAllocation>> alloc = PlaceDuring(shape, nodes, t, limit);
    if (!alloc) continue;
    timeline_->Add(*alloc, t, End(t, limit));
    ++reservations_;
    pending.start_time = t;
    pending.nodes = std::move(*alloc);  // where (squeue --start's SCHEDNODES)
    return pending;
  }
  // No room within the horizon (running jobs without time limits, say), or no reservation left:
  // later jobs of its partition may start only if they end within the horizon. One without a
  // limit could hold the resources for good and starve this job, as Slurm's backfill lets it.
  unreserved_[partition] = true;
  return pending;
}

std::vector<Decision> Scheduler::RunCycle(const std::vector<PendingJob>& queue) {
  // The highest priority first, then the first submitted, then the lowest id.
  std::vector<const PendingJob*> order;
  OrderByKeys(queue, order, [](const PendingJob& j) { return Keys3{~j.priority, j.submit_time, j.id}; });
  // With team quotas: across queues by fair share, within a queue by priority.
  if (options_.policy) {
    QueueOrder queues(options_.policy->accounts);
    if (queues.active()) {
      int64_t gpus = 0, cpus = 0;
      for (const Node& n : snapshot_.nodes) {
        if (!n.schedulable()) continue;
        gpus += static_cast<int64_t>(n.gpus.size()) * kMilliPerGpu;
        cpus += int64_t{n.cpus} * 1000;
      }
      order = queues.Order(order, snapshot_.running, gpus > 0 ? gpus : cpus, gpus > 0);
    }
  }
  // The filters (with the nodes they miss for not taking work), the names given to (filter,
  // shape) pairs and whether each pair can ever fit depend on the index alone: kept from cycle
  // to cycle (a kept Scheduler's), all three dropped together when there are many (the names
  // start again then).
  if (shape_keys_.size() > kKeptShapes || filters_.size() > kKeptShapes) {
    filters_.clear();
    shape_keys_.clear();
    job_memos_.clear();  // (they point into the filters and names)
  }
  ++cycles_;
  // Memos of jobs that have left the queue (ended, held, cancelled): dropped when they are many.
  if (job_memos_.size() > 2 * queue.size() + 1024) {
    boost::unordered::erase_if(job_memos_, [&](const auto& e) { return e.second.cycle + 1 < cycles_; });
  }
  plain_filter_ = nullptr;
  failed_.clear();
  blocked_.clear();
  timeline_.reset();
  if (options_.backfill && options_.strict_priority) timeline_.emplace(index_, snapshot_);
  reservations_ = 0;
  backfill_tested_ = 0;
  unreserved_.clear();
  doomed_.clear();
  claims_.reset();
  staying_.reset();
  // (victims_ and victim_order_ are kept: see PrepareClaims)
  queued_.clear();
  queued_.reserve(queue.size());
  for (const PendingJob& j : queue) queued_.push_back(j.id);
  if (!std::is_sorted(queued_.begin(), queued_.end())) std::sort(queued_.begin(), queued_.end());
  preempt_failed_.clear();
  gate_.reset();
  preemption_.reset();
  if (options_.policy) {
    gate_.emplace(options_.policy->accounts, options_.policy->qos);
    preemption_.emplace(*options_.policy);
    min_running_tier_ = std::numeric_limits<int>::max();
    min_running_priority_ = std::numeric_limits<int64_t>::max();
    any_terminating_ = false;
    // (Partition tiers matter only to the tier rule: looked up only under it.)
    const bool tiers = options_.policy->preemption.by_partition_tier;
    const std::string* last_partition = nullptr;  // running jobs mostly share a few: the last one's
    const Partition* p = nullptr;
    for (const RunningJob& r : snapshot_.running) {
      gate_->AddAs(HeldBy(r), r.account, r.user, r.qos);
      any_terminating_ = any_terminating_ || r.terminating;
      min_running_priority_ = std::min(min_running_priority_, r.priority);
      if (!tiers) continue;
      if (last_partition == nullptr || *last_partition != r.partition) p = index_.FindPartition(r.partition);
      last_partition = &r.partition;
      min_running_tier_ = std::min(min_running_tier_, p != nullptr ? p->priority_tier : 0);
    }
  }
  const int mark = plan_.Mark();
  std::vector<Decision> out;
  out.reserve(queue.size());
  ResumeSuspended(out);
  // The order visits the records out of place (a pass over many waiting jobs is bound by memory,
  // not by its work): the records a few turns ahead are fetched meanwhile.
  constexpr size_t kAhead = 4;
  for (size_t i = 0; i < order.size(); ++i) {
    if (i + kAhead < order.size()) {
      const char* next = reinterpret_cast<const char*>(order[i + kAhead]);
      for (size_t line = 0; line < sizeof(PendingJob); line += 64) __builtin_prefetch(next + line);
    }
    const PendingJob* j = order[i];
    if (j->het.empty()) {
      out.push_back(Decide(*j));
    } else {
      DecideHet(*j, out);
    }
  }
  plan_.Rollback(mark);
  return out;
}

std::vector<Decision> RunCycle(const ClusterSnapshot& snapshot, const std::vector<PendingJob>& queue,
                               const SchedulerOptions& options) {
  Scheduler s(snapshot, options);
  return s.RunCycle(queue);
}

std::vector<Decision> RunCycle(const ClusterSnapshot& snapshot, const ClusterIndex& index,
                               const std::vector<PendingJob>& queue, const SchedulerOptions& options) {
  Scheduler s(snapshot, index, options);
  return s.RunCycle(queue);
}

}  // namespace muster
