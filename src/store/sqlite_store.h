// SqliteStore: the Store on one SQLite file (WAL, synchronous=FULL: a commit is durable when it
// returns).
//
// Writes use group commit (store/group_commit.h): every Save*/AllocateJobIds/SetMeta/UseNonce
// call enqueues one operation and blocks until the batch holding it is committed in ONE
// transaction on the write connection, each operation inside its own SAVEPOINT (a mark in the
// process: cheap), so one failing operation rolls back only its own changes. Loads run on a
// separate read connection (WAL lets it read while a batch is written), one at a time. All public
// methods are thread-safe. The destructor answers every operation queued before it began; a call
// made after that is a bug.
//
// Schema (version in meta 'schema_version', 3): jobs(id, state, user, submit_time, end_time,
// record, uid, account, partition, array_job_id), scripts(array_job_id, script), nodes(name,
// record), steps(job_id, step_id, record), meta(key, value), counters(name, value),
// nonces(nonce, expires). `record` is the JSON of model/record_json.h (a job array's task's
// without its script, kept once in `scripts`); the other columns are copies for queries. A version
// 1 or 2 file is upgraded when opened.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "base/status.h"
#include "store/group_commit.h"
#include "store/store.h"

namespace muster {

// Counters of the writer, for tests and metrics (retried_batches stays 0: every operation has a savepoint).
using SqliteStoreStats = GroupCommitStats;

class SqliteStore final : public Store {
 public:
  // Opens (creating if needed) the store at `path`. Errors name the path: a missing directory is
  // NotFound, a file that is not SQLite or not a Muster store is FailedPrecondition, a schema newer
  // than this build is FailedPrecondition.
  static StatusOr<std::unique_ptr<SqliteStore>> Open(const std::string& path, int64_t first_job_id = 1);

  ~SqliteStore() override;
  SqliteStore(const SqliteStore&) = delete;
  SqliteStore& operator=(const SqliteStore&) = delete;

  Status SaveJobs(std::span<const JobRecord> jobs) override;
  using Store::SaveJobs;
  StatusOr<std::vector<JobRecord>> LoadJobs() override;
  StatusOr<std::vector<JobRecord>> QueryJobs(const JobFilter& filter) override;  // in SQL, on indexes
  StatusOr<std::vector<JobRecord>> LoadLiveJobs(int64_t ended_since) override;
  Status SaveNode(const NodeRecord& node) override;
  StatusOr<std::vector<NodeRecord>> LoadNodes() override;  // natural order of names
  Status SaveStep(const StepRecord& step) override;
  StatusOr<std::vector<StepRecord>> LoadSteps() override;  // by (job_id, step_id)
  StatusOr<std::vector<StepRecord>> LoadStepsOf(const std::set<int64_t>& job_ids) override;
  // The first id returned is also above every stored job id (ids saved without allocation).
  StatusOr<int64_t> AllocateJobIds(int count) override;
  StatusOr<int64_t> RewindJobIds(int64_t floor) override;
  StatusOr<bool> UseNonce(const std::string& nonce, int64_t expires, int64_t now) override;
  // 'schema_version' is reserved (readable, not writable).
  Status SetMeta(const std::string& key, const std::string& value) override;
  StatusOr<std::string> GetMeta(const std::string& key) override;
  StatusOr<std::map<std::string, std::string>> LoadMeta() override;  // without 'schema_version'

  SqliteStoreStats stats() const;

  // Test hooks. While paused no batch starts and the queue grows (closing drains it anyway);
  // WaitForQueuedForTest blocks until at least `n` operations are queued. The fault hook is called
  // by the writer before each row it writes (table, key); a non-OK result fails that operation
  // there, after its earlier rows.
  void SetWriterPausedForTest(bool paused);
  void WaitForQueuedForTest(size_t n);
  using FaultHook = std::function<Status(const std::string& table, const std::string& key)>;
  void SetFaultHookForTest(FaultHook hook);

 private:
  struct Impl;
  struct SqlArg {
    std::variant<int64_t, std::string> value;
  };
  explicit SqliteStore(std::unique_ptr<Impl> impl);
  // The jobs `where` selects (a WHERE clause with ? for `args`, or ""), ascending id, arrays'
  // scripts filled in.
  StatusOr<std::vector<JobRecord>> SelectJobs(const std::string& where, const std::vector<SqlArg>& args);
  StatusOr<std::vector<StepRecord>> SelectSteps(const std::string& where, const std::vector<SqlArg>& args);
  std::unique_ptr<Impl> impl_;
};

}  // namespace muster
