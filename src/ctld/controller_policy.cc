// Controller: accounts, queues and QOS changed at run time (sacctmgr), on top of muster.yaml;
// stopping preemption victims. (What they mean for a submission: ctld/build_job.cc.)
#include <algorithm>
#include <memory>

#include "ctld/controller.h"

namespace muster {

Status Controller::ChangePolicy(const PolicyOp& op, const Caller& caller) {
  if (!caller.authenticated) return Status(StatusCode::kUnauthenticated, "authentication required");
  if (!IsAdmin(caller)) return Status(StatusCode::kPermissionDenied, "Access/permission denied: only an administrator may change accounts and QOS");
  JobsLock lock(this);
  RETURN_IF_ERROR(policy_.Change(op, [this](const std::string& stored) { return store_->SetMeta(kPolicyKey, stored); }));
  policy_.RefreshPriorities(jobs_.active(), clock_->NowSeconds());
  return Status::Ok();
}

void Controller::PreemptLocked(const JobRecord& by, const Preemption& p, std::vector<JobRecord>* out) {
  JobRecord* victim = jobs_.Find(p.victim);
  if (victim == nullptr) return;
  JobRecord& v = *victim;
  // Re-checked: it may have ended, or be stopping already, since the cycle looked.
  if (v.state != JobState::kRunning || !v.ending.empty()) return;
  if (v.het_job_size > 1) {
    // A heterogeneous job is stopped whole, through its leader (its components follow it); it
    // is not suspended (its components' CPUs would stay held).
    if (p.mode == PreemptMode::kSuspend) return;
    if (v.het_job_offset > 0) {
      Preemption whole = p;
      whole.victim = v.het_job_id;
      return PreemptLocked(by, whole, out);
    }
  }
  const int64_t now = clock_->NowSeconds();
  std::string mode;
  if (p.mode == PreemptMode::kSuspend) {
    // Stopped where it stands, at once (no grace: nothing ends): its CPUs are free now, its
    // memory and GPUs stay held. It resumes once `by` is gone (the scheduler's kResume).
    policy_.Charge(v, now);  // the run so far, CPUs included
    usage_.Count(v, -1);
    v.state = JobState::kSuspended;
    v.suspend_time = now;
    usage_.Count(v, 1);
    mode = "SUSPEND";
  } else {
    const bool requeue = p.mode == PreemptMode::kRequeue && v.requeue;
    EndingLocked(v, requeue ? "preempt-requeue" : "preempt", std::max<int64_t>(p.grace_s, 1));
    mode = requeue ? "REQUEUE" : "CANCEL";
  }
  v.preempted_by = by.id;
  v.preempt_time = now;
  v.preempt_reason = p.why;
  if (v.preemptions.size() >= kPreemptionHistory) {
    v.preemptions.erase(v.preemptions.begin(), v.preemptions.end() - (kPreemptionHistory - 1));
  }
  v.preemptions.push_back(PreemptionEvent{by.id, now, mode, p.why});
  stats_.Preempted();
  out->push_back(v);
}

bool Controller::ResumeLocked(NodeTable::Access& nodes, JobRecord& job, std::vector<NodeUsage>& now,
                              const std::vector<NodeAllocation>& cpus) {
  // Re-checked: its CPUs may have been taken since the cycle looked.
  for (const NodeAllocation& a : cpus) {
    const int p = nodes_.Pos(a.node);
    if (p < 0) return false;
    if (now[p].cpu_milli + a.cpu_milli > int64_t{nodes.at(p).node.cpus} * 1000) return false;
  }
  for (const NodeAllocation& a : cpus) usage_.Add(now, a);
  const int64_t t = clock_->NowSeconds();
  policy_.Charge(job, t);  // the suspension, without CPUs
  job.suspended_s = SuspendedSeconds(job, t);
  usage_.Count(job, -1);
  job.suspend_time = 0;
  job.state = JobState::kRunning;
  usage_.Count(job, 1);
  job.reason = "None";
  return true;
}

SchedPolicy Controller::Policy() const { return policy_.Policy(); }

std::vector<std::string> Controller::policy_warnings() const { return policy_.warnings(); }

void Controller::LearnShapeLocked(const JobRecord& job) {
  if (!config_.scheduler.placement->learns_mix()) return;
  for (const Partition& p : config_.cluster.partitions) {
    if (p.name != job.partition) continue;
    if (StatusOr<RequestShape> shape = ResolveShape(job.request, p); shape.ok()) mix_learner_.Observe(*shape);
    return;
  }
}

}  // namespace muster
