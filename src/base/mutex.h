// Mutex and MutexLock: std::mutex with the annotations clang's thread-safety analysis reads
// (base/thread_annotations.h), and a lock order checked at run time.
//
// A Mutex may carry a rank (a lock order: LockRank below). In builds with assertions (the dev and
// asan builds every test runs in), taking a ranked mutex while this thread holds one of equal or
// higher rank aborts, naming both: a lock order that could deadlock fails the first test that
// takes it, even if no two threads ever race for it. Unranked mutexes (rank 0, the default) are
// not ordered. Release builds keep no record.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "base/thread_annotations.h"

namespace muster {

// The controller's lock order (ctld/controller.h): a mutex of a higher rank may be taken while
// one of a lower rank is held, never the other way round.
enum class LockRank : int {
  kNone = 0,
  kCycle = 10,         // the controller's scheduling pass (one at a time)
  kJobIds = 15,        // the job id counter (it calls the store)
  kJobs = 20,          // the jobs and what they hold
  kNodes = 30,         // ctld/node_table.h
  kSteps = 40,         // ctld/step_table.h
  kPolicy = 50,        // ctld/policy_state.h
  kStats = 60,         // counters, taken alone under any of the above
};

class CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  // constexpr: a global or static Mutex is initialized before any code runs, as a std::mutex is.
  explicit constexpr Mutex(const char* name, LockRank rank = LockRank::kNone) : name_(name), rank_(rank) {}
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ACQUIRE() {
    WillLock();
    mu_.lock();
  }
  void Unlock() RELEASE() {
    mu_.unlock();
    Unlocked();
  }
  // Takes the mutex only if it is free, without waiting; true: taken (release it with Unlock).
  // A ranked one is checked and recorded as Lock does.
  bool TryLock() TRY_ACQUIRE(true) {
    if (!mu_.try_lock()) return false;
    WillLock();
    return true;
  }
  // Tells the analysis the mutex is held where it cannot see it taken (a condition variable's
  // predicate, a callback run under it).
  void AssertHeld() const ASSERT_CAPABILITY(this) {}

  const char* name() const { return name_; }
  LockRank rank() const { return rank_; }

 private:
  friend class MutexLock;
#ifdef NDEBUG
  void WillLock() {}
  void Unlocked() {}
#else
  void WillLock();  // checks the lock order, then records the mutex as held by this thread
  void Unlocked();
#endif

  std::mutex mu_;
  const char* name_ = "";
  LockRank rank_ = LockRank::kNone;
};

// Holds a Mutex for its scope (as std::unique_lock: it may be released early, and condition
// variables wait on it).
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) ACQUIRE(mu) : mu_(&mu) {
    mu.WillLock();
    lock_ = std::unique_lock<std::mutex>(mu.mu_);
  }
  // Takes over a mutex this thread already holds (after Mutex::TryLock): released at the end of
  // the scope, as if this lock had taken it.
  MutexLock(Mutex& mu, std::adopt_lock_t) REQUIRES(mu) : mu_(&mu), lock_(mu.mu_, std::adopt_lock) {}
  ~MutexLock() RELEASE() {
    if (lock_.owns_lock()) Unlock();
  }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  // Released before the end of the scope; nothing guarded by the mutex may be touched after.
  void Unlock() RELEASE() {
    lock_.unlock();
    mu_->Unlocked();
  }

  // Taken again after Unlock (a scope that lets the mutex go around slow work).
  void Lock() ACQUIRE() {
    mu_->WillLock();
    lock_.lock();
  }

  // Condition variables: the mutex is released while waiting and held again on return.
  // Without a predicate: one wake-up (maybe spurious); the caller's loop checks what it waits for.
  void Wait(std::condition_variable& cv) { cv.wait(lock_); }
  template <typename Pred>
  void Wait(std::condition_variable& cv, Pred pred) {
    cv.wait(lock_, std::move(pred));
  }
  template <typename Rep, typename Period, typename Pred>
  bool WaitFor(std::condition_variable& cv, std::chrono::duration<Rep, Period> d, Pred pred) {
    return cv.wait_for(lock_, d, std::move(pred));
  }

 private:
  Mutex* mu_;
  std::unique_lock<std::mutex> lock_;
};

}  // namespace muster
