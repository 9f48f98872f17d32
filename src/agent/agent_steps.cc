// The agent's steps (srun), signals and suspension: where a step's tasks go (CPUs, devices), and
// signals to a run or a step, checked against the run they name.
#include "agent/agent.h"

#include <pwd.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "agent/agent_internal.h"
#include "agent/as_user.h"
#include "proc/job_env.h"
#include "proc/launcher.h"
#include "proc/stray_processes.h"
#include "base/log.h"
#include "model/record_json.h"
#include "model/step_layout.h"
#include "net/json_body.h"

namespace muster {


namespace {

// The job an srun -Z step runs in: the caller's, on this node only, holding nothing.
JobRecord NoAllocationJob(const StepLaunch& step, const Caller& caller, const std::string& node) {
  JobRecord job;
  job.id = step.job_id;
  job.name = std::filesystem::path(step.argv.front()).filename().string();
  job.uid = caller.uid;
  job.gid = caller.gid;
  std::vector<char> buf(16384);
  passwd pw{};
  passwd* found = nullptr;
  if (getpwuid_r(caller.uid, &pw, buf.data(), buf.size(), &found) == 0 && found != nullptr) {
    job.user = found->pw_name;
    if (caller.via != "unix") job.gid = found->pw_gid;  // a token names no group
  }
  job.workdir = step.cwd.empty() ? "/" : step.cwd;
  job.state = JobState::kRunning;
  NodeAllocation here;
  here.node = node;
  here.tasks = static_cast<int>(step.tasks.size());
  job.allocation = {here};
  return job;
}

}  // namespace

Status Agent::PlaceStep(Running& run, StepLaunch& launch) {
  launch.mig_uuids = MigUuids(opt_.node.gpus);
  if (run.cgroup.empty()) return Status::Ok();
  // The cgroups of steps that ended (best effort: one whose processes linger stays till the job's goes).
  for (auto it = run.step_cgroups.begin(); it != run.step_cgroups.end();) {
    const bool gone = it->second && !steps_.Runs(run.job.id, it->first) &&
                      opt_.cgroup->DestroyStep(run.cgroup, "step_" + std::to_string(it->first)).ok();
    it = gone ? run.step_cgroups.erase(it) : std::next(it);
  }
  launch.cgroup_procs_file = opt_.cgroup->ProcsFile(run.cgroup);
  launch.devices_constrained = !opt_.gpu_devices.empty();
  if (!launch.devices_constrained || !launch.gpus) return Status::Ok();
  std::vector<int> gpus = *launch.gpus;
  std::sort(gpus.begin(), gpus.end());
  gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());
  if (gpus == JobGpusOn(run.job.allocation, opt_.node.name)) return Status::Ok();  // all of the job's
  StatusOr<std::string> procs =
      opt_.cgroup->CreateStep(run.cgroup, "step_" + std::to_string(launch.step_id), opt_.gpu_devices.Grant(gpus));
  if (!procs.ok()) return procs.status().WithPrefix("step cgroup");
  launch.cgroup_procs_file = *procs;
  launch.step_cgroup = true;
  run.step_cgroups[launch.step_id] = false;
  return Status::Ok();
}

void Agent::SuspendLocked(Running& run, bool stop) {
  if (run.suspended == stop) return;
  const int64_t id = run.job.id;
  Status frozen = !run.cgroup.empty() && opt_.cgroup ? opt_.cgroup->Freeze(run.cgroup, stop)
                                                     : FailedPrecondition("no cgroup");
  if (!frozen.ok()) {
    if (frozen.code() != StatusCode::kFailedPrecondition) {
      LogWarning(LogSubject::Job(id), frozen.message() + "; signalling instead");
    }
    const int sig = stop ? SIGSTOP : SIGCONT;
    if (run.batch && run.shepherd) (void)run.shepherd->Signal(sig, "group");
    steps_.Signal(id, -1, sig);
  }
  run.suspended = stop;
  if (stop) {
    run.pinned = std::find(cpu_owner_.begin(), cpu_owner_.end(), id) != cpu_owner_.end();
    ReleaseCpus(id);  // for the job that preempted it
  } else if (!run.cgroup.empty() && opt_.cgroup) {
    // Pinned before: pinned again, to whichever CPUs are free now.
    for (const NodeAllocation& a : run.job.allocation) {
      if (a.node != opt_.node.name || !run.pinned) continue;
      std::vector<int> cpus = AssignCpus(id, static_cast<int>(CpusOf(a)));
      if (!cpus.empty()) (void)opt_.cgroup->SetCpus(run.cgroup, cpus);
    }
  }
  LogInfo(LogSubject::Job(id), stop ? "suspended" : "resumed");
}

