#include "store/store.h"

#include <string>
#include <utility>

namespace muster {

bool JobFilter::Matches(const JobRecord& j) const {
  if (!ids.empty()) {
    if (!ids.count(j.id) && !(j.array_job_id != 0 && ids.count(j.array_job_id)) &&
        !(j.het_job_id != 0 && ids.count(j.het_job_id))) {
      return false;
    }
  } else {
    if (start > 0 && j.end_time > 0 && j.end_time < start) return false;
    if (end > 0 && j.submit_time > end) return false;
  }
  if (!users.empty() && !users.count(j.user) && !users.count(std::to_string(j.uid))) return false;
  if (!accounts.empty() && !accounts.count(j.account)) return false;
  if (!partitions.empty() && !partitions.count(j.partition)) return false;
  if (!states.empty() && !states.count(j.state)) return false;
  return true;
}

namespace {
Status NoLeases() {
  return FailedPrecondition("this store cannot be shared by several controllers (controller.hosts needs a PostgreSQL store)");
}
}  // namespace

StatusOr<Leadership> Store::TryLead(const std::string&, const std::string&, int64_t) { return NoLeases(); }
StatusOr<Leadership> Store::ReadLeadership() { return NoLeases(); }
Status Store::Resign(const std::string&) { return NoLeases(); }
Status Store::HandOver(const std::string&, const std::string&, int64_t) { return NoLeases(); }
Status Store::ReportView(const std::string&, int64_t) { return NoLeases(); }
StatusOr<std::vector<ControllerView>> Store::ReadViews(int64_t) { return NoLeases(); }

StatusOr<std::vector<JobRecord>> Store::QueryJobs(const JobFilter& filter) {
  ASSIGN_OR_RETURN(std::vector<JobRecord> all, LoadJobs());
  std::vector<JobRecord> out;
  for (JobRecord& j : all) {
    if (filter.Matches(j)) out.push_back(std::move(j));
  }
  return out;
}

StatusOr<std::vector<JobRecord>> Store::LoadLiveJobs(int64_t ended_since) {
  ASSIGN_OR_RETURN(std::vector<JobRecord> all, LoadJobs());
  std::vector<JobRecord> out;
  for (JobRecord& j : all) {
    if (ended_since <= 0 || !IsFinished(j.state) || j.end_time >= ended_since) out.push_back(std::move(j));
  }
  return out;
}

StatusOr<std::vector<StepRecord>> Store::LoadStepsOf(const std::set<int64_t>& job_ids) {
  ASSIGN_OR_RETURN(std::vector<StepRecord> all, LoadSteps());
  std::vector<StepRecord> out;
  for (StepRecord& s : all) {
    if (job_ids.count(s.job_id)) out.push_back(std::move(s));
  }
  return out;
}

}  // namespace muster
