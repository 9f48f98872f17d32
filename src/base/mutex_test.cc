#include "base/mutex.h"

#include <gtest/gtest.h>

#include <thread>

namespace muster {
namespace {

struct Counter {
  Mutex mu;
  std::condition_variable cv;
  int value GUARDED_BY(mu) = 0;
};

TEST(MutexTest, GuardsAndWaits) {
  Counter c;
  std::thread t([&] {
    MutexLock lock(c.mu);
    c.value = 1;
    c.cv.notify_all();
  });
  {
    MutexLock lock(c.mu);
    lock.Wait(c.cv, [&] {
      c.mu.AssertHeld();
      return c.value == 1;
    });
    EXPECT_EQ(c.value, 1);
  }
  t.join();
}

TEST(MutexTest, RanksTakenInOrderAndReleasedInAnyOrder) {
  Mutex jobs("jobs", LockRank::kJobs), nodes("nodes", LockRank::kNodes), policy("policy", LockRank::kPolicy);
  MutexLock a(jobs);
  {
    MutexLock b(nodes);
    MutexLock c(policy);
    b.Unlock();  // released before the one taken after it
  }
  MutexLock d(nodes);  // taken again: the records above were dropped
}

// Constant-initialized, as a global std::mutex is: usable from any static initializer.
constinit Mutex global_mu("global");

TEST(MutexTest, TryLockTakesOnlyAFreeMutex) {
  if (!global_mu.TryLock()) FAIL() << "a free mutex was not taken";
  bool taken_elsewhere = true;
  std::thread([&] {
    if (global_mu.TryLock()) {
      global_mu.Unlock();
    } else {
      taken_elsewhere = false;
    }
  }).join();
  EXPECT_FALSE(taken_elsewhere);
  global_mu.Unlock();
  if (!global_mu.TryLock()) FAIL() << "a released mutex was not taken";
  {
    MutexLock adopted(global_mu, std::adopt_lock);
  }
  bool free_after_scope = false;
  std::thread([&] {
    if (global_mu.TryLock()) {
      free_after_scope = true;
      global_mu.Unlock();
    }
  }).join();
  EXPECT_TRUE(free_after_scope);
}

TEST(MutexTest, ALockReleasedAndTakenAgainHoldsTheMutexAgain) {
  Mutex mu("relock", LockRank::kJobs);
  MutexLock lock(mu);
  lock.Unlock();
  auto free_elsewhere = [&] {
    bool free = false;
    std::thread([&] {
      if (mu.TryLock()) {
        free = true;
        mu.Unlock();
      }
    }).join();
    return free;
  };
  EXPECT_TRUE(free_elsewhere());
  lock.Lock();
  EXPECT_FALSE(free_elsewhere());
}

#ifndef NDEBUG
TEST(MutexDeathTest, TakingALowerRankWhileHoldingAHigherOneAborts) {
  Mutex jobs("jobs", LockRank::kJobs), nodes("nodes", LockRank::kNodes);
  EXPECT_DEATH(
      {
        MutexLock n(nodes);
        MutexLock j(jobs);
      },
      "lock order: taking jobs \\(rank 20\\) while holding nodes \\(rank 30\\)");
}

TEST(MutexDeathTest, TakingTheSameRankTwiceAborts) {
  Mutex a("stats", LockRank::kStats), b("board", LockRank::kStats);
  EXPECT_DEATH(
      {
        MutexLock la(a);
        MutexLock lb(b);
      },
      "lock order: taking board");
}

TEST(MutexTest, UnrankedMutexesAreNotOrdered) {
  Mutex jobs("jobs", LockRank::kJobs), plain;
  MutexLock j(jobs);
  MutexLock p(plain);  // after a ranked one, and before: neither is checked
  Mutex nodes("nodes", LockRank::kNodes);
  MutexLock n(nodes);
}
#endif

}  // namespace
}  // namespace muster
