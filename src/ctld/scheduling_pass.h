// SchedulingPass: the scheduling pass as a part of the controller with its own state (issue 47).
// What the controller keeps from one pass to the next, so that a pass over thousands of waiting
// jobs copies and allocates little: the snapshot and the index built from it, the waiting list
// and the running entries with what each was filled from, the re-check's usage buffer, the
// workload mix placed with, and the Scheduler kept over the index; and the scheduler core run
// over them, with check mode's comparison against a fresh pass.
//
// One pass at a time: `mu` is held for a whole pass (Controller::ScheduleOnce) and by muster why,
// which reads the same input; it comes before the jobs' lock (LockRank::kCycle). The controller
// fills the input under its own locks as well (it reads the jobs and the nodes:
// Controller::BuildCycleInput); what is kept here is the pass's alone.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "ctld/kept_entries.h"
#include "model/job_record.h"
#include "sched/cluster_index.h"
#include "sched/cluster_snapshot.h"
#include "sched/decision.h"
#include "sched/mix_learner.h"
#include "sched/scheduler.h"
#include "sched/workload_mix.h"

namespace muster {

class SchedulingPass {
 public:
  // What a kept running entry's allocation was copied from: the job's run (its start and
  // restarts) and whether it held its CPUs and was suspended then. The same again, the
  // allocation is as it was (it is set only when a job starts).
  struct RunOf {
    int64_t start_time = -1;
    int restart_count = -1;
    bool cpus = false;
    bool suspended = false;
    bool operator==(const RunOf&) const = default;
  };
  struct FilledFrom {
    RunOf run;
    // The rank last computed for that run, which holds while the job's run seconds stay in
    // [rank_from_run_s, rank_until_run_s) (JobOrderPolicy::Rank; a clock set back can take them
    // below).
    int64_t rank = 0;
    int64_t rank_from_run_s = 0;
    int64_t rank_until_run_s = 0;
  };
  using KeptRunning = KeptEntries<RunningJob, FilledFrom>;

  // A pass's own input, beside what is kept: made by the controller under its locks.
  struct Input {
    SchedulerOptions options;          // a copy: sacctmgr may change the policy meanwhile
    uint64_t erased_at = 0;            // JobTable::erased_count() when the waiting list was made
    std::vector<MixShape> mix_shapes;  // a new workload mix to place with, when remake_mix
    bool remake_mix = false;
    ClusterSnapshot fresh_snapshot;    // check mode: the input built from nothing
    std::vector<PendingJob> fresh_pending;
  };

  // Check mode's tally (ControllerConfig::check_caches).
  struct CacheCheck {
    int64_t passes = 0;       // passes decided twice
    int64_t differences = 0;  // passes whose decisions differed
    std::string first;        // the first difference (CompareDecisions)
  };

  // How many starts of a pass were backfilled, and the further components of heterogeneous jobs
  // among them.
  struct Backfilled {
    uint64_t jobs = 0;
    uint64_t het_components = 0;
  };

  mutable Mutex mu{"scheduling pass", LockRank::kCycle};

  // Kept between passes, filled by the controller (each pass brings them up to date).
  ClusterSnapshot snapshot GUARDED_BY(mu);
  uint64_t epoch GUARDED_BY(mu) = 0;  // the nodes' epoch when the snapshot's nodes were last synced
  std::vector<PendingJob> pending GUARDED_BY(mu);  // the waiting list, in pending_kept's entries
  // Each tagged with its job's record: a pass finds it again by that, not in the job table,
  // while JobTable::erased_count() has not moved.
  KeptEntries<PendingJob, JobRecord*> pending_kept GUARDED_BY(mu);
  KeptRunning running_kept GUARDED_BY(mu);  // the snapshot's running list
  std::vector<NodeUsage> usage GUARDED_BY(mu);  // the re-check's buffer (ApplyDecisions)

  // The nodes changed in a way the index sees: the index and the Scheduler over it are dropped
  // (the Scheduler first: it refers to the index), and the running entries are made afresh (where
  // each node is may have moved).
  void DropIndex() REQUIRES(mu);
  // Whether the workload mix is to be made again from the jobs counted so far (`seen`, at least
  // one): with a new index (its memos are per node of it), or once they have grown by a tenth
  // since the last one (by at most 1,000). When it is, `seen` is noted as the new mix's count.
  bool MixDue(int64_t seen) REQUIRES(mu);
  // The workload mix the last pass placed with (none before it, or without a learnt mix).
  const std::shared_ptr<const WorkloadMix>& mix() const REQUIRES(mu) { return mix_; }

  // The scheduler core over the input: the index made if there is none, the mix made again when
  // `in` says so, the Scheduler kept with the index (reloaded with `in.options`). With `check`,
  // a fresh pass over in.fresh_* decides too and a difference is counted and logged.
  std::vector<Decision> Run(Input& in, bool check) REQUIRES(mu);
  // The starts of `started` that were backfilled: each came (decisions are in priority order)
  // after a job asking for the same partition got a reservation in this pass. The core says no
  // more than that.
  Backfilled CountBackfilled(const std::vector<Decision>& decisions, const std::vector<JobRecord>& started) const
      REQUIRES(mu);

  CacheCheck cache_check() const EXCLUDES(mu);

 private:
  std::unique_ptr<ClusterIndex> index_ GUARDED_BY(mu);
  std::unique_ptr<Scheduler> scheduler_ GUARDED_BY(mu);  // over index_, gone with it
  std::shared_ptr<const WorkloadMix> mix_ GUARDED_BY(mu);
  int64_t mix_at_ GUARDED_BY(mu) = 0;  // MixLearner::observed() when mix_ was made
  CacheCheck cache_check_ GUARDED_BY(mu);
};

}  // namespace muster
