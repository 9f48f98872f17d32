#include "sim/replay.h"

#include <signal.h>

#include <algorithm>
#include <map>
#include <memory>
#include <queue>
#include <tuple>
#include <utility>

#include "base/clock.h"
#include "model/job_request.h"
#include "store/memory_store.h"

namespace muster {
namespace {

const Caller kRoot{true, 0, 0, "unix", ""};

// What happens at a moment: a run ends by itself (its work done), or a stopped run's processes
// are gone (the agent reports the exit).
struct Event {
  int64_t time_ms = 0;
  int64_t seq = 0;  // FIFO among events at one time
  int64_t job = 0;
  int64_t run = 0;  // the run it belongs to (a stale one is dropped)
  int signal = 0;   // 0: the job finished its work
  bool operator>(const Event& o) const { return std::tie(time_ms, seq) > std::tie(o.time_ms, o.seq); }
};

// The agent fleet: each job runs on its batch host for what is left of its work.
class SimAgents : public AgentClient {
 public:
  struct Run {
    int64_t work_s = 0;      // the whole duration
    int64_t done_ms = 0;     // work done in earlier runs
    int64_t started_ms = 0;  // this run (or since SIGCONT)
    int64_t run = 0;         // run counter (stale events carry an older one)
    int64_t first_start_s = 0;
    int64_t held_ms = 0;     // time it ran, every run (work redone after a preemption too)
    int gpus = 0;
    std::string host;
    bool active = false;     // processes alive (running or stopped)
    bool paused = false;     // SIGSTOP
  };

  SimAgents(const ManualClock* clock, int64_t penalty_s) : clock_(clock), penalty_ms_(penalty_s * 1000) {}

  Status LaunchJob(const NodeRecord& node, const JobRecord& job) override {
    if (node.node.name != job.batch_host) return Status::Ok();  // the other nodes run its steps
    Run& r = runs_[job.id];
    r.run += 1;
    r.active = true;
    r.paused = false;
    r.host = node.node.name;
    r.started_ms = clock_->NowMillis();
    if (r.first_start_s == 0) r.first_start_s = clock_->NowSeconds();
    allocated_gpus_ += r.gpus;
    ++running_;
    Schedule(r.started_ms + std::max<int64_t>(0, r.work_s * 1000 - r.done_ms), job.id, r.run, 0);
    return Status::Ok();
  }

  Status SignalJob(const NodeRecord& node, const JobRun& target, int signal, int64_t /*kill_after_s*/,
                   const std::string& why) override {
    const int64_t job_id = target.job_id;
    auto it = runs_.find(job_id);
    if (it == runs_.end() || !it->second.active || node.node.name != it->second.host) return Status::Ok();
    Run& r = it->second;
    const int64_t now = clock_->NowMillis();
    if (signal == SIGSTOP) {
      if (!r.paused) {
        r.done_ms += now - r.started_ms;
        r.held_ms += now - r.started_ms;
        r.paused = true;
        r.run += 1;  // its end moves
      }
    } else if (signal == SIGCONT) {
      if (r.paused) {
        r.paused = false;
        r.started_ms = now;
        Schedule(now + std::max<int64_t>(0, r.work_s * 1000 - r.done_ms), job_id, r.run, 0);
      }
    } else if (signal == SIGTERM || signal == SIGKILL || signal == SIGINT) {
      // The job stops at once (a checkpointing job saves what it did).
      if (!r.paused) {
        r.done_ms += now - r.started_ms;
        r.held_ms += now - r.started_ms;
      }
      r.run += 1;
      Schedule(now, job_id, r.run, signal);
      if (why == "preempt") {
        ++preemptions_;
        r.done_ms = std::max<int64_t>(0, r.done_ms - penalty_ms_);
      }
    }
    return Status::Ok();
  }

  // The exit of `e`'s job, when `e` is still current: the run is over.
  bool Exit(const Event& e) {
    Run& r = runs_[e.job];
    if (e.run != r.run || !r.active) return false;
    r.active = false;
    if (e.signal == 0) {
      r.held_ms += clock_->NowMillis() - r.started_ms;
      r.done_ms = r.work_s * 1000;
    }
    allocated_gpus_ -= r.gpus;
    --running_;
    return true;
  }

