// Replays a job trace through the real controller (ctld/controller.h): its job and node state
// machines, its scheduling pass with the scheduler core, its decision applier, preemption and
// requeue, exactly as musterctld runs them, but in virtual time (a ManualClock moved from event to
// event), with a memory store and a simulated agent fleet instead of SQLite and musterd.
//
// The simulated agents run a job for its trace duration once launched. A job stopped and requeued
// (a preemption) keeps the work it has done, as a training job that checkpoints does, and runs for
// what is left when launched again; SIGSTOP/SIGCONT pause and resume it. Time limits end jobs as
// they would on a real cluster (TIMEOUT, by the controller's Tick).
//
// Event order at one instant: job exits, then arrivals, then Tick (when due), then a scheduling
// pass; again while the pass stopped jobs (their exits come at the same instant). Deterministic.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "ctld/controller.h"
#include "sim/metrics.h"

namespace muster {

struct ReplayJob {
  int64_t trace_id = 0;
  int64_t arrival_s = 0;       // seconds since the epoch
  int64_t duration_s = 1;      // its work: how long it runs in all
  int gpus = 0;                // whole GPUs in total (--gpus): more than a node has spans nodes
  int cpus = 0;                // tasks of one CPU each (--ntasks), for CPU traces (SWF)
  std::string vc;              // its virtual cluster (the job's account)
  int64_t time_limit_s = kUnlimited;  // what it asks for (--time)
};

struct ReplayOptions {
  ControllerConfig controller;  // cluster, scheduler and priority settings
  int64_t tick_every_s = 60;    // Controller::Tick (time limits, usage, fair share) at most this often
  int64_t sample_every_s = 3600;
  // Work a preempted job loses (what it did since its last checkpoint), in seconds.
  int64_t restart_penalty_s = 0;
  // The trace counts CPUs, not GPUs (SWF): capacity, allocation samples and FinishedJob::gpus
  // are then CPUs.
  bool count_cpus = false;
  // Called every so often with the jobs finished and the total (a progress bar).
  std::function<void(int64_t finished, int64_t total)> progress;
};

// The cluster at one instant: GPUs held, jobs waiting, and GPUs idle while jobs wait.
struct ReplaySample {
  int64_t time_s = 0;
  int64_t allocated_gpus = 0;
  int64_t pending_jobs = 0;
  int64_t running_jobs = 0;
  int64_t idle_gpus_while_waiting = 0;  // free GPUs at a moment some job waits (0 when none waits)
};

struct ReplayResult {
  std::vector<FinishedJob> jobs;  // in trace order; start_s is the first start
  std::vector<ReplaySample> series;
  int64_t capacity_gpus = 0;  // (CPUs with count_cpus)
  int64_t cycles = 0;       // scheduling passes
  int64_t preemptions = 0;  // runs stopped for another job
  int64_t timeouts = 0;     // jobs ended by their time limit
  // With options.controller.check_caches: the passes decided twice, and how many differed
  // (Controller::cache_check; the first difference in cache_check_first).
  int64_t cache_check_passes = 0;
  int64_t cache_check_differences = 0;
  std::string cache_check_first;
};

// Errors: a job the controller refuses (its message, with the trace id), or a run that ends
// with jobs that never started (named, with their pending reason).
StatusOr<ReplayResult> Replay(const std::vector<ReplayJob>& jobs, const ReplayOptions& options);

}  // namespace muster
