#include "store/group_commit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace muster {
namespace {

// A store of rows in memory with transactions and one savepoint, that logs what the writer asks of
// it. Only the batch's leader calls it (one at a time); the test reads it once its callers joined.
class FakeBackend : public GroupCommitBackend {
 public:
  std::string Where() const override { return "fake store"; }
  Status Begin() override {
    log.push_back("begin");
    if (!fail_begin.ok()) return fail_begin;
    open = true;
    rows = committed;
    return Status::Ok();
  }
  Status Savepoint() override {
    log.push_back("savepoint");
    mark = rows;
    return Status::Ok();
  }
  Status ReleaseSavepoint() override {
    log.push_back("release");
    return Status::Ok();
  }
  Status RollbackToSavepoint() override {
    log.push_back("rollback to");
    rows = mark;
    return Status::Ok();
  }
  bool InTransaction() override { return open; }
  Status Rollback() override {
    log.push_back("rollback");
    open = false;
    return Status::Ok();
  }
  Status Commit() override {
    log.push_back("commit");
    if (!fail_commit.ok()) return fail_commit;  // (left open: the writer must roll it back)
    committed = rows;
    open = false;
    return Status::Ok();
  }

  // An operation writing `row`; it then fails with `fail` (its row written) unless that is OK.
  GroupCommitWriter::Op Write(const std::string& row, Status fail = Status::Ok()) {
    return [this, row, fail] {
      rows.insert(row);
      if (!fail.ok() && lose_on_failure) open = false;
      return fail;
    };
  }

