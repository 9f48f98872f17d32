// JobOrderPolicy: what ranks the jobs, as Mesos' Sorter ranks its allocator's clients. The
// controller asks the configured order for each job's rank (JobRecord::priority: higher first)
// when it is submitted, requeued and prioritized again, and, with preemption by priority, for
// each running job's rank in every pass; it holds no branch on which order it is.
//
// The orders are listed in one table (JobOrderRegistry, sched/job_order.cc) and chosen by name in
// muster.yaml (`priority.order`, config/scheduling/priority_config.cc). A new order is one file
// (sched/<name>_order.cc: a class implementing JobOrderPolicy and its New...Order function, declared
// below), its row in the table, and its test. Pure and deterministic: an order reads only the job
// and the priority settings, keeps no state and takes no lock (the controller calls it from
// several threads).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace muster {

struct PrioritySettings;

// One job, as an order sees it.
struct OrderedJob {
  // Its multifactor priority as last computed (PriorityPolicy; a running job's: as it was when it
  // started), or 0 when held.
  int64_t priority = 0;
  double gpus = 0;           // requested (RequestedGpus)
  int64_t time_limit_s = 0;  // kUnlimited: none
  int64_t run_s = 0;         // the seconds it has run so far, in every run (RunSeconds)
};

class JobOrderPolicy {
 public:
  virtual ~JobOrderPolicy() = default;

  // Its name in muster.yaml's `priority.order`.
  virtual std::string_view name() const = 0;
  // Slurm's PriorityType, as `scontrol show config` shows it.
  virtual std::string priority_type() const = 0;
  // True when the rank is the multifactor priority, which moves with age and fair share: the
  // controller's periodic tick (PriorityCalcPeriod) recomputes fair share and every pending job's
  // priority. Otherwise (a "service order": the rank depends on the job alone, on the service it
  // attained or has left) the tick recomputes the pending jobs'
  // ranks only, and leaves fair share and the factors to sshare and sprio, which refresh them
  // when asked (most of a tick's time in a Philly replay).
  virtual bool ranks_by_multifactor() const = 0;
  // The job's rank, higher first. `same_below_run_s`, when not null, is set to the run seconds
  // from which the rank may differ: it holds for every run_s' in [job.run_s, *same_below_run_s)
  // (job.run_s itself: it may differ at any time, ask again).
  virtual int64_t Rank(const PrioritySettings& s, const OrderedJob& job, int64_t* same_below_run_s) const = 0;
};

// The orders by name: a fixed table, in the order muster.yaml's error message lists them.
class JobOrderRegistry {
 public:
  static constexpr std::string_view kDefault = "multifactor";
  static std::span<const std::string_view> Names();
  // Null when no order has that name (exactly as Names spells it).
  static std::unique_ptr<const JobOrderPolicy> Create(std::string_view name);
};

// The implementations, one file each, named in the registry's table.
std::unique_ptr<const JobOrderPolicy> NewMultifactorOrder();        // multifactor_order.cc
std::unique_ptr<const JobOrderPolicy> NewLeastAttainedOrder();      // least_attained_order.cc
std::unique_ptr<const JobOrderPolicy> NewShortestRemainingOrder();  // shortest_remaining_order.cc

}  // namespace muster
