#include "ctld/job_table.h"

#include <cassert>

namespace muster {

std::vector<int64_t> JobTable::ActiveIds() const {
  std::vector<int64_t> ids;
  ids.reserve(active_.size());
  for (const auto& [id, j] : active_) ids.push_back(id);
  return ids;
}

JobRecord& JobTable::Add(JobRecord job) {
  const int64_t id = job.id;
  JobRecord& slot = records_[id] = std::move(job);
  if (!IsFinished(slot.state)) {
    active_[id] = &slot;
    active_by_id_[id] = &slot;
  }
  assert(active_by_id_.size() == active_.size());
  return slot;
}

void JobTable::Purge(const std::function<bool(const JobRecord&)>& expired) {
  for (auto it = records_.begin(); it != records_.end();) {
    if (expired(it->second)) {
      assert(!active_by_id_.count(it->first));  // finished first (Finish)
      if (!it->second.submit_key.empty()) {
        auto k = keys_.find({it->second.uid, it->second.submit_key});
        if (k != keys_.end() && k->second == it->first) keys_.erase(k);
      }
      it = records_.erase(it);
      ++erased_;
    } else {
      ++it;
    }
  }
}

}  // namespace muster
