// OutageGuard: the controller's side of model/outage.h. Once a Tick it hears how many of the nodes
// it counts (NodeTable's counted: those configured, not FUTURE) are out of touch (OutOfTouch); while that is threshold_pct of them or more it takes
// the silence for its own fault and gives up no job of a silent node ("own fault"), and when fewer
// are, it waits a whole hold (the lease, the shepherds' kill wait and the margin: what a node
// renewed on its peers' word may still run for) before it gives any up again. A controller that
// starts (or a standby that takes over) holds the same time first: every node has the time to
// register again before its jobs are taken for lost. Logs each change. Not thread-safe: the
// controller's Tick alone calls it (under the jobs' lock), the readers copy under the same lock.
//
// WitnessFor builds what each agent is told (NodeOrders::witness): the nodes counted, the peers it
// asks, and the rule.
#pragma once

#include <cstdint>
#include <string>

#include "ctld/node_table.h"
#include "model/job_record.h"
#include "model/node_report.h"
#include "model/outage.h"

namespace muster {

// Whether the counted node at `p` is out of touch at `now_ms`: no word since OutOfTouchMs (a node
// never registered with this controller is heard at its start).
bool OutOfTouch(const NodeTable::Access& nodes, size_t p, int64_t now_ms, const OutageRule& rule);

// The view for `node`'s agent: the nodes counted, and those of them registered but itself to ask
// (kMaxPeersAsked of them, drawn at random for this node and generation, when the cluster counts
// more than kMaxPeersAsked + 1). A node not counted (configured FUTURE) is told no peers: it never
// renews its lease on their word.
WitnessView WitnessFor(const NodeTable::Access& nodes, const std::string& node, const OutageRule& rule, int64_t generation);

class OutageGuard {
 public:
  // `hold_ms`: the lease, the kill wait and the margin (heartbeat_timeout + kill_wait + kLeaseMarginS).
  OutageGuard(OutageRule rule, int64_t hold_ms) : rule_(rule), hold_ms_(hold_ms) {}

  // The controller starts (or takes over): jobs of silent nodes are kept for a hold from now.
  void Started(int64_t now_ms);
  // `out` of the `peers` counted nodes are out of touch now.
  void Update(int64_t now_ms, int64_t out, int64_t peers);
  // Whether the jobs of a node silent past its lease may be given up now.
  bool MayGiveUp(int64_t now_ms) const { return !own_fault_ && now_ms >= calm_from_ms_; }

  const OutageRule& rule() const { return rule_; }
  bool own_fault() const { return own_fault_; }
  int64_t out() const { return out_; }
  int64_t peers() const { return peers_; }
  int64_t outages() const { return outages_; }  // times it took the silence for its own fault
  int64_t calm_from_ms() const { return calm_from_ms_; }

 private:
  OutageRule rule_;
  int64_t hold_ms_;
  bool own_fault_ = false;
  int64_t calm_from_ms_ = 0;
  int64_t out_ = 0, peers_ = 0;
  int64_t outages_ = 0;
};

}  // namespace muster
