// The scheduling pass, in named stages: build the cycle's input (under the lock, from what is
// kept between passes), run the scheduler core on it (without the lock), re-check and apply its
// decisions against the state as it is now (under the lock), stop and resume what it named, then
// persist and launch what started.
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "base/log.h"
#include "ctld/controller.h"
#include "model/hostlist.h"
#include "proc/job_env.h"

namespace muster {

int Controller::ScheduleOnce() {
  // One pass at a time: the snapshot, its index and the buffers are kept between passes. Every
  // job end and submission runs a pass over the whole queue; building these afresh each time
  // (allocating a few hundred KiB, copying every node and job) would be most of a pass's cost
  // with thousands of jobs pending.
  MutexLock cycle(pass_.mu);
  // The pass's wall time (sdiag's cycle, muster_scheduler_pass_seconds): a measurement, so the
  // steady clock, not the injected one (which a simulation drives).
  const auto began = std::chrono::steady_clock::now();
  CycleInput in;
  if (!BuildCycleInput(in)) return 0;
  const std::vector<Decision> decisions = pass_.Run(in, config_.check_caches);
  CycleOutcome out = ApplyDecisions(decisions, in.erased_at);
  StopAndResume(out);
  const int launched = PersistAndLaunch(out.started);
  uint64_t reservations = 0;
  for (const Decision& d : decisions) reservations += d.kind == DecisionKind::kPending && d.start_time > 0;
  SchedulingPass::Backfilled backfilled;
  if (in.options.backfill && reservations > 0 && !out.started.empty()) {
    backfilled = pass_.CountBackfilled(decisions, out.started);
  }
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - began);
  stats_.Started(out.started.size());
  stats_.Pass(static_cast<uint64_t>(micros.count()), pass_.pending.size(), in.options.backfill, reservations,
              clock_->NowSeconds(), backfilled.jobs, backfilled.het_components);
  return launched;
}

bool Controller::BuildCycleInput(CycleInput& in) {
  std::vector<PendingJob>& pending = pass_.pending;
  ClusterSnapshot& snapshot = pass_.snapshot;
  JobsLock lock(this);
  in.options = config_.scheduler;
  in.options.policy = policy_.scheduler_policy();
  in.erased_at = jobs_.erased_count();
  if (pending_stale_) {
    pending.clear();
    pending_stale_ = false;
  }
  const bool suspended = FillPendingLocked(pending);
  // Nobody waits and nothing may resume (a job end with an empty queue): no pass.
  if (pending.empty() && !suspended) return false;
  NodeTable::Access nodes = nodes_.Lock();
  if (!SyncSnapshotNodesLocked(nodes, snapshot, pass_.epoch)) pass_.DropIndex();
  FillSnapshotLocked(nodes, snapshot, &pass_.running_kept);
  if (config_.check_caches) {
    in.fresh_snapshot = SnapshotLocked(nodes);
    in.fresh_snapshot.now = snapshot.now;
    in.fresh_pending = FreshPendingLocked(pending);
  }
  // The mix to place with, made again when due (SchedulingPass::MixDue).
  if (const int64_t seen = mix_learner_.observed();
      config_.scheduler.placement->learns_mix() && seen > 0 && pass_.MixDue(seen)) {
    in.mix_shapes = mix_learner_.Shapes();
    in.remake_mix = true;
  }
  return true;
}

bool Controller::StillFitsLocked(NodeTable::Access& nodes, const Decision& d, const std::vector<NodeUsage>& now) const {
  for (const NodeAllocation& a : d.nodes) {
    const int p = nodes_.Pos(a.node);
    if (p < 0 || !nodes.at(p).node.schedulable()) return false;
    const Node& n = nodes.at(p).node;
    const NodeUsage& u = now[p];
    if (u.exclusive || (a.exclusive && u.jobs != 0) || u.cpu_milli + a.cpu_milli > int64_t{n.cpus} * 1000 ||
        u.memory_mb + a.memory_mb > n.memory_mb) {
      return false;
    }
    for (const GpuShare& g : a.gpus) {
      if (g.index >= static_cast<int>(u.gpus.size()) || u.gpus[g.index].milli + g.milli > kMilliPerGpu) return false;
    }
  }
  return true;
}

