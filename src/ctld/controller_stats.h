// The controller's own figures, counted as things happen (not sampled): jobs submitted, started,
// ended (by final state) and preempted; scheduling passes with their wall time, the jobs each
// considered and the backfill reservations it made; API requests by route and method with their
// latency. musterctld's GET /metrics, GET /v1/diag (sdiag) and slurmrestd's /diag read them.
//
// Thread-safe with a lock of its own, taken alone and last (docs/architecture.md): callers may
// hold any controller lock when they count; nothing is called while it is held.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "base/mutex.h"
#include "model/job_record.h"

namespace muster {

// A Prometheus histogram: cumulative counts of observations <= each upper bound, their sum and
// count. Bounds are fixed at construction (seconds).
class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds) : bounds_(std::move(bounds)), counts_(bounds_.size(), 0) {}
  void Observe(double v);
  const std::vector<double>& bounds() const { return bounds_; }
  // counts()[i]: observations <= bounds()[i] (cumulative, as Prometheus' le buckets).
  std::vector<uint64_t> cumulative() const;
  uint64_t count() const { return count_; }
  double sum() const { return sum_; }

 private:
  std::vector<double> bounds_;
  std::vector<uint64_t> counts_;  // per bucket, not cumulative
  uint64_t count_ = 0;
  double sum_ = 0;
};

// Bounds of the scheduling pass histogram (100 us to 10 s) and of the API's (100 us to 10 s).
std::vector<double> PassSecondsBounds();
std::vector<double> RequestSecondsBounds();

struct ApiRouteStats {
  uint64_t count = 0;
  double total_s = 0;
  Histogram seconds{RequestSecondsBounds()};
};

// A copy of every figure, as one read saw them.
struct StatsSnapshot {
  int64_t since = 0;  // when counting began (start or the last reset), seconds since the epoch
  uint64_t submitted = 0, started = 0, preempted = 0;
  std::map<std::string, uint64_t> ended;  // by final state ("COMPLETED", "CANCELLED", ...)
  // Scheduling passes (ScheduleOnce that ran the core): wall time in microseconds.
  uint64_t passes = 0;
  uint64_t pass_last_us = 0, pass_max_us = 0, pass_total_us = 0;
  uint64_t depth_total = 0;        // jobs considered (waiting list length), summed over passes
  uint64_t last_queue_length = 0;  // of the last pass
  Histogram pass_seconds{PassSecondsBounds()};
  // Backfill: passes run with backfill on, the reservations they made (pending decisions with a
  // start time), and the jobs they started after a job asking the same partition got a
  // reservation in the same pass (decisions come in priority order: these went ahead of it),
  // with the further components of such heterogeneous jobs apart (docs/metrics.md).
  uint64_t backfill_passes = 0;
  uint64_t backfilled_jobs = 0, backfilled_het_components = 0;
  uint64_t backfill_last_us = 0, backfill_max_us = 0, backfill_total_us = 0;
  int64_t backfill_last_when = 0;
  uint64_t backfill_last_reservations = 0, backfill_reservations_total = 0;
  uint64_t backfill_last_depth = 0, backfill_depth_total = 0;
  // API requests by (route pattern, method), and by the uid of the caller the server identified.
  std::map<std::pair<std::string, std::string>, ApiRouteStats> api;
  struct UserRequests {
    uint64_t count = 0;
    double total_s = 0;
  };
  std::map<uint32_t, UserRequests> api_users;
};

// A controller of several (controller.hosts): how it came to lead. Kept through sdiag -r.
struct LeadershipStats {
  std::string address;        // its controller.hosts entry ("" = a single controller)
  int64_t token = 0;          // the lease's fencing token: leaderships of the cluster so far
  int64_t since = 0;          // when it took the lease, seconds since the epoch
  double standby_s = 0;       // how long it stood by before
  std::string took_from;      // the previous leader's address ("" = none had led)
};

class ControllerStats {
 public:
  explicit ControllerStats(int64_t since = 0) { s_.since = since; }
  void Submitted(uint64_t n = 1);
  void Started(uint64_t n = 1);
  void Ended(JobState state);
  void Preempted(uint64_t n = 1);
  // A pass that ran the scheduler core: its wall time, the jobs it considered, whether backfill
  // was on, the reservations it made and the jobs it backfilled; `now` when it ran (seconds since
  // the epoch).
  void Pass(uint64_t micros, uint64_t considered, bool backfill, uint64_t reservations, int64_t now,
            uint64_t backfilled = 0, uint64_t backfilled_het = 0);
  // A request a route answered; `uid`: its caller's, when the server identified it.
  void ApiRequest(const std::string& route, const std::string& method, double seconds,
                  std::optional<uint32_t> uid = std::nullopt);
  StatsSnapshot Snapshot() const;
  // sdiag -r: every figure back to zero, counting from `now`.
  void Reset(int64_t now);
  void SetLeadership(LeadershipStats l);
  LeadershipStats Leadership() const;

 private:
  mutable Mutex mu_{"controller stats", LockRank::kStats};
  StatsSnapshot s_ GUARDED_BY(mu_);
  LeadershipStats leadership_ GUARDED_BY(mu_);
};

}  // namespace muster
