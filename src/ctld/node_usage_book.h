// NodeUsageBook: what the jobs holding resources use of each node (CPUs, memory, GPUs, the jobs
// holding it whole), and the node states that come of it (IDLE, MIXED, ALLOCATED). The node life
// part beside NodeTable, which holds the records and knows no jobs.
//
// The usage is kept as jobs start, stop, suspend and resume, not recounted from every job at every
// read: each change of what a job holds is bracketed by Count(job, -1) and Count(job, +1). It is
// recounted in full after Invalidate (the jobs were loaded) or when the nodes' epoch moved (their
// GPUs may differ, or GPUs went out), and Debug builds check it against a recount at every read.
//
// Locking: none of its own. The controller keeps it under its jobs' lock (GUARDED_BY(mu_)), the
// lock the jobs it counts are kept under; Current and SetNodeStates take a NodeTable::Access, the
// nodes' lock, which comes after it.
#pragma once

#include <cstdint>
#include <vector>

#include "ctld/job_table.h"
#include "ctld/node_table.h"
#include "model/cluster_spec.h"

namespace muster {

class NodeUsageBook {
 public:
  // `nodes` only names the positions (NodeTable::Pos, fixed at construction); it must outlive the book.
  explicit NodeUsageBook(const NodeTable& nodes) : nodes_(nodes) {}
  NodeUsageBook(const NodeUsageBook&) = delete;
  NodeUsageBook& operator=(const NodeUsageBook&) = delete;

  // The next read recounts from the jobs.
  void Invalidate() { stale_ = true; }
  // The usage now, by node position, of the jobs in `jobs` (the active ones: those holding
  // resources count), with the GPUs its health watch took out of a node counted as taken.
  const std::vector<NodeUsage>& Current(NodeTable::Access& nodes, const ActiveJobs& jobs);
  // What `job` holds added (sign 1) or taken away (-1); nothing while a recount is due.
  void Count(const JobRecord& job, int sign);
  // `a` added to `usage` (a copy of Current being decided on), as a start would add it.
  void Add(std::vector<NodeUsage>& usage, const NodeAllocation& a) const;
  // Each node's state from what the jobs hold now: IDLE, MIXED or ALLOCATED (DOWN, UNKNOWN and
  // FUTURE nodes keep theirs).
  void SetNodeStates(NodeTable::Access& nodes, const ActiveJobs& jobs);

 private:
  void Recount(NodeTable::Access& nodes, const ActiveJobs& jobs, std::vector<NodeUsage>& usage,
               std::vector<int>& exclusive) const;
  void CountInto(const JobRecord& job, int sign, std::vector<NodeUsage>& usage, std::vector<int>& exclusive) const;

  const NodeTable& nodes_;
  std::vector<NodeUsage> usage_;
  std::vector<int> exclusive_;  // per node, the jobs holding it whole
  bool stale_ = true;
  uint64_t epoch_ = 0;  // the nodes' epoch when usage_ was counted
};

}  // namespace muster
