// What a job's owner (or an admin) does to it after submission: cancel or signal (scancel),
// hold and release, scontrol update JobId= (name, time limit, nice, dependency, begin time),
// requeue, and the end of an interactive allocation (salloc).
#include <cctype>
#include <csignal>
#include <cstdlib>

#include "base/strings.h"
#include "ctld/controller.h"
#include "model/dependency.h"
#include "model/field_limits.h"
#include "model/slurm_errors.h"

namespace muster {

Status Controller::Cancel(int64_t job_id, int signal, const Caller& caller, const std::string& target) {
  if (target != "full" && target != "batch" && target != "steps") {
    return InvalidArgument("unknown signal target '" + target + "' (full, batch or steps)");
  }
  if (!caller.authenticated) return Status(StatusCode::kUnauthenticated, "authentication required");
  JobRecord copy;
  bool running = false;
  {
    JobsLock lock(this);
    ASSIGN_OR_RETURN(JobRecord* const found, OwnedJobLocked(job_id, caller));
    JobRecord& job = *found;
    if (IsFinished(job.state)) return FailedPrecondition("Job/step already completing or completed");
    // A waiting heterogeneous job goes whole (its leader's id), as in Slurm.
    if (job.het_job_offset > 0 && job.state == JobState::kPending) return FailedPrecondition(std::string(kNotWholeHetJobMessage));
    if (job.state == JobState::kPending) {
      // SIGKILL cancels a waiting job, as in Slurm; another signal waits for it to run.
      if (signal != 0 && signal != SIGKILL) return FailedPrecondition(std::string(kJobPendingMessage));
      job.cancelled_by = caller.uid;
      FinishJobLocked(job, JobState::kCancelled, 0, 0);
      copy = job;
    } else {
      // Its nodes may not have the job yet: the signal would be lost there.
      if (signal != 0 && launching_.count(job_id)) return FailedPrecondition(std::string(kTransitionStateMessage));
      running = true;
      if (signal == 0 && job.ending.empty()) {
        job.cancelled_by = caller.uid;
        EndingLocked(job, "cancel", config_.kill_wait_s);
      }
      // No batch script will report an interactive allocation's end: it ends when its grace does
      // (Tick), its step tasks having had SIGTERM then SIGKILL.
      copy = job;
    }
  }
  if (!running) {
    RETURN_IF_ERROR(Persist(copy));
    Wake();
    return Status::Ok();
  }
  if (signal == 0) {
    RETURN_IF_ERROR(Persist(copy));
    SignalAll(copy, SIGTERM, config_.kill_wait_s, "cancel");
  } else {
    SignalAll(copy, signal, 0, target == "full" ? "signal" : "signal-" + target);
  }
  return Status::Ok();
}

Status Controller::Hold(int64_t job_id, bool hold, const Caller& caller) {
  JobRecord copy;
  std::vector<JobRecord> components;
  {
    JobsLock lock(this);
    ASSIGN_OR_RETURN(JobRecord* const found, OwnedJobLocked(job_id, caller));
    JobRecord& job = *found;
    if (job.state != JobState::kPending) return FailedPrecondition("Job is no longer pending execution");
    if (job.het_job_offset > 0) return FailedPrecondition(std::string(kNotWholeHetJobMessage));
    if (!hold && job.held && job.reason == PendingReasonName(PendingReason::kJobHeldAdmin) && !IsAdmin(caller)) {
      return Status(StatusCode::kPermissionDenied, "Access/permission denied");
    }
    job.held = hold;
    job.reason = PendingReasonName(!hold              ? PendingReason::kNone
                                   : IsAdmin(caller) ? PendingReason::kJobHeldAdmin
                                                     : PendingReason::kJobHeldUser);
    if (!hold) job.reason_detail.clear();  // a launch failure's story ends with the release
    policy_.Prioritize(job, clock_->NowSeconds());  // 0 while held, as in Slurm; computed again on release
    copy = job;
    // A heterogeneous job is held and released whole, by its leader's id.
    for (int k = 1; k < job.het_job_size && job.het_job_offset == 0; ++k) {
      JobRecord* c = jobs_.Find(job.id + k);
      if (c == nullptr || c->state != JobState::kPending) continue;
      c->held = job.held;
      c->reason = job.reason;
      if (!hold) c->reason_detail.clear();
      policy_.Prioritize(*c, clock_->NowSeconds());
      components.push_back(*c);
    }
  }
  RETURN_IF_ERROR(Persist(components));
  RETURN_IF_ERROR(Persist(copy));
  Wake();
  return Status::Ok();
}

StatusOr<JobRecord*> Controller::OwnedJobLocked(int64_t job_id, const Caller& caller) {
  JobRecord* job = jobs_.Find(job_id);
  if (job == nullptr) return NotFound("Invalid job id specified");
  if (job->uid != caller.uid && !IsAdmin(caller)) {
    return Status(StatusCode::kPermissionDenied, "Access/permission denied");
  }
  return job;
}

Status Controller::UpdateJob(int64_t job_id, const std::map<std::string, std::string>& fields, const Caller& caller) {
  if (!caller.authenticated) return Status(StatusCode::kUnauthenticated, "authentication required");
  JobRecord copy;
  {
    JobsLock lock(this);
    ASSIGN_OR_RETURN(JobRecord* const stored, OwnedJobLocked(job_id, caller));
    const bool admin = IsAdmin(caller);
    JobRecord job = *stored;  // changed as a copy: all fields or none
    const bool pending = job.state == JobState::kPending;
    for (const auto& [key, value] : fields) {
      const std::string k = Lower(key);
      if (k == "timelimit") {
        if (IsFinished(job.state)) return FailedPrecondition("Job/step already completing or completed");
        StatusOr<int64_t> t = ParseTimeSpec(value);
        if (!t.ok()) return InvalidArgument("Invalid TimeLimit value: " + value);
        const bool raises = *t == kUnlimited ? job.time_limit_s != kUnlimited
                                             : job.time_limit_s != kUnlimited && *t > job.time_limit_s;
        if (raises && !admin) return Status(StatusCode::kPermissionDenied, "Access/permission denied");
        job.time_limit_s = *t;
        job.request.time_limit_s = *t == kUnlimited ? 0 : *t;
        continue;
      }
      if (k == "comment") {  // (any time, as Slurm's Comment=)
        if (IsFinished(job.state)) return FailedPrecondition("Job/step already completing or completed");
        RETURN_IF_ERROR(CheckLength("Comment", value, kMaxCommentBytes));
        job.options.comment = value;
        continue;
      }
      if (!pending) return FailedPrecondition("Job is no longer pending execution");
      if (k == "jobname" || k == "name") {
        if (value.empty()) return InvalidArgument("Invalid JobName value: (empty)");
        RETURN_IF_ERROR(CheckLength("JobName", value, kMaxJobNameBytes));
        job.name = value;
        job.request.name = value;
      } else if (k == "nice") {
        char* end = nullptr;
        const long long n = std::strtoll(value.c_str(), &end, 10);
        if (value.empty() || *end != '\0' || n > 2147483645LL || n < -2147483645LL) {
          return InvalidArgument("Invalid Nice value: " + value);
        }
        if (n < job.nice && !admin) return Status(StatusCode::kPermissionDenied, "Access/permission denied");
        job.nice = n;
      } else if (k == "dependency") {
        RETURN_IF_ERROR(CheckLength("Dependency", value, kMaxDependencyBytes));
        StatusOr<DependencySpec> spec = ParseDependency(value);
        if (!spec.ok()) return InvalidArgument(std::string(kDependencyProblem));
        job.dependency = *std::move(spec);
        job.dependency_left.clear();
      } else if (k == "starttime" || k == "begintime") {
        char* end = nullptr;
        const long long t = std::strtoll(value.c_str(), &end, 10);
        if (value.empty() || *end != '\0' || t < 0) return InvalidArgument("Invalid StartTime value: " + value);
        job.begin_time = t > clock_->NowSeconds() ? t : 0;
        job.eligible_time = std::max(job.submit_time, job.begin_time);
      } else {
        return InvalidArgument("Update of this parameter is not supported: " + key + "=" + value);
      }
    }
    if (job.state == JobState::kPending && !job.held) {
      job.reason = "None";  // the next pass says why it waits now
    }
    *stored = job;
    policy_.Prioritize(*stored, clock_->NowSeconds());
    // The request and name are copied into the kept waiting list once per job: the next pass
    // rebuilds it (the list is the pass's own; only the pass may clear it).
    pending_stale_ = true;
    copy = *stored;
  }
  RETURN_IF_ERROR(Persist(copy));
  Wake();
  return Status::Ok();
}

std::vector<std::pair<std::string, std::string>> Controller::SlurmConfig() const {
  JobsLock lock(this);
  const SchedulerOptions& s = config_.scheduler;
  std::vector<std::pair<std::string, std::string>> out = {
      {"ClusterName", config_.cluster_name},
      {"FirstJobId", std::to_string(config_.first_job_id)},
      {"KillWait", std::to_string(config_.kill_wait_s) + " sec"},
      {"MinJobAge", std::to_string(config_.min_job_age_s) + " sec"},
      {"PriorityType", policy_.order().priority_type()},
      {"SchedulerType", s.backfill ? "sched/backfill" : "sched/builtin"},
      {"SelectType", "select/cons_tres"},
      {"SlurmdTimeout", std::to_string(config_.heartbeat_timeout_s) + " sec"},
  };
  return out;
}

Status Controller::CompleteAllocation(int64_t job_id, int exit_code, const Caller& caller) {
  if (!caller.authenticated) return Status(StatusCode::kUnauthenticated, "authentication required");
  JobRecord copy;
  {
    JobsLock lock(this);
    ASSIGN_OR_RETURN(JobRecord* const found, OwnedJobLocked(job_id, caller));
    JobRecord& job = *found;
    if (!job.interactive) return FailedPrecondition("job " + std::to_string(job_id) + " is a batch job: its script ends it");
    if (IsFinished(job.state)) return Status::Ok();  // ended meanwhile (cancelled, time limit)
    if (job.state == JobState::kPending) {
      job.cancelled_by = caller.uid;
      FinishJobLocked(job, JobState::kCancelled, 0, 0);
    } else {
      FinishJobLocked(job, exit_code == 0 ? JobState::kCompleted : JobState::kFailed, exit_code, 0);
    }
    copy = job;
  }
  RETURN_IF_ERROR(Persist(copy));
  if (!copy.allocation.empty()) SignalAll(copy, SIGKILL, 0, "cleanup");
  Wake();
  return Status::Ok();
}

Status Controller::Requeue(int64_t job_id, const Caller& caller) {
  if (!caller.authenticated) return Status(StatusCode::kUnauthenticated, "authentication required");
  JobRecord copy;
  {
    JobsLock lock(this);
    ASSIGN_OR_RETURN(JobRecord* const found, OwnedJobLocked(job_id, caller));
    JobRecord& job = *found;
    if (job.state == JobState::kPending) return FailedPrecondition("Job is pending execution");
    if (job.state != JobState::kRunning && job.state != JobState::kSuspended) {
      return FailedPrecondition("Job/step already completing or completed");
    }
    if (!job.requeue || job.interactive) {
      return FailedPrecondition("Requested operation is presently disabled (the job has --no-requeue or is interactive)");
    }
    EndingLocked(job, "requeue", config_.kill_wait_s);
    copy = job;
  }
  RETURN_IF_ERROR(Persist(copy));
  SignalAll(copy, SIGTERM, config_.kill_wait_s, "requeue");
  return Status::Ok();
}

}  // namespace muster
