// GroupCommitWriter: the group commit of the SQL stores (sqlite_store, pg_store), written once.
//
// Every write call (Save*, AllocateJobIds, SetMeta, UseNonce...) enqueues one operation and
// blocks. The first caller to find no batch being written becomes the writer (the leader): it
// takes everything queued, its own operation included (at most max_batch), runs it in ONE
// transaction and then answers every caller of the batch; callers that arrived meanwhile form the
// next batch, led by one of them. No thread is handed the work, so a lone commit costs no context
// switches (on this project's virtual machines a switch costs tens of microseconds). A failing
// operation undoes only its own rows, inside a savepoint (SavepointPolicy: when). A caller is
// answered only once its batch's COMMIT returned; a batch whose transaction is lost (BEGIN or
// COMMIT fails, the connection breaks) fails every operation in it.
//
// The store says how to drive its write connection's transaction (GroupCommitBackend); the writer
// calls it from the batch's leader only, one batch at a time. All public methods are thread-safe.
// Close answers every operation queued before it began; a Submit after it fails.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"

namespace muster {

// Counters of the writer, for tests and metrics. A snapshot.
struct GroupCommitStats {
  int64_t operations = 0;       // write operations answered (OK or not)
  int64_t commits = 0;          // transactions committed
  int64_t failed_batches = 0;   // transactions that could not begin or commit (every op in them failed)
  int64_t largest_batch = 0;    // most operations answered by one transaction
  int64_t retried_batches = 0;  // batches run again with savepoints (SavepointPolicy::kOnRetry)
};

// A store's write transaction, as the batch's leader drives it. Whenever the writer gives a
// transaction up (an error below, a lost operation) it calls Rollback if InTransaction().
class GroupCommitBackend {
 public:
  virtual ~GroupCommitBackend() = default;
  // The store, for errors: "SQLite store '/var/lib/muster/state.db'".
  virtual std::string Where() const = 0;
  // Opens the batch's transaction (reconnecting first where the store can). Non-OK: the error
  // every operation of the batch gets.
  virtual Status Begin() = 0;
  // One operation's savepoint: set, released (its rows kept), rolled back to and released (its
  // rows undone). Non-OK: the transaction is given up.
  virtual Status Savepoint() = 0;
  virtual Status ReleaseSavepoint() = 0;
  virtual Status RollbackToSavepoint() = 0;
  // Whether a transaction is still open on a live connection (a failed statement may have ended
  // it: SQLite rolls back after an I/O error, a PostgreSQL connection may break).
  virtual bool InTransaction() = 0;
  virtual Status Rollback() = 0;
  // Non-OK: the error every operation of the batch gets.
  virtual Status Commit() = 0;
};

enum class SavepointPolicy {
  // Each operation runs inside its own savepoint (SQLite: a savepoint is a mark in the process).
  kEveryOperation,
  // A savepoint costs a round trip (PostgreSQL): a batch of several operations first runs without
  // them; if one fails (rare: records are checked before they are queued) on a live connection,
  // the transaction is rolled back and the batch runs again with a savepoint around each (every
  // operation is an upsert or reads what it writes: running it again is safe). A batch of one
  // runs without: its failure fails the batch.
  kOnRetry,
};

// Status(kUnavailable, "<where>: transaction rolled back: <why's message>"): what every operation
// of a batch whose transaction was lost is told.
Status TransactionLost(const std::string& where, const Status& why);

class GroupCommitWriter {
 public:
  // Runs inside the batch's transaction, on the leader's thread; non-OK fails this operation.
  using Op = std::function<Status()>;

  // `backend` outlives the writer. max_batch bounds one transaction and the last caller's wait.
  GroupCommitWriter(GroupCommitBackend& backend, SavepointPolicy policy, size_t max_batch = 1024);
  ~GroupCommitWriter();  // Close()
  GroupCommitWriter(const GroupCommitWriter&) = delete;
  GroupCommitWriter& operator=(const GroupCommitWriter&) = delete;

  // Enqueues `op` and blocks until its batch is committed (its result) or failed.
  Status Submit(Op op);
  // Answers every operation queued (even while paused) and waits until every caller has left;
  // later Submits fail with FailedPrecondition. The store calls it before closing its connections.
  void Close();

  GroupCommitStats stats() const;

  // Tests: while paused no batch starts and the queue grows (Close drains it anyway);
  // WaitForQueuedForTest blocks until at least `n` operations are queued.
  void SetPausedForTest(bool paused);
  void WaitForQueuedForTest(size_t n);

 private:
  struct Pending {
    Op run;
    Status result;
    bool done = false;  // guarded by mu_
  };
  std::vector<Status> RunBatch(const std::vector<Pending*>& batch, bool& committed);
  std::vector<Status> RunTransaction(const std::vector<Pending*>& batch, bool savepoints, bool& committed,
                                     bool* retry);

  GroupCommitBackend& backend_;
  const SavepointPolicy policy_;
  const size_t max_batch_;

  mutable Mutex mu_{"group commit"};  // guards everything below
  std::condition_variable cv_;  // a batch ended, pause changed, closing, callers left
  std::condition_variable queued_cv_;  // the queue grew (WaitForQueuedForTest only: waking the
                                       // callers waiting for a batch at every enqueue would cost
                                       // each of them a context switch for nothing)
  std::deque<Pending*> queue_ GUARDED_BY(mu_);
  bool writing_ GUARDED_BY(mu_) = false;  // a leader is writing a batch
  int callers_ GUARDED_BY(mu_) = 0;       // callers inside Submit (Close waits until none is)
  bool paused_ GUARDED_BY(mu_) = false;
  bool stopping_ GUARDED_BY(mu_) = false;
  GroupCommitStats stats_ GUARDED_BY(mu_);
};

}  // namespace muster
