// Preemption: who may preempt whom, and how a victim is stopped. Four rules, each optional:
//   QOS             a job whose QOS lists the victim's QOS in Preempt= (Slurm's preempt/qos);
//   partition tier  a job in a partition of a higher PriorityTier (Slurm's preempt/partition_prio);
//   quota reclaim   a job whose queue (account) stays within its quota with it, against a job of
//                   a sibling branch that is over its quota and stays at or above it without the
//                   victim (KAI's and Run:ai's reclaim: lent capacity comes back);
//   priority        a job of higher priority than the victim's (Kueue's LowerPriority): with a
//                   service order (sched/priority_policy.h), least attained service or shortest
//                   remaining time preempts.
// No victim is taken before its minimum runtime (PreemptExemptTime) or when its mode is OFF. The
// scheduler (sched/scheduler.h) chooses among the allowed victims; the controller stops them.
// Pure; the cycle's time comes in.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/account.h"
#include "model/partition.h"
#include "model/qos.h"
#include "sched/limit_gate.h"

namespace muster {

struct PreemptionSettings {
  bool by_qos = true;              // effective only with QOS that list others in `preempt`
  bool by_partition_tier = false;  // as Slurm, off unless asked for
  bool reclaim_quota = true;       // effective only with accounts that have quotas
  bool by_priority = false;        // a higher priority preempts a lower one
  PreemptMode mode = PreemptMode::kRequeue;  // PreemptMode (a QOS may set its own); OFF: none
  int64_t grace_time_s = 30;       // GraceTime: SIGTERM, then SIGKILL this much later
  int64_t exempt_time_s = 0;       // PreemptExemptTime: a job runs this long before it may be preempted
  friend bool operator==(const PreemptionSettings&, const PreemptionSettings&) = default;
};

// The scheduling policy beyond placement and priority: limits, quotas, QOS and preemption.
struct SchedPolicy {
  AccountTree accounts;
  std::vector<Qos> qos;
  PreemptionSettings preemption;
};

// One side of a preemption, as the rules see it.
struct PreemptParty {
  JobUse use;
  int partition_tier = 0;
  int64_t start_time = 0;                // victims: when the job started
  const Partition* partition = nullptr;  // victims: theirs (its PreemptMode), if known
  int64_t priority = 0;
};

class PreemptionPolicy {
 public:
  explicit PreemptionPolicy(const SchedPolicy& policy);

  // Whether any rule can ever apply (saves the scheduler the search otherwise).
  bool enabled() const { return enabled_; }
  // Whether a job's account bears on whom it may preempt (quota reclaim), and whether its
  // priority does (by priority: a lower one may preempt fewer jobs, never others).
  bool by_account() const { return policy_.preemption.reclaim_quota && any_quota_; }
  bool by_priority() const { return policy_.preemption.by_priority; }
  // Why `preemptor` may preempt `victim` at `now` (for the record: "QOS high preempts QOS normal"),
  // or "" when it may not. `usage` holds what runs (for quota reclaim).
  std::string Why(const PreemptParty& preemptor, const PreemptParty& victim, const LimitGate& usage,
                  int64_t now) const;
  // Whether Why would give a reason (not ""), without writing it: the victim search asks this of
  // every candidate, and writes the reason only for those it keeps.
  bool May(const PreemptParty& preemptor, const PreemptParty& victim, const LimitGate& usage, int64_t now) const;
  // May's two tests that do not depend on the preemptor: the victim's mode is not OFF and it has
  // run its PreemptExemptTime by `now`. MayExposed is May for a victim that passes them.
  bool Exposed(const PreemptParty& victim, int64_t now) const;
  // The same given the victim's ModeOf and ExemptOf (worked out once for many victims alike).
  bool Exposed(PreemptMode mode, int64_t exempt_s, int64_t start_time, int64_t now) const {
    return enabled_ && mode != PreemptMode::kOff && now - start_time >= exempt_s;
  }
  bool MayExposed(const PreemptParty& preemptor, const PreemptParty& victim, const LimitGate& usage) const {
    return MayExposed(preemptor, victim, usage, PreemptorQos(preemptor));
  }
  // The same with the preemptor's PreemptorQos looked up once for all the victims of a search.
  bool MayExposed(const PreemptParty& preemptor, const PreemptParty& victim, const LimitGate& usage,
                  const Qos* preemptor_qos) const {
    // (The priority rule inline: a search asks this of every running job, most often under it.)
    if (policy_.preemption.by_priority && preemptor.priority > victim.priority) return true;
    return other_rules_ && MayExposedByOthers(preemptor, victim, usage, preemptor_qos);
  }
  // Whether the priority rule is the only one that may apply (MayExposed is then a comparison of
  // priorities, whatever the usage).
  bool priority_only() const { return policy_.preemption.by_priority && !other_rules_; }
  // The QOS whose preempt list bears on whom `preemptor` may preempt (null: none does).
  const Qos* PreemptorQos(const PreemptParty& preemptor) const;
  // Whether any rule could let `preemptor` preempt anyone as things stand (`min_tier`: the
  // lowest partition tier of a running job, `min_priority` the lowest priority of one): a cheap
  // test before searching victims. False means Why is "" for every running job.
  bool MayPreemptAny(const PreemptParty& preemptor, const LimitGate& usage, int min_tier,
                     int64_t min_priority) const;
  // How a victim is stopped: its QOS's mode (or grace) if set, else its partition's (`partition`
  // may be null), else the cluster's.
  PreemptMode ModeOf(const std::string& victim_qos, const Partition* partition = nullptr) const;
  int64_t GraceOf(const std::string& victim_qos, const Partition* partition = nullptr) const;
  int64_t ExemptOf(const std::string& victim_qos) const;

 private:
  bool MayExposedByOthers(const PreemptParty& preemptor, const PreemptParty& victim, const LimitGate& usage,
                          const Qos* preemptor_qos) const;
  std::string ReclaimWhy(const JobUse& preemptor, const JobUse& victim, const LimitGate& usage) const;

  const SchedPolicy& policy_;
  bool enabled_ = false;
  bool any_quota_ = false;
  bool other_rules_ = false;  // a rule but the priority one may apply
};

}  // namespace muster
