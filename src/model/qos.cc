#include "model/qos.h"

#include <string_view>

#include <algorithm>
#include <cctype>
#include <set>

namespace muster {

const char* PreemptModeName(PreemptMode m) {
  switch (m) {
    case PreemptMode::kOff: return "OFF";
    case PreemptMode::kCancel: return "CANCEL";
    case PreemptMode::kRequeue: return "REQUEUE";
    case PreemptMode::kSuspend: return "SUSPEND";
  }
  return "OFF";
}

StatusOr<PreemptMode> ParsePreemptMode(const std::string& name) {
  std::string u = name;
  std::transform(u.begin(), u.end(), u.begin(), [](unsigned char c) { return std::toupper(c); });
  for (PreemptMode m : {PreemptMode::kOff, PreemptMode::kCancel, PreemptMode::kRequeue, PreemptMode::kSuspend}) {
    if (u == PreemptModeName(m)) return m;
  }
  return InvalidArgument("invalid preempt mode '" + name + "' (expected OFF, CANCEL, REQUEUE or SUSPEND)");
}

Status ValidateQosList(const std::vector<Qos>& list) {
  std::set<std::string> names;
  for (const Qos& q : list) {
    if (q.name.empty()) return InvalidArgument("a QOS has an empty name");
    if (!names.insert(q.name).second) return InvalidArgument("QOS '" + q.name + "' is defined twice");
  }
  for (const Qos& q : list) {
    for (const std::string& p : q.preempt) {
      if (p == q.name) return InvalidArgument("QOS '" + q.name + "' cannot preempt itself");
      if (!names.count(p)) return InvalidArgument("QOS '" + q.name + "': preempt names unknown QOS '" + p + "'");
    }
    for (int64_t v : {q.grace_time_s, q.preempt_exempt_time_s, q.max_gpus_per_user, q.max_gpus_per_job,
                      q.max_jobs_per_user, q.max_wall_s, q.grp_gpus}) {
      if (v < kUnlimited) return InvalidArgument("QOS '" + q.name + "': a limit is negative");
    }
  }
  return Status::Ok();
}

const Qos* FindQos(const std::vector<Qos>& list, const std::string& name) {
  if (list.empty()) return nullptr;
  const std::string_view n = name.empty() ? std::string_view(kDefaultQosName) : std::string_view(name);
  for (const Qos& q : list) {
    if (q.name == n) return &q;
  }
  return nullptr;
}

}  // namespace muster
