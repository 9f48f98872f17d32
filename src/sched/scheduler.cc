#include "sched/scheduler.h"

#include <algorithm>
#include <array>
#include <limits>
#include <memory>

#include "model/hostlist.h"
#include "sched/placer.h"
#include "sched/priority_policy.h"
#include "sched/queue_order.h"
#include "sched/request_shape.h"

namespace muster {

namespace {

Decision Pending(int64_t id, PendingReason r, std::string msg = "") {
  Decision d;
  d.job_id = id;
  d.kind = DecisionKind::kPending;
  d.reason = r;
  d.message = std::move(msg);
  return d;
}

Decision Reject(int64_t id, std::string msg) {
  Decision d;
  d.job_id = id;
  d.kind = DecisionKind::kReject;
  d.message = std::move(msg);
  return d;
}

using Keys3 = std::array<int64_t, 3>;

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

// When a job started at `start` with time limit `limit` (kUnlimited: none) ends at the latest.
int64_t End(int64_t start, int64_t limit) { return limit == kUnlimited || limit <= 0 ? kForever : start + limit; }

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + ",";
  return s;
}

// What a pending job would hold, before it is placed: its GPUs and CPUs as asked, and the memory
// its shape gives every node and unit. (The amounts only: its owner is the job's.)
JobUse EstimateUse(const PendingJob& job, const RequestShape& shape) {
  JobUse u;
  u.gpu_milli = static_cast<int64_t>(RequestedGpus(job.request) * kMilliPerGpu + 0.5);
  u.cpu_milli = static_cast<int64_t>(RequestedCpus(job.request) * 1000);
  u.memory_mb = shape.per_node.memory_mb * shape.min_nodes + shape.unit.memory_mb * shape.units;
  return u;
}

// What a suspended job gives back on a node, and takes again when it resumes: its CPUs only.
NodeAllocation CpusOnly(const std::string& node, int64_t cpu_milli) { return NodeAllocation{node, cpu_milli, 0, 0, {}, false}; }

JobUse WithOwner(JobUse u, const std::string& account, const std::string& user, const std::string& qos) {
  u.account = account;
  u.user = user;
  u.qos = qos;
  return u;
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

Scheduler::Filter& Scheduler::Candidates(const std::string& partition, const JobRequest& req) {
  const bool plain = req.constraint.empty() && req.nodelist.empty() && req.exclude.empty();
  if (plain && plain_filter_ != nullptr && plain_partition_ == partition) return *plain_filter_;
  Filter& f = CandidatesByKey(partition, req);
  if (plain) {
    plain_partition_ = partition;
    plain_filter_ = &f;
  }
  return f;
}

const std::string& Scheduler::ShapeKey(const Filter& filter, const RequestShape& shape) {
  auto [it, inserted] = shape_keys_.try_emplace(ShapeIdent{&filter, shape});
  if (inserted) it->second = "#" + std::to_string(shape_keys_.size());
  return it->second;
}

Scheduler::Filter& Scheduler::CandidatesByKey(const std::string& partition, const JobRequest& req) {
  std::string key = partition + "\n" + req.constraint + "\n" + Join(req.nodelist) + "\n" + Join(req.exclude);
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
  }
  return filters_.emplace(std::move(key), std::move(f)).first->second;
}

Decision Scheduler::Decide(const PendingJob& job) {
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
    Filter& found_filter = Candidates(pname, req);
    if (!found_filter.status.ok()) return Reject(job.id, found_filter.status.message());
    // Whether it can ever fit (more than the partition has: reject now rather than wait forever).
    const std::string& found_key = ShapeKey(found_filter, *shape_or);
    auto fit = fit_cache_.find(found_key);
    if (fit == fit_cache_.end()) {
      int v = 0;
      if (TryPlace(index_, capacity_all_, *shape_or, found_filter.nodes)) {
        v = TryPlace(index_, capacity_up_, *shape_or, found_filter.nodes) ? 2 : 1;
      }
      fit = fit_cache_.emplace(found_key, v).first;
    }
    JobMemo fresh{job.revision, found, std::move(*shape_or), &found_filter, &found_key, fit->second, {}, cycles_};
    fresh.estimate = EstimateUse(job, fresh.shape);
    if (memo != nullptr) {
      *memo = std::move(fresh);
    } else {
      scratch_memo_ = std::move(fresh);
      memo = &scratch_memo_;
    }
  }
  const Partition* part = memo->partition;
  const RequestShape& shape = memo->shape;
  Filter& filter = *memo->filter;
  const std::string& key = *memo->key;
  if (memo->fit == 0) {
    if (!filter.nodes.any() && !req.constraint.empty()) return Reject(job.id, "Invalid feature specification");
    return Reject(job.id, "Requested node configuration is not available");
  }

