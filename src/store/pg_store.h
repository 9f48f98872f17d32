// PgStore: the Store on a PostgreSQL database, through libpq (Debian's libpq5; C, and stable
// across server versions: see docs/configuration.md, "The state store").
//
// The same semantics as SqliteStore (store/sqlite_store.h), with the same group commit
// (store/group_commit.h): every Save*/AllocateJobIds/SetMeta/UseNonce call enqueues one operation
// and blocks until the batch holding it is committed in ONE transaction on the write connection.
// A failing operation undoes only its own rows: the batch is then run again with a SAVEPOINT
// around each operation (savepoints cost round trips, so only then: SavepointPolicy::kOnRetry).
// Each connection runs with synchronous_commit=on whatever the server's default, so a COMMIT that
// returned is on the server's disk: a job is acknowledged only once it is committed. Loads run on
// a second connection, one at a time.
//
// Schema (version in meta 'schema_version', 4), in a schema of its own ("muster" unless told):
// jobs(id, state, user_name, submit_time, end_time, record, uid, account, partition_name,
// array_job_id), scripts(array_job_id, script BYTEA), nodes(name, record), steps(job_id, step_id,
// record), meta(key, value), counters(name, value), leader(token, holder, address, expires_at,
// successor, reserved_until), controllers(address, agents, reported_at), nonces(nonce, expires);
// `record` is model/record_json.h's JSON, as in SQLite. A store of version 1 (no leader), 2 (no
// handover, no controllers) or 3 (no nonces) is upgraded when opened.
//
// Leadership (Store::TryLead): one row holds the lease, its expiry by the server's clock, and a
// fencing token raised at each new holder. Once this store took the lease, each write transaction
// begins by locking that row FOR SHARE and comparing its token with the one taken: a takeover's
// UPDATE waits for the writes already past the check, and every later write of the deposed leader
// is refused (FailedPrecondition). An advisory lock alone would not fence: it belongs to a session,
// so a leader cut off from the server keeps it until the server notices the dead connection, and
// writes on its other connections, or queued before it knew, would still land.
//
// Errors name the database by its URL without its password (RedactedUrl). A connection found
// broken is reconnected before the next batch or load; the operations of a batch that lost its
// connection fail with Unavailable (none of them is acknowledged).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "base/status.h"
#include "store/group_commit.h"
#include "store/store.h"

namespace muster {

using PgStoreStats = GroupCommitStats;

// True for the URLs libpq reads as PostgreSQL URIs: postgresql://... and postgres://...
bool IsPostgresUrl(const std::string& location);

// `url` as errors and logs show it: postgresql://USER@HOST:PORT/DB, never the password.
std::string RedactedPgUrl(const std::string& url);

// `url` with libpq's `passfile` parameter (a password file, ~/.pgpass's format) added to its query
// (percent-encoded); `passfile` "" gives `url` back. muster.yaml's controller.state_password_file.
std::string PgUrlWithPassfile(const std::string& url, const std::string& passfile);

class PgStore final : public Store {
 public:
  // Connects to `url` (any libpq connection string; connect_timeout 10 s unless it says) and
  // creates the store's tables in `schema` unless they exist. Unreachable server: Unavailable;
  // a schema that is not a Muster store, or is newer than this build: FailedPrecondition.
  static StatusOr<std::unique_ptr<PgStore>> Open(const std::string& url, int64_t first_job_id = 1,
                                                 const std::string& schema = "muster");
  // Drops `schema` and everything in it (tests, and a failed migration's target).
  static Status DropSchema(const std::string& url, const std::string& schema);

  ~PgStore() override;
  PgStore(const PgStore&) = delete;
  PgStore& operator=(const PgStore&) = delete;

  Status SaveJobs(std::span<const JobRecord> jobs) override;
  using Store::SaveJobs;
  StatusOr<std::vector<JobRecord>> LoadJobs() override;
  StatusOr<std::vector<JobRecord>> QueryJobs(const JobFilter& filter) override;  // in SQL
  StatusOr<std::vector<JobRecord>> LoadLiveJobs(int64_t ended_since) override;
  Status SaveNode(const NodeRecord& node) override;
  StatusOr<std::vector<NodeRecord>> LoadNodes() override;
  Status SaveStep(const StepRecord& step) override;
  StatusOr<std::vector<StepRecord>> LoadSteps() override;
  StatusOr<std::vector<StepRecord>> LoadStepsOf(const std::set<int64_t>& job_ids) override;
  StatusOr<int64_t> AllocateJobIds(int count) override;
  StatusOr<int64_t> RewindJobIds(int64_t floor) override;
  StatusOr<bool> UseNonce(const std::string& nonce, int64_t expires, int64_t now) override;
  Status SetMeta(const std::string& key, const std::string& value) override;  // 'schema_version' reserved
  StatusOr<std::string> GetMeta(const std::string& key) override;
  StatusOr<std::map<std::string, std::string>> LoadMeta() override;  // without 'schema_version'
  StatusOr<Leadership> TryLead(const std::string& holder, const std::string& address, int64_t lease_ms) override;
  StatusOr<Leadership> ReadLeadership() override;
  Status Resign(const std::string& holder) override;
  Status HandOver(const std::string& holder, const std::string& successor, int64_t reserve_ms) override;
  Status ReportView(const std::string& address, int64_t agents) override;
  StatusOr<std::vector<ControllerView>> ReadViews(int64_t max_age_ms) override;

  PgStoreStats stats() const;
  // Tests: called in a read of jobs between the jobs' select and their scripts' (where the jobs
  // are decoded: a slow decode is a long idle time in the read's transaction).
  void SetBetweenReadsForTest(std::function<void()> pause);

 private:
  struct Impl;
  explicit PgStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace muster
