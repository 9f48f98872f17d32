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

// Leadership among controllers sharing one store (controller.hosts): a lease in the store, with a
// fencing token that goes up at each change of holder.
struct Leadership {
  bool leading = false;       // the caller holds the lease (just taken or renewed)
  int64_t token = 0;          // the lease's fencing token (0: nobody has ever held it)
  std::string holder;         // who holds it, or held it last
  std::string address;        // the holder's address (its controller.hosts entry)
  int64_t remaining_ms = 0;   // until it expires, by the store server's clock (<= 0: expired)
};

// What one controller of several reports through the store, so that a leader cut off from the
// agents but not from the store learns that a standby reaches them (ctld/lease_keeper.h).
struct ControllerView {
  std::string address;        // its controller.hosts entry
  int64_t agents = 0;         // a standby: the agents that reached it lately saying they could not reach the leader
  int64_t age_ms = 0;         // since it was reported, by the store server's clock
  bool operator==(const ControllerView&) const = default;
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
  // Sets the id counter to just past the largest stored job id (or to `floor`, when that is
  // larger) and returns it, so that ids reserved by AllocateJobIds and never given to a stored job
  // are numbered again. A controller calls it when it starts leading (Controller::Recover): ids
  // stay dense across restarts, whether the last one was clean or a crash. It reuses no id as long
  // as no id is shown to anyone before its job is stored, and only the leader numbers jobs (the
  // controller keeps both rules). `floor` below 1 is InvalidArgument.
  virtual StatusOr<int64_t> RewindJobIds(int64_t floor) = 0;

  // Records the first use of a token's nonce (net/token.h: a token opens one connection), kept
  // until `expires` (its token's expiry, seconds since the epoch): true the first time, false when
  // it was recorded before, by this controller before a restart or by another sharing the store
  // (a replay). Durable before it returns, as a save; nonces whose tokens expired by `now` are
  // dropped from time to time. An empty nonce is InvalidArgument.
  virtual StatusOr<bool> UseNonce(const std::string& nonce, int64_t expires, int64_t now) = 0;

  // Small key/value settings (cluster name, schema version, ...). An empty key is InvalidArgument.
  virtual Status SetMeta(const std::string& key, const std::string& value) = 0;
  virtual StatusOr<std::string> GetMeta(const std::string& key) = 0;  // NotFound if absent
  // Every key set with SetMeta and its value (what `muster admin migrate` copies).
  virtual StatusOr<std::map<std::string, std::string>> LoadMeta() = 0;

  // Takes the lease for `holder` (a name unique to one controller process) if it is free, expired
  // or already its own, for `lease_ms` from now by the store server's clock (the controllers'
  // clocks are never compared). Taking it from another (or after it lapsed) raises the token.
  // From then on this store commits writes only while the lease's token is still the one taken:
  // once another holder took it, every write fails with FailedPrecondition, so a deposed leader's
  // late writes are refused (fencing). Not leading: `leading` false, with the holder's details.
  // The default (SQLite, memory): FailedPrecondition (a file is not shared between hosts).
  virtual StatusOr<Leadership> TryLead(const std::string& holder, const std::string& address, int64_t lease_ms);
  virtual StatusOr<Leadership> ReadLeadership();  // the lease as it stands (never leading)
  // Ends `holder`'s lease now (a clean stop: a standby need not wait for it to lapse).
  virtual Status Resign(const std::string& holder);
  // Ends `holder`'s lease now for `successor` (an address): for `reserve_ms` more, only a
  // controller at that address may take it (then anyone, should the successor be gone).
  virtual Status HandOver(const std::string& holder, const std::string& successor, int64_t reserve_ms);
  // A controller's view (`address`, `agents`), replacing the one it reported before; and every
  // view reported within the last `max_age_ms`, by address. Not fenced: standbys report too.
  virtual Status ReportView(const std::string& address, int64_t agents);
  virtual StatusOr<std::vector<ControllerView>> ReadViews(int64_t max_age_ms);
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
