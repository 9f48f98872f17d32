// The scheduler core: RunCycle(snapshot, pending jobs) -> one decision per job.
// Pure and deterministic: no clock, no I/O, no threads, no globals; equal inputs (in any order of
// the nodes, the running jobs and the queue) give identical decisions.
//
// Passes, in order, per job (highest priority first; ties: earlier submit, then lower id):
//   1. admit: partition known and UP, request valid, within partition limits (else a reason, or a
//      rejection when the job can never run as asked);
//   2. capacity: would the job fit the partition if every node were free? If not even with DOWN
//      and drained nodes back, it is rejected; if only with them, it waits (ReqNodeNotAvail);
//   3. order: with strict priority, once a job of a partition waits for resources, lower jobs of
//      that partition wait too (Priority) — backfill (a later pass) is what lets them through;
//   4. allocate: gang, topology- and link-aware placement (sched/placer.h), all or nothing;
//   5. backfill (optional): a job that cannot start gets a reservation at the earliest time its
//      whole gang fits, planned per GPU over the running jobs' ends (start + time limit) and the
//      reservations before it (sched/timeline.h); a lower job starts now only where it fits
//      around every reservation for its whole time limit, so it delays none.
// In code these are stages of their own (sched/scheduling_action.h: admit, limits, backfill, blocked,
// allocate, preempt, reserve), run in that fixed order by Decide; what a stage must undo part way
// it undoes with a Statement (sched/statement.h).
// With a SchedPolicy (limits, QOS, quotas, preemption):
//   - queues: with team quotas, jobs are taken across accounts by fair share (quota, then the
//     idle rest by over-quota weight; sched/queue_order.h), by priority within an account;
//   - limits: between 2 and 4, a job that would break an account or QOS limit waits with Slurm's
//     reason (sched/limit_gate.h) and blocks nobody;
//   - preemption: a job that does not fit may name running jobs to stop (Decision::preempt), the
//     fewest GPUs and then jobs that let it fit, youngest first on ties, each gang whole, among
//     those the rules allow (sched/preemption.h); what jobs already being stopped free counts
//     first. What it will take is claimed for it: no later job in the cycle starts on it or
//     counts on it. It starts in a later cycle, once its victims are gone. A victim whose mode is
//     SUSPEND frees only its CPUs (its processes stop, but keep their memory and GPU memory), so
//     it is one only where CPUs are what the job lacks; it resumes (Decision kResume), before
//     any waiting job is looked at, once the job that suspended it is gone and its CPUs are free.
#pragma once

#include <algorithm>
#include <boost/unordered/unordered_flat_map.hpp>
#include <boost/unordered/unordered_flat_set.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "sched/cluster_index.h"
#include "sched/cluster_snapshot.h"
#include "sched/decision.h"
#include "sched/limit_gate.h"
#include "sched/placement_scorer.h"
#include "sched/plan.h"
#include "sched/preemption.h"
#include "sched/request_shape.h"
#include "sched/scheduling_action.h"
#include "sched/statement.h"
#include "sched/timeline.h"
#include "sched/workload_mix.h"

namespace muster {

struct SchedulerOptions {
  // Slurm's main scheduler: a waiting job blocks the lower-priority jobs of its partition.
  // false: every job is tried in order (first fit through the queue; may starve large jobs).
  bool strict_priority = true;
  // Backfill (with strict priority): reservations for up to `backfill_depth` waiting jobs a
  // cycle, within `backfill_horizon_s` of now; jobs past the depth wait (Priority).
  bool backfill = false;
  int backfill_depth = 64;
  int64_t backfill_horizon_s = 7 * 24 * 3600;
  // Limits, quotas, QOS and preemption; none when null.
  std::shared_ptr<const SchedPolicy> policy;
  // How a one-node job chooses among the nodes it fits (sched/placement_scorer.h); never null.
  std::shared_ptr<const PlacementScorer> placement =
      PlacementScorerRegistry::Create(PlacementScorerRegistry::kDefault);
  // The workload expected (the controller's MixLearner), for a scorer that places by it (the
  // learned one: a one-node job goes where it leaves the least fragment the mix could not use).
  // Must have been made for this Scheduler's index (its memos are per node of it). None: best fit.
  std::shared_ptr<const WorkloadMix> mix;
};

// What a job's allocation holds, for limits and quotas.
JobUse UseOf(const std::vector<NodeAllocation>& allocation);
// What a running job holds: its memo (RunningJob::held_*) when filled, else UseOf(r.allocation).
JobUse HeldBy(const RunningJob& r);

class Scheduler {
 public:
  // `snapshot` must outlive the Scheduler. Builds the index (O(nodes)).
  explicit Scheduler(const ClusterSnapshot& snapshot, SchedulerOptions options = {});
  // With an index kept between cycles (the controller's): `index` must have been built from
  // `snapshot` itself, whose nodes may since have changed only in state, and only where
  // schedulable() stays the same. Its usage and running jobs may be anything.
  Scheduler(const ClusterSnapshot& snapshot, const ClusterIndex& index, SchedulerOptions options = {});