std::vector<int> Agent::AssignCpus(int64_t job_id, int count) {
  // Pin to real CPUs only when the node's configured CPUs exist here; a node of a local cluster
  // with fake hardware (more CPUs than this machine has) runs without a CPU set.
  const int online = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  if (opt_.node.cpus > online || count <= 0) return {};
  if (cpu_owner_.size() != static_cast<size_t>(opt_.node.cpus)) cpu_owner_.assign(opt_.node.cpus, 0);
  std::vector<int> cpus;
  for (int c = 0; c < opt_.node.cpus && static_cast<int>(cpus.size()) < count; ++c) {
    if (cpu_owner_[c] == 0) cpus.push_back(c);
  }
  if (static_cast<int>(cpus.size()) < count) return {};  // the controller over-allocated: do not pin
  for (int c : cpus) cpu_owner_[c] = job_id;
  return cpus;
}

void Agent::ReleaseCpus(int64_t job_id) {
  for (int64_t& owner : cpu_owner_) {
    if (owner == job_id) owner = 0;
  }
}

HttpResponse Agent::Step(const HttpRequest& r) {
  StatusOr<StepLaunch> step = StepLaunchFromJson(r.body);
  if (!step.ok()) return HttpResponse::Error(400, step.status().message());
  const std::string name = std::to_string(step->job_id) + "." + std::to_string(step->step_id);
  if (step->no_allocate) {
    if (!Trusted(r.caller)) return HttpResponse::Error(403, "Access/permission denied");
    if (r.caller.uid == 0 && !opt_.allow_root_jobs) return HttpResponse::Error(403, "refusing to run a job as root");
    MutexLock lock(mu_);
    std::erase_if(no_allocation_, [&](const auto& e) { return steps_.Running(e.first) == 0; });
    if (jobs_.count(step->job_id) || no_allocation_.count(step->job_id)) {
      return HttpResponse::Error(409, "job " + std::to_string(step->job_id) + " already runs on " + opt_.node.name);
    }
    step->job = NoAllocationJob(*step, r.caller, opt_.node.name);
  } else {
    MutexLock lock(mu_);
    auto it = jobs_.find(step->job_id);
    if (it == jobs_.end() || it->second.job.restart_count != step->restart_count) {
      return HttpResponse::Error(404, "job " + std::to_string(step->job_id) + " does not run on " + opt_.node.name);
    }
    Running& run = it->second;
    if (!Trusted(r.caller) && (!r.caller.authenticated || r.caller.uid != run.job.uid)) {
      return HttpResponse::Error(403, "Access/permission denied");
    }
    if (run.kill_at_ms > 0) return HttpResponse::Error(409, "Job/step already completing or completed");
    Status st = EnsureCgroup(run);
    if (!st.ok()) return HttpResponse::Error(409, st.message());
    SaveRunLocked(run);  // its cgroup, for an agent that adopts the run
    if (step->gpus) {
      const std::vector<int> job_gpus = JobGpusOn(run.job.allocation, opt_.node.name);
      for (int g : *step->gpus) {
        if (!std::binary_search(job_gpus.begin(), job_gpus.end(), g)) {
          return HttpResponse::Error(400, "GPU " + std::to_string(g) + " on " + opt_.node.name + " is not job " +
                                              std::to_string(step->job_id) + "'s");
        }
      }
    }
    step->job = run.job;
    st = PlaceStep(run, *step);
    if (!st.ok()) return HttpResponse::Error(409, st.message());
  }
  step->node_name = opt_.node.name;
  step->cluster_name = opt_.cluster_name;
  step->allow_root = opt_.allow_root_jobs;
  step->spool_marker = kSpoolMarker + opt_.spool_dir;
  if (!step->no_allocate) step->run_marker = RunMarker(step->job_id, step->restart_count);
  if (step->job.uid == 0 && !opt_.allow_root_jobs) return HttpResponse::Error(403, "refusing to run a job as root");
  Status st = steps_.Start(*step);
  if (step->step_cgroup) {
    MutexLock lock(mu_);
    if (auto it = jobs_.find(step->job_id); it != jobs_.end()) it->second.step_cgroups[step->step_id] = true;
  }
  if (!st.ok()) {
    LogWarning(LogSubject::Step(step->job_id, step->step_id), st.message());
    return HttpResponse::Error(st.code() == StatusCode::kUnavailable ? 503 : 409, st.message());
  }
  LogInfo(LogSubject::Step(step->job_id, step->step_id), "started " + std::to_string(step->tasks.size()) + " task(s)" +
                         (step->no_allocate ? " without an allocation (srun -Z)" : ""));
  MutexLock lock(mu_);
  if (step->no_allocate) {
    no_allocation_[step->job_id] = step->job.uid;
  } else if (!jobs_.count(step->job_id)) {
    steps_.Signal(step->job_id, step->step_id, SIGKILL);  // the job ended meanwhile
  }
  return JsonOk();
}

HttpResponse Agent::SignalStep(const HttpRequest& r) {
  StatusOr<StepSignal> order = ReadBody<StepSignal>(r.body);
  if (!order.ok()) return HttpResponse::Error(400, order.status().message());
  const int64_t id = order->job_id;
  const int step = order->step_id;
  const int sig = order->signal;
  if (step < 0 || sig <= 0 || sig >= NSIG) return HttpResponse::Error(400, "bad step or signal");
  MutexLock lock(mu_);
  auto it = jobs_.find(id);
  const auto without = no_allocation_.find(id);
  if (it == jobs_.end() && without == no_allocation_.end()) return JsonOk();  // nothing of it here (already gone)
  const uint32_t owner = it != jobs_.end() ? it->second.job.uid : without->second;
  if (!Trusted(r.caller) && (!r.caller.authenticated || r.caller.uid != owner)) {
    return HttpResponse::Error(403, "Access/permission denied");
  }
  steps_.Signal(id, step, sig);
  return JsonOk();
}

