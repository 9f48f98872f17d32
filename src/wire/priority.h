// sprio's and sshare's answers (GET /v1/priority, GET /v1/shares).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "wire/codec.h"

namespace muster {

// One value per multifactor term: the weights (PriorityWeight* in slurm.conf's words, integers)
// and a pending job's factors (each in [0, 1]).
template <class T>
struct PriorityTermsAnswer {
  using WireRecord = void;
  T age = 0, fairshare = 0, job_size = 0, partition = 0, qos = 0;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("age", s.age);
    v("fairshare", s.fairshare);
    v("job_size", s.job_size);
    v("partition", s.partition);
    v("qos", s.qos);
  }
};
using PriorityWeightsAnswer = PriorityTermsAnswer<int64_t>;
using PriorityFactorsAnswer = PriorityTermsAnswer<double>;

struct JobPriorityAnswer {
  using WireRecord = void;
  int64_t job_id = 0;
  std::string partition, user, account;
  int64_t priority = 0;
  PriorityFactorsAnswer factors;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("job_id", s.job_id);
    v("partition", s.partition);
    v("user", s.user);
    v("account", s.account);
    v("priority", s.priority);
    v("factors", s.factors);
  }
};

// GET /v1/priority: the weights and every pending job's factors.
struct PriorityAnswer {
  using WireRecord = void;
  PriorityWeightsAnswer weights;
  std::vector<JobPriorityAnswer> jobs;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("weights", s.weights);
    v("jobs", s.jobs);
  }
};

// One row of the fair-share tree (sched/fair_tree.h's FairShareRow).
struct ShareAnswer {
  using WireRecord = void;
  std::string account, user;
  int depth = 0;
  int64_t raw_shares = 0;
  double norm_shares = 0, raw_usage = 0, norm_usage = 0;
  std::optional<double> level_fs;  // unset: infinite (no usage)
  double fairshare = 0;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("account", s.account);
    v("user", s.user);
    v("depth", s.depth);
    v("raw_shares", s.raw_shares);
    v("norm_shares", s.norm_shares);
    v("raw_usage", s.raw_usage);
    v("norm_usage", s.norm_usage);
    v("level_fs", s.level_fs);
    v("fairshare", s.fairshare);
  }
};

// GET /v1/shares: the tree, depth first, and the caller's name (sshare's default view is its own).
struct SharesAnswer {
  using WireRecord = void;
  std::string caller;
  std::vector<ShareAnswer> shares;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("caller", s.caller);
    v("shares", s.shares);
  }
};

}  // namespace muster
