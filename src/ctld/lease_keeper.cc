#include "ctld/lease_keeper.h"

#include <chrono>
#include <utility>

namespace muster {

int64_t SteadyMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

LeaseKeeper::LeaseKeeper(Store* store, Options opt, std::function<int64_t()> now_ms)
    : store_(store), opt_(std::move(opt)), now_ms_(std::move(now_ms)) {}

StatusOr<Leadership> LeaseKeeper::Try() {
  const int64_t began = now_ms_();
  StatusOr<Leadership> l = store_->TryLead(opt_.holder, opt_.address, opt_.lease_ms);
  MutexLock lock(mu_);
  if (!l.ok()) return l;
  last_ = *l;
  if (l->leading && !lost_) {
    // A renewal that comes back after the deadline passed does not revive a leader that may
    // already have stopped acting: it has stepped down for good.
    if (led_ && began >= deadline_ms_) {
      lost_ = true;
    } else {
      led_ = true;
      deadline_ms_ = began + opt_.lease_ms - MarginMs();
    }
  } else if (led_) {
    lost_ = true;
  }
  return l;
}

Status LeaseKeeper::HandOver(const std::string& successor) {
  {
    MutexLock lock(mu_);
    if (!led_ || lost_) return FailedPrecondition("this controller does not lead");
  }
  Status st = store_->HandOver(opt_.holder, successor, opt_.lease_ms);
  MutexLock lock(mu_);
  lost_ = true;  // handed over, or (refused) no longer its own: either way it stops acting
  if (st.ok()) handed_to_ = successor;
  return st;
}

std::string LeaseKeeper::HandedTo() const {
  MutexLock lock(mu_);
  return handed_to_;
}

bool LeaseKeeper::Leading() const {
  MutexLock lock(mu_);
  return led_ && !lost_ && now_ms_() < deadline_ms_;
}

bool LeaseKeeper::Deposed() const {
  MutexLock lock(mu_);
  return led_ && (lost_ || now_ms_() >= deadline_ms_);
}

int64_t LeaseKeeper::RemainingMs() const {
  MutexLock lock(mu_);
  if (!led_ || lost_) return 0;
  return deadline_ms_ - now_ms_();
}

Leadership LeaseKeeper::Last() const {
  MutexLock lock(mu_);
  return last_;
}

}  // namespace muster
