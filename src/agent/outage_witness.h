// OutageWitness: the agent's side of model/outage.h. It owns the node's lease file
// (<spool>/lease, which the shepherds read: "<until ms>\n<heard ms>\n<lease s>\n", the last two
// when a leading controller last answered and the lease it granted) and the peers' list the
// controller gave (<spool>/witness.json), both kept across the agent's restarts: they must hold
// while no controller answers.
//
// Each answer of a leading controller renews the lease (Heard). When none has answered for the
// rule's claim time, Check asks the peers how long since one answered them (GET /v1/ping's
// leader_heard_ms_ago), and when enough of them lost it too (RunsGoOn: a controller outage, not
// this node cut off) renews the lease for another lease length; else the lease runs out and the
// shepherds end the runs, before the controller gives them up. A lease that has run out is never
// renewed by the peers: its runs are already ending. Logs each change of verdict once.
// Thread-safe; Check asks the peers without holding its lock.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "base/clock.h"
#include "base/mutex.h"
#include "base/status.h"
#include "wire/agent.h"

namespace muster {

class OutageWitness {
 public:
  // How long since a leading controller answered `peer` (ms; -1: never), or why it did not say.
  using AskPeer = std::function<StatusOr<int64_t>(const PeerAgent& peer)>;
  struct Options {
    std::string spool_dir;
    AskPeer ask;
    int parallel = 8;       // peers asked at once
    int64_t retry_ms = 500;  // a verdict of "cut off" is asked again after this
  };
  OutageWitness(Options options, const Clock* clock);

  // Reads the lease and the view the spool holds (what an earlier run of the agent wrote).
  void Load();
  // A leading controller answered, granting `lease_s` (0: the lease is left alone).
  Status Heard(int64_t lease_s);
  // The controller's peers' list and rule (NodeOrders::witness), kept in the spool.
  Status SetView(const WitnessView& view);
  int64_t generation() const;
  // How long since a leading controller answered (-1: never, as far as the spool knows).
  int64_t HeardMsAgo() const;
  int64_t lease_until_ms() const;
  // One look; musterd calls it every half second on a thread of its own.
  void Check();

  // What the last look decided, for tests and the log.
  enum class Verdict { kHeard, kOutage, kCutOff };
  Verdict verdict() const;
  int64_t renewals() const;  // leases renewed on the peers' word

 private:
  Status WriteLeaseLocked() REQUIRES(mu_);
  Options opt_;
  const Clock* clock_;
  mutable Mutex mu_{"outage witness"};
  int64_t until_ms_ GUARDED_BY(mu_) = 0;     // the lease: the runs may go on until then
  int64_t heard_ms_ GUARDED_BY(mu_) = 0;     // when a leading controller last answered (0: never)
  int64_t lease_s_ GUARDED_BY(mu_) = 0;      // the lease it granted
  std::optional<WitnessView> view_ GUARDED_BY(mu_);
  int64_t renewed_ms_ GUARDED_BY(mu_) = 0;   // when the peers' word last renewed the lease
  int64_t asked_ms_ GUARDED_BY(mu_) = 0;     // when the peers were last asked
  Verdict verdict_ GUARDED_BY(mu_) = Verdict::kHeard;
  int64_t renewals_ GUARDED_BY(mu_) = 0;
};

}  // namespace muster
