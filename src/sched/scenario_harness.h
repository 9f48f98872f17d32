// Table-driven scheduler scenarios for tests: a cluster and a queue in, expected decisions out;
// every case also runs with node and queue order shuffled, and then for further cycles (with the
// started jobs applied) that must change nothing.
#pragma once

#include <functional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "sched/cluster_snapshot.h"
#include "sched/scheduler.h"

namespace muster {

struct Scenario {
  std::string name;
  std::function<ClusterSnapshot()> cluster;
  std::vector<PendingJob> jobs;
  std::vector<std::string> expect;  // Decision::ToString(), in scheduling order
  SchedulerOptions options;
};

std::vector<std::string> DecisionStrings(const std::vector<Decision>& ds);

// The same cluster with nodes (and their usage), partition node lists and running jobs in another
// order.
ClusterSnapshot ShuffleNodes(const ClusterSnapshot& c, std::mt19937_64& rng);

// Applies every START to the snapshot's usage and returns the jobs still pending.
std::vector<PendingJob> ApplyStarts(ClusterSnapshot& c, const std::vector<PendingJob>& jobs,
                                    const std::vector<Decision>& ds);

}  // namespace muster

namespace muster {
// gtest prints a scenario by name.
inline void PrintTo(const Scenario& s, std::ostream* os) { *os << s.name; }
}  // namespace muster
