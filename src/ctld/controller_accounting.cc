// The controller's accounting queries (sacct): jobs and steps from the store, which keeps every job
// ever accepted, merged with the controller's own records (newer while it holds them). Split from
// controller.cc.
#include <algorithm>

#include "ctld/controller.h"
#include "model/job_list_json.h"

namespace muster {

namespace {

bool Selected(const JobRecord& j, const AccountingQuery& q) {
  if (!q.ids.empty()) {
    if (!q.ids.count(j.id) && !(j.array_job_id != 0 && q.ids.count(j.array_job_id))) return false;
  } else {
    if (q.start > 0 && j.end_time > 0 && j.end_time < q.start) return false;
    if (q.end > 0 && j.submit_time > q.end) return false;
  }
  if (!q.users.empty() && !q.users.count(j.user) && !q.users.count(std::to_string(j.uid))) return false;
  if (!q.accounts.empty() && !q.accounts.count(j.account)) return false;
  if (!q.partitions.empty() && !q.partitions.count(j.partition)) return false;
  if (!q.states.empty() && !q.states.count(j.state)) return false;
  return true;
}

}  // namespace

StatusOr<std::vector<JobRecord>> Controller::Accounting(const AccountingQuery& query) const {
  // The store first (it may lag the controller by a save), then the controller's copies on top.
  StatusOr<std::vector<JobRecord>> stored = store_->LoadJobs();
  if (!stored.ok()) return stored.status().WithPrefix("reading the job records");
  std::map<int64_t, JobRecord> by_id;
  for (JobRecord& j : *stored) {
    if (Selected(j, query)) by_id[j.id] = ListedJob(j);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [id, j] : jobs_) {
      if (Selected(j, query)) {
        by_id[id] = ListedJob(j);
      } else {
        by_id.erase(id);  // changed since it was stored (renamed, ended, ...)
      }
    }
  }
  std::vector<JobRecord> out;
  out.reserve(by_id.size());
  for (auto& [id, j] : by_id) out.push_back(std::move(j));
  return out;
}

StatusOr<std::vector<StepRecord>> Controller::AccountingSteps(const std::set<int64_t>& job_ids) const {
  StatusOr<std::vector<StepRecord>> stored = store_->LoadSteps();
  if (!stored.ok()) return stored.status().WithPrefix("reading the step records");
  std::map<std::pair<int64_t, int>, StepRecord> by_key;
  for (StepRecord& s : *stored) {
    if (job_ids.count(s.job_id)) by_key[{s.job_id, s.step_id}] = std::move(s);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const StepRecord& s : steps_) {
      if (job_ids.count(s.job_id)) by_key[{s.job_id, s.step_id}] = s;
    }
  }
  std::vector<StepRecord> out;
  for (auto& [key, s] : by_key) out.push_back(std::move(s));
  return out;
}

}  // namespace muster