Controller::CycleOutcome Controller::ApplyDecisions(const std::vector<Decision>& decisions, uint64_t erased_at) {
  CycleOutcome out;
  JobsLock lock(this);
  // Re-check against the state now: jobs may have been cancelled or held, nodes drained or lost,
  // while the cycle ran without the lock.
  std::vector<NodeUsage>& now = pass_.usage;
  NodeTable::Access nodes = nodes_.Lock();
  now = usage_.Current(nodes, jobs_.active());
  auto start = [&](JobRecord& job, const Decision& d) REQUIRES(mu_) {
    job.state = JobState::kRunning;
    job.reason = "None";
    job.reason_detail.clear();
    job.start_time = clock_->NowSeconds();
    job.expected_start = 0;
    job.sched_nodes.clear();
    job.allocation.clear();
    job.allocation = d.nodes;
    job.batch_host = job.allocation.front().node;
    usage_.Count(job, 1);
    launching_.insert(job.id);
    unacknowledged_runs_.insert(JobRun{job.id, job.restart_count});  // until its batch host says it has it
    out.started.push_back(job);
  };
  for (size_t i = 0; i < decisions.size(); ++i) {
    const Decision& d = decisions[i];
    // A waiting job's record, as the waiting list found it, unless records were erased since.
    JobRecord* const* listed = erased_at == jobs_.erased_count() ? pass_.pending_kept.FindTag(d.job_id) : nullptr;
    JobRecord* record = listed != nullptr ? *listed : nullptr;
    if (record == nullptr) record = jobs_.Find(d.job_id);
    if (record == nullptr) continue;
    JobRecord& job = *record;
    if (d.kind == DecisionKind::kResume) {
      if (job.state == JobState::kSuspended && ResumeLocked(nodes, job, now, d.nodes)) out.resumed.push_back(job);
      continue;
    }
    if (d.kind == DecisionKind::kStart && job.het_job_size > 1) {
      // A heterogeneous job's components (their decisions follow the leader's): all of them
      // still fit and start, or none does.
      const size_t n = static_cast<size_t>(job.het_job_size);
      std::vector<NodeUsage> trial = now;
      std::vector<JobRecord*> members;
      bool ok = job.het_job_offset == 0 && !job.held && i + n <= decisions.size();
      for (size_t k = 0; ok && k < n; ++k) {
        const Decision& dk = decisions[i + k];
        JobRecord* member = jobs_.Find(job.id + static_cast<int64_t>(k));
        ok = dk.kind == DecisionKind::kStart && dk.job_id == job.id + static_cast<int64_t>(k) && member != nullptr &&
             member->state == JobState::kPending && StillFitsLocked(nodes, dk, trial);
        if (!ok) break;
        for (const NodeAllocation& a : dk.nodes) usage_.Add(trial, a);
        members.push_back(member);
      }
      if (ok) {
        now = std::move(trial);
        // Every component (the leader's batch script, the steps of each) learns where all are.
        std::vector<JobRecord> placed;
        for (size_t k = 0; k < n; ++k) {
          placed.push_back(*members[k]);
          placed.back().allocation = decisions[i + k].nodes;
        }
        const std::vector<std::string> het_env = HetJobEnvironment(placed, config_.cluster_name);
        for (JobRecord* m : members) m->het_environment = het_env;
        for (size_t k = 0; k < n; ++k) start(*members[k], decisions[i + k]);
      }
      while (i + 1 < decisions.size() && decisions[i + 1].job_id > job.id &&
             decisions[i + 1].job_id < job.id + static_cast<int64_t>(n)) {
        ++i;  // (retried next cycle when they did not start)
      }
      continue;
    }
    if (job.state != JobState::kPending || job.held) continue;
    if (d.kind != DecisionKind::kStart) {
      job.reason = d.kind == DecisionKind::kPending ? PendingReasonName(d.reason) : "BadConstraints";
      job.reason_detail = d.message;
      job.expected_start = d.start_time;  // squeue --start
      job.sched_nodes.clear();
      if (d.start_time > 0) {
        std::vector<std::string> names;
        for (const NodeAllocation& a : d.nodes) names.push_back(a.node);
        job.sched_nodes = CompressHostlist(names);
      }
      for (const Preemption& p : d.preempt) PreemptLocked(job, p, &out.preempted);
      continue;
    }
    if (!StillFitsLocked(nodes, d, now)) continue;  // retried next cycle
    for (const NodeAllocation& a : d.nodes) usage_.Add(now, a);
    start(job, d);
  }
  // The node states are set again when the lock is released (JobsLock).
  if (!out.started.empty() || !out.preempted.empty() || !out.resumed.empty()) node_states_stale_ = true;
  return out;
}

void Controller::StopAndResume(const CycleOutcome& out) {
  if (!out.preempted.empty()) {
    (void)Persist(out.preempted);  // a lost record re-runs the preemption after a restart, no worse
    // SIGKILL when the grace is over: at kill_at, set from the grace when stopping began.
    for (const JobRecord& j : out.preempted) {
      if (j.state == JobState::kSuspended) {
        SignalAll(j, SIGSTOP, 0, "suspend");
      } else {
        SignalAll(j, SIGTERM, j.kill_at - j.preempt_time, "preempt");
      }
    }
  }
  if (!out.resumed.empty()) {
    (void)Persist(out.resumed);  // a lost record resumes it again after a restart
    for (const JobRecord& j : out.resumed) SignalAll(j, SIGCONT, 0, "resume");
  }
}

