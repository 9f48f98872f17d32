// JobTable: the controller's jobs part. It owns the job records the controller holds (every job
// not yet purged, by id) and the indexes kept with them: the active list (the jobs not finished,
// in id order, as pointers into the records) and its by-id index, the count of records erased,
// and the submission keys of the jobs held.
//
// Invariants kept here, in one place:
//  - a record's address holds until erased_count() moves (records live in a std::map, whose
//    nodes never move; only Purge erases, and it counts what it erases), so a caller may keep a
//    JobRecord* across a release of the lock as long as erased_count() is unchanged;
//  - the active list and its by-id index hold the same jobs, and change together (Add, Finish);
//  - a submission key names a job held, or one in flight (not stored yet).
//
// Locking: none of its own. The controller holds it GUARDED_BY its jobs' lock (Controller::mu_),
// so the compiler's thread-safety analysis flags every use without that lock; the lock order and
// the work JobsLock does on release stay the controller's. Nothing here is virtual, and the
// lookups and the active list are inline: a scheduling pass walks the list several times.
#pragma once

#include <cassert>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <boost/container/flat_map.hpp>
#include <boost/unordered/unordered_flat_map.hpp>

#include "model/job_record.h"

namespace muster {

// The jobs not finished, by id (pointers that stay valid while the caller's lock is held).
using ActiveJobs = boost::container::flat_map<int64_t, JobRecord*>;

class JobTable {
 public:
  using Records = std::map<int64_t, JobRecord>;
  // A submission key (JobSpec::submit_key) with the uid that gave it.
  using SubmitKey = std::pair<uint32_t, std::string>;

  JobTable() = default;
  JobTable(const JobTable&) = delete;
  JobTable& operator=(const JobTable&) = delete;

  // The record of job `id`; nullptr: not held (never submitted, or purged).
  JobRecord* Find(int64_t id) {
    auto it = records_.find(id);
    return it == records_.end() ? nullptr : &it->second;
  }
  const JobRecord* Find(int64_t id) const {
    auto it = records_.find(id);
    return it == records_.end() ? nullptr : &it->second;
  }
  bool Contains(int64_t id) const { return records_.count(id) > 0; }
  // The record of a job known to be held (std::out_of_range otherwise).
  JobRecord& at(int64_t id) { return records_.at(id); }
  // The record of job `id`, an empty one added if it is not held (as std::map's operator[]; it
  // joins no list). For a job the caller had a moment ago, under the lock released since.
  JobRecord& Slot(int64_t id) { return records_[id]; }
  // An active job's record, without walking the records' tree; nullptr: finished or not held.
  JobRecord* FindActive(int64_t id) const {
    auto it = active_by_id_.find(id);
    return it == active_by_id_.end() ? nullptr : it->second;
  }

  // Every record held, in id order (a heterogeneous job's components and an array's tasks follow
  // their first id).
  const Records& all() const { return records_; }
  size_t size() const { return records_.size(); }
  // The jobs not finished, in id order. No loop over it may add or finish jobs: ActiveIds is a
  // copy for those.
  const ActiveJobs& active() const { return active_; }
  std::vector<int64_t> ActiveIds() const;

  // Stores `job` under its id (replacing a record held under it), and lists it as active unless
  // it is finished. Returns the record stored.
  JobRecord& Add(JobRecord job);
  // The job has finished: it leaves the active list (its record stays, until Purge).
  void Finish(int64_t id) {
    active_.erase(id);
    active_by_id_.erase(id);
    assert(active_by_id_.size() == active_.size());
  }
  // Erases the records `expired` says are, with their submission keys: finished jobs only (they
  // have left the active list). erased_count() moves by the number erased.
  void Purge(const std::function<bool(const JobRecord&)>& expired);
  // Records erased so far: a JobRecord* taken when it had a value holds while it has it still.
  uint64_t erased_count() const { return erased_; }

  // Submission keys. A key names the first job it submitted, held; one being submitted is in
  // flight until its job is stored (or refused), and a retry waits for it.
  std::optional<int64_t> KeyedJob(const SubmitKey& key) const {
    auto it = keys_.find(key);
    return it == keys_.end() ? std::nullopt : std::optional<int64_t>(it->second);
  }
  void SetKey(const SubmitKey& key, int64_t id) { keys_[key] = id; }
  bool KeyInFlight(const SubmitKey& key) const { return in_flight_.count(key) > 0; }
  void KeyBegun(const SubmitKey& key) { in_flight_.insert(key); }
  void KeyEnded(const SubmitKey& key) { in_flight_.erase(key); }

 private:
  Records records_;
  // The records not finished (pointers into records_). A sorted vector: every scheduling pass
  // walks it several times (usage, snapshot, waiting list), and new ids come at its end.
  ActiveJobs active_;
  // The same jobs, looked up by id without walking the tree (a scheduling pass asks for the
  // preemptor of every job preempted before).
  boost::unordered_flat_map<int64_t, JobRecord*> active_by_id_;
  uint64_t erased_ = 0;
  std::map<SubmitKey, int64_t> keys_;
  std::set<SubmitKey> in_flight_;
};

}  // namespace muster
