// StepTable: the job steps the controller holds.
#include "ctld/step_table.h"

#include <algorithm>

namespace muster {

std::vector<StepRecord> StepTable::List() const {
  MutexLock lock(mu_);
  return steps_;
}

std::vector<StepRecord> StepTable::Of(const std::set<int64_t>& job_ids) const {
  MutexLock lock(mu_);
  std::vector<StepRecord> out;
  for (const StepRecord& s : steps_) {
    if (job_ids.count(s.job_id)) out.push_back(s);
  }
  return out;
}

void StepTable::Reset(std::vector<StepRecord> steps) {
  MutexLock lock(mu_);
  steps_ = std::move(steps);
}

void StepTable::RetainJobs(const std::function<bool(int64_t job_id)>& keep) {
  MutexLock lock(mu_);
  std::erase_if(steps_, [&](const StepRecord& st) { return !keep(st.job_id); });
}

StatusOr<StepRecord> StepTable::Create(int64_t job_id, const Plan& plan) {
  MutexLock lock(mu_);
  std::vector<StepRecord> running;
  int next = 0;
  for (const StepRecord& s : steps_) {
    if (s.job_id != job_id) continue;
    next = std::max(next, s.step_id + 1);
    if (s.state == JobState::kRunning) running.push_back(s);
  }
  ASSIGN_OR_RETURN(StepRecord step, plan(running));
  step.job_id = job_id;
  step.step_id = next;
  steps_.push_back(step);
  return step;
}

void StepTable::Erase(int64_t job_id, int step_id) {
  MutexLock lock(mu_);
  std::erase_if(steps_, [&](const StepRecord& s) { return s.job_id == job_id && s.step_id == step_id; });
}

StatusOr<std::optional<StepRecord>> StepTable::Finish(int64_t job_id, int step_id, int exit_code, int64_t now) {
  MutexLock lock(mu_);
  auto it = std::find_if(steps_.begin(), steps_.end(),
                         [&](const StepRecord& s) { return s.job_id == job_id && s.step_id == step_id; });
  if (it == steps_.end()) return NotFound("Invalid job id specified");
  if (it->state != JobState::kRunning) return std::optional<StepRecord>();  // already recorded
  it->state = exit_code == 0 ? JobState::kCompleted : JobState::kFailed;
  it->exit_code = exit_code;
  it->end_time = now;
  if (exit_code != 0 && it->time_limit_s > 0 && it->end_time - it->start_time >= it->time_limit_s) {
    it->state = JobState::kTimeout;
  }
  return std::optional<StepRecord>(*it);
}

// The store is corrected at the controller's next Recover(), which applies the same rule: the
// step records only ever lag, never disagree.
void StepTable::EndJob(int64_t job_id, int64_t end_time) {
  MutexLock lock(mu_);
  for (StepRecord& st : steps_) {
    if (st.job_id != job_id || st.state != JobState::kRunning) continue;
    st.state = JobState::kCancelled;
    st.end_time = end_time;
  }
}

bool StepTable::GpuHeld(std::span<const StepRecord> running, const std::string& node, int gpu) {
  for (const StepRecord& s : running) {
    if (s.state != JobState::kRunning || s.node_cpus.empty()) continue;
    for (size_t k = 0; k < s.nodes.size() && k < s.node_gpus.size(); ++k) {
      if (s.nodes[k] == node && std::count(s.node_gpus[k].begin(), s.node_gpus[k].end(), gpu)) return true;
    }
  }
  return false;
}

}  // namespace muster
