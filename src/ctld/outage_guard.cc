#include "ctld/outage_guard.h"

#include <algorithm>
#include <functional>
#include <random>
#include <utility>
#include <vector>

#include "base/log.h"

namespace muster {

bool OutOfTouch(const NodeTable::Access& nodes, size_t p, int64_t now_ms, const OutageRule& rule) {
  return now_ms - nodes.heard_ms(p) >= rule.OutOfTouchMs();
}

WitnessView WitnessFor(const NodeTable::Access& nodes, const std::string& node, const OutageRule& rule, int64_t generation) {
  WitnessView v;
  v.generation = generation;
  v.threshold_pct = rule.threshold_pct;
  v.claim_ms = rule.ClaimMs();
  bool self_counted = false;
  std::vector<const NodeRecord*> others;
  for (size_t p = 0; p < nodes.size(); ++p) {
    if (!nodes.counted(p)) continue;
    const NodeRecord& r = nodes.at(p);
    ++v.peers;
    if (r.node.name == node) {
      self_counted = true;
    } else if (r.last_heartbeat > 0 && !r.agent_address.empty()) {
      others.push_back(&r);
    }
  }
  if (!self_counted) return WitnessView{generation, 0, {}, false, rule.threshold_pct, rule.ClaimMs()};
  if (v.peers - 1 > kMaxPeersAsked) {
    // A sample of its own for each node and generation (a partial shuffle, seeded by both).
    v.sampled = true;
    std::mt19937_64 rng(std::hash<std::string>{}(node) ^ static_cast<uint64_t>(generation) * 0x9e3779b97f4a7c15ULL);
    const size_t n = std::min<size_t>(others.size(), kMaxPeersAsked);
    for (size_t i = 0; i < n; ++i) {
      std::uniform_int_distribution<size_t> pick(i, others.size() - 1);
      std::swap(others[i], others[pick(rng)]);
    }
    others.resize(n);
  }
  for (const NodeRecord* r : others) v.ask.push_back(PeerAgent{r->node.name, r->agent_address});
  return v;
}

void OutageGuard::Started(int64_t now_ms) {
  calm_from_ms_ = std::max(calm_from_ms_, now_ms + hold_ms_);
}

void OutageGuard::Update(int64_t now_ms, int64_t out, int64_t peers) {
  out_ = out;
  peers_ = peers;
  const bool mass = MassLoss(out, peers, rule_.threshold_pct);
  if (mass && !own_fault_) {
    own_fault_ = true;
    ++outages_;
    LogWarning(std::to_string(out) + " of " + std::to_string(peers) + " nodes stopped answering at once (controller.outage_threshold " +
               std::to_string(rule_.threshold_pct) +
               "%): taken for the controller's own fault (its network, or itself); no job is given up for a silent node "
               "until they answer again or an admin sets a node DOWN");
  } else if (!mass && own_fault_) {
    own_fault_ = false;
    calm_from_ms_ = std::max(calm_from_ms_, now_ms + hold_ms_);
    LogInfo("the nodes answer again (" + std::to_string(out) + " of " + std::to_string(peers) +
            " out of touch): the jobs of nodes still silent are given up in " + std::to_string(hold_ms_ / 1000) +
            " s, once their leases, renewed by their peers until now, have run out");
  }
}

}  // namespace muster