  void Schedule(int64_t time_ms, int64_t job, int64_t run, int signal) {
    events_.push(Event{time_ms, seq_++, job, run, signal});
  }

  const ManualClock* clock_;
  int64_t penalty_ms_ = 0;
  std::map<int64_t, Run> runs_;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events_;
  int64_t seq_ = 0;
  int64_t allocated_gpus_ = 0;
  int64_t running_ = 0;
  int64_t preemptions_ = 0;
};

// What the replay reads of a job after each exit, without copying the record (a job preempted
// many times carries its whole preemption history).
struct Brief {
  bool found = false;
  JobState state = JobState::kPending;
  int restart_count = 0;
  int64_t end_time = 0;
};

Brief Look(const Controller& ctld, int64_t id) {
  JobQuery q;
  q.ids = {id};
  Brief b;
  ctld.VisitJobs(q, [&](const std::vector<const JobRecord*>& jobs) {
    if (jobs.empty()) return;
    b.found = true;
    b.state = jobs[0]->state;
    b.restart_count = jobs[0]->restart_count;
    b.end_time = jobs[0]->end_time;
  });
  return b;
}

// The replay's store: job records are dropped, the rest kept in memory. Nothing reads job
// records back (the controller reads its store only to recover after a restart, which a replay
// never does), and storing every record copied it at every start, preemption and end.
class ReplayStore : public Store {
 public:
  ReplayStore() : inner_(OpenMemoryStore()) {}
  Status SaveJobs(std::span<const JobRecord> /*jobs*/) override { return Status::Ok(); }
  StatusOr<std::vector<JobRecord>> LoadJobs() override { return std::vector<JobRecord>{}; }
  Status SaveNode(const NodeRecord& node) override { return inner_->SaveNode(node); }
  StatusOr<std::vector<NodeRecord>> LoadNodes() override { return inner_->LoadNodes(); }
  Status SaveStep(const StepRecord& step) override { return inner_->SaveStep(step); }
  StatusOr<std::vector<StepRecord>> LoadSteps() override { return inner_->LoadSteps(); }
  StatusOr<int64_t> AllocateJobIds(int count) override { return inner_->AllocateJobIds(count); }
  StatusOr<int64_t> RewindJobIds(int64_t floor) override { return inner_->RewindJobIds(floor); }
  StatusOr<bool> UseNonce(const std::string& nonce, int64_t expires, int64_t now) override {
    return inner_->UseNonce(nonce, expires, now);
  }
  Status SetMeta(const std::string& key, const std::string& value) override { return inner_->SetMeta(key, value); }
  StatusOr<std::string> GetMeta(const std::string& key) override { return inner_->GetMeta(key); }
  StatusOr<std::map<std::string, std::string>> LoadMeta() override { return inner_->LoadMeta(); }