HttpResponse Agent::Signal(const HttpRequest& r) {
  if (!Trusted(r.caller)) return HttpResponse::Error(403, "only the controller may signal jobs");
  StatusOr<SignalOrder> order = ReadBody<SignalOrder>(r.body);
  if (!order.ok()) return HttpResponse::Error(400, order.status().message());
  if (std::string why; !FromTheLeader(order->leader_token, &why)) {
    LogWarning("refusing a signal to job " + std::to_string(order->job_id) + ": " + why);
    return HttpResponse::Error(409, "signal refused: " + why);
  }
  const int64_t id = order->job_id;
  const int sig = order->signal;
  const int64_t kill_after = order->kill_after;
  const std::string why = order->why;
  const int run_of = order->restart_count;
  if (sig < 0 || sig >= NSIG) return HttpResponse::Error(400, "bad signal " + std::to_string(sig));
  // An order for another run of the job (a requeued job's old run, which this node may no longer
  // hold) is not for what runs here now.
  auto this_run = [&](std::map<int64_t, Running>::iterator it) {
    mu_.AssertHeld();  // called under it
    if (it == jobs_.end()) return false;  // nothing of it here (already gone)
    if (run_of < 0 || it->second.job.restart_count == run_of) return true;
    LogInfo(LogSubject::Job(id), "ignoring '" + why + "' for run " + std::to_string(run_of) +
                            " (run " + std::to_string(it->second.job.restart_count) + " is here)");
    return false;
  };
  // Slurm's ending line goes to the job's output and to its sruns before the signal, and waiting
  // on what the user controls (their file system, their srun's acknowledgement) happens without
  // the agent's lock.
  Running told;  // the run's record, for the line (copied)
  std::string ending;
  {
    MutexLock lock(mu_);
    auto it = jobs_.find(id);
    if (!this_run(it)) return JsonOk();
    Running& run = it->second;
    if (!run.ending_logged && (why == "cancel" || why == "timeout" || why == "preempt")) {
      run.ending_logged = true;
      ending = EndingText(why);
      told.job.id = run.job.id;
      told.job.uid = run.job.uid;
      told.job.gid = run.job.gid;
      told.job.user = run.job.user;
      told.batch = run.batch;
      told.log_path = run.log_path;
    }
  }
  if (!ending.empty()) {
    if (told.batch) LogEnding(told, ending);
    steps_.NotifyEnding(id, opt_.node.name, ending);
  }
  MutexLock lock(mu_);
  auto it = jobs_.find(id);
  if (this_run(it)) SignalRunLocked(it, sig, kill_after, why);
  return JsonOk();
}

void Agent::SignalRunLocked(std::map<int64_t, Running>::iterator it, int sig, int64_t kill_after, const std::string& why) {
  const int64_t id = it->first;
  Running& run = it->second;
  if (why == "suspend" || why == "resume") {
    SuspendLocked(run, why == "suspend");
    return;
  }
  // A suspended job being ended runs again first: a stopped (or frozen) process would neither
  // act on SIGTERM nor, frozen in a v1 cgroup, die of SIGKILL. (As Slurm's scancel does.)
  // A signal that ends nothing: "signal" for all the job's processes (the batch shell's process
  // group and the steps: scancel -f), "signal-batch" for the batch shell alone (scancel -b,
  // sbatch --signal=B:), "signal-steps" for the steps alone (scancel -s, sbatch --signal).
  const bool only_signal = why == "signal" || why == "signal-batch" || why == "signal-steps";
  if (run.suspended && !only_signal) SuspendLocked(run, false);
  // The batch script through its shepherd, its parent: the only one that may name its pid safely.
  if (run.batch && run.shepherd && sig > 0 && why == "signal-batch") (void)run.shepherd->Signal(sig, "leader");
  if (run.batch && run.shepherd && sig > 0 && why != "signal-batch" && why != "signal-steps") {
    (void)run.shepherd->Signal(sig, "group");
  }
  if (sig > 0 && why != "signal-batch") steps_.Signal(id, -1, sig);  // step tasks run in sessions of their own
  // Step tasks here get the signal and kill_after to end, like a batch script.
  const bool graceful = sig != SIGKILL && kill_after > 0 && steps_.Running(id) > 0;
  if (!run.batch && !graceful && (sig == SIGKILL || kill_after >= 0) && !only_signal) {
    // Nothing of the job runs here: the allocation on this node simply ends.
    DropRunLocked(it);
    return;
  }
  if (kill_after > 0) {
    const int64_t at = clock_->NowMillis() + kill_after * 1000;
    if (run.kill_at_ms == 0 || at < run.kill_at_ms) run.kill_at_ms = at;
    WakeReaper();
  }
}

}  // namespace muster
