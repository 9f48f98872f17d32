// Multifactor job priority, as Slurm's priority/multifactor plugin defines it:
//
//   priority = site + w_age * age + w_fairshare * fairshare + w_jobsize * job_size
//            + w_partition * partition + w_qos * qos - nice
//
// with every factor in [0, 1]:
//   age        time eligible over PriorityMaxAge (1 once it is reached);
//   fairshare  the Fair Tree factor of the job's (account, user) (sched/fair_tree.h);
//   job_size   the share of the cluster the job asks for: of its GPUs when it asks for GPUs, else of
//              its CPUs (PriorityFavorSmall: 1 minus that);
//   partition  the partition's PriorityTier over the highest tier of any partition;
//   qos        the QOS's priority over the highest QOS priority.
// The result is rounded down and never below 1 (Slurm keeps 0 for held jobs). `sprio` shows the
// weighted factors. Pure; the cycle's time comes in.
#pragma once

#include <cstdint>

namespace muster {

struct PriorityWeights {
  int64_t age = 0;
  int64_t fairshare = 0;
  int64_t job_size = 0;
  int64_t partition = 0;
  int64_t qos = 0;
  int64_t max_age_s = 7 * 24 * 3600;  // PriorityMaxAge
  bool favor_small = false;           // PriorityFavorSmall
};

// What the factors are computed from.
struct PriorityInputs {
  int64_t eligible_time = 0;  // when the job became eligible (submit, or release from hold)
  double fairshare = 0;       // [0, 1]
  double gpus = 0;            // requested (a fraction of a GPU counts its fraction)
  double cpus = 0;
  double cluster_gpus = 0;    // the whole cluster's
  double cluster_cpus = 0;
  int partition_tier = 0;
  int max_partition_tier = 0;
  int qos_priority = 0;
  int max_qos_priority = 0;
  int64_t site = 0;           // the site factor (an admin's adjustment)
  int64_t nice = 0;           // -10000..10000 in Slurm; negative raises priority (admins only)
};

struct PriorityFactors {
  double age = 0;
  double fairshare = 0;
  double job_size = 0;
  double partition = 0;
  double qos = 0;
};

PriorityFactors ComputeFactors(const PriorityInputs& in, const PriorityWeights& w, int64_t now);

// The weighted sum (each term rounded down as sprio shows it), minus nice, at least 1.
int64_t CombinePriority(const PriorityFactors& f, const PriorityWeights& w, const PriorityInputs& in);

}  // namespace muster