 private:
  std::unique_ptr<Store> inner_;
};

std::string TimeSpec(int64_t s) {
  return std::to_string(s / 3600) + ":" + std::to_string(s / 60 % 60) + ":" + std::to_string(s % 60);
}

// The cluster's GPUs (CPUs with count_cpus).
int64_t Capacity(const std::vector<Node>& nodes, bool count_cpus) {
  int64_t capacity = 0;
  for (const Node& n : nodes) capacity += count_cpus ? n.cpus : static_cast<int64_t>(n.gpus.size());
  return capacity;
}

// The controller's own check of its caches, over the run.
void NoteCacheCheck(const Controller& ctld, ReplayResult* result) {
  const Controller::CacheCheck check = ctld.cache_check();
  result->cache_check_passes = check.passes;
  result->cache_check_differences = check.differences;
  result->cache_check_first = check.first;
}

// The trace's jobs by arrival (those arriving together in the trace's order).
std::vector<size_t> ArrivalOrder(const std::vector<ReplayJob>& trace) {
  std::vector<size_t> order(trace.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return trace[a].arrival_s < trace[b].arrival_s; });
  return order;
}

ControllerConfig ReplayControllerConfig(const ReplayOptions& options) {
  ControllerConfig config = options.controller;
  config.heartbeat_timeout_s = int64_t{1} << 40;  // simulated agents never fall silent
  config.allow_root_jobs = true;
  config.log_events = false;
  config.min_job_age_s = 1;  // finished jobs leave the controller's memory, as on a long-lived one
  config.usage_save_s = 86400;  // the memory store dies with the run: saving usage is only work
  // Slurm's default PriorityCalcPeriod (Tick comes every minute of virtual time, over months).
  if (config.priority.calc_period_s == 0) config.priority.calc_period_s = 300;
  return config;
}

Status RegisterSimNodes(Controller& ctld, const std::vector<Node>& nodes) {
  for (const Node& n : nodes) {
    NodeRecord r;
    r.node = n;
    r.agent_address = "sim:" + n.name;
    RETURN_IF_ERROR(ctld.RegisterNode(r, {}, kRoot).status());
  }
  return Status::Ok();
}

// Submits trace job j; its controller id. An error names the trace job.
StatusOr<int64_t> SubmitTraceJob(Controller& ctld, const ReplayJob& j) {
  JobSpec s;
  s.name = "job" + std::to_string(j.trace_id);
  // As sbatch would be given them (and read them: once, here).
  std::vector<std::string> options;
  if (j.gpus > 0) options.push_back("--gpus=" + std::to_string(j.gpus));
  if (j.cpus > 0) options.push_back("--ntasks=" + std::to_string(j.cpus));
  // (a trace's limit past a year, the longest a job may ask, asks for a year)
  if (j.time_limit_s != kUnlimited) {
    options.push_back("--time=" + TimeSpec(std::min(j.time_limit_s, kMaxJobTimeLimitS)));
  }
  if (Status st = SetResourceOptions(s, std::move(options)); !st.ok()) {
    return InvalidArgument("trace job " + std::to_string(j.trace_id) + ": " + st.message());
  }
  s.script = "#!/bin/sh\n";
  s.workdir = "/";
  s.account = j.vc;
  StatusOr<int64_t> id = ctld.Submit(s, kRoot);
  if (!id.ok()) {
    return Status(id.status().code(), "trace job " + std::to_string(j.trace_id) + ": " + id.status().message());
  }
  return id;
}

// An error for the first submitted job (by controller id) that never finished.
Status AllRan(Controller& ctld, const std::vector<ReplayJob>& trace, const std::map<int64_t, size_t>& by_id,
              const std::vector<bool>& done) {
  for (const auto& [id, i] : by_id) {
    if (done[i]) continue;
    StatusOr<JobRecord> job = ctld.GetJob(id);
    return Status(StatusCode::kFailedPrecondition,
                  "trace job " + std::to_string(trace[i].trace_id) + " never ran: " +
                      (job.ok() ? JobStateName(job->state) + std::string(" (") + job->reason + " " + job->reason_detail + ")"
                                : job.status().message()));
  }
  return Status::Ok();
}

}  // namespace

