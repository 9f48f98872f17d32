// Telling a controller outage from a node cut off alone: the one rule the controller and the agents
// share (docs/security.md, "When the controller, a node or the network fails").
//
// A node's runs are held by a lease that every answer of the controller renews; when it runs out
// the shepherds end them, and the controller gives the node's jobs up (requeues them) only after
// the lease and a margin, so that a job never runs in two places. A lease alone cannot tell "this
// node is cut off" from "the controller is down": both are silence. The rule:
//
// - The peers are the nodes of the cluster file not configured FUTURE: a set fixed for a
//   configuration (neither registrations nor an admin's state changes move it), so that a view an
//   agent holds never counts fewer nodes than the controller does. The controller counts those out
//   of touch (never registered with it, or no word for OutOfTouchMs). When at least threshold_pct
//   of them are out of touch at once (MassLoss), it takes the silence for its own fault (its
//   network, or itself: a stall, a restart) and gives up no job for a silent node, until fewer are
//   out of touch and a whole lease and margin have passed again.
// - An agent whose controller has not answered for ClaimMs (longer than OutOfTouchMs: when it
//   says so, the controller counts it out of touch) asks its peers how long since a controller
//   answered them. Only when it and the peers that say the same reach the controller's threshold
//   (RunsGoOn: among all the peers, a peer not asked or not answering counting as one that still
//   hears the controller; or, above kMaxPeersAsked, the lower bound over a random sample) does it
//   renew its own lease for its runs. Then the controller, if it is there at all, counts them out
//   of touch too and requeues nothing. A node cut off alone hears peers that reach the controller
//   (or none at all): its runs end with its lease, as before.
#pragma once

#include <cstdint>

namespace muster {

// The most peers an agent asks: a cluster of up to this many nodes and one is counted exactly.
inline constexpr int kMaxPeersAsked = 64;

struct OutageRule {
  int threshold_pct = 55;                // the share of the peers out of touch that is an outage
  int64_t heartbeat_interval_ms = 5000;  // agent.heartbeat_interval

  // A node whose last word is this old is out of touch for the controller: a missed heartbeat
  // and some (a healthy node's silence is at most a heartbeat interval and a call's time).
  int64_t OutOfTouchMs() const { return heartbeat_interval_ms + (heartbeat_interval_ms / 2 > 1000 ? heartbeat_interval_ms / 2 : 1000); }
  // An agent that has not been answered for this long says it lost the controller: a second
  // more than the controller's out-of-touch silence, for the answer's way.
  int64_t ClaimMs() const { return OutOfTouchMs() + 1000; }
  // The shortest lease (heartbeat_timeout) with which an agent can hear its peers' claims before
  // its own lease runs out: a peer's last answer may be a heartbeat interval after its own, it
  // claims ClaimMs after that, and the agent asks every half second.
  int64_t ShortestLeaseMs() const { return heartbeat_interval_ms + ClaimMs() + 1000; }
};

// Whether `out` of `peers` nodes out of touch at once is an outage of the controller's own
// (threshold_pct of them or more); never with no peers.
bool MassLoss(int64_t out, int64_t peers, int threshold_pct);

// An agent's verdict: whether its runs go on past its lease. `lost`: the nodes, itself included,
// that have not heard a controller for ClaimMs; `peers`: all the nodes the controller counts. Not
// `sampled` (the agent asks every peer the controller named): exact, MassLoss(lost, peers), the
// peers it could not ask or that did not answer counting as not lost. `sampled` (kMaxPeersAsked of
// them, drawn at random, and itself: `asked`): the share's lower bound (Wilson's score interval,
// z = 4: a sample of 64 drawn from nodes of which fewer than threshold_pct are lost passes with a
// probability under 1e-4) must reach the threshold.
bool RunsGoOn(int64_t lost, int64_t asked, int64_t peers, int threshold_pct, bool sampled);

// The lower bound of Wilson's score interval for `hits` of `n` at `z` standard deviations.
double WilsonLowerBound(int64_t hits, int64_t n, double z);

}  // namespace muster