  // Partition state and limits: the job waits with the partition's reason.
  if (!part->up) return Pending(job.id, PendingReason::kPartitionDown);
  if (part->max_time_s != kUnlimited && (req.time_limit_s == kUnlimited || req.time_limit_s > part->max_time_s)) {
    return Pending(job.id, PendingReason::kPartitionConfig);
  }
  if ((part->max_nodes != kUnlimited && shape.min_nodes > part->max_nodes) ||
      (shape.max_nodes > 0 && shape.max_nodes < part->min_nodes)) {
    return Pending(job.id, PendingReason::kPartitionNodeLimit);
  }
  if (memo->fit == 1) {
    if (!req.constraint.empty()) return Pending(job.id, PendingReason::kBadConstraints);
    // As Slurm: "ReqNodeNotAvail, UnavailableNodes:gpu[03-04]".
    if (!filter.unavailable) {
      std::vector<std::string> down;
      filter.nodes.ForEach([&](int i) {
        if (!index_.schedulable().test(i)) down.push_back(index_.node(i).node->name);
        return true;
      });
      filter.unavailable = "UnavailableNodes:" + CompressHostlist(down);
    }
    return Pending(job.id, PendingReason::kReqNodeNotAvail, *filter.unavailable);
  }
  const int64_t limit = req.time_limit_s > 0 ? req.time_limit_s : part->default_time_s;
  // Limits: a job over one waits with its reason and holds back nobody (as Slurm).
  const JobUse& use = memo->estimate;  // (its owner is the job's: Preempt adds it)
  if (gate_) {
    if (PendingReason r = gate_->CheckAs(use, job.account, job.user, job.qos, limit); r != PendingReason::kNone) {
      // An account's GPU limit counts its whole subtree: a sub-account within its quota may
      // reclaim from a sibling over its own, which makes room under the limit too.
      if (r == PendingReason::kAssocGrpGRES) {
        if (std::optional<Decision> p = Preempt(job, *part, shape, filter.nodes, use, key, limit, true)) return *p;
      }
      return Pending(job.id, r);
    }
  }
  if (timeline_ && (reservations_ > 0 || (options_.strict_priority && blocked_.contains(part)))) {
    return Backfill(job, *part, shape, filter.nodes, limit, key, use);
  }
  if (options_.strict_priority && blocked_.contains(part)) {
    // Behind a waiting job, a job that does not fit what is free may still preempt for itself
    // (what its victims free is claimed for it, so the jobs before it are no worse off). One that
    // fits simply waits its turn.
    if (preemption_ && preemption_->enabled() && !FitsNow(shape, filter.nodes, key)) {
      if (std::optional<Decision> p = Preempt(job, *part, shape, filter.nodes, use, key, limit)) return *p;
    }
    return Pending(job.id, PendingReason::kPriority);
  }
  std::optional<std::vector<NodeAllocation>> alloc;
  const int place_mark = plan_.Mark();
  if (!failed_.contains(&key)) {
    Placer placer(index_, plan_);
    alloc = placer.Place(shape, filter.nodes);
  }
  if (!alloc) {
    failed_.insert(&key);
    blocked_.insert(part);
    if (std::optional<Decision> p = Preempt(job, *part, shape, filter.nodes, use, key, limit)) return *p;
    return Reserve(Pending(job.id, PendingReason::kResources), pname, shape, filter.nodes, limit);
  }
  // The estimate passed; what the placement really holds (memory, CPUs per GPU) is checked too.
  if (gate_) {
    const JobUse held = WithOwner(UseOf(*alloc), job.account, job.user, job.qos);
    if (PendingReason r = gate_->Check(held, limit); r != PendingReason::kNone) {
      plan_.Rollback(place_mark);
      return Pending(job.id, r);
    }
  }
  // Free now, but claimed by a preemptor waiting for its victims: not for this job.
  if (!Claimable(*alloc)) {
    plan_.Rollback(place_mark);
    return Pending(job.id, PendingReason::kPriority);
  }
  return Start(job, std::move(*alloc), limit);
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

std::optional<Decision> Scheduler::Preempt(const PendingJob& job, const Partition& part, const RequestShape& shape,
                                           const DynamicBitset& nodes, const JobUse& use, const std::string& key,
                                           int64_t limit, bool need_limits) {
  if (!preemption_ || !preemption_->enabled()) return std::nullopt;
  // A deep queue holds many jobs alike: once one found nothing to preempt, the next finds the same
  // until something changes (a start, a claim), and so does one of lower priority (it may
  // preempt fewer jobs, never others). The account matters only to quota reclaim, the user only
  // to limits.
  std::string& memo = memo_buf_;
  memo.assign(key).append("\n").append(job.qos);
  if (preemption_->by_account() || need_limits) memo.append("\n").append(job.account);
  if (need_limits) memo.append("\n").append(job.user);
  const int64_t rank = preemption_->by_priority() ? job.priority : std::numeric_limits<int64_t>::max();
  if (auto it = preempt_failed_.find(memo); it != preempt_failed_.end() && rank <= it->second) return std::nullopt;
  std::optional<Decision> d = PreemptSearch(job, part, shape, nodes, WithOwner(use, job.account, job.user, job.qos),
                                            limit, need_limits);
  if (d) {
    preempt_failed_.clear();
  } else {
    auto [it, added] = preempt_failed_.try_emplace(memo, rank);
    it->second = std::max(it->second, rank);
  }
  return d;
}

struct Scheduler::VictimKind {
  const std::string* partition;
  const std::string* qos;
  const Partition* found;
  PreemptMode mode;
  int64_t exempt_s;
};

void Scheduler::BuildVictim(VictimInfo& v, const RunningJob& r, std::vector<VictimKind>& kinds) {
  // Running jobs mostly share a few partitions and QOS: each pair is looked up once.
  auto kind = std::find_if(kinds.begin(), kinds.end(),
                           [&](const VictimKind& c) { return *c.partition == r.partition && *c.qos == r.qos; });
  if (kind == kinds.end()) {
    if (kinds.size() == 16) kinds.erase(kinds.begin());  // many kinds: a short list still
    const Partition* found = index_.FindPartition(r.partition);
    kind = kinds.insert(kinds.end(), VictimKind{&r.partition, &r.qos, found, preemption_->ModeOf(r.qos, found),
                                                preemption_->ExemptOf(r.qos)});
  }
  const Partition* vp = kind->found;
  v.job = &r;
  v.mode = kind->mode;
  v.exempt_s = kind->exempt_s;
  v.revision = r.revision;
  v.terminating = r.terminating;
  v.leaves = true;
  v.cpus_only.clear();
  if (v.mode == PreemptMode::kSuspend && !r.terminating) {
    v.leaves = false;
    // A stopped process keeps its memory and its GPU memory: suspending frees CPUs only.
    for (const NodeAllocation& a : r.allocation) v.cpus_only.push_back(CpusOnly(a.node, a.cpu_milli));
  }
  const std::vector<NodeAllocation>& frees = v.leaves ? r.allocation : v.cpus_only;
  JobUse& use = v.party.use;
  use.cpu_milli = use.memory_mb = use.gpu_milli = 0;
  for (const NodeAllocation& a : frees) {
    use.cpu_milli += a.cpu_milli;
    use.memory_mb += a.memory_mb;
    for (const GpuShare& g : a.gpus) use.gpu_milli += g.milli;
  }
  use.account = r.account;
  use.user = r.user;
  use.qos = r.qos;
  v.party.partition_tier = vp != nullptr ? vp->priority_tier : 0;
  v.party.start_time = r.start_time;
  v.party.partition = vp;
  v.nodes.clear();
  const bool hinted = r.node_pos.size() == r.allocation.size();
  for (size_t a = 0; a < r.allocation.size(); ++a) {
    v.nodes.push_back(hinted ? index_.Find(r.allocation[a].node, r.node_pos[a]) : index_.Find(r.allocation[a].node));
  }
  v.rebuilt = true;
}

void Scheduler::PrepareClaims() {
  if (claims_) return;
  // The cycle's first preemptor: from here on, what jobs being stopped will free, less what
  // preemptors have claimed, is tracked apart from what is free now. What victims of a job still
  // waiting will free is that job's alone (given back when it comes); what other jobs being
  // stopped will free is for whoever comes first.
  claims_.emplace(plan_);
  staying_.emplace(*gate_);  // the usage queues keep: jobs being stopped no longer count
  if (victims_policy_ != options_.policy) {  // modes and exempt times are the policy's
    victims_.clear();
    victim_at_.clear();
    victim_order_.clear();
    victims_policy_ = options_.policy;
  }
  // The victims kept from the last cycle are taken again where the running entry's revision
  // promises the job unchanged (only its rank, and whom it is being stopped for, may have
  // moved); the others are built afresh.
  const uint64_t cycle = ++victims_cycle_;
  std::vector<VictimKind> kinds;
  for (const RunningJob& r : snapshot_.running) {
    if (r.suspended) continue;  // already stopped: nothing more to free
    auto [at, added] = victim_at_.try_emplace(r.id, static_cast<uint32_t>(victims_.size()));
    uint32_t slot = at->second;
    const bool twice = !added && victims_[slot]->seen == cycle;  // an id twice: one more, not kept
    if (twice) slot = static_cast<uint32_t>(victims_.size());
    if (added || twice) victims_.push_back(std::make_unique<VictimInfo>());
    VictimInfo& v = *victims_[slot];
    if (added || twice || r.revision == 0 || v.revision != r.revision || v.terminating != r.terminating) {
      BuildVictim(v, r, kinds);
    }
    v.id = r.id;
    v.keyed = !twice;
    v.seen = cycle;
    v.job = &r;
    v.frees = v.leaves ? &r.allocation : &v.cpus_only;
    v.party.priority = r.priority;
    v.exposed = preemption_->Exposed(v.mode, v.exempt_s, r.start_time, snapshot_.now);
  }
  // The order: last cycle's, less the jobs gone or rebuilt, merged with those (sorted).
  auto keys = [](const VictimInfo* v) { return Keys3{v->use().gpu_milli, ~v->party.start_time, ~v->id}; };
  auto before = [&](const VictimInfo* a, const VictimInfo* b) { return keys(a) < keys(b); };
  std::vector<const VictimInfo*> kept, fresh;
  kept.reserve(victims_.size());
  for (const VictimInfo* v : victim_order_) {  // (last cycle's: the objects stay put)
    if (v->seen == cycle && !v->rebuilt) kept.push_back(v);
  }
  for (const std::unique_ptr<VictimInfo>& v : victims_) {
    if (v->seen == cycle && v->rebuilt) fresh.push_back(v.get());
  }
  std::sort(fresh.begin(), fresh.end(), before);
  victim_order_.clear();
  std::merge(kept.begin(), kept.end(), fresh.begin(), fresh.end(), std::back_inserter(victim_order_), before);
  // The jobs gone leave.
  uint32_t w = 0;
  for (uint32_t k = 0; k < victims_.size(); ++k) {
    VictimInfo& v = *victims_[k];
    if (v.seen != cycle) {
      if (v.keyed) victim_at_.erase(v.id);
      continue;
    }
    v.rebuilt = false;
    if (w != k) {
      std::swap(victims_[w], victims_[k]);
      if (v.keyed) victim_at_[v.id] = w;
    }
    ++w;
  }
  victims_.resize(w);
  // What jobs being stopped free.
  for (const std::unique_ptr<VictimInfo>& v : victims_) {
    if (v->job->terminating) {
      staying_->Add(v->use(), -1);
      if (!Queued(v->job->preempted_by)) ReleaseVictim(*claims_, *v);
    }
  }
}

void Scheduler::ReleaseVictim(Plan& plan, const VictimInfo& v) {
  for (size_t k = 0; k < v.nodes.size(); ++k) {
    if (v.nodes[k] >= 0) plan.Release(v.nodes[k], (*v.frees)[k], v.leaves);
  }
}

void Scheduler::ResumeSuspended(std::vector<Decision>& out) {
  if (std::none_of(snapshot_.running.begin(), snapshot_.running.end(), [](const RunningJob& r) { return r.suspended; })) {
    return;
  }
  std::unordered_set<int64_t> present;  // jobs that run or wait: a suspended job's preemptor may be one
  for (const RunningJob& r : snapshot_.running) {
    if (!r.suspended) present.insert(r.id);
  }
  std::vector<const RunningJob*> suspended;
  for (const RunningJob& r : snapshot_.running) {
    if (r.suspended && !present.count(r.preempted_by) && !Queued(r.preempted_by)) suspended.push_back(&r);
  }
  // Longest-running first (it has the most to lose), then by id: deterministic.
  std::sort(suspended.begin(), suspended.end(), [](const RunningJob* a, const RunningJob* b) {
    if (a->start_time != b->start_time) return a->start_time < b->start_time;
    return a->id < b->id;
  });
  for (const RunningJob* r : suspended) {
    if (r->suspended_cpu_milli.size() != r->allocation.size()) continue;
    std::vector<NodeAllocation> cpus;
    bool fits = true;
    for (size_t k = 0; k < r->allocation.size() && fits; ++k) {
      cpus.push_back(CpusOnly(r->allocation[k].node, r->suspended_cpu_milli[k]));
      const int i = index_.Find(cpus.back().node);
      // On a node down or drained it stays suspended: it is lost with the node, or resumes after.
      fits = i >= 0 && plan_.Fits(i, cpus.back());
    }
    if (!fits) continue;
    for (const NodeAllocation& a : cpus) plan_.Take(index_.Find(a.node), a, /*new_job=*/false);
    if (gate_) gate_->Add(WithOwner(UseOf(cpus), r->account, r->user, r->qos));
    if (timeline_) timeline_->Add(cpus, snapshot_.now, kForever);  // its end is the next cycle's to know
    Decision d;
    d.job_id = r->id;
    d.kind = DecisionKind::kResume;
    d.nodes = std::move(cpus);
    out.push_back(std::move(d));
  }
}

std::optional<Decision> Scheduler::PreemptSearch(const PendingJob& job, const Partition& part,
                                                 const RequestShape& shape, const DynamicBitset& nodes,
                                                 const JobUse& use, int64_t limit, bool need_limits) {
  const int64_t now = snapshot_.now;
  const PreemptParty me{use, part.priority_tier, 0, nullptr, job.priority};
  // Before the first preemptor of a cycle, with no job being stopped, what is free for the job
  // is what the plan holds (where it did not fit): when no rule lets it preempt anyone, nothing
  // is to be searched, and the victim list need not be built (most passes of a busy queue).
  if (!claims_ && !any_terminating_ &&
      !preemption_->MayPreemptAny(me, *gate_, min_running_tier_, min_running_priority_)) {
    return std::nullopt;
  }
  PrepareClaims();
  Plan& plan = *claims_;
  LimitGate& usage = *staying_;
  const int base = plan.Mark();
  for (const std::unique_ptr<VictimInfo>& v : victims_) {
    if (v->job->terminating && v->job->preempted_by == job.id) ReleaseVictim(plan, *v);
  }
  auto place = [&]() { return TryPlace(index_, plan, shape, nodes); };
  auto claim = [&](const std::vector<NodeAllocation>& alloc) {
    for (const NodeAllocation& a : alloc) plan.Take(index_.Find(a.node), a);
    gate_->Add(use);  // it will run: later jobs count it against quotas and limits
    usage.Add(use);
  };
  auto within_limits = [&]() { return !need_limits || usage.Check(use, limit) == PendingReason::kNone; };
  // What jobs being stopped free (and nobody before it claimed) suffices: it waits for them.
  if (within_limits()) {
    if (std::optional<std::vector<NodeAllocation>> a = place()) {
      claim(*a);
      blocked_.insert(&part);
      return Pending(job.id, PendingReason::kResources);
    }
  }
  // Nobody it could preempt at all (the usual case for most jobs): no search.
  if (!preemption_->MayPreemptAny(me, usage, min_running_tier_, min_running_priority_)) {
    plan.Rollback(base);
    return std::nullopt;
  }
  // In victim_order_: the fewest GPUs first, then the youngest, then the highest id.
  std::vector<const VictimInfo*> cands;
  for (const VictimInfo* vp : victim_order_) {
    const VictimInfo& v = *vp;
    if (!v.exposed || v.job->terminating || doomed_.count(v.job->id) || v.nodes.empty()) continue;
    // SUSPEND frees CPUs only; a node held whole stays held by the suspended job.
    if (!v.leaves &&
        std::any_of(v.job->allocation.begin(), v.job->allocation.end(), [](const NodeAllocation& a) { return a.exclusive; })) {
      continue;
    }
    bool helps = false;
    for (int i : v.nodes) helps = helps || (i >= 0 && nodes.test(i));
    if (helps) cands.push_back(&v);
  }
  const int mark = plan.Mark();
  const Qos* me_qos = preemption_->PreemptorQos(me);
  std::vector<std::pair<const VictimInfo*, std::string>> victims;
  // 1. One victim alone, in that order: the first that lets the job fit (placed on the victim's
  //    own nodes, which is cheap) frees the fewest GPUs a single victim can.
  const VictimInfo* single = nullptr;
  for (const VictimInfo* c : cands) {
    if (!preemption_->MayExposed(me, c->party, usage, me_qos)) continue;
    usage.Add(c->use(), -1);
    const bool within = within_limits();
    usage.Add(c->use(), 1);
    if (!within) continue;
    ReleaseVictim(plan, *c);
    DynamicBitset where(index_.size());
    for (int i : c->nodes) {
      if (i >= 0 && nodes.test(i)) where.set(i);
    }
    const bool fits = TryPlace(index_, plan, shape, where).has_value();
    plan.Rollback(mark);  // (the victim's release)
    if (fits) {
      single = c;
      victims = {{c, preemption_->Why(me, c->party, usage, now)}};
      break;
    }
  }
  // 2. Several victims, each smaller than the single one: greedy in that order until the job fits
  //    (and, when a limit held it, is within it), each checked against the usage left by the
  //    ones before it (so a queue is never reclaimed below its quota)... A job on one node is
  //    placed only on the nodes victims were taken from (it fits nowhere else).
  const bool one_node = shape.max_nodes == 1;
  const int64_t bound = single != nullptr ? single->use().gpu_milli : std::numeric_limits<int64_t>::max();
  auto place_on = [&](const DynamicBitset& touched) {
    return TryPlace(index_, plan, shape, one_node ? touched : nodes).has_value();
  };
  DynamicBitset touched(index_.size());
  std::vector<std::pair<const VictimInfo*, std::string>> chosen;
  bool ok = false;
  int64_t taken = 0;
  for (const VictimInfo* c : cands) {
    if (c->use().gpu_milli >= bound) break;  // sorted: no smaller ones left
    if (single != nullptr && taken >= 3 * bound) break;
    if (!preemption_->MayExposed(me, c->party, usage, me_qos)) continue;
    std::string why = preemption_->Why(me, c->party, usage, now);
    ReleaseVictim(plan, *c);
    for (int i : c->nodes) {
      if (i >= 0 && nodes.test(i)) touched.set(i);
    }
    usage.Add(c->use(), -1);
    taken += c->use().gpu_milli;
    chosen.emplace_back(c, std::move(why));
    if ((ok = within_limits() && place_on(touched))) break;
  }
  for (const auto& [c, why] : chosen) usage.Add(c->use(), 1);
  plan.Rollback(mark);
  if (ok) {
    // ...then spare every victim the job does not need, the last added (the largest) first...
    std::vector<bool> keep(chosen.size(), true);
    for (size_t k = chosen.size(); k-- > 0;) {
      keep[k] = false;
      std::vector<const VictimInfo*> released;
      for (size_t j = 0; j < chosen.size(); ++j) {
        if (!keep[j]) continue;
        ReleaseVictim(plan, *chosen[j].first);
        usage.Add(chosen[j].first->use(), -1);
        released.push_back(chosen[j].first);
      }
      if (!within_limits() || !place_on(touched)) keep[k] = true;
      for (const VictimInfo* v : released) usage.Add(v->use(), 1);
      plan.Rollback(mark);
    }
    // ...and keep them only if they free fewer GPUs than the single victim.
    int64_t total = 0;
    std::vector<std::pair<const VictimInfo*, std::string>> several;
    for (size_t k = 0; k < chosen.size(); ++k) {
      if (!keep[k]) continue;
      several.push_back(chosen[k]);
      total += chosen[k].first->use().gpu_milli;
    }
    if (total < bound) victims = std::move(several);
  }
  if (victims.empty()) {
    plan.Rollback(base);
    return std::nullopt;
  }
  Decision d = Pending(job.id, PendingReason::kResources);
  for (const auto& [c, why] : victims) {
    ReleaseVictim(plan, *c);
    gate_->Add(c->use(), -1);
    usage.Add(c->use(), -1);
    doomed_[c->job->id] = true;
    d.preempt.push_back(Preemption{c->job->id, c->mode, preemption_->GraceOf(c->job->qos, c->party.partition), why});
  }
  std::optional<std::vector<NodeAllocation>> alloc = place();
  MUSTER_CHECK(alloc.has_value()) << "job " << job.id << " does not fit what its victims free";
  claim(*alloc);
  blocked_.insert(&part);
  return d;
}

std::optional<std::vector<NodeAllocation>> Scheduler::PlaceDuring(const RequestShape& shape,
                                                                  const DynamicBitset& nodes, int64_t start,
                                                                  int64_t limit) {
  ClusterSnapshot window;  // a Plan reads only the usage
  window.usage = timeline_->PeakUsage(start, End(start, limit));
  Plan free_then(index_, window);
  Placer placer(index_, free_then);
  return placer.Place(shape, nodes);
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

Decision Scheduler::Backfill(const PendingJob& job, const Partition& part, const RequestShape& shape,
                             const DynamicBitset& nodes, int64_t limit, const std::string& key, const JobUse& use) {
  const std::string& partition = part.name;
  const int64_t now = snapshot_.now;
  // Preemption does not depend on backfill's depth: a job that does not fit what is free may
  // preempt as it would without backfill. (What does not fit now fits in no window from now: a
  // window holds at least what is held now. The cheap test first, and once per shape.)
  const bool preemptive = preemption_ && preemption_->enabled();
  bool fits_now = true;
  if (preemptive) {
    fits_now = FitsNow(shape, nodes, key);
    if (!fits_now) {
      if (std::optional<Decision> p = Preempt(job, part, shape, nodes, use, key, limit)) return *p;
    }
  }
  if (backfill_tested_ >= options_.backfill_depth) return Pending(job.id, PendingReason::kPriority);
  ++backfill_tested_;
  if (unreserved_.count(partition) && End(now, limit) > now + options_.backfill_horizon_s) {
    return Pending(job.id, PendingReason::kPriority);
  }
  if (!preemptive) fits_now = FitsNow(shape, nodes, key);
  if (!fits_now) return Reserve(Pending(job.id, PendingReason::kResources), partition, shape, nodes, limit);
  std::optional<std::vector<NodeAllocation>> alloc = PlaceDuring(shape, nodes, now, limit);
  // Only a reservation is in its way: Priority, as Slurm says.
  if (!alloc) return Reserve(Pending(job.id, PendingReason::kPriority), partition, shape, nodes, limit);
  // What is free throughout the window is free now (the timeline holds at least what the plan
  // does): the plan takes it as well. Checked all the same: a snapshot the two read differently
  // must cost a start, never the controller.
  for (const NodeAllocation& a : *alloc) {
    if (!plan_.Fits(index_.Find(a.node), a)) return Pending(job.id, PendingReason::kPriority);
  }
  if (gate_) {
    const JobUse held = WithOwner(UseOf(*alloc), job.account, job.user, job.qos);
    if (PendingReason r = gate_->Check(held, limit); r != PendingReason::kNone) return Pending(job.id, r);
  }
  if (!Claimable(*alloc)) return Pending(job.id, PendingReason::kPriority);
  for (const NodeAllocation& a : *alloc) plan_.Take(index_.Find(a.node), a);
  return Start(job, std::move(*alloc), limit);
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
    fit_cache_.clear();
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
    for (const RunningJob& r : snapshot_.running) gate_->AddAs(UseOf(r.allocation), r.account, r.user, r.qos);
    preemption_.emplace(*options_.policy);
    min_running_tier_ = std::numeric_limits<int>::max();
    min_running_priority_ = std::numeric_limits<int64_t>::max();
    any_terminating_ = false;
    const std::string* last_partition = nullptr;  // running jobs mostly share a few: the last one's
    const Partition* p = nullptr;
    for (const RunningJob& r : snapshot_.running) {
      any_terminating_ = any_terminating_ || r.terminating;
      if (last_partition == nullptr || *last_partition != r.partition) p = index_.FindPartition(r.partition);
      last_partition = &r.partition;
      min_running_tier_ = std::min(min_running_tier_, p != nullptr ? p->priority_tier : 0);
      min_running_priority_ = std::min(min_running_priority_, r.priority);
    }
  }
  const int mark = plan_.Mark();
  std::vector<Decision> out;
  out.reserve(queue.size());
  ResumeSuspended(out);
  for (const PendingJob* j : order) out.push_back(Decide(*j));
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
