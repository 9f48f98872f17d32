// The controller's job queries: the jobs it holds (squeue, scontrol show job), and accounting
// (sacct): jobs and steps from the store, which keeps every job ever accepted, merged with the
// controller's own records (newer while it holds them).
#include <algorithm>

#include "ctld/controller.h"
#include "model/job_list_json.h"

namespace muster {

void Controller::VisitJobs(const JobQuery& query,
                           const std::function<void(const std::vector<const JobRecord*>&)>& fn) const {
  JobsLock lock(this);
  std::vector<const JobRecord*> out;
  auto add = [&](const JobRecord& j) {
    if (!(query.active_only && IsFinished(j.state))) out.push_back(&j);
  };
  if (!query.ids.empty()) {
    std::set<int64_t> seen;
    auto add_once = [&](const JobRecord& j) {
      if (seen.insert(j.id).second) add(j);
    };
    const JobTable::Records& all = jobs_.all();
    for (int64_t id : query.ids) {
      auto it = all.find(id);
      if (it == all.end()) continue;
      if (it->second.het_job_id == id) {
        // A heterogeneous job's id: every component (their ids follow it).
        for (int k = 0; k < it->second.het_job_size && it != all.end(); ++k, ++it) add_once(it->second);
        continue;
      }
      if (it->second.array_job_id != id) {
        add_once(it->second);
        continue;
      }
      // A job array's id: every task (their ids come after it).
      for (; it != all.end(); ++it) {
        if (it->second.array_job_id == id) add_once(it->second);
      }
    }
  } else if (query.active_only) {
    out.reserve(jobs_.active().size());
    for (const auto& [id, j] : jobs_.active()) add(*j);
  } else {
    out.reserve(jobs_.size());
    for (const auto& [id, j] : jobs_.all()) add(j);
  }
  fn(out);
}

std::vector<JobRecord> Controller::ListJobs(const JobQuery& query) const {
  std::vector<JobRecord> out;
  VisitJobs(query, [&](const std::vector<const JobRecord*>& jobs) {
    out.reserve(jobs.size());
    for (const JobRecord* j : jobs) out.push_back(ListedJob(*j));
  });
  return out;
}

StatusOr<std::vector<JobRecord>> Controller::Accounting(const AccountingQuery& query) const {
  // The store first, selecting in its indexes (it may lag the controller by a save), then the
  // controller's copies on top.
  StatusOr<std::vector<JobRecord>> stored = store_->QueryJobs(query);
  if (!stored.ok()) return stored.status().WithPrefix("reading the job records");
  std::map<int64_t, JobRecord> by_id;
  for (JobRecord& j : *stored) by_id[j.id] = ListedJob(j);
  {
    JobsLock lock(this);
    for (const auto& [id, j] : jobs_.all()) {
      if (query.Matches(j)) {
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
  StatusOr<std::vector<StepRecord>> stored = store_->LoadStepsOf(job_ids);
  if (!stored.ok()) return stored.status().WithPrefix("reading the step records");
  std::map<std::pair<int64_t, int>, StepRecord> by_key;
  for (StepRecord& s : *stored) {
    if (job_ids.count(s.job_id)) by_key[{s.job_id, s.step_id}] = std::move(s);
  }
  for (StepRecord& s : steps_.Of(job_ids)) by_key[{s.job_id, s.step_id}] = std::move(s);
  std::vector<StepRecord> out;
  for (auto& [key, s] : by_key) out.push_back(std::move(s));
  return out;
}

}  // namespace muster