StatusOr<ReplayResult> Replay(const std::vector<ReplayJob>& trace, const ReplayOptions& options) {
  ReplayResult result;
  if (trace.empty()) return result;
  const std::vector<size_t> order = ArrivalOrder(trace);
  const ControllerConfig config = ReplayControllerConfig(options);
  result.capacity_gpus = Capacity(config.cluster.nodes, options.count_cpus);
  auto units = [&](const ReplayJob& j) { return options.count_cpus ? j.cpus : j.gpus; };

  const bool limits = std::any_of(trace.begin(), trace.end(), [](const ReplayJob& j) { return j.time_limit_s != kUnlimited; });
  ManualClock clock(trace[order.front()].arrival_s * 1000);
  SimAgents agents(&clock, options.restart_penalty_s);
  std::unique_ptr<Store> store = std::make_unique<ReplayStore>();
  Controller ctld(config, store.get(), &agents, &clock);
  RETURN_IF_ERROR(ctld.Recover());
  RETURN_IF_ERROR(RegisterSimNodes(ctld, config.cluster.nodes));

  std::map<int64_t, size_t> by_id;  // controller job id -> trace index
  std::vector<FinishedJob> finished(trace.size());
  std::vector<bool> done(trace.size(), false);
  int64_t finished_count = 0;
  size_t next = 0;  // the next arrival, in `order`
  int64_t last_tick = clock.NowSeconds();
  int64_t next_sample = clock.NowSeconds();
  int64_t last_progress = -1;
  auto sample = [&](int64_t t) {
    ReplaySample s;
    s.time_s = t;
    s.allocated_gpus = agents.allocated_gpus_;
    s.running_jobs = agents.running_;
    s.pending_jobs = static_cast<int64_t>(by_id.size()) - finished_count - agents.running_;
    if (s.pending_jobs > 0) s.idle_gpus_while_waiting = result.capacity_gpus - s.allocated_gpus;
    result.series.push_back(s);
  };

  while (next < order.size() || !agents.events_.empty()) {
    int64_t t_ms = next < order.size() ? trace[order[next]].arrival_s * 1000 : INT64_MAX;
    if (!agents.events_.empty()) t_ms = std::min(t_ms, agents.events_.top().time_ms);
    // Time limits are enforced by Tick: with limits, one comes when due even with nothing else
    // happening.
    if (limits && agents.running_ > 0) t_ms = std::min(t_ms, (last_tick + options.tick_every_s) * 1000);
    // Nothing changes between the last instant and this one.
    while (next_sample * 1000 < t_ms) {
      sample(next_sample);
      next_sample += options.sample_every_s;
    }
    if (t_ms > clock.NowMillis()) clock.AdvanceMillis(t_ms - clock.NowMillis());
    const int64_t now_s = clock.NowSeconds();
    for (;;) {
      while (!agents.events_.empty() && agents.events_.top().time_ms <= clock.NowMillis()) {
        const Event e = agents.events_.top();
        agents.events_.pop();
        if (!agents.Exit(e)) continue;
        const SimAgents::Run& r = agents.runs_[e.job];
        ExitReport report;
        report.signal = e.signal;
        Brief before = Look(ctld, e.job);
        if (before.found) report.restart_count = before.restart_count;
        RETURN_IF_ERROR(ctld.JobExited(e.job, r.host, report, kRoot));
        Brief job = Look(ctld, e.job);
        if (!job.found || !IsFinished(job.state)) continue;
        const size_t i = by_id.at(e.job);
        if (job.state == JobState::kTimeout) ++result.timeouts;
        finished[i] = FinishedJob{trace[i].trace_id, trace[i].arrival_s, r.first_start_s, job.end_time,
                                  units(trace[i]), trace[i].vc, (r.held_ms + 999) / 1000};
        done[i] = true;
        ++finished_count;
      }
      while (next < order.size() && trace[order[next]].arrival_s <= now_s) {
        const size_t i = order[next++];
        const ReplayJob& j = trace[i];
        StatusOr<int64_t> id = SubmitTraceJob(ctld, j);
        if (!id.ok()) return id.status();
        by_id[*id] = i;
        SimAgents::Run& r = agents.runs_[*id];
        r.work_s = j.duration_s;
        r.gpus = units(j);
      }
      if (now_s - last_tick >= options.tick_every_s) {
        ctld.Tick();
        last_tick = now_s;
      }
      ctld.ScheduleOnce();
      ++result.cycles;
      // A pass that stopped jobs (preemption) has their exits due now: take them, pass again.
      if (agents.events_.empty() || agents.events_.top().time_ms > clock.NowMillis()) break;
    }
    if (options.progress && finished_count / 1000 != last_progress) {
      last_progress = finished_count / 1000;
      options.progress(finished_count, static_cast<int64_t>(trace.size()));
    }
  }
  if (options.progress) options.progress(finished_count, static_cast<int64_t>(trace.size()));
  sample(clock.NowSeconds());
  RETURN_IF_ERROR(AllRan(ctld, trace, by_id, done));
  result.jobs = std::move(finished);
  result.preemptions = agents.preemptions_;
  NoteCacheCheck(ctld, &result);
  return result;
}

}  // namespace muster
