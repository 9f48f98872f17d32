// Controller: accounts, queues and QOS changed at run time (sacctmgr), on top of muster.yaml.
#include <memory>

#include "ctld/controller.h"

namespace muster {

namespace {
constexpr char kPolicyKey[] = "policy_ops";  // store meta: PolicyOpsToJson of the changes in force
}  // namespace

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

}  // namespace muster