int Controller::PersistAndLaunch(const std::vector<JobRecord>& started) {
  if (started.empty()) return 0;
  const auto launched_all = [&](const std::vector<Status>& launch) {  // signals may reach them now
    JobsLock lock(this);
    for (size_t k = 0; k < started.size(); ++k) {
      launching_.erase(started[k].id);
      // Its batch host took it (the agent answers once the run's shepherd has started the
      // script): a requeue from now on is a restart. (No answer: its next report says.)
      if (launch[k].ok()) unacknowledged_runs_.erase(JobRun{started[k].id, started[k].restart_count});
    }
  };
  // Durable first: a restart must know these jobs run (their agents will report them).
  Status st = Persist(started);
  if (!st.ok()) {
    JobsLock lock(this);
    for (const JobRecord& j : started) {
      launching_.erase(j.id);
      RequeueLocked(jobs_.Slot(j.id), "could not persist the start: " + st.message(), nullptr);
    }
    return 0;
  }
  if (config_.log_events && LogEnabled(LogLevel::kInfo)) {
    for (const JobRecord& j : started) {
      std::vector<std::string> hosts;
      for (const NodeAllocation& a : j.allocation) hosts.push_back(a.node);
      LogInfo(LogSubject::Job(j.id), "started on " + CompressHostlist(hosts) + " (run " + std::to_string(j.restart_count) + ")");
    }
  }
  const std::vector<Status> launch = LaunchStarted(started);
  launched_all(launch);
  // A job stopped while its launch was on its way (scancel, a preemption): its nodes may have had
  // the signal before the job, and dropped it. Now that they have the job, it goes again.
  std::vector<JobRecord> stopping;
  {
    JobsLock lock(this);
    for (const JobRecord& j : started) {
      const JobRecord* current = jobs_.Find(j.id);
      if (current == nullptr || current->restart_count != j.restart_count) continue;
      if (current->state == JobState::kCompleting && !current->ending.empty()) stopping.push_back(*current);
    }
  }
  for (const JobRecord& j : stopping) {
    const std::string why = j.ending == "timeout" ? "timeout" : j.ending.rfind("preempt", 0) == 0 ? "preempt" : "cancel";
    SignalAll(j, SIGTERM, std::max<int64_t>(1, j.kill_at - clock_->NowSeconds()), why);
  }
  int launched = 0;
  for (size_t k = 0; k < started.size(); ++k) {
    if (launch[k].ok()) {
      ++launched;
    } else {
      LaunchFailed(started[k], launch[k]);
    }
  }
  return launched;
}

void Controller::LaunchFailed(const JobRecord& j, const Status& ls) {
  if (ls.code() == StatusCode::kInvalidArgument) {
    // The job's own doing (its -o, -e or -i names a file it may not open): the job fails, as
    // Slurm's JobLaunchFailure, and the node takes the next job.
    JobRecord copy;
    {
      JobsLock lock(this);
      JobRecord& job = jobs_.Slot(j.id);
      if (job.state != JobState::kRunning || job.restart_count != j.restart_count) return;
      FinishJobLocked(job, JobState::kFailed, 0, kLaunchFailureSignal);
      job.reason = "JobLaunchFailure";
      job.reason_detail = ls.message();
      copy = job;
    }
    (void)Persist(copy);
    if (copy.allocation.size() > 1) SignalAll(copy, SIGKILL, 0, "cleanup");  // the other nodes let it go
    return;
  }
  if (ls.code() == StatusCode::kUnavailable) {
    // No answer (the agent is down, restarting, or slow): whether the run started there is not
    // known. The job stays where it was put; the node's next report settles it (it names the
    // run, or the run is lost and requeued), or its lease runs out with it.
    LogWarning(LogSubject::Job(j.id), "no answer from " + j.batch_host + " to its launch (" + ls.message() +
                                          "); its next report decides");
    return;
  }
  // The node could not take it: drain the node (so the job does not bounce there again), its
  // reason the agent's words, and requeue the job: held, as Slurm's "launch failed requeued
  // held" (its user releases it), or to run elsewhere, as the cluster says.
  JobRecord copy;
  NodeRecord node_copy;
  {
    JobsLock lock(this);
    JobRecord& job = jobs_.Slot(j.id);
    if (job.state != JobState::kRunning || job.restart_count != j.restart_count) return;
    {
      NodeTable::Access nodes = nodes_.Lock();
      NodeRecord* n = nodes.Find(j.batch_host);
      n->node.drain = true;
      n->node.reason = "launch failed: " + ls.message();
      node_copy = *n;
    }
    RequeueLocked(job, "launch failed on " + j.batch_host + ": " + ls.message(), nullptr);
    if (config_.hold_on_launch_failure) {
      job.held = true;
      job.priority = 0;
      job.reason = PendingReasonName(PendingReason::kLaunchFailedRequeuedHeld);
    }
    copy = job;
  }
  LogWarning(LogSubject::Job(j.id), "launch failed on " + j.batch_host + ", node drained, job requeued" +
                                        (config_.hold_on_launch_failure ? " held: " : ": ") + ls.message());
  (void)store_->SaveNode(node_copy);
  (void)Persist(copy);
}

}  // namespace muster
