// LeaseKeeper: a controller's side of the lease in the store (controller.hosts: several
// controllers share one PostgreSQL state; store/store.h's TryLead). A standby tries to take the
// lease every PollMs(); the leader renews it every RenewMs(), and stops acting as leader when its
// renewals fail past its own deadline or when it finds the lease taken.
//
// The local deadline is the instant the last successful try BEGAN plus the lease, less a margin,
// by this host's monotonic clock: the store's server starts the same lease later (when the
// statement runs), so a leader cut off from the store stops before the lease lapses there and a
// standby may take it. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "base/mutex.h"
#include "base/status.h"
#include "store/store.h"

namespace muster {

int64_t SteadyMillis();  // std::chrono::steady_clock, in milliseconds

class LeaseKeeper {
 public:
  struct Options {
    std::string holder;      // unique to this process (address, host, pid, random)
    std::string address;     // its controller.hosts entry
    int64_t lease_ms = 6000;
  };
  LeaseKeeper(Store* store, Options opt, std::function<int64_t()> now_ms = SteadyMillis);

  // One try: take the lease (standby) or renew it (leader). An error (store unreachable) changes
  // nothing but the time left; a lease found taken by another after leading deposes this keeper
  // for good (the process steps down and starts again as a standby).
  StatusOr<Leadership> Try();

  // Hands the lease over to the controller at `successor` (reserved for it one lease length) and
  // stops leading: the agents reach it and not this one (ctld/agent_reach.h).
  Status HandOver(const std::string& successor);

  bool Leading() const;               // took the lease, not deposed, before the local deadline
  bool Deposed() const;               // led, and lost the lease (taken, or the deadline passed)
  int64_t RemainingMs() const;        // until the local deadline (<= 0: not leading)
  Leadership Last() const;            // the lease as the last successful try read it
  std::string HandedTo() const;       // whom it handed the lease to ("" = nobody)
  int64_t PollMs() const { return std::max<int64_t>(100, opt_.lease_ms / 12); }
  int64_t RenewMs() const { return std::max<int64_t>(100, opt_.lease_ms / 4); }
  int64_t MarginMs() const { return opt_.lease_ms / 6; }
  const Options& options() const { return opt_; }

 private:
  Store* store_;
  Options opt_;
  std::function<int64_t()> now_ms_;
  mutable Mutex mu_{"lease", LockRank::kNone};
  Leadership last_ GUARDED_BY(mu_);
  bool led_ GUARDED_BY(mu_) = false;
  bool lost_ GUARDED_BY(mu_) = false;
  int64_t deadline_ms_ GUARDED_BY(mu_) = 0;
  std::string handed_to_ GUARDED_BY(mu_);
};

}  // namespace muster
