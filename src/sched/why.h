// Why is a job waiting, and when will it start? ExplainPending asks the scheduler core, as the
// controller's pass runs it, about one waiting job: the cycle's decision for it (its reason, and
// with backfill the planned start and where), the jobs the cycle takes before it, and what would
// let it start sooner, each answer found by running the core again on a changed copy of the job's
// request (or of the policy holding it), never guessed:
//   - fewer GPUs: the most GPUs with which it starts now (a binary search over its count), else
//     a count with an earlier planned start (half, then one);
//   - a shorter time limit: the longest (in whole minutes) with which it starts now;
//   - another partition: each one the caller says its owner may use, where it starts sooner;
//   - the account's limits and quota: the limit its reason names lifted (with what it is and what
//     the account holds), and under team quotas its account's quota raised to cover it.
// A change is reported only where the core says the job starts sooner (now, or at an earlier
// planned start). Pure and deterministic, like the core; the number of cycles it runs is bounded
// (about 2 log2 of the job's GPUs and minutes, plus one per partition and limit).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sched/cluster_snapshot.h"
#include "sched/decision.h"
#include "sched/scheduler.h"

namespace muster {

// What a cycle decided for a job, as the explanation tells it.
enum class WhyStart {
  kNow,         // the core starts it now (at the next pass)
  kPreempting,  // it starts once the running jobs named are stopped (preemption)
  kPlanned,     // a backfill reservation: at start_time on `nodes`
  kUnplanned,   // waits, with no planned start (no backfill, past its depth, or nothing in sight)
  kNever,       // rejected: it can never run as asked
};
const char* WhyStartName(WhyStart s);  // "now", "preempting", "planned", "unplanned", "never"

struct WhyOutcome {
  WhyStart start = WhyStart::kUnplanned;
  PendingReason reason = PendingReason::kNone;
  std::string message;                  // a rejection's message, or a reason's detail
  int64_t start_time = 0;               // kNow: the cycle's time; kPlanned: the reservation's
  std::vector<NodeAllocation> nodes;    // kNow: where it would start; kPlanned: where it is planned
  std::vector<int64_t> preempt;         // kPreempting: the running jobs to stop
};
// The outcome of a decision made at `now`.
WhyOutcome OutcomeOf(const Decision& d, int64_t now);
// Whether `a` starts strictly sooner than `b` (now and preempting count as now; no plan as never).
bool Sooner(const WhyOutcome& a, const WhyOutcome& b);

// A job the cycle takes before the one explained.
struct WhyAhead {
  int64_t id = 0;
  int position = 0;  // 1-based place in the cycle's order
  std::string user;
  std::string account;
  std::string partition;  // as resolved ("" asks for the default one)
  int64_t priority = 0;
  double gpus = 0;  // what it asks for
  WhyOutcome outcome;
};

// An account's place under team quotas (sched/queue_order.h), in GPUs (or CPUs without GPUs).
struct WhyShare {
  std::string account;
  double held = 0;        // by its running jobs
  double fair_share = 0;  // what the division gives it
  double demand = 0;      // held plus waiting
  double quota = -1;      // configured (-1: none)
};

// One change that lets the job start sooner.
struct WhyAlternative {
  std::string kind;    // "gpus", "time", "partition", "limit", "quota"
  std::string change;  // plain words: "4 GPUs (--gres=gpu:4)", "--time=00:30:00", "-p debug", ...
  double gpus = 0;                  // kind "gpus": the total asked with the change
  int64_t time_limit_s = 0;         // kind "time"
  std::string partition;            // kind "partition"
  std::string account;              // kinds "limit" and "quota": whose
  std::string limit;                // kind "limit": which (Slurm's name, e.g. "GrpTRES=gres/gpu")
  int64_t value = kUnlimited;       // its value now, or the quota raised to
  int64_t in_use = 0;               // what the account (or user, or QOS) holds of it now
  WhyOutcome outcome;               // what the core says with the change
};

struct WhyOptions {
  // The partitions the job's owner may use (the controller checks their access lists); nullopt:
  // every partition of the snapshot.
  std::optional<std::vector<std::string>> partitions;
  size_t max_ahead = 50;   // jobs ahead listed (their count is given in full)
  bool what_ifs = true;    // false: the decision and the order only
};

struct PendingExplanation {
  int64_t job_id = 0;
  bool queued = false;      // in the queue given (else nothing below is filled)
  std::string partition;    // as resolved
  double gpus = 0;          // what it asks for
  int64_t time_limit_s = 0; // its limit as the core applies it (its own or the partition's default)
  WhyOutcome outcome;
  int position = 0;         // 1-based place in the cycle's order
  int queue_size = 0;       // jobs in the cycle (their leaders, for heterogeneous ones)
  int ahead_total = 0;      // jobs before it in the cycle, every partition
  int ahead_in_partition = 0;
  std::vector<WhyAhead> ahead;  // those of its partition, in order, up to max_ahead
  bool fair_share_order = false;  // team quotas order the cycle across accounts
  std::vector<WhyShare> shares;   // with it: its account's and those of the jobs ahead listed
  std::vector<WhyAlternative> sooner;
  int cycles = 0;  // how many cycles of the core the answer took
};

// Explains `job_id` among `queue` on `snapshot`, with the pass's `options`. Copies what it
// changes; the inputs are left as they are.
PendingExplanation ExplainPending(const ClusterSnapshot& snapshot, const SchedulerOptions& options,
                                  const std::vector<PendingJob>& queue, int64_t job_id,
                                  const WhyOptions& why = {});

}  // namespace muster
