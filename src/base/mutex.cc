#include "base/mutex.h"

#ifndef NDEBUG
#include <algorithm>

#include "base/check.h"

namespace muster {
namespace {

// The ranked mutexes this thread holds, in the order taken (a handful at most).
struct Held {
  const Mutex* mu[16];
  int n = 0;
};
thread_local Held held;

}  // namespace

void Mutex::WillLock() {
  if (rank_ == LockRank::kNone) return;
  for (int i = 0; i < held.n; ++i) {
    const Mutex* h = held.mu[i];
    MUSTER_CHECK(h->rank_ < rank_) << "lock order: taking " << name_ << " (rank " << static_cast<int>(rank_)
                                   << ") while holding " << h->name_ << " (rank " << static_cast<int>(h->rank_)
                                   << ")";
  }
  MUSTER_CHECK(held.n < 16) << "more than 16 ranked mutexes held at once";
  held.mu[held.n++] = this;
}

void Mutex::Unlocked() {
  if (rank_ == LockRank::kNone) return;
  // Usually the last one taken; a scope may release them in another order.
  const Mutex** end = held.mu + held.n;
  const Mutex** it = std::find(held.mu, end, this);
  MUSTER_CHECK(it != end) << "unlocking " << name_ << ", not held by this thread";
  std::copy(it + 1, end, it);
  --held.n;
}

}  // namespace muster
#endif
