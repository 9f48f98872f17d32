// Helpers shared by the scheduler's two files (scheduler.cc: the cycle and the placements;
// scheduler_preempt.cc: the victims and the preemption search). Not part of its interface.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include "sched/decision.h"
#include "sched/limit_gate.h"

namespace muster::scheduler_internal {

inline Decision Pending(int64_t id, PendingReason r, std::string msg = "") {
  Decision d;
  d.job_id = id;
  d.kind = DecisionKind::kPending;
  d.reason = r;
  d.message = std::move(msg);
  return d;
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
