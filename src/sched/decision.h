// The scheduler's output: for every pending job, start it (with its allocation), keep it pending
// (with a reason), or reject it (it can never run as asked; with a message for the user); and
// for a suspended job whose CPUs are free again, resume it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/allocation.h"
#include "model/qos.h"
#include "sched/pending_reason.h"

namespace muster {

enum class DecisionKind { kStart, kPending, kReject, kResume };

// A running job to stop so that a waiting one can start (sched/preemption.h).
struct Preemption {
  int64_t victim = 0;
  PreemptMode mode = PreemptMode::kRequeue;
  int64_t grace_s = 0;  // SIGTERM, then SIGKILL this much later
  std::string why;      // the rule that allowed it ("QOS high preempts QOS normal", ...)
  friend bool operator==(const Preemption&, const Preemption&) = default;
};

struct Decision {
  int64_t job_id = 0;
  DecisionKind kind = DecisionKind::kPending;
  PendingReason reason = PendingReason::kNone;  // for kPending
  std::string message;                          // for kReject (and detail for some reasons)
  // kReject: what Slurm tells the submitter before the error (its job_submit_user_msg), e.g.
  // "Memory specification can not be satisfied" when memory alone is what no node has.
  std::string user_msg;
  std::vector<NodeAllocation> nodes;            // kStart; kPending with a reservation: where;
                                                // kResume: the CPUs it takes back
  int64_t start_time = 0;                       // kPending with a backfill reservation: when
  // kPending: running jobs to stop first; the job starts in a later cycle, once they are gone.
  std::vector<Preemption> preempt;

  // One line, stable, for golden tests and logs:
  //   "7 START gpu[01-02] gpu01{cpu=4 mem=16384 tasks=1 gpus=0,1,2,3} gpu02{...}"
  //   "8 PENDING Resources", "8 PENDING Resources preempt=3,5", "9 REJECT Requested node configuration is not available",
  //   "3 RESUME"
  std::string ToString() const;
  friend bool operator==(const Decision&, const Decision&) = default;
};

}  // namespace muster
