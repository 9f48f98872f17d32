// Controller: accounts, queues and QOS changed at run time (sacctmgr), on top of muster.yaml;
// stopping preemption victims. (What they mean for a submission: ctld/build_job.cc.)
#include <algorithm>
#include <memory>

#include "ctld/controller.h"

namespace muster {

void Controller::InstallPolicyLocked(const AccountTree& tree, const std::vector<Qos>& qos) {
  auto policy = std::make_shared<SchedPolicy>();
  policy->accounts = tree;
  policy->qos = qos;
  if (config_.scheduler.policy != nullptr) policy->preemption = config_.scheduler.policy->preemption;
  config_.scheduler.policy = std::move(policy);
  config_.priority.accounts = tree;
  priority_.SetAccounts(tree);
}

Status Controller::ReplayPolicyLocked(const std::string& stored) {
  StatusOr<std::vector<PolicyOp>> ops = PolicyOpsFromJson(stored);
  if (!ops.ok()) return ops.status();
  AccountTree tree = base_accounts_;
  std::vector<Qos> qos = base_qos_;
  policy_ops_.clear();
  for (const PolicyOp& op : *ops) {
    Status st = ApplyPolicyOp(op, &tree, &qos);
    if (!st.ok()) {
      policy_warnings_.push_back("stored change '" + op.verb + " " + op.entity + " " + op.name +
                                 "' no longer applies to muster.yaml: " + st.message() + "; dropped");
      continue;
    }
    policy_ops_.push_back(op);
  }
  InstallPolicyLocked(tree, qos);
  return Status::Ok();
}

Status Controller::ChangePolicy(const PolicyOp& op, const Caller& caller) {
  if (!caller.authenticated) return Status(StatusCode::kUnauthenticated, "authentication required");
  if (!IsAdmin(caller)) return Status(StatusCode::kPermissionDenied, "Access/permission denied: only an administrator may change accounts and QOS");
  std::lock_guard<std::mutex> lock(mu_);
  AccountTree tree = config_.priority.accounts;
  std::vector<Qos> qos = config_.scheduler.policy != nullptr ? config_.scheduler.policy->qos : std::vector<Qos>{};
  RETURN_IF_ERROR(ApplyPolicyOp(op, &tree, &qos));
  std::vector<PolicyOp> ops = policy_ops_;
  ops.push_back(op);
  // Durable before it takes effect (a rare admin action: under the lock, in order).
  RETURN_IF_ERROR(store_->SetMeta(kPolicyKey, PolicyOpsToJson(ops)));
  policy_ops_ = std::move(ops);
  InstallPolicyLocked(tree, qos);
  RefreshPriorityLocked(clock_->NowSeconds());
  return Status::Ok();
}

void Controller::PreemptLocked(const JobRecord& by, const Preemption& p, std::vector<JobRecord>* out) {
  auto it = jobs_.find(p.victim);
  if (it == jobs_.end()) return;
  JobRecord& v = it->second;
  // Re-checked: it may have ended, or be stopping already, since the cycle looked.
  if (v.state != JobState::kRunning || !v.ending.empty()) return;
  const int64_t now = clock_->NowSeconds();
  std::string mode;
  if (p.mode == PreemptMode::kSuspend) {
    // Stopped where it stands, at once (no grace: nothing ends): its CPUs are free now, its
    // memory and GPUs stay held. It resumes once `by` is gone (the scheduler's kResume).
    ChargeLocked(v, now);  // the run so far, CPUs included
    CountUsageLocked(v, -1);
    v.state = JobState::kSuspended;
    v.suspend_time = now;
    CountUsageLocked(v, 1);
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
  out->push_back(v);
}

bool Controller::ResumeLocked(JobRecord& job, std::vector<NodeUsage>& now, const std::vector<NodeAllocation>& cpus) {
  // Re-checked: its CPUs may have been taken since the cycle looked.
  for (const NodeAllocation& a : cpus) {
    const int p = NodePosLocked(a.node);
    if (p < 0) return false;
    if (now[p].cpu_milli + a.cpu_milli > int64_t{node_at_[p]->node.cpus} * 1000) return false;
  }
  for (const NodeAllocation& a : cpus) AddUsageLocked(now, a);
  const int64_t t = clock_->NowSeconds();
  ChargeLocked(job, t);  // the suspension, without CPUs
  job.suspended_s = SuspendedSeconds(job, t);
  CountUsageLocked(job, -1);
  job.suspend_time = 0;
  job.state = JobState::kRunning;
  CountUsageLocked(job, 1);
  job.reason = "None";
  return true;
}

SchedPolicy Controller::Policy() const {
  std::lock_guard<std::mutex> lock(mu_);
  SchedPolicy p;
  if (config_.scheduler.policy != nullptr) p = *config_.scheduler.policy;
  p.accounts = config_.priority.accounts;
  return p;
}

std::vector<std::string> Controller::policy_warnings() const {
  std::lock_guard<std::mutex> lock(mu_);
  return policy_warnings_;
}

void Controller::LearnShapeLocked(const JobRecord& job) {
  if (!config_.learn_workload_mix) return;
  for (const Partition& p : config_.cluster.partitions) {
    if (p.name != job.partition) continue;
    if (StatusOr<RequestShape> shape = ResolveShape(job.request, p); shape.ok()) mix_learner_.Observe(*shape);
    return;
  }
}

}  // namespace muster
