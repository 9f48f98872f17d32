#include "store/group_commit.h"

#include <algorithm>
#include <utility>

namespace muster {

Status TransactionLost(const std::string& where, const Status& why) {
  return Status(StatusCode::kUnavailable, where + ": transaction rolled back: " + why.message());
}

GroupCommitWriter::GroupCommitWriter(GroupCommitBackend& backend, SavepointPolicy policy, size_t max_batch)
    : backend_(backend), policy_(policy), max_batch_(std::max<size_t>(max_batch, 1)) {}

GroupCommitWriter::~GroupCommitWriter() { Close(); }

void GroupCommitWriter::Close() {
  // Callers still queued (a paused writer) lead their batches now; wait until every one has left.
  MutexLock l(mu_);
  stopping_ = true;
  cv_.notify_all();
  l.Wait(cv_, [&] {
    mu_.AssertHeld();
    return callers_ == 0;
  });
}

// As the leader of the next batch when no batch is being written, else as a follower that a
// leader answers.
Status GroupCommitWriter::Submit(Op run) {
  Pending op{std::move(run), Status::Ok(), false};
  MutexLock l(mu_);
  if (stopping_) return FailedPrecondition(backend_.Where() + " is closing");
  queue_.push_back(&op);
  ++callers_;
  queued_cv_.notify_all();
  while (!op.done) {
    if (writing_ || (paused_ && !stopping_)) {
      l.Wait(cv_);
      continue;
    }
    writing_ = true;
    const size_t n = std::min(queue_.size(), max_batch_);
    std::vector<Pending*> batch(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
    l.Unlock();
    bool committed = false;
    std::vector<Status> results = RunBatch(batch, committed);
    l.Lock();
    stats_.operations += static_cast<int64_t>(batch.size());
    if (committed) {
      ++stats_.commits;
      stats_.largest_batch = std::max<int64_t>(stats_.largest_batch, static_cast<int64_t>(batch.size()));
    } else {
      ++stats_.failed_batches;
    }
    for (size_t i = 0; i < batch.size(); ++i) {
      batch[i]->result = std::move(results[i]);
      batch[i]->done = true;
    }
    writing_ = false;
    cv_.notify_all();  // the batch's callers, and whoever leads the next one
  }
  // Notify under the lock: once it is released this call touches nothing of the writer, so a
  // Close waiting for the last caller may let the store free it.
  if (--callers_ == 0) cv_.notify_all();
  return std::move(op.result);
}

std::vector<Status> GroupCommitWriter::RunBatch(const std::vector<Pending*>& batch, bool& committed) {
  if (policy_ == SavepointPolicy::kEveryOperation) return RunTransaction(batch, true, committed, nullptr);
  if (batch.size() > 1) {
    bool retry = false;
    std::vector<Status> results = RunTransaction(batch, /*savepoints=*/false, committed, &retry);
    if (!retry) return results;
    MutexLock l(mu_);
    ++stats_.retried_batches;
  }
  return RunTransaction(batch, batch.size() > 1, committed, nullptr);
}

// With `retry` (no savepoints): an operation failing in a transaction still open rolls the batch
// back and sets *retry instead of failing the others.
std::vector<Status> GroupCommitWriter::RunTransaction(const std::vector<Pending*>& batch, bool savepoints,
                                                      bool& committed, bool* retry) {
  std::vector<Status> results(batch.size());
  // Every operation that has no error of its own gets `why`; a transaction left open is rolled back.
  auto fail_all = [&](const Status& why) {
    if (backend_.InTransaction()) (void)backend_.Rollback();
    for (Status& r : results) {
      if (r.ok()) r = why;
    }
    return results;
  };
  // Nothing of the batch stands.
  auto lost = [&](const Status& why) { return fail_all(TransactionLost(backend_.Where(), why)); };
  Status st = backend_.Begin();
  if (!st.ok()) return fail_all(st);
  for (size_t i = 0; i < batch.size(); ++i) {
    if (savepoints) {
      st = backend_.Savepoint();
      if (!st.ok()) return lost(st);
    }
    Status op = batch[i]->run();
    if (op.ok()) {
      if (savepoints) {
        st = backend_.ReleaseSavepoint();
        if (!st.ok()) return lost(st);
      }
      continue;
    }
    results[i] = op;
    const bool open = backend_.InTransaction();
    if (retry != nullptr && open) {
      st = backend_.Rollback();
      if (!st.ok()) return lost(st);
      *retry = true;
      return results;
    }
    if (!savepoints || !open) return lost(op);
    st = backend_.RollbackToSavepoint();
    if (!st.ok()) return lost(st);
  }
  st = backend_.Commit();
  if (!st.ok()) return fail_all(st);
  committed = true;
  return results;
}

GroupCommitStats GroupCommitWriter::stats() const {
  MutexLock l(mu_);
  return stats_;
}

void GroupCommitWriter::SetPausedForTest(bool paused) {
  MutexLock l(mu_);
  paused_ = paused;
  cv_.notify_all();
}

void GroupCommitWriter::WaitForQueuedForTest(size_t n) {
  MutexLock l(mu_);
  l.Wait(queued_cv_, [&] {
    mu_.AssertHeld();
    return queue_.size() >= n;
  });
}

}  // namespace muster