  std::vector<std::string> log;
  std::set<std::string> rows, mark, committed;
  bool open = false;
  bool lose_on_failure = false;  // a failing operation ends the transaction (SQLite after an I/O error)
  Status fail_begin, fail_commit;
};

int Count(const std::vector<std::string>& log, const std::string& what) {
  return static_cast<int>(std::count(log.begin(), log.end(), what));
}

// Submits `ops` from a thread each while the writer is paused, so that they form one batch in
// this order; returns their results.
std::vector<Status> SubmitAsOneBatch(GroupCommitWriter& writer, std::vector<GroupCommitWriter::Op> ops) {
  writer.SetPausedForTest(true);
  std::vector<Status> results(ops.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < ops.size(); ++i) {
    threads.emplace_back([&, i] { results[i] = writer.Submit(std::move(ops[i])); });
    writer.WaitForQueuedForTest(i + 1);  // queued in order
  }
  writer.SetPausedForTest(false);
  for (std::thread& t : threads) t.join();
  return results;
}

TEST(GroupCommitTest, ALoneCallerCommitsItsOwnBatch) {
  FakeBackend db;
  GroupCommitWriter writer(db, SavepointPolicy::kOnRetry);
  ASSERT_TRUE(writer.Submit(db.Write("a")).ok());
  EXPECT_EQ(db.committed, (std::set<std::string>{"a"}));
  EXPECT_EQ(db.log, (std::vector<std::string>{"begin", "commit"}));  // a batch of one: no savepoint
  GroupCommitStats s = writer.stats();
  EXPECT_EQ(s.operations, 1);
  EXPECT_EQ(s.commits, 1);
  EXPECT_EQ(s.largest_batch, 1);
}

TEST(GroupCommitTest, QueuedCallersShareOneTransaction) {
  FakeBackend db;
  GroupCommitWriter writer(db, SavepointPolicy::kEveryOperation);
  std::vector<Status> results = SubmitAsOneBatch(writer, {db.Write("a"), db.Write("b"), db.Write("c"), db.Write("d")});
  for (const Status& r : results) EXPECT_TRUE(r.ok()) << r.ToString();
  EXPECT_EQ(db.committed, (std::set<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(Count(db.log, "begin"), 1);
  EXPECT_EQ(Count(db.log, "savepoint"), 4);
  GroupCommitStats s = writer.stats();
  EXPECT_EQ(s.commits, 1);
  EXPECT_EQ(s.operations, 4);
  EXPECT_EQ(s.largest_batch, 4);
  EXPECT_EQ(s.failed_batches, 0);
}

// Callers arriving while a leader writes wait, and the next batch (led by one of them) takes them all.
TEST(GroupCommitTest, CallersArrivingDuringABatchFormTheNext) {
  FakeBackend db;
  GroupCommitWriter writer(db, SavepointPolicy::kOnRetry);
  std::mutex mu;
  std::condition_variable cv;
  bool inside = false, release = false;
  Status first;
  std::thread leader([&] {
    first = writer.Submit([&] {
      db.rows.insert("first");
      std::unique_lock<std::mutex> l(mu);
      inside = true;
      cv.notify_all();
      cv.wait(l, [&] { return release; });
      return Status::Ok();
    });
  });
  {
    std::unique_lock<std::mutex> l(mu);
    cv.wait(l, [&] { return inside; });
  }
  std::vector<Status> results(3);
  std::vector<std::thread> followers;
  for (int i = 0; i < 3; ++i) {
    followers.emplace_back([&, i] { results[i] = writer.Submit(db.Write("f" + std::to_string(i))); });
  }
  writer.WaitForQueuedForTest(3);
  {
    std::lock_guard<std::mutex> l(mu);
    release = true;
    cv.notify_all();
  }
  leader.join();
  for (std::thread& t : followers) t.join();
  EXPECT_TRUE(first.ok()) << first.ToString();
  for (const Status& r : results) EXPECT_TRUE(r.ok()) << r.ToString();
  EXPECT_EQ(db.committed, (std::set<std::string>{"first", "f0", "f1", "f2"}));
  GroupCommitStats s = writer.stats();
  EXPECT_EQ(s.commits, 2);
  EXPECT_EQ(s.largest_batch, 3);
  EXPECT_EQ(s.operations, 4);
}

TEST(GroupCommitTest, ABatchTakesAtMostMaxBatch) {
  FakeBackend db;
  GroupCommitWriter writer(db, SavepointPolicy::kEveryOperation, /*max_batch=*/2);
  std::vector<GroupCommitWriter::Op> ops;
  for (int i = 0; i < 5; ++i) ops.push_back(db.Write(std::to_string(i)));
  for (const Status& r : SubmitAsOneBatch(writer, std::move(ops))) EXPECT_TRUE(r.ok()) << r.ToString();
  EXPECT_EQ(db.committed.size(), 5u);
  GroupCommitStats s = writer.stats();
  EXPECT_EQ(s.commits, 3);
  EXPECT_EQ(s.largest_batch, 2);
}

TEST(GroupCommitTest, AFailingOperationUndoesOnlyItsOwnRows) {
  FakeBackend db;
  GroupCommitWriter writer(db, SavepointPolicy::kEveryOperation);
  const Status fault(StatusCode::kInvalidArgument, "bad row");
  std::vector<Status> results = SubmitAsOneBatch(writer, {db.Write("a"), db.Write("b", fault), db.Write("c")});
  EXPECT_TRUE(results[0].ok()) << results[0].ToString();
  EXPECT_EQ(results[1], fault);
  EXPECT_TRUE(results[2].ok()) << results[2].ToString();
  EXPECT_EQ(db.committed, (std::set<std::string>{"a", "c"}));
  EXPECT_EQ(db.log, (std::vector<std::string>{"begin", "savepoint", "release", "savepoint", "rollback to", "savepoint",
                                               "release", "commit"}));
  GroupCommitStats s = writer.stats();
  EXPECT_EQ(s.commits, 1);
  EXPECT_EQ(s.failed_batches, 0);
  EXPECT_EQ(s.retried_batches, 0);
}

// kOnRetry: the batch ran without savepoints, is rolled back at the failure and runs again with them.
TEST(GroupCommitTest, AFailingOperationOnRetryRunsTheBatchAgainWithSavepoints) {
  FakeBackend db;
  GroupCommitWriter writer(db, SavepointPolicy::kOnRetry);
  const Status fault(StatusCode::kInvalidArgument, "bad row");
  std::vector<Status> results = SubmitAsOneBatch(writer, {db.Write("a"), db.Write("b", fault), db.Write("c")});
  EXPECT_TRUE(results[0].ok()) << results[0].ToString();
  EXPECT_EQ(results[1], fault);
  EXPECT_TRUE(results[2].ok()) << results[2].ToString();
  EXPECT_EQ(db.committed, (std::set<std::string>{"a", "c"}));
  EXPECT_EQ(db.log, (std::vector<std::string>{"begin", "rollback", "begin", "savepoint", "release", "savepoint",
                                               "rollback to", "savepoint", "release", "commit"}));
  GroupCommitStats s = writer.stats();
  EXPECT_EQ(s.retried_batches, 1);
  EXPECT_EQ(s.commits, 1);
  EXPECT_EQ(s.operations, 3);
  EXPECT_EQ(s.failed_batches, 0);
}

// kOnRetry, a batch of one: no savepoint, so its failure fails the batch (with its own error).
TEST(GroupCommitTest, ALoneFailingOperationOnRetryFailsItsBatch) {
  FakeBackend db;
  GroupCommitWriter writer(db, SavepointPolicy::kOnRetry);
  const Status fault(StatusCode::kInvalidArgument, "bad row");
  EXPECT_EQ(writer.Submit(db.Write("a", fault)), fault);
  EXPECT_TRUE(db.committed.empty());
  EXPECT_FALSE(db.open);
  GroupCommitStats s = writer.stats();
  EXPECT_EQ(s.failed_batches, 1);
  EXPECT_EQ(s.commits, 0);
  EXPECT_EQ(s.retried_batches, 0);
}

// An operation whose failure ended the transaction: nothing of the batch stands.
TEST(GroupCommitTest, ATransactionLostFailsEveryOperation) {
  FakeBackend db;
  db.lose_on_failure = true;
  GroupCommitWriter writer(db, SavepointPolicy::kEveryOperation);
  const Status fault(StatusCode::kUnavailable, "disk I/O error");
  std::vector<Status> results = SubmitAsOneBatch(writer, {db.Write("a"), db.Write("b", fault), db.Write("c")});
  EXPECT_EQ(results[1], fault);
  const Status lost(StatusCode::kUnavailable, "fake store: transaction rolled back: disk I/O error");
  EXPECT_EQ(results[0], lost);
  EXPECT_EQ(results[2], lost);
  EXPECT_TRUE(db.committed.empty());
  EXPECT_EQ(Count(db.log, "commit"), 0);
  EXPECT_EQ(writer.stats().failed_batches, 1);
}

TEST(GroupCommitTest, AFailedCommitAnswersEveryCallerWithItsError) {
  FakeBackend db;
  db.fail_commit = Status(StatusCode::kUnavailable, "fake store: commit: disk full");
  GroupCommitWriter writer(db, SavepointPolicy::kOnRetry);
  std::vector<Status> results = SubmitAsOneBatch(writer, {db.Write("a"), db.Write("b"), db.Write("c")});
  for (const Status& r : results) EXPECT_EQ(r, db.fail_commit);
  EXPECT_TRUE(db.committed.empty());
  EXPECT_FALSE(db.open) << "the transaction left open was not rolled back";
  EXPECT_EQ(db.log.back(), "rollback");
  GroupCommitStats s = writer.stats();
  EXPECT_EQ(s.failed_batches, 1);
  EXPECT_EQ(s.commits, 0);
  EXPECT_EQ(s.operations, 3);
  EXPECT_EQ(s.largest_batch, 0);
}

TEST(GroupCommitTest, AFailedBeginRunsNoOperation) {
  FakeBackend db;
  db.fail_begin = Status(StatusCode::kUnavailable, "fake store: cannot reconnect");
  GroupCommitWriter writer(db, SavepointPolicy::kEveryOperation);
  std::vector<Status> results = SubmitAsOneBatch(writer, {db.Write("a"), db.Write("b")});
  for (const Status& r : results) EXPECT_EQ(r, db.fail_begin);
  EXPECT_TRUE(db.rows.empty());
  EXPECT_EQ(db.log, std::vector<std::string>{"begin"});
  EXPECT_EQ(writer.stats().failed_batches, 1);
}

TEST(GroupCommitTest, CloseAnswersQueuedCallersThenRefuses) {
  FakeBackend db;
  GroupCommitWriter writer(db, SavepointPolicy::kEveryOperation);
  writer.SetPausedForTest(true);
  Status queued(StatusCode::kInternal, "not answered");
  std::thread t([&] { queued = writer.Submit(db.Write("a")); });
  writer.WaitForQueuedForTest(1);
  writer.Close();  // still paused: closing drains the queue anyway
  t.join();
  EXPECT_TRUE(queued.ok()) << queued.ToString();
  EXPECT_EQ(db.committed, (std::set<std::string>{"a"}));
  Status late = writer.Submit(db.Write("b"));
  EXPECT_EQ(late, FailedPrecondition("fake store is closing"));
  EXPECT_EQ(writer.stats().operations, 1);
}

// Many callers at once: every one is answered, and commits never outnumber operations.
TEST(GroupCommitTest, ConcurrentCallersAreAllAnsweredAndCommitted) {
  FakeBackend db;
  GroupCommitWriter writer(db, SavepointPolicy::kOnRetry);
  constexpr int kThreads = 8, kEach = 200;
  std::vector<int> ok(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        ok[t] += writer.Submit(db.Write(std::to_string(t) + "." + std::to_string(i))).ok();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int n : ok) EXPECT_EQ(n, kEach);
  EXPECT_EQ(db.committed.size(), static_cast<size_t>(kThreads * kEach));
  GroupCommitStats s = writer.stats();
  EXPECT_EQ(s.operations, kThreads * kEach);
  EXPECT_EQ(s.commits, Count(db.log, "commit"));
  EXPECT_EQ(s.failed_batches, 0);
}

}  // namespace
}  // namespace muster
