#include "ctld/controller_stats.h"

#include <algorithm>

namespace muster {

void Histogram::Observe(double v) {
  const auto it = std::lower_bound(bounds_.begin(), bounds_.end(), v);  // first bound >= v: its le bucket
  if (it != bounds_.end()) ++counts_[static_cast<size_t>(it - bounds_.begin())];
  ++count_;
  sum_ += v;
}

std::vector<uint64_t> Histogram::cumulative() const {
  std::vector<uint64_t> out(counts_.size());
  uint64_t run = 0;
  for (size_t i = 0; i < counts_.size(); ++i) out[i] = run += counts_[i];
  return out;
}

std::vector<double> PassSecondsBounds() {
  return {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
}

std::vector<double> RequestSecondsBounds() {
  return {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
}

void ControllerStats::Submitted(uint64_t n) {
  MutexLock l(mu_);
  s_.submitted += n;
}

void ControllerStats::Started(uint64_t n) {
  MutexLock l(mu_);
  s_.started += n;
}

void ControllerStats::Ended(JobState state) {
  MutexLock l(mu_);
  ++s_.ended[JobStateName(state)];
}

void ControllerStats::Preempted(uint64_t n) {
  MutexLock l(mu_);
  s_.preempted += n;
}

void ControllerStats::Pass(uint64_t micros, uint64_t considered, bool backfill, uint64_t reservations, int64_t now,
                           uint64_t backfilled, uint64_t backfilled_het) {
  MutexLock l(mu_);
  ++s_.passes;
  s_.pass_last_us = micros;
  s_.pass_max_us = std::max(s_.pass_max_us, micros);
  s_.pass_total_us += micros;
  s_.depth_total += considered;
  s_.last_queue_length = considered;
  s_.pass_seconds.Observe(static_cast<double>(micros) / 1e6);
  if (!backfill) return;
  ++s_.backfill_passes;
  s_.backfill_last_us = micros;
  s_.backfill_max_us = std::max(s_.backfill_max_us, micros);
  s_.backfill_total_us += micros;
  s_.backfill_last_when = now;
  s_.backfill_last_reservations = reservations;
  s_.backfill_reservations_total += reservations;
  s_.backfill_last_depth = considered;
  s_.backfill_depth_total += considered;
  s_.backfilled_jobs += backfilled;
  s_.backfilled_het_components += backfilled_het;
}

void ControllerStats::ApiRequest(const std::string& route, const std::string& method, double seconds,
                                 std::optional<uint32_t> uid) {
  MutexLock l(mu_);
  ApiRouteStats& r = s_.api[{route, method}];
  ++r.count;
  r.total_s += seconds;
  r.seconds.Observe(seconds);
  if (uid) {
    StatsSnapshot::UserRequests& u = s_.api_users[*uid];
    ++u.count;
    u.total_s += seconds;
  }
}

StatsSnapshot ControllerStats::Snapshot() const {
  MutexLock l(mu_);
  return s_;
}

void ControllerStats::SetLeadership(LeadershipStats l) {
  MutexLock lock(mu_);
  leadership_ = std::move(l);
}

LeadershipStats ControllerStats::Leadership() const {
  MutexLock lock(mu_);
  return leadership_;
}

void ControllerStats::Reset(int64_t now) {
  MutexLock l(mu_);
  s_ = StatsSnapshot();
  s_.since = now;
}

}  // namespace muster
