// NodeTable: the controller's nodes part. It owns the node records: one per configured node (the
// set and its order are fixed at construction), each with what its agent registered, its state,
// drain flag, reason, health and GPUs out; the GPUs an admin's RESUME took back, until the node's
// next orders; and the idle probe, which answers "could this job ever run?" at submission.
//
// Locking: one mutex of its own. Every read and write of a record goes through an Access, which
// holds it; List, Get and EverRuns take it themselves. In the controller's lock order (jobs,
// nodes, steps, policy) it comes after the jobs' lock: the controller may hold that while it
// takes this one, never the other way round. A thread holds at most one Access (checked). The
// table calls out to nothing, and knows no jobs: the states that come of what the jobs hold
// (IDLE, MIXED, ALLOCATED) are the controller's to set, through an Access.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/mutex.h"
#include "base/name_index.h"
#include "base/status.h"
#include "model/job_record.h"
#include "sched/cluster_snapshot.h"
#include "sched/scheduler.h"

namespace muster {

class NodeTable {
 public:
  // `cluster`: the configured nodes, partitions and topology. A node configured DOWN (with its
  // reason) or FUTURE keeps that state; every other one is UNKNOWN until its agent registers.
  // `probe_options`: how the idle probe schedules (its policy is dropped: limits are for when a
  // job runs, not whether it can).
  NodeTable(const ClusterSnapshot& cluster, SchedulerOptions probe_options);
  NodeTable(const NodeTable&) = delete;
  NodeTable& operator=(const NodeTable&) = delete;

  // Fixed at construction: no lock.
  size_t size() const { return at_.size(); }
  // The node's position (in name order, as in the scheduler's snapshots); -1: not configured.
  int Pos(std::string_view name) const { return pos_.Find(name); }

  // The table's lock, held for the Access's life, and the records under it.
  class Access {
   public:
    ~Access();
    Access(const Access&) = delete;
    Access& operator=(const Access&) = delete;

    size_t size() const { return t_->at_.size(); }
    NodeRecord& at(size_t p) {
      t_->mu_.AssertHeld();
      return *t_->at_[p];
    }
    const NodeRecord& at(size_t p) const {
      t_->mu_.AssertHeld();
      return *t_->at_[p];
    }
    NodeRecord* Find(std::string_view name);  // nullptr: not configured

    // What nodes offer may have changed (a record replaced, GPUs taken out or given back):
    // moves the epoch. `hardware`: a record replaced whole (registration, recovery), whose
    // CPUs, memory, features or GPUs may differ: the idle probe is built again too.
    void OffersChanged(bool hardware);
    // Moves with every OffersChanged: an index or a count built from the records at one epoch
    // holds while it does not move, for all but the nodes' states, drain flags and reasons.
    uint64_t epoch() const {
      t_->mu_.AssertHeld();
      return t_->epoch_;
    }

    // Whether the outage rule counts the node at `p` (model/outage.h): configured, and not
    // configured FUTURE. Fixed at construction.
    bool counted(size_t p) const { return t_->counted_[p]; }
    // When a node was last heard from, in ms: in memory only (a controller counts from its start,
    // StartCounting). The outage rule (outage_guard.h) reads it.
    void Heard(std::string_view name, int64_t now_ms);
    int64_t heard_ms(size_t p) const {
      t_->mu_.AssertHeld();
      return t_->heard_ms_[p];
    }
    // Every node heard now, and the peers' generation started from now (later ones are larger).
    void StartCounting(int64_t now_ms);
    // The nodes counted as peers or their addresses changed: the agents are told the new list.
    void PeersChanged() {
      t_->mu_.AssertHeld();
      ++t_->peers_generation_;
    }
    int64_t peers_generation() const {
      t_->mu_.AssertHeld();
      return t_->peers_generation_;
    }

    // The GPUs an admin's RESUME took back on `node`, for its next orders.
    void ResumeGpu(const std::string& node, int index) {
      t_->mu_.AssertHeld();
      t_->resume_gpus_[node].push_back(index);
    }
    std::vector<int> TakeResumedGpus(const std::string& node);

   private:
    friend class NodeTable;
    explicit Access(NodeTable* t);
    NodeTable* t_;
  };
  Access Lock();

  // Copies, under the lock.
  std::vector<NodeRecord> List() const;                                     // in name order
  std::vector<NodeRecord> Get(const std::vector<std::string>& names) const;  // those configured, in that order
  uint64_t epoch() const;
  // The registered nodes (not FUTURE) heard from at or after `since` (seconds since the epoch).
  int64_t CountHeardSince(int64_t since) const;

  // Whether `request` could ever run: the scheduler's verdict against the cluster with every
  // node up, idle and undrained (as its agent last registered it). Never: InvalidArgument with
  // the scheduler's message, and `user_msg` (when given) what Slurm tells the submitter.
  Status EverRuns(const JobRequest& request, int64_t now, std::string* user_msg);

 private:
  void Acquire() const ACQUIRE(mu_);
  void Release() const RELEASE(mu_);

  // Fixed at construction.
  // (The records themselves are under mu_: every Access holds it.)
  std::map<std::string, NodeRecord> records_;
  std::vector<NodeRecord*> at_;  // records_ in name order
  NameIndex pos_;
  std::vector<Partition> partitions_;
  Topology topology_;
  SchedulerOptions probe_options_;

  mutable Mutex mu_{"nodes", LockRank::kNodes};
  mutable std::atomic<std::thread::id> holder_{};  // the thread holding mu_ through an Access
  uint64_t epoch_ GUARDED_BY(mu_) = 0;
  std::vector<int64_t> heard_ms_ GUARDED_BY(mu_);  // by position
  std::vector<bool> counted_;      // by position: counted by the outage rule
  int64_t peers_generation_ GUARDED_BY(mu_) = 1;
  std::map<std::string, std::vector<int>> resume_gpus_ GUARDED_BY(mu_);
  // The idle cluster and the scheduler over it that answers EverRuns, built at the first probe
  // after OffersChanged(true): building its index and plans costs more than a probe.
  std::optional<ClusterSnapshot> idle_ GUARDED_BY(mu_);
  std::unique_ptr<Scheduler> idle_probe_ GUARDED_BY(mu_);
};

}  // namespace muster
