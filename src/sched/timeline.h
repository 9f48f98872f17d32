// Timeline: what is held when, for backfill. Intervals of resources: the running jobs until their
// expected ends (start + time limit), the reservations of waiting jobs, and the jobs started this
// cycle; usage no running job accounts for is held for good. Answers "what is free throughout
// [a, b)" as per-node usage (the peak of what the intervals hold over the window) that a Plan is
// built on, so a placement found there fits at every moment of the window. Pure; not thread-safe.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "sched/cluster_index.h"
#include "sched/cluster_snapshot.h"
#include "sched/decision.h"

namespace muster {

// A time no job reaches: the end of an interval without a limit.
inline constexpr int64_t kForever = INT64_MAX / 4;

class Timeline {
 public:
  // From the snapshot's usage and running jobs (an end of kUnlimited = kForever).
  Timeline(const ClusterIndex& index, const ClusterSnapshot& snapshot);

  // Holds `allocation` during [start, end).
  void Add(const std::vector<NodeAllocation>& allocation, int64_t start, int64_t end);
  // A checkpoint, and undoing every Add since it (sched/statement.h).
  int Mark() const { return static_cast<int>(intervals_.size()); }
  void Rollback(int mark) { intervals_.resize(static_cast<size_t>(mark)); }

  // Per snapshot node (ClusterSnapshot::usage order): the most held at any moment of [a, b), into
  // `peak`, reusing its buffers (a backfill pass asks this for every window it tries).
  void PeakUsage(int64_t a, int64_t b, std::vector<NodeUsage>& peak) const;

  // When things free up: `from` and every interval end after it, up to `until`, ascending.
  std::vector<int64_t> StartTimes(int64_t from, int64_t until) const;

 private:
  struct Held {
    int pos;  // snapshot node position
    NodeAllocation a;
  };
  struct Interval {
    int64_t start, end;
    std::vector<Held> held;
  };
  const ClusterIndex& index_;
  std::vector<NodeUsage> residual_;  // held for good
  std::vector<Interval> intervals_;
  // PeakUsage's buffers, kept between calls: the usage as the window is swept, and the
  // intervals' starts and ends within it, (time, (+1 start / 0 end, interval)).
  mutable std::vector<NodeUsage> now_;
  mutable std::vector<std::pair<int64_t, std::pair<int, int>>> events_;
};

}  // namespace muster
