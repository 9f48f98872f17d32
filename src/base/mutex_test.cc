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
