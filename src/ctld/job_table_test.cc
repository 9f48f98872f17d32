// JobTable alone: the records and the active list kept together, records that stay put until a
// purge counts them, and the submission keys going with their jobs.
#include "ctld/job_table.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace muster {
namespace {

JobRecord Job(int64_t id, JobState state = JobState::kPending, uint32_t uid = 1000, std::string key = "") {
  JobRecord j;
  j.id = id;
  j.state = state;
  j.uid = uid;
  j.submit_key = std::move(key);
  return j;
}

std::vector<int64_t> ActiveIdsOf(const JobTable& t) {
  std::vector<int64_t> ids;
  for (const auto& [id, j] : t.active()) {
    EXPECT_EQ(j->id, id);
    EXPECT_EQ(t.FindActive(id), j);  // the list and its by-id index hold the same records
    ids.push_back(id);
  }
  return ids;
}

TEST(JobTableTest, AddListsTheJobsNotFinishedInIdOrder) {
  JobTable t;
  t.Add(Job(7));
  t.Add(Job(3, JobState::kRunning));
  t.Add(Job(5, JobState::kCompleted));  // recovered finished: held, not active
  EXPECT_EQ(t.size(), 3u);
  EXPECT_EQ(ActiveIdsOf(t), (std::vector<int64_t>{3, 7}));
  EXPECT_EQ(t.ActiveIds(), (std::vector<int64_t>{3, 7}));
  ASSERT_NE(t.Find(5), nullptr);
  EXPECT_EQ(t.Find(5)->state, JobState::kCompleted);
  EXPECT_EQ(t.FindActive(5), nullptr);
  EXPECT_EQ(t.Find(4), nullptr);
  EXPECT_FALSE(t.Contains(4));
  EXPECT_TRUE(t.Contains(7));
  std::vector<int64_t> all;
  for (const auto& [id, j] : t.all()) all.push_back(id);
  EXPECT_EQ(all, (std::vector<int64_t>{3, 5, 7}));
}

TEST(JobTableTest, FinishLeavesTheActiveListAndKeepsTheRecord) {
  JobTable t;
  JobRecord& a = t.Add(Job(1, JobState::kRunning));
  t.Add(Job(2));
  EXPECT_EQ(&t.at(1), &a);
  a.state = JobState::kCompleted;
  t.Finish(1);
  EXPECT_EQ(ActiveIdsOf(t), (std::vector<int64_t>{2}));
  EXPECT_EQ(t.FindActive(1), nullptr);
  EXPECT_EQ(t.Find(1), &a);
  t.Finish(1);  // again: nothing more
  EXPECT_EQ(t.active().size(), 1u);
}

TEST(JobTableTest, RecordsStayPutUntilAPurgeErasesOneAndCountsIt) {
  JobTable t;
  JobRecord* first = &t.Add(Job(1, JobState::kCompleted));
  JobRecord* second = &t.Add(Job(2));
  for (int64_t id = 3; id < 200; ++id) t.Add(Job(id));  // more records: none moves
  EXPECT_EQ(t.Find(1), first);
  EXPECT_EQ(t.Find(2), second);
  EXPECT_EQ(t.erased_count(), 0u);
  t.Purge([](const JobRecord& j) { return false; });
  EXPECT_EQ(t.erased_count(), 0u);
  t.Purge([](const JobRecord& j) { return IsFinished(j.state); });
  EXPECT_EQ(t.erased_count(), 1u);
  EXPECT_FALSE(t.Contains(1));
  EXPECT_EQ(t.Find(2), second);
  EXPECT_EQ(t.size(), 198u);
}

TEST(JobTableTest, APurgedJobTakesItsSubmissionKeyAlongButNotAnotherJobs) {
  JobTable t;
  const JobTable::SubmitKey k1{1000, "k1"}, k2{1000, "k2"};
  t.Add(Job(1, JobState::kCompleted, 1000, "k1"));
  t.SetKey(k1, 1);
  // k2 named job 2 first; job 3 carries the same key (a task of its array), and is purged alone.
  t.Add(Job(2, JobState::kRunning, 1000, "k2"));
  t.Add(Job(3, JobState::kCompleted, 1000, "k2"));
  t.SetKey(k2, 2);
  EXPECT_EQ(t.KeyedJob(k1), 1);
  t.Purge([](const JobRecord& j) { return IsFinished(j.state); });
  EXPECT_EQ(t.KeyedJob(k1), std::nullopt);
  EXPECT_EQ(t.KeyedJob(k2), 2);
  EXPECT_EQ(t.KeyedJob({1001, "k2"}), std::nullopt);  // keys are per uid
}

TEST(JobTableTest, AKeyIsInFlightFromItsBeginningToItsEnd) {
  JobTable t;
  const JobTable::SubmitKey k{1000, "retry-me"};
  EXPECT_FALSE(t.KeyInFlight(k));
  t.KeyBegun(k);
  EXPECT_TRUE(t.KeyInFlight(k));
  EXPECT_EQ(t.KeyedJob(k), std::nullopt);
  t.KeyEnded(k);
  EXPECT_FALSE(t.KeyInFlight(k));
}

TEST(JobTableTest, SlotAddsAnEmptyRecordOutsideTheActiveList) {
  JobTable t;
  t.Add(Job(4));
  EXPECT_EQ(&t.Slot(4), t.Find(4));
  JobRecord& absent = t.Slot(9);
  EXPECT_EQ(absent.state, JobRecord{}.state);
  EXPECT_TRUE(t.Contains(9));
  EXPECT_EQ(t.FindActive(9), nullptr);
  EXPECT_EQ(t.ActiveIds(), (std::vector<int64_t>{4}));
}

}  // namespace
}  // namespace muster
