// PriorityPolicy: who goes first. Holds the priority settings (weights, billing weights, the
// usage half-life, the account tree), the decayed usage per (account, user) and the Fair Tree
// factors computed from them, and turns a pending job into its multifactor priority
// (sched/multifactor_priority.h). The controller charges running jobs as time passes, refreshes
// the fair share every second and asks for priorities each cycle; the simulator does the same in
// virtual time. Pure and deterministic: no clock, no I/O. Not thread-safe (one owner).
//
// Users met in jobs but absent from the configured tree take part with one share: under their
// account (which joins the root with one share when it is not configured either), or directly
// under the root when the job names no account. A cluster without an account tree thus shares
// fairly between users out of the box.
#pragma once

#include <boost/unordered/unordered_flat_map.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "model/account.h"
#include "model/job_request.h"
#include "sched/fair_tree.h"
#include "sched/job_order.h"
#include "sched/multifactor_priority.h"
#include "sched/usage_ledger.h"

namespace muster {

struct PrioritySettings {
  // What ranks the jobs (sched/job_order.h); never null.
  std::shared_ptr<const JobOrderPolicy> order = JobOrderRegistry::Create(JobOrderRegistry::kDefault);
  // least-attained's queues, in GPU-seconds of attained service.
  // Ascending. The default: 5 GPU-minutes, then twice the last, 19 limits (20 queues, the last
  // from about 21,845 GPU-hours on). On the whole Philly trace it gives an average JCT 1.12x the
  // SRTF oracle's; the earlier default (x4 up to 341 GPU-hours) gave 1.20x (docs/simulator.md).
  std::vector<int64_t> las_queue_limits_gpu_s = {300, 600, 1200, 2400, 4800, 9600,
                                                 19200, 38400, 76800, 153600, 307200, 614400,
                                                 1228800, 2457600, 4915200, 9830400, 19660800, 39321600, 78643200};
  PriorityWeights weights = DefaultWeights();
  UsageWeights billing;
  int64_t half_life_s = 7 * 24 * 3600;  // PriorityDecayHalfLife; 0 = no decay
  // PriorityCalcPeriod: fair share and pending priorities are recomputed at most this often by
  // the controller's periodic tick (0: at every tick). Submissions and job ends rank at once.
  int64_t calc_period_s = 0;
  AccountTree accounts;

  // Fair share dominates, age breaks ties between equals over hours, partition tiers count.
  static PriorityWeights DefaultWeights() {
    PriorityWeights w;
    w.age = 1000;
    w.fairshare = 10000;
    w.partition = 1000;
    return w;
  }
};

// One pending job, as priority sees it.
struct PriorityJob {
  int64_t eligible_time = 0;
  std::string account;
  std::string user;
  double gpus = 0;  // requested (RequestedGpus)
  double cpus = 0;  // requested (RequestedCpus)
  int partition_tier = 0;
  int qos_priority = 0;      // the job's QOS's priority
  int max_qos_priority = 0;  // the highest of any QOS
  int64_t nice = 0;          // sbatch --nice
};

// What a request asks for in total, for the job-size factor: --gpus, else GPUs per node times
// nodes, else GPUs per task times tasks (a fraction of a GPU counts its fraction); CPUs are tasks
// times CPUs per task (at least one task, and one per node when only nodes are given).
double RequestedGpus(const JobRequest& r);
double RequestedCpus(const JobRequest& r);

class PriorityPolicy {
 public:
  explicit PriorityPolicy(PrioritySettings settings = {});

  const PrioritySettings& settings() const { return settings_; }
  // Replaces the account tree (sacctmgr changed it); usage is kept.
  void SetAccounts(AccountTree tree) { settings_.accounts = std::move(tree); }

  // Charges a running job at `rate` billing units a second, from where it was last charged (or
  // `start`) to `now`. A job's last charge is remembered until Forget (call it after the final
  // charge at the job's end).
  void Charge(int64_t job_id, const std::string& account, const std::string& user, double rate, int64_t start,
              int64_t now);
  void Forget(int64_t job_id);
  const UsageLedger& usage() const { return usage_; }

  // Recomputes the fair-share factors at `now` for the configured tree plus every (account, user)
  // charged so far or named in `seen` (implicit associations, see above).
  void Refresh(int64_t now, const std::set<std::pair<std::string, std::string>>& seen = {});
  // The factor of the last Refresh; 1 for a pair it did not see.
  double FairShare(const std::string& account, const std::string& user) const;
  // `sshare`'s rows as of the last Refresh.
  const std::vector<FairShareRow>& shares() const { return rows_; }

  // The factors and the priority of a pending job. `max_partition_tier` is the highest tier of any
  // partition; `cluster_gpus`/`cluster_cpus` the whole cluster's.
  PriorityFactors Factors(const PriorityJob& job, int max_partition_tier, double cluster_gpus, double cluster_cpus,
                          int64_t now) const;
  int64_t Priority(const PriorityFactors& f, int64_t nice = 0) const;

  // The usage and the jobs' last charges, for the store (ctld/usage_json.h writes them as JSON);
  // Restore takes them back.
  struct Saved {
    std::vector<UsageLedger::Stored> usage;
    std::vector<std::pair<int64_t, int64_t>> charged_through;  // (job id, charged through), by job id
  };
  Saved Save() const;
  void Restore(const Saved& saved);

 private:
  PrioritySettings settings_;
  UsageLedger usage_;
  // Per running job, up to when it was charged: looked up for every running job at every
  // charge (an open-addressing table; saved in id order).
  boost::unordered_flat_map<int64_t, int64_t> charged_through_;
  std::vector<FairShareRow> rows_;
  std::map<std::pair<std::string, std::string>, double> factor_;
};

}  // namespace muster