  // Decides for every job in `queue`; decisions come in scheduling order. Leaves the Scheduler as
  // constructed (the cycle's allocations are undone afterwards), so it can be called again.
  std::vector<Decision> RunCycle(const std::vector<PendingJob>& queue);

  // For a Scheduler kept between cycles (the controller's, with its index): the snapshot's
  // usage and running jobs have changed, and perhaps the options. What depends on the index
  // alone (the empty cluster's capacity) is kept, and so are the buffers.
  void Reload(SchedulerOptions options);

  const ClusterIndex& index() const { return index_; }

 private:
  friend class PassContext;  // the stages' view (sched/scheduling_action.h)
  struct Filter {
    std::string key;  // partition, constraint, -w and -x: what the node set depends on
    Status status;
    DynamicBitset nodes;
    // "UnavailableNodes:n[3-4]" for the jobs that would fit but for nodes down or drained: the
    // same for every job with this filter during a pass, so built once.
    std::optional<std::string> unavailable;
  };
  // The filter of `req` in `part` (kept for the pass; the last plain one, asked again, at once).
  Filter& Candidates(const Partition& part, const JobRequest& req);
  Filter& CandidatesByKey(const std::string& partition, const JobRequest& req);
  // The per-cycle memo key of a job's filter and shape: a short name ("#3") given to each pair the
  // first time it comes, so the memos hash a few bytes instead of every field written out; and
  // whether the pair can ever fit (-1: not found yet; then 0 never, 1 only with nodes down or
  // drained, 2 fits), found once per pair.
  struct ShapeName {
    std::string name;
    int fit = -1;
  };
  ShapeName& ShapeKey(const Filter& filter, const RequestShape& shape);
  struct ShapeIdent {
    const Filter* filter = nullptr;
    RequestShape shape;
    bool operator==(const ShapeIdent& o) const { return filter == o.filter && SamePlacement(shape, o.shape); }
  };
  struct ShapeIdentHash {
    size_t operator()(const ShapeIdent& s) const {
      return s.shape.PlacementHash() ^ (std::hash<const void*>{}(s.filter) * 31);
    }
  };
  Decision Decide(const PendingJob& job);
  // A heterogeneous job (job.het not empty): a decision for each of its components, appended to
  // `out`, the leader's first; all start or none (scheduler_het.cc).
  void DecideHet(const PendingJob& job, std::vector<Decision>& out);
  // What a job's turn starts from (its partition, shape, filter, ...: JobStep), resolved once
  // and kept while the job is unchanged; or its rejection (it can never run as asked).
  std::optional<Decision> Resolve(const PendingJob& job, JobStep& step);
  // A checkpoint over everything a stage changes this cycle, and the decisions in `out` if given.
  Statement Checkpoint(std::vector<Decision>* out);
  // Heterogeneous jobs' steps (scheduler_het.cc): a gang's components resolved and checked, or
  // the verdict for all of them; placed on `plan` one after the other; started; reserved; the
  // backfill path.
  struct HetGang;
  std::optional<Decision> ResolveHet(HetGang& gang);
  std::optional<std::vector<std::vector<NodeAllocation>>> PlaceHet(HetGang& gang, Plan& plan, bool scored);
  std::optional<std::vector<std::vector<NodeAllocation>>> PlaceHetDuring(HetGang& gang, int64_t t);
  PendingReason StartHet(HetGang& gang, std::vector<std::vector<NodeAllocation>> allocs);
  void ReserveHet(HetGang& gang, PendingReason why);
  void BackfillHet(HetGang& gang);
  // Gives `pending` (a job that cannot start now) a reservation, if any is left and one fits
  // within the horizon; else marks its partition: later jobs there must end within the horizon.
  Decision Reserve(Decision pending, const std::string& partition, const RequestShape& shape,
                   const DynamicBitset& nodes, int64_t limit);
  // With the policy: the running jobs to stop so that `job` fits now, or nothing.
  // `key` names the job's node filter and shape (for the per-cycle memo of fruitless searches).
  // `need_limits`: a limit holds the job; the victims must bring it within (the time limit
  // `limit` is the job's).
  std::optional<Decision> Preempt(const PendingJob& job, const Partition& part, const RequestShape& shape,
                                  const DynamicBitset& nodes, const JobUse& use, const std::string& key,
                                  int64_t limit, bool need_limits = false);
  std::optional<Decision> PreemptSearch(const PendingJob& job, const Partition& part, const RequestShape& shape,
                                        const DynamicBitset& nodes, const JobUse& use, int64_t limit,
                                        bool need_limits);
  // A running job as a possible victim: what it holds, on which canonical nodes, how it would
  // be stopped. Built at a cycle's first preemption search; a kept Scheduler keeps it for the
  // next cycles while the running entry's revision promises it unchanged (RunningJob::revision).
  struct VictimInfo {
    const RunningJob* job = nullptr;
    PreemptParty party;      // party.use: what stopping it frees (SUSPEND: its CPUs only)
    const JobUse& use() const { return party.use; }
    PreemptMode mode = PreemptMode::kRequeue;
    int64_t exempt_s = 0;    // PreemptionPolicy::ExemptOf its QOS
    std::vector<int> nodes;  // canonical index of each allocation entry (-1: unknown node)
    // Per allocation entry, what stopping it frees there: the job's allocation itself, or for
    // SUSPEND its CPUs only (held in cpus_only).
    const std::vector<NodeAllocation>* frees = nullptr;
    std::vector<NodeAllocation> cpus_only;
    bool leaves = true;                 // false for SUSPEND: the job stays on its nodes
    bool exposed = false;               // PreemptionPolicy::Exposed this cycle
    // What it was built from: the entry's revision (0: none, so built again every cycle) and
    // whether the job was being stopped then (leaves and frees depend on it).
    uint64_t revision = 0;
    bool terminating = false;
    int64_t id = 0;
    bool keyed = true;       // victim_at_ finds it (not when the snapshot names an id twice)
    uint64_t seen = 0;       // the last cycle (cycles_) that found the job running
    bool rebuilt = false;    // built again this cycle: its place in the order is to be found
  };
  // Builds `v` afresh for `r`.
  struct VictimKind;
  void BuildVictim(VictimInfo& v, const RunningJob& r, std::vector<VictimKind>& kinds);
  // Suspended jobs whose preemptor is gone take their CPUs back, before anyone waiting.
  void ResumeSuspended(std::vector<Decision>& out);
  void PrepareClaims();
  void ReleaseVictim(Plan& plan, const VictimInfo& v);
  // PreemptSearch's steps (scheduler_preempt.cc), over what one search works with.
  struct PreemptSearchState;
  using NamedVictims = std::vector<std::pair<const VictimInfo*, std::string>>;  // each with why it is stopped
  // The running jobs worth trying as victims of `me`: those exposed that free some of `nodes`, in victim_order_.
  std::vector<const VictimInfo*> PreemptCandidates(const PreemptParty& me, const DynamicBitset& nodes);
  // The first candidate that alone lets the job fit, named in `victims`; or null.
  const VictimInfo* SingleVictim(PreemptSearchState& s, const std::vector<const VictimInfo*>& cands, Statement& trial,
                                 const Qos* me_qos, NamedVictims& victims);
  // Candidates smaller than `single` that together let the job fit: in `victims` when they free fewer GPUs.
  void SeveralVictims(PreemptSearchState& s, const std::vector<const VictimInfo*>& cands, const VictimInfo* single,
                      Statement& trial, const Qos* me_qos, NamedVictims& victims);
  // Which of `chosen` the job needs to fit on `where`: each spared in turn, the last added first.
  std::vector<bool> NeededVictims(PreemptSearchState& s, const NamedVictims& chosen, const DynamicBitset& where,
                                  Statement& trial);
  // Whether `shape` fits what is free now (remembered per key for the cycle when it does not).
  bool FitsNow(const RequestShape& shape, const DynamicBitset& nodes, const std::string& key);
  // With claims: takes `alloc` from them too and says true, or says false (a preemptor has
  // claimed part of it).
  bool Claimable(const std::vector<NodeAllocation>& alloc);
  // Takes `alloc` for `job` (the plan, the timeline, the limits) and returns the start.
  Decision Start(const PendingJob& job, std::vector<NodeAllocation> alloc, int64_t limit);
  // A plan of what is free throughout [a, b) (the timeline's peak usage over it), made in
  // window_plan_ over window_ (kept: a backfill pass asks for many windows). Valid until the
  // next call.
  Plan& WindowPlan(int64_t a, int64_t b);
  // Places `shape` on what is free throughout [start, start + limit), or nothing.
  std::optional<std::vector<NodeAllocation>> PlaceDuring(const RequestShape& shape, const DynamicBitset& nodes,
                                                         int64_t start, int64_t limit);

