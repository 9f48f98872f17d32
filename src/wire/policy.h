// sacctmgr's changes on the wire (POST /v1/policy): PolicyOp (model/policy_ops.h) under its keys.
#pragma once

#include <string>
#include <vector>

#include "model/account.h"
#include "model/policy_ops.h"
#include "model/qos.h"
#include "wire/codec.h"

namespace muster {

// The cluster-wide preemption settings (sched/preemption.h's PreemptionSettings) as sacctmgr
// shows them.
struct PreemptionAnswer {
  using WireRecord = void;
  bool by_qos = false, by_partition_tier = false, reclaim_quota = false;
  std::string mode;  // "REQUEUE", ...
  int64_t grace_time_s = 0, exempt_time_s = 0;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("by_qos", s.by_qos);
    v("by_partition_tier", s.by_partition_tier);
    v("reclaim_quota", s.reclaim_quota);
    v("mode", s.mode);
    v("grace_time_s", s.grace_time_s);
    v("exempt_time_s", s.exempt_time_s);
  }
};

// GET /v1/policy (sacctmgr show): accounts, user associations and QOS in force (amounts: -1 =
// not set), the preemption settings, and warnings about the policy.
struct PolicyAnswer {
  using WireRecord = void;
  std::vector<Account> accounts;
  std::vector<UserAssociation> users;
  std::vector<Qos> qos;
  PreemptionAnswer preemption;
  std::vector<std::string> warnings;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("accounts", s.accounts);
    v("users", s.users);
    v("qos", s.qos);
    v("preemption", s.preemption);
    v("warnings", s.warnings);
  }
};

}  // namespace muster

namespace muster::json {

template <>
struct External<TresAmounts> : std::true_type {
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("gpu", s.gpus);
    v("cpu", s.cpus);
    v("mem_mb", s.memory_mb);
  }
};

template <>
struct External<Account> : std::true_type {
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("name", s.name);
    v("parent", s.parent);
    v("shares", s.shares);
    v("quota", s.quota);
    v("over_quota_weight", s.over_quota_weight);
    v("limit", s.limit);
    v("max_jobs", s.max_jobs);
    v("grp_jobs", s.grp_jobs);
    v("max_wall_s", s.max_wall_s);
    v("max_gpus_per_user", s.max_gpus_per_user);
    v("qos", s.qos);
  }
};

template <>
struct External<UserAssociation> : std::true_type {
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("user", s.user);
    v("account", s.account);
    v("shares", s.shares);
  }
};

// A QOS's preemption mode on the wire: "" when the QOS takes the cluster's, else its name
// ("REQUEUE"); another name is an error naming the field.
inline std::string QosPreemptModeText(const std::optional<PreemptMode>& mode) {
  return mode ? PreemptModeName(*mode) : "";
}
inline StatusOr<std::optional<PreemptMode>> ParseQosPreemptMode(const std::string& text) {
  if (text.empty()) return std::optional<PreemptMode>();
  ASSIGN_OR_RETURN(PreemptMode mode, ParsePreemptMode(text));
  return std::optional<PreemptMode>(mode);
}

// A QOS; "preempt_mode" is "" when the QOS takes the cluster's.
template <>
struct External<Qos> : std::true_type {
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("name", s.name);
    v("priority", s.priority);
    v("preempt", s.preempt);
    if constexpr (std::is_const_v<Self>) {
      const std::optional<PreemptMode> mode = s.has_preempt_mode ? std::optional(s.preempt_mode) : std::nullopt;
      v("preempt_mode", Parsed{mode, &QosPreemptModeText, &ParseQosPreemptMode});
    } else {
      std::optional<PreemptMode> mode;
      v("preempt_mode", Parsed{mode, &QosPreemptModeText, &ParseQosPreemptMode});
      s.has_preempt_mode = mode.has_value();
      if (mode) s.preempt_mode = *mode;
    }
    v("grace_time_s", s.grace_time_s);
    v("preempt_exempt_time_s", s.preempt_exempt_time_s);
    v("max_gpus_per_user", s.max_gpus_per_user);
    v("max_gpus_per_job", s.max_gpus_per_job);
    v("max_jobs_per_user", s.max_jobs_per_user);
    v("max_wall_s", s.max_wall_s);
    v("grp_gpus", s.grp_gpus);
  }
};

// {"verb", "entity", "name", "fields": [[key, value], ...]}
template <>
struct External<PolicyOp> : std::true_type {
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("verb", s.verb);
    v("entity", s.entity);
    v("name", s.name);
    v("fields", s.fields);
  }
};

}  // namespace muster::json
