// AgentReach: which of several controllers (controller.hosts) the agents can reach, so that a
// leader cut off from the agents but not from the store hands the lease to a standby that reaches
// them, instead of holding the cluster while every node goes silent.
//
// An agent that cannot reach the leader moves on to the next controller and says so
// (?unreachable=<leader> on its registration or heartbeat; agent/controller_link.h). A standby
// notes each such agent (Note) and reports how many it heard within its window through the store
// at each poll (Store::ReportView). The leader, at each renewal, compares the agents it heard
// itself within its own window (Controller::NodesHeardWithin) with the standbys' reports
// (Successor): a standby that hears strictly more agents that cannot reach the leader than the
// leader hears gets the lease (LeaseKeeper::HandOver). Equal counts (a split) change nothing.
// Thread-safe.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "store/store.h"

namespace muster {

class AgentReach {
 public:
  explicit AgentReach(int64_t window_ms) : window_ms_(window_ms) {}

  void Note(const std::string& node, int64_t now_ms);
  // The distinct nodes noted within the window before `now_ms` (older notes are forgotten).
  int64_t Count(int64_t now_ms);
  int64_t window_ms() const { return window_ms_; }

  // The standby (not `self`) to hand the lease to: the one whose view counts the most agents, if
  // that is more than the `heard` of the leader; ties go to the first address.
  static std::optional<ControllerView> Successor(int64_t heard, const std::vector<ControllerView>& views,
                                                 const std::string& self);

 private:
  const int64_t window_ms_;
  Mutex mu_{"agent reach", LockRank::kNone};
  std::map<std::string, int64_t> last_ GUARDED_BY(mu_);  // node -> when it last came, saying the leader was unreachable
};

// The windows, from muster.yaml's lease and heartbeat interval (seconds). The leader counts the
// nodes heard in the last max(lease, 2 heartbeats); a standby remembers an agent for two of its
// tries (a heartbeat interval, plus the lease its link waits on the unreachable leader, each).
inline int64_t LeaderHeardWindowS(int64_t lease_s, int64_t heartbeat_s) { return std::max(lease_s, 2 * heartbeat_s); }
inline int64_t StandbyReachWindowMs(int64_t lease_s, int64_t heartbeat_s) { return 2000 * (lease_s + heartbeat_s); }

}  // namespace muster
