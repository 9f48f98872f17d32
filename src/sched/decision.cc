#include "sched/decision.h"

#include <sstream>

namespace muster {

std::string Decision::ToString() const {
  std::ostringstream o;
  o << job_id << ' ';
  switch (kind) {
    case DecisionKind::kStart:
      o << "START";
      for (const NodeAllocation& n : nodes) {
        o << ' ' << n.node << "{cpu=" << n.cpu_milli / 1000;
        if (n.cpu_milli % 1000) o << '.' << n.cpu_milli % 1000;
        o << " mem=" << n.memory_mb << " tasks=" << n.tasks;
        if (!n.gpus.empty()) {
          o << " gpus=";
          for (size_t k = 0; k < n.gpus.size(); ++k) {
            if (k) o << ',';
            o << n.gpus[k].index;
            if (n.gpus[k].milli != 1000) o << ':' << n.gpus[k].milli;
          }
        }
        if (n.exclusive) o << " exclusive";
        o << '}';
      }
      break;
    case DecisionKind::kPending:
      o << "PENDING " << PendingReasonName(reason);
      if (!message.empty()) o << " (" << message << ')';
      if (start_time > 0) o << " start=" << start_time;
      for (size_t k = 0; k < preempt.size(); ++k) {
        o << (k ? "," : " preempt=") << preempt[k].victim;
        if (preempt[k].mode == PreemptMode::kSuspend) o << ":suspend";
      }
      break;
    case DecisionKind::kReject:
      o << "REJECT " << message;
      break;
    case DecisionKind::kResume:
      o << "RESUME";
      break;
  }
  return o.str();
}

}  // namespace muster
