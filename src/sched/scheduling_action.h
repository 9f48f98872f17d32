// The scheduling pass as named actions (issue 47; KAI scheduler's ordered actions, the Kubernetes
// scheduler framework's plugins from a registry). A pass takes the waiting jobs one at a time,
// highest first, and each job goes through the stages below, in order, before the next job is
// looked at: the first stage that decides for it ends its turn. (Not whole-queue passes, one
// after the other: what a stage does for a job changes what the next job finds, and running each
// stage over the whole queue in turn would decide differently.)
//
//   admit     the partition is up and its limits allow the job; it fits the nodes up now
//   limits    the account and QOS limits (an account's GPU limit may be met by preempting: reclaim)
//   backfill  with reservations made (or the partition blocked): start only around them, or reserve
//   blocked   behind a waiting job of its partition: wait (or preempt, for what is not free)
//   allocate  place it on what is free and start it
//   preempt   it did not fit: the running jobs to stop for it (Scheduler::Preempt; quota reclaim,
//             across accounts, is one of the rules it chooses victims by, not a stage of its own)
//   reserve   it waits: with backfill, a reservation at the earliest time it fits
//
// The order is fixed in code (ActionRegistry::Pass), not configured: each stage relies on what
// the ones before it ruled out (allocate on the job being admitted, within its limits and not
// blocked; preempt and reserve on allocate having failed). A new stage is one file
// (sched/action_<name>.cc: a class implementing SchedulingAction and its New...Action function,
// declared below), its row in the table (scheduling_action.cc) and its test.
// Heterogeneous jobs take the same stages in Scheduler::DecideHet (scheduler_het.cc).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/bitset.h"
#include "sched/cluster_snapshot.h"
#include "sched/decision.h"
#include "sched/limit_gate.h"
#include "sched/request_shape.h"
#include "sched/statement.h"

namespace muster {

class Scheduler;
class Timeline;
class Plan;
class ClusterIndex;
struct SchedulerOptions;

// One job's turn: what the Scheduler resolved for it (kept between cycles while it is unchanged).
struct JobStep {
  const PendingJob& job;
  const std::string* partition_name = nullptr;
  const Partition* part = nullptr;
  const RequestShape* shape = nullptr;
  const DynamicBitset* nodes = nullptr;             // where it may run
  std::optional<std::string>* unavailable = nullptr;  // its filter's "UnavailableNodes:..." (built once)
  const std::string* key = nullptr;                 // its filter and shape's name (the cycle's memos)
  int fit = 0;                                      // 0 never, 1 only with nodes down or drained, 2 fits
  const JobUse* use = nullptr;                      // what it would hold (the amounts; no owner)
  int64_t limit = 0;                                // its time limit (the partition's default if none)
};

// The cycle's state the stages share, and the Scheduler's operations on it (a view of the
// Scheduler: a stage holds no state of its own).
class PassContext {
 public:
  explicit PassContext(Scheduler& s) : s_(s) {}
  const ClusterIndex& index() const;
  const SchedulerOptions& options() const;
  int64_t now() const;
  Plan& plan();
  std::optional<LimitGate>& gate();
  std::optional<Timeline>& timeline();
  bool preemptive() const;  // a policy with preemption enabled
  // Partitions blocked by a waiting job; shape keys that did not fit this cycle.
  bool Blocked(const Partition* part) const;
  void Block(const Partition* part);
  bool Failed(const std::string* key) const;
  void Fail(const std::string* key);
  int reservations() const;
  int& backfill_tested();
  bool Unreserved(const std::string& partition) const;
  // A checkpoint over everything a stage changes (sched/statement.h).
  Statement Checkpoint();
  // Scheduler's operations (scheduler.h).
  std::optional<Decision> Preempt(const JobStep& step, bool need_limits = false);
  // (`partition`: the name its unreserved jobs are counted under.)
  Decision Reserve(Decision pending, const JobStep& step, const std::string& partition);
  Decision Start(const JobStep& step, std::vector<NodeAllocation> alloc);
  bool FitsNow(const JobStep& step);
  bool Claimable(const std::vector<NodeAllocation>& alloc);
  std::optional<std::vector<NodeAllocation>> Place(const JobStep& step);
  std::optional<std::vector<NodeAllocation>> PlaceDuring(const JobStep& step, int64_t start);

 private:
  Scheduler& s_;
};

// One stage: a decision for the job (its turn ends), or nothing (the next stage goes on).
class SchedulingAction {
 public:
  virtual ~SchedulingAction() = default;
  virtual const char* name() const = 0;
  virtual std::optional<Decision> Execute(PassContext& ctx, const JobStep& step) const = 0;
};

std::unique_ptr<const SchedulingAction> NewAdmitAction();
std::unique_ptr<const SchedulingAction> NewLimitsAction();
std::unique_ptr<const SchedulingAction> NewBackfillAction();
std::unique_ptr<const SchedulingAction> NewBlockedAction();
std::unique_ptr<const SchedulingAction> NewAllocateAction();
std::unique_ptr<const SchedulingAction> NewPreemptAction();
std::unique_ptr<const SchedulingAction> NewReserveAction();

class ActionRegistry {
 public:
  // Every stage's name, in the order a pass runs them.
  static std::span<const std::string_view> Names();
  // Null when no stage has that name.
  static std::unique_ptr<const SchedulingAction> Create(std::string_view name);
  // The pass: every stage, in order (made once; stages keep no state).
  static std::span<const SchedulingAction* const> Pass();
};

}  // namespace muster
