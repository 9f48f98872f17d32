// Store: the controller's durable state (jobs, nodes, steps, counters). One interface, with a
// SQLite implementation (embedded default, one file, WAL) and a PostgreSQL one (store/pg_store.h);
// one contract test suite runs against every implementation.
//
// Durability: a Save* call returns OK only after its data is committed durably. Thread-safe:
// concurrent callers are batched into one transaction (group commit), so durability does not cost
// throughput.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/job_record.h"

namespace muster {

// Which stored jobs a query returns (sacct's selection). Every set empty = any.
struct JobFilter {
  std::set<int64_t> ids;            // these jobs (a job array's id: all its tasks), whenever they ran
  std::set<std::string> users;      // user names or numeric uids
  std::set<std::string> accounts;
  std::set<std::string> partitions;
  std::set<JobState> states;
  int64_t start = 0;                // without ids: jobs not ended before this (0 = no bound)
  int64_t end = 0;                  // without ids: jobs submitted by this (0 = no bound)
  bool Matches(const JobRecord& job) const;
};

class Store {
 public:
  virtual ~Store() = default;

  // Inserts or replaces jobs by id. A span, so that the controller saves the records it holds
  // without copying them into a list first.
  virtual Status SaveJobs(std::span<const JobRecord> jobs) = 0;
  Status SaveJobs(std::initializer_list<JobRecord> jobs) { return SaveJobs(std::span(jobs.begin(), jobs.size())); }
  Status SaveJob(const JobRecord& job) { return SaveJobs(std::span(&job, 1)); }
  // Every stored job, ascending id.
  virtual StatusOr<std::vector<JobRecord>> LoadJobs() = 0;
  // The jobs `filter` selects, ascending id. This default reads every job and filters them; a store
  // with indexes answers from them.
  virtual StatusOr<std::vector<JobRecord>> QueryJobs(const JobFilter& filter);
  // What a controller starting up holds: every job not finished, and the finished ones that ended
  // at or after `ended_since` (0: every job), ascending id. History stays in the store.
  virtual StatusOr<std::vector<JobRecord>> LoadLiveJobs(int64_t ended_since);

  virtual Status SaveNode(const NodeRecord& node) = 0;
  virtual StatusOr<std::vector<NodeRecord>> LoadNodes() = 0;  // in natural name order (n2 before n10)

  virtual Status SaveStep(const StepRecord& step) = 0;
  virtual StatusOr<std::vector<StepRecord>> LoadSteps() = 0;
  // The steps of these jobs, by (job_id, step_id). This default reads every step.
  virtual StatusOr<std::vector<StepRecord>> LoadStepsOf(const std::set<int64_t>& job_ids);

  // Reserves `count` consecutive job ids durably and returns the first. Ids are never reused,
  // even after a crash.
  virtual StatusOr<int64_t> AllocateJobIds(int count) = 0;

  // Small key/value settings (cluster name, schema version, ...). An empty key is InvalidArgument.
  virtual Status SetMeta(const std::string& key, const std::string& value) = 0;
  virtual StatusOr<std::string> GetMeta(const std::string& key) = 0;  // NotFound if absent
  // Every key set with SetMeta and its value (what `muster admin migrate` copies).
  virtual StatusOr<std::map<std::string, std::string>> LoadMeta() = 0;
};

// Opens (creating if needed) a SQLite store at `path`. `first_job_id` seeds the id counter of a
// new database.
StatusOr<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path, int64_t first_job_id = 1);

// Opens the store at `location`, as muster.yaml's controller.state and `muster admin migrate` name
// it: a PostgreSQL URL (postgresql://... or postgres://..., store/pg_store.h), or a SQLite file
// ("sqlite:FILE" or a plain path).
StatusOr<std::unique_ptr<Store>> OpenStore(const std::string& location, int64_t first_job_id = 1);
// `location` as errors and logs show it (a URL without its password).
std::string StoreLocationForDisplay(const std::string& location);

}  // namespace muster
