#include "config/scheduling/priority_config.h"

#include <limits>

#include "config/scheduling/policy_config.h"
#include "model/job_request.h"
#include "sched/job_order.h"

namespace muster::config_internal {
namespace {

constexpr int64_t kMaxWeight = 1000000000;  // sums of five stay far from overflow

Status ReadUser(const std::string& source, const YAML::Node& node, const std::string& path,
                const std::string& account, AccountTree* tree) {
  UserAssociation u;
  u.account = account;
  if (node.IsScalar()) {
    u.user = node.Scalar();
  } else {
    ASSIGN_OR_RETURN(MapReader m, MapReader::Make(source, node, path, {"name", "shares"}));
    RETURN_IF_ERROR(m.String("name", &u.user, /*required=*/true));
    RETURN_IF_ERROR(m.Int("shares", &u.shares, 0, kMaxWeight));
  }
  if (u.user.empty()) return ErrorAt(source, node, path, "a user name is empty");
  tree->users.push_back(std::move(u));
  return Status::Ok();
}

}  // namespace

Status ReadPriority(const MapReader& root, PrioritySettings* out) {
  const std::string& source = root.source();
  if (const YAML::Node* node = root.Find("priority")) {
    ASSIGN_OR_RETURN(MapReader m, MapReader::Make(source, *node, "priority",
                                                  {"order", "las_queue_limits", "weights", "max_age", "favor_small",
                                                   "decay_half_life", "calc_period", "billing"}));
    if (m.Has("order")) {
      std::string order;
      RETURN_IF_ERROR(m.Choice("order", JobOrderRegistry::Names(), &order));
      out->order = JobOrderRegistry::Create(order);
    }
    if (m.Has("las_queue_limits")) {
      // GPU-seconds of attained service where each queue ends, as times ("1:00:00" = one GPU-hour).
      std::vector<std::string> limits;
      RETURN_IF_ERROR(m.StringList("las_queue_limits", &limits));
      out->las_queue_limits_gpu_s.clear();
      for (const std::string& text : limits) {
        StatusOr<int64_t> v = ParseTimeSpec(text);
        if (!v.ok() || *v <= 0) return m.Error("las_queue_limits", "'" + text + "' is not a positive time");
        if (!out->las_queue_limits_gpu_s.empty() && *v <= out->las_queue_limits_gpu_s.back()) {
          return m.Error("las_queue_limits", "the limits must ascend");
        }
        out->las_queue_limits_gpu_s.push_back(*v);
      }
    }
    if (const YAML::Node* w = m.Find("weights")) {
      ASSIGN_OR_RETURN(MapReader wm, MapReader::Make(source, *w, "priority.weights",
                                                     {"age", "fairshare", "job_size", "partition", "qos"}));
      RETURN_IF_ERROR(wm.Int("age", &out->weights.age, 0, kMaxWeight));
      RETURN_IF_ERROR(wm.Int("fairshare", &out->weights.fairshare, 0, kMaxWeight));
      RETURN_IF_ERROR(wm.Int("job_size", &out->weights.job_size, 0, kMaxWeight));
      RETURN_IF_ERROR(wm.Int("partition", &out->weights.partition, 0, kMaxWeight));
      RETURN_IF_ERROR(wm.Int("qos", &out->weights.qos, 0, kMaxWeight));
    }
    if (m.Has("max_age")) {
      RETURN_IF_ERROR(m.TimeS("max_age", &out->weights.max_age_s));
      if (out->weights.max_age_s <= 0) return m.Error("max_age", "must be a positive time");
    }
    RETURN_IF_ERROR(m.Bool("favor_small", &out->weights.favor_small));
    if (m.Has("decay_half_life")) {
      int64_t v = 0;
      RETURN_IF_ERROR(m.TimeS("decay_half_life", &v));
      if (v < 0) return m.Error("decay_half_life", "must be a time (0: usage never decays)");
      out->half_life_s = v;
    }
    if (m.Has("calc_period")) {
      int64_t v = 0;
      RETURN_IF_ERROR(m.TimeS("calc_period", &v));
      if (v < 0) return m.Error("calc_period", "must be a time (0: at every tick)");
      out->calc_period_s = v;
    }
    if (const YAML::Node* b = m.Find("billing")) {
      ASSIGN_OR_RETURN(MapReader bm, MapReader::Make(source, *b, "priority.billing", {"gpu", "cpu", "mem_gb"}));
      RETURN_IF_ERROR(bm.Double("gpu", &out->billing.gpu, 0, 1e9));
      RETURN_IF_ERROR(bm.Double("cpu", &out->billing.cpu, 0, 1e9));
      RETURN_IF_ERROR(bm.Double("mem_gb", &out->billing.mem_gb, 0, 1e9));
    }
  }
  std::vector<YAML::Node> accounts;
  RETURN_IF_ERROR(root.List("accounts", &accounts));
  AccountTree tree;
  for (size_t i = 0; i < accounts.size(); ++i) {
    const std::string path = Index("accounts", i);
    ASSIGN_OR_RETURN(MapReader m, MapReader::Make(source, accounts[i], path,
                                                  {"name", "parent", "shares", "users", "quota", "over_quota_weight",
                                                   "limit", "max_jobs", "grp_jobs", "max_wall", "max_gpus_per_user", "qos"}));
    Account a;
    RETURN_IF_ERROR(m.String("name", &a.name, /*required=*/true));
    RETURN_IF_ERROR(m.String("parent", &a.parent));
    RETURN_IF_ERROR(m.Int("shares", &a.shares, 0, kMaxWeight));
    RETURN_IF_ERROR(ReadAccountQueue(m, &a));
    std::vector<YAML::Node> users;
    RETURN_IF_ERROR(m.List("users", &users));
    for (size_t k = 0; k < users.size(); ++k) {
      RETURN_IF_ERROR(ReadUser(source, users[k], m.PathOf("users") + "[" + std::to_string(k) + "]", a.name, &tree));
    }
    tree.accounts.push_back(std::move(a));
  }
  if (Status st = tree.Validate(); !st.ok()) {
    const YAML::Node* node = root.Find("accounts");
    return ErrorAt(source, *node, "accounts", st.message());
  }
  out->accounts = std::move(tree);
  return Status::Ok();
}

}  // namespace muster::config_internal
