// StepTable: the controller's steps part. It owns the job steps the controller holds (srun inside
// an allocation): each step's record, from its creation to its end, while its job is held.
//
// Locking: one mutex of its own, taken by every public method. In the controller's lock order
// (jobs, nodes, steps, policy) it comes after jobs and nodes: a caller may hold those while it
// calls in, and the callbacks it runs under its lock (Create's plan, RetainJobs' keep) may read
// them but must not call into this table or into a part earlier in the order that the caller
// does not already hold.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"
#include "model/job_record.h"

namespace muster {

class StepTable {
 public:
  // Every step held, in the order they were created (or loaded).
  std::vector<StepRecord> List() const;
  // The steps of the jobs `job_ids` names.
  std::vector<StepRecord> Of(const std::set<int64_t>& job_ids) const;
  // Replaces every step held (recovery).
  void Reset(std::vector<StepRecord> steps);
  // Keeps only the steps of the jobs `keep` says yes to (a job the controller forgot).
  void RetainJobs(const std::function<bool(int64_t job_id)>& keep);

  // A new step of job `job_id`, atomically: `plan` is given the job's running steps and returns
  // the step to add (or an error: nothing is added); it gets the job's next step id (one past
  // its highest, 0 for its first) and is held from then on. Returns the step as held.
  using Plan = std::function<StatusOr<StepRecord>(std::span<const StepRecord> running)>;
  StatusOr<StepRecord> Create(int64_t job_id, const Plan& plan);
  // Forgets one step (its creation could not be saved).
  void Erase(int64_t job_id, int step_id);
  // The step ended with `exit_code` at `now` (COMPLETED for 0, else FAILED, or TIMEOUT when it had
  // a time limit and ran that long): its record as it is now, or nullopt when it had ended
  // already (nothing changed). NotFound ("Invalid job id specified") when no such step is held.
  StatusOr<std::optional<StepRecord>> Finish(int64_t job_id, int step_id, int exit_code, int64_t now);
  // The job ended at `end_time`: its steps still running end with it, CANCELLED.
  void EndJob(int64_t job_id, int64_t end_time);

  // What the running steps `running` hold on node `node`: the sum of their CPUs
  // (&StepRecord::node_cpus) or memory (&StepRecord::node_mem_mb) there.
  template <typename T>
  static int64_t HeldOn(std::span<const StepRecord> running, const std::string& node,
                        std::vector<T> StepRecord::*held) {
    int64_t sum = 0;
    for (const StepRecord& s : running) {
      if (s.state != JobState::kRunning) continue;
      const std::vector<T>& per_node = s.*held;
      for (size_t k = 0; k < s.nodes.size() && k < per_node.size(); ++k) sum += s.nodes[k] == node ? per_node[k] : 0;
    }
    return sum;
  }
  // Whether one of `running` that holds CPUs (an --overlap step holds none, and shares its GPUs)
  // holds GPU `gpu` on node `node`.
  static bool GpuHeld(std::span<const StepRecord> running, const std::string& node, int gpu);

 private:
  mutable Mutex mu_{"steps", LockRank::kSteps};
  std::vector<StepRecord> steps_ GUARDED_BY(mu_);
};

}  // namespace muster
