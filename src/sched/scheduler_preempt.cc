// The scheduler's preemption (sched/scheduler.h): the victims, kept between cycles, and the
// search for the running jobs to stop so that a waiting job fits.
#include <algorithm>
#include <iterator>
#include <limits>
#include <memory>
#include <unordered_set>

#include "sched/placer.h"
#include "sched/scheduler.h"
#include "sched/scheduler_internal.h"

namespace muster {

using scheduler_internal::CpusOnly;
using scheduler_internal::Keys3;
using scheduler_internal::Pending;
using scheduler_internal::WithOwner;

size_t Scheduler::PreemptMemoHash::operator()(const PreemptMemoKey& k) const {
  size_t h = std::hash<const void*>{}(k.shape);
  for (std::string_view v : {k.qos, k.account, k.user}) h = h * 1000003u ^ (v.empty() ? 0 : std::hash<std::string_view>{}(v));
  return h;
}

std::optional<Decision> Scheduler::Preempt(const PendingJob& job, const Partition& part, const RequestShape& shape,
                                           const DynamicBitset& nodes, const JobUse& use, const std::string& key,
                                           int64_t limit, bool need_limits) {
  if (!preemption_ || !preemption_->enabled()) return std::nullopt;
  // A deep queue holds many jobs alike: once one found nothing to preempt, the next finds the same
  // until something changes (a start, a claim), and so does one of lower priority (it may
  // preempt fewer jobs, never others). The account matters only to quota reclaim, the user only
  // to limits.
  PreemptMemoKey memo{&key, job.qos, {}, {}};
  if (preemption_->by_account() || need_limits) memo.account = job.account;
  if (need_limits) memo.user = job.user;
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
  v.party.use = WithOwner((v.leaves ? HeldBy(r) : UseOf(v.cpus_only)), r.account, r.user, r.qos);
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
  const uint64_t cycle = cycles_;  // (at most one PrepareClaims a cycle: claims_ stays till the next)
  std::vector<VictimKind> kinds;
  // A job's entry in the snapshot mostly stays where it was (ctld/kept_entries.h): its victim is
  // looked for where last cycle's entry at that place had its victim, before the table.
  const std::vector<RunningJob>& running = snapshot_.running;
  slot_of_.assign(running.size(), kNoSlot);
  for (size_t pos = 0; pos < running.size(); ++pos) {
    const RunningJob& r = running[pos];
    if (r.suspended) continue;  // already stopped: nothing more to free
    const uint32_t hinted = pos < slot_by_pos_.size() ? slot_by_pos_[pos] : kNoSlot;
    bool added = false;
    uint32_t slot;
    if (hinted < victims_.size() && victims_[hinted]->id == r.id && victims_[hinted]->keyed &&
        victims_[hinted]->seen != cycle) {
      slot = hinted;  // (the keyed victim of an id is the one victim_at_ finds)
    } else {
      auto [at, inserted] = victim_at_.try_emplace(r.id, static_cast<uint32_t>(victims_.size()));
      added = inserted;
      slot = at->second;
    }
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
    slot_of_[pos] = slot;
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
  std::vector<uint32_t>& moved_to = moved_to_;  // each victim's slot after (kNoSlot: gone)
  moved_to.assign(victims_.size(), kNoSlot);
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
    moved_to[k] = w;
    ++w;
  }
  victims_.resize(w);
  slot_by_pos_.resize(running.size());
  for (size_t pos = 0; pos < running.size(); ++pos) {
    slot_by_pos_[pos] = slot_of_[pos] == kNoSlot ? kNoSlot : moved_to[slot_of_[pos]];
  }
  // What jobs being stopped free.
  stopping_.clear();
  for (const std::unique_ptr<VictimInfo>& v : victims_) {
    if (v->terminating) {
      stopping_.push_back(v.get());
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

// What one preemption search works with: the preemptor, where it may go, and the claims it tries.
struct Scheduler::PreemptSearchState {
  const RequestShape& shape;
  const DynamicBitset& nodes;
  const JobUse& use;
  int64_t limit;
  bool need_limits;
  const PreemptParty& me;
  int64_t now;
  Plan& plan;
  LimitGate& usage;
  // Whether the preemptor is within its limits, where a limit holds it.
  bool WithinLimits() const { return !need_limits || usage.Check(use, limit) == PendingReason::kNone; }
};

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
  PreemptSearchState s{shape, nodes, use, limit, need_limits, me, now, plan, usage};
  // Everything the search claims, names and counts is undone when it finds nothing.
  Statement statement = Checkpoint(nullptr);
  for (const VictimInfo* v : stopping_) {
    if (v->job->preempted_by == job.id) ReleaseVictim(plan, *v);
  }
  auto place = [&]() { return TryPlace(index_, plan, shape, nodes); };
  auto claim = [&](const std::vector<NodeAllocation>& alloc) {
    for (const NodeAllocation& a : alloc) plan.Take(index_.Find(a.node), a);
    statement.AddUse(*gate_, use);  // it will run: later jobs count it against quotas and limits
    statement.AddUse(usage, use);
  };
  // What jobs being stopped free (and nobody before it claimed) suffices: it waits for them.
  if (s.WithinLimits()) {
    if (std::optional<std::vector<NodeAllocation>> a = place()) {
      claim(*a);
      blocked_.insert(&part);
      return Pending(job.id, PendingReason::kResources);
    }
  }
  // Nobody it could preempt at all (the usual case for most jobs): no search.
  if (!preemption_->MayPreemptAny(me, usage, min_running_tier_, min_running_priority_)) {
    statement.Rollback();
    return std::nullopt;
  }
  std::vector<const VictimInfo*> cands = PreemptCandidates(me, nodes);
  // The trials below release victims on the claims and take them back: a checkpoint of their own.
  Statement trial(plan);
  const Qos* me_qos = preemption_->PreemptorQos(me);
  NamedVictims victims;
  const VictimInfo* single = SingleVictim(s, cands, trial, me_qos, victims);
  SeveralVictims(s, cands, single, trial, me_qos, victims);
  if (victims.empty()) {
    statement.Rollback();
    return std::nullopt;
  }
  Decision d = Pending(job.id, PendingReason::kResources);
  for (const auto& [c, why] : victims) {
    ReleaseVictim(plan, *c);
    statement.AddUse(*gate_, c->use(), -1);
    statement.AddUse(usage, c->use(), -1);
    statement.Doom(c->job->id);
    d.preempt.push_back(Preemption{c->job->id, c->mode, preemption_->GraceOf(c->job->qos, c->party.partition), why});
  }
  std::optional<std::vector<NodeAllocation>> alloc = place();
  MUSTER_CHECK(alloc.has_value()) << "job " << job.id << " does not fit what its victims free";
  claim(*alloc);
  blocked_.insert(&part);
  return d;
}

std::vector<const Scheduler::VictimInfo*> Scheduler::PreemptCandidates(const PreemptParty& me,
                                                                       const DynamicBitset& nodes) {
  // In victim_order_: the fewest GPUs first, then the youngest, then the highest id. Under the
  // priority rule alone, those of lower priority only: the others would fail MayExposed below,
  // which leaves everything as it was (and the order of the rest is the same).
  const bool priority_only = preemption_->priority_only();
  std::vector<const VictimInfo*> cands;
  for (const VictimInfo* vp : victim_order_) {
    const VictimInfo& v = *vp;
    if (priority_only && v.party.priority >= me.priority) continue;
    if (!v.exposed || v.terminating || doomed_.contains(v.id) || v.nodes.empty()) continue;
    // SUSPEND frees CPUs only; a node held whole stays held by the suspended job.
    if (!v.leaves &&
        std::any_of(v.job->allocation.begin(), v.job->allocation.end(), [](const NodeAllocation& a) { return a.exclusive; })) {
      continue;
    }
    bool helps = false;
    for (int i : v.nodes) helps = helps || (i >= 0 && nodes.test(i));
    if (helps) cands.push_back(&v);
  }
  return cands;
}

const Scheduler::VictimInfo* Scheduler::SingleVictim(PreemptSearchState& s, const std::vector<const VictimInfo*>& cands,
                                                     Statement& trial, const Qos* me_qos, NamedVictims& victims) {
  // 1. One victim alone, in the candidates' order: the first that lets the job fit (placed on the
  //    victim's own nodes, which is cheap) frees the fewest GPUs a single victim can.
  for (const VictimInfo* c : cands) {
    if (!preemption_->MayExposed(s.me, c->party, s.usage, me_qos)) continue;
    s.usage.Add(c->use(), -1);
    const bool within = s.WithinLimits();
    s.usage.Add(c->use(), 1);
    if (!within) continue;
    ReleaseVictim(s.plan, *c);
    DynamicBitset where(index_.size());
    for (int i : c->nodes) {
      if (i >= 0 && s.nodes.test(i)) where.set(i);
    }
    const bool fits = TryPlace(index_, s.plan, s.shape, where).has_value();
    trial.Rollback();  // (the victim's release)
    if (fits) {
      victims = {{c, preemption_->Why(s.me, c->party, s.usage, s.now)}};
      return c;
    }
  }
  return nullptr;
}

void Scheduler::SeveralVictims(PreemptSearchState& s, const std::vector<const VictimInfo*>& cands,
                               const VictimInfo* single, Statement& trial, const Qos* me_qos, NamedVictims& victims) {
  // 2. Several victims, each smaller than the single one: greedy in the candidates' order until the
  //    job fits (and, when a limit held it, is within it), each checked against the usage left by the
  //    ones before it (so a queue is never reclaimed below its quota)... A job on one node is
  //    placed only on the nodes victims were taken from (it fits nowhere else).
  const bool one_node = s.shape.max_nodes == 1;
  const int64_t bound = single != nullptr ? single->use().gpu_milli : std::numeric_limits<int64_t>::max();
  auto place_on = [&](const DynamicBitset& touched) {
    return TryPlace(index_, s.plan, s.shape, one_node ? touched : s.nodes).has_value();
  };
  DynamicBitset touched(index_.size());
  NamedVictims chosen;
  bool ok = false;
  int64_t taken = 0;
  for (const VictimInfo* c : cands) {
    if (c->use().gpu_milli >= bound) break;  // sorted: no smaller ones left
    if (single != nullptr && taken >= 3 * bound) break;
    if (!preemption_->MayExposed(s.me, c->party, s.usage, me_qos)) continue;
    std::string why = preemption_->Why(s.me, c->party, s.usage, s.now);
    ReleaseVictim(s.plan, *c);
    for (int i : c->nodes) {
      if (i >= 0 && s.nodes.test(i)) touched.set(i);
    }
    s.usage.Add(c->use(), -1);
    taken += c->use().gpu_milli;
    chosen.emplace_back(c, std::move(why));
    if ((ok = s.WithinLimits() && place_on(touched))) break;
  }
  for (const auto& [c, why] : chosen) s.usage.Add(c->use(), 1);
  trial.Rollback();
  if (!ok) return;
  // ...then spare every victim the job does not need, the last added (the largest) first...
  const std::vector<bool> keep = NeededVictims(s, chosen, one_node ? touched : s.nodes, trial);
  // ...and keep them only if they free fewer GPUs than the single victim.
  int64_t total = 0;
  NamedVictims several;
  for (size_t k = 0; k < chosen.size(); ++k) {
    if (!keep[k]) continue;
    several.push_back(chosen[k]);
    total += chosen[k].first->use().gpu_milli;
  }
  if (total < bound) victims = std::move(several);
}

std::vector<bool> Scheduler::NeededVictims(PreemptSearchState& s, const NamedVictims& chosen,
                                           const DynamicBitset& where, Statement& trial) {
  std::vector<bool> keep(chosen.size(), true);
  for (size_t k = chosen.size(); k-- > 0;) {
    keep[k] = false;
    std::vector<const VictimInfo*> released;
    for (size_t j = 0; j < chosen.size(); ++j) {
      if (!keep[j]) continue;
      ReleaseVictim(s.plan, *chosen[j].first);
      s.usage.Add(chosen[j].first->use(), -1);
      released.push_back(chosen[j].first);
    }
    if (!s.WithinLimits() || !TryPlace(index_, s.plan, s.shape, where).has_value()) keep[k] = true;
    for (const VictimInfo* v : released) s.usage.Add(v->use(), 1);
    trial.Rollback();
  }
  return keep;
}

}  // namespace muster