  const ClusterSnapshot& snapshot_;
  SchedulerOptions options_;
  std::optional<ClusterIndex> own_index_;  // when not given one
  const ClusterIndex& index_;
  Plan plan_;            // the real free resources
  Plan capacity_up_;     // every schedulable node free
  Plan capacity_all_;    // every node free, whatever its state
  // Kept between cycles, up to kKeptShapes of each (they depend on the index alone):
  static constexpr size_t kKeptShapes = 4096;
  std::unordered_map<std::string, Filter> filters_;
  std::unordered_map<ShapeIdent, ShapeName, ShapeIdentHash> shape_keys_;  // filters_' elements stay put
  // What Decide resolved for a waiting job (its partition, shape, filter, shape key, whether it
  // can ever fit and its estimated use), kept while the job's revision holds (PendingJob::revision) and dropped
  // with the filters; jobs no longer queued are dropped now and then.
  struct JobMemo {
    uint64_t revision = 0;
    const Partition* partition = nullptr;
    RequestShape shape;
    Filter* filter = nullptr;
    const std::string* key = nullptr;
    int fit = 0;
    JobUse estimate;     // SetEstimate: the amounts, no owner
    uint64_t cycle = 0;  // the last cycle that decided for it
  };
  boost::unordered_flat_map<int64_t, JobMemo> job_memos_;
  JobMemo scratch_memo_;  // the same for a job without a revision (not kept)
  uint64_t cycles_ = 0;  // RunCycle calls: what the memos and the kept victims are stamped with
  // Per cycle:
  // The last filter of a job asking for a partition and nothing else (the usual job), and its
  // partition: most jobs of a cycle find theirs here without building the filter's key.
  const Partition* plain_partition_ = nullptr;
  Filter* plain_filter_ = nullptr;
  // Shape keys that did not fit this cycle, by address: a key is one of shape_keys_' names,
  // which stay put and are unique.
  boost::unordered_flat_set<const std::string*> failed_;
  boost::unordered_flat_set<const Partition*> blocked_;  // partitions blocked by a waiting job
  std::optional<Timeline> timeline_;                 // backfill only
  ClusterSnapshot window_;             // WindowPlan's input: only its usage is set
  std::optional<Plan> window_plan_;
  int reservations_ = 0;
  int backfill_tested_ = 0;
  std::unordered_map<std::string, bool> unreserved_;  // partitions with a job left without reservation
  std::optional<PreemptionPolicy> preemption_;
  std::optional<LimitGate> gate_;                     // with a policy: what runs, plus this cycle's starts
  boost::unordered_flat_set<int64_t> doomed_;        // victims named this cycle
  // From the cycle's first preemption on: the plan with what jobs being stopped and victims will
  // free given back, and what preemptors will take taken.
  std::optional<Plan> claims_;
  std::optional<LimitGate> staying_;  // gate_ without the jobs being stopped (for quota reclaim)
  // Kept between cycles (see VictimInfo), in no order; victim_at_ finds a job's. Each where it
  // was made (victim_order_ points to them, and their `frees` into them).
  std::vector<std::unique_ptr<VictimInfo>> victims_;
  boost::unordered_flat_map<int64_t, uint32_t> victim_at_;
  // The policy they were built under (held: another one made later cannot take its address).
  std::shared_ptr<const SchedPolicy> victims_policy_;
  // victims_ in the order a search tries them: the fewest GPUs first, then the youngest, then
  // the highest id. Kept for the next cycle, whose order differs only where jobs started,
  // ended or were built again.
  std::vector<const VictimInfo*> victim_order_;
  std::vector<const VictimInfo*> stopping_;  // this cycle's victims whose job is being stopped
  // Per entry of the snapshot's running list, the slot in victims_ of its job's victim, as last
  // made (a hint: checked against the victim's id); and PrepareClaims' buffers.
  static constexpr uint32_t kNoSlot = UINT32_MAX;
  std::vector<uint32_t> slot_by_pos_, slot_of_, moved_to_;
  // Preempt memo, cleared by starts and claims: per shape key, QOS and (where they bear on it)
  // account and user, the highest priority that found nothing to preempt. The key points into
  // the cycle's names and waiting list (the memo is cleared every cycle): no string is built
  // or copied for a lookup.
  struct PreemptMemoKey {
    const std::string* shape;  // one of shape_keys_' names (unique, they stay put)
    std::string_view qos, account, user;
    bool operator==(const PreemptMemoKey&) const = default;
  };
  struct PreemptMemoHash {
    size_t operator()(const PreemptMemoKey& k) const;
  };
  boost::unordered_flat_map<PreemptMemoKey, int64_t, PreemptMemoHash> preempt_failed_;
  // The cycle's pending jobs, ascending: a sorted vector, made every pass without a node per job.
  std::vector<int64_t> queued_;
  bool Queued(int64_t id) const { return std::binary_search(queued_.begin(), queued_.end(), id); }
  int min_running_tier_ = 0;  // the lowest partition tier of a running job (under the tier rule)
  int64_t min_running_priority_ = 0;                 // the lowest priority of a running job
  bool any_terminating_ = false;                     // a running job is being stopped
};

// Convenience: one cycle on a fresh Scheduler.
std::vector<Decision> RunCycle(const ClusterSnapshot& snapshot, const std::vector<PendingJob>& queue,
                               const SchedulerOptions& options = {});
std::vector<Decision> RunCycle(const ClusterSnapshot& snapshot, const ClusterIndex& index,
                               const std::vector<PendingJob>& queue, const SchedulerOptions& options = {});

// The stages' view of the cycle (sched/scheduling_action.h): read every job's turn, so inline.
inline const ClusterIndex& PassContext::index() const { return s_.index_; }
inline const SchedulerOptions& PassContext::options() const { return s_.options_; }
inline int64_t PassContext::now() const { return s_.snapshot_.now; }
inline Plan& PassContext::plan() { return s_.plan_; }
inline std::optional<LimitGate>& PassContext::gate() { return s_.gate_; }
inline std::optional<Timeline>& PassContext::timeline() { return s_.timeline_; }
inline bool PassContext::preemptive() const { return s_.preemption_ && s_.preemption_->enabled(); }
inline bool PassContext::Blocked(const Partition* part) const { return s_.blocked_.contains(part); }
inline void PassContext::Block(const Partition* part) { s_.blocked_.insert(part); }
inline bool PassContext::Failed(const std::string* key) const { return s_.failed_.contains(key); }
inline void PassContext::Fail(const std::string* key) { s_.failed_.insert(key); }
inline int PassContext::reservations() const { return s_.reservations_; }
inline int& PassContext::backfill_tested() { return s_.backfill_tested_; }
inline bool PassContext::Unreserved(const std::string& partition) const { return s_.unreserved_.count(partition) != 0; }

}  // namespace muster
