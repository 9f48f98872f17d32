// Statement: one checkpoint over everything a scheduling stage changes, as KAI scheduler's
// Statement (Checkpoint / Rollback / Commit over every operation of an action). It marks the
// cycle's plan, the preemptors' claims, the timeline's reservations and the decisions emitted
// when it is made; the limits ledgers and the victims named change through it (journaled). A
// stage that finds part way through that it cannot go on calls Rollback, and everything it did
// since the checkpoint is undone, whichever of those it touched; else it simply keeps it
// (Commit: the checkpoint is dropped, nothing to do). Pure; not thread-safe.
#pragma once

#include <boost/unordered/unordered_flat_set.hpp>
#include <cstdint>
#include <vector>

#include "sched/decision.h"
#include "sched/limit_gate.h"
#include "sched/plan.h"
#include "sched/timeline.h"

namespace muster {

class Statement {
 public:
  // What a stage may change; any of them may be null (not in this cycle: no claims before the
  // cycle's first preemptor, no timeline without backfill).
  struct Ledgers {
    Plan* plan = nullptr;
    Plan* claims = nullptr;
    Timeline* timeline = nullptr;
    boost::unordered_flat_set<int64_t>* doomed = nullptr;
    std::vector<Decision>* out = nullptr;
  };
  explicit Statement(const Ledgers& ledgers);
  // Over a plan alone (a trial placement on a plan of its own).
  explicit Statement(Plan& plan) : Statement(Ledgers{.plan = &plan}) {}

  // The limits ledger `gate` (the cycle's, or the one without the jobs being stopped) counts
  // `use` in (+1) or out (-1).
  void AddUse(LimitGate& gate, const JobUse& use, int sign = 1);
  // `id` is a victim of this cycle.
  void Doom(int64_t id);
  // Undoes everything since the checkpoint, and takes a new one there.
  void Rollback();
  // Keeps what was done: the checkpoint moves to here.
  void Commit();

 private:
  struct UseEntry {
    LimitGate* gate;
    JobUse use;
    int sign;
  };
  void Checkpoint();

  Ledgers ledgers_;
  int plan_mark_ = 0, claims_mark_ = 0, timeline_mark_ = 0;
  size_t out_mark_ = 0;
  std::vector<UseEntry> uses_;    // in order, undone in reverse
  std::vector<int64_t> doomed_;   // named since the checkpoint
};

}  // namespace muster
