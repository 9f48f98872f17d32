// JobIds: how the controller numbers jobs (a part of the submission with its own state and lock,
// issue 47). Ids are reserved from the store in blocks, durably before any is used, so that a
// crash never hands one out twice; a submission takes one (a heterogeneous job's components:
// consecutive ones) from the block in hand, and a new block is reserved when it runs out.
// Restart sets where numbering goes on when a controller starts leading (Controller::Recover:
// just past the largest stored job's, Store::RewindJobIds), so that what the last run reserved and
// never gave a job is numbered again. That reuses no id as long as no id is shown to anyone
// before its job is stored (the controller answers a submission after its save). Its lock is
// taken alone (LockRank::kJobIds).
#pragma once

#include <cstdint>

#include "base/mutex.h"
#include "base/status.h"
#include "store/store.h"

namespace muster {

class JobIds {
 public:
  static constexpr int kBlock = 1000;  // ids reserved from the store at once

  explicit JobIds(Store* store) : store_(store) {}

  // Numbering goes on from `next`; no block is reserved yet (the first Take reserves one).
  void Restart(int64_t next) EXCLUDES(mu_);
  // `count` consecutive new ids (1 to kBlock): the first. From a fresh block when the one in
  // hand has not that many left; the store's error when reserving it fails.
  StatusOr<int64_t> Take(int count = 1) EXCLUDES(mu_);
  // The id the next Take would give, taking none (sbatch --test-only's answer).
  int64_t Peek() const EXCLUDES(mu_);

 private:
  Store* store_;
  mutable Mutex mu_{"job ids", LockRank::kJobIds};
  int64_t next_ GUARDED_BY(mu_) = 1;
  int64_t limit_ GUARDED_BY(mu_) = 0;  // the end of the block in hand (exclusive)
};

}  // namespace muster
