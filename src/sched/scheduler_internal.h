// Helpers shared by the scheduler's files (scheduler.cc: the cycle and the placements;
// scheduler_preempt.cc: the victims and the preemption search; scheduler_het.cc: heterogeneous
// jobs). Not part of its interface.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include "sched/decision.h"
#include "sched/limit_gate.h"
#include "sched/timeline.h"

namespace muster::scheduler_internal {

inline Decision Pending(int64_t id, PendingReason r, std::string msg = "") {
  Decision d;
  d.job_id = id;
  d.kind = DecisionKind::kPending;
  d.reason = r;
  d.message = std::move(msg);
  return d;
}

inline Decision Reject(int64_t id, std::string msg) {
  Decision d;
  d.job_id = id;
  d.kind = DecisionKind::kReject;
  d.message = std::move(msg);
  return d;
}

// When a job started at `start` with time limit `limit` (kUnlimited: none) ends at the latest.
inline int64_t End(int64_t start, int64_t limit) {
  return limit == kUnlimited || limit <= 0 ? kForever : start + limit;
}

// Sort keys compared element by element (~x reverses an order).
using Keys3 = std::array<int64_t, 3>;

// What a suspended job gives back on a node, and takes again when it resumes: its CPUs only.
inline NodeAllocation CpusOnly(const std::string& node, int64_t cpu_milli) {
  return NodeAllocation{node, cpu_milli, 0, 0, {}, false};
}

inline JobUse WithOwner(JobUse u, const std::string& account, const std::string& user, const std::string& qos) {
  u.account = account;
  u.user = user;
  u.qos = qos;
  return u;
}

}  // namespace muster::scheduler_internal
