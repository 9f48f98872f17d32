// squeue's selection and its query form (what the controller renders from).
#include <gtest/gtest.h>

#include "net/url.h"
#include "report/squeue_format.h"

namespace muster {
namespace {

JobRecord Job(int64_t id, const std::string& user, uint32_t uid, const std::string& part, JobState st) {
  JobRecord j;
  j.id = id;
  j.user = user;
  j.uid = uid;
  j.partition = part;
  j.state = st;
  return j;
}

TEST(SqueueSelection, DefaultShowsJobsNotFinished) {
  SqueueSelection s;
  EXPECT_TRUE(s.Matches(Job(1, "a", 1, "gpu", JobState::kPending)));
  EXPECT_TRUE(s.Matches(Job(1, "a", 1, "gpu", JobState::kCompleting)));
  EXPECT_FALSE(s.Matches(Job(1, "a", 1, "gpu", JobState::kCompleted)));
}

TEST(SqueueSelection, NamedJobsShowWhateverTheirState) {
  SqueueSelection s;
  s.ids = {7};
  EXPECT_TRUE(s.Matches(Job(7, "a", 1, "gpu", JobState::kCompleted)));
  EXPECT_FALSE(s.Matches(Job(8, "a", 1, "gpu", JobState::kPending)));
}

TEST(SqueueSelection, UsersByNameOrUidPartitionsAndStates) {
  SqueueSelection s;
  s.users = {"alice", "1002"};
  EXPECT_TRUE(s.Matches(Job(1, "alice", 1001, "gpu", JobState::kRunning)));
  EXPECT_TRUE(s.Matches(Job(2, "bob", 1002, "gpu", JobState::kRunning)));
  EXPECT_FALSE(s.Matches(Job(3, "carol", 1003, "gpu", JobState::kRunning)));
  s.partitions = {"debug"};
  EXPECT_FALSE(s.Matches(Job(1, "alice", 1001, "gpu", JobState::kRunning)));
  SqueueSelection t;
  t.states = {"COMPLETED"};
  EXPECT_TRUE(t.Matches(Job(1, "a", 1, "gpu", JobState::kCompleted)));
  EXPECT_FALSE(t.Matches(Job(1, "a", 1, "gpu", JobState::kPending)));
  t.states = {"ALL"};
  EXPECT_TRUE(t.Matches(Job(1, "a", 1, "gpu", JobState::kTimeout)));
}

TEST(SqueueQuery, RoundTripsThroughTheUrlDecoder) {
  SqueueSelection s;
  s.ids = {3, 12};
  s.users = {"alice", "o'brien & co"};
  s.partitions = {"gpu"};
  s.states = {"PENDING", "ALL"};
  SqueueOptions o;
  o.format = "%.18i %j|100%%&x=1 +";
  o.no_header = true;
  o.date_line = true;
  o.sort = false;
  const std::string q = SqueueQuery(s, o);
  StatusOr<std::pair<SqueueSelection, SqueueOptions>> back = ParseSqueueQuery(ParseQuery(q));
  ASSERT_TRUE(back.ok()) << back.status().ToString() << " for " << q;
  EXPECT_EQ(back->first.ids, s.ids);
  EXPECT_EQ(back->first.users, s.users);
  EXPECT_EQ(back->first.partitions, s.partitions);
  EXPECT_EQ(back->first.states, s.states);
  EXPECT_EQ(back->second.format, o.format);
  EXPECT_TRUE(back->second.no_header);
  EXPECT_TRUE(back->second.date_line);
  EXPECT_FALSE(back->second.sort);
}

TEST(SqueueQuery, DefaultsAndErrors) {
  const std::string q = SqueueQuery(SqueueSelection{}, SqueueOptions{});
  EXPECT_NE(q.find("active=1"), std::string::npos);  // the controller needs only unfinished jobs
  StatusOr<std::pair<SqueueSelection, SqueueOptions>> back = ParseSqueueQuery(ParseQuery(q));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->second.format, kSqueueDefaultFormat);
  EXPECT_FALSE(back->second.no_header);
  EXPECT_TRUE(back->second.sort);
  EXPECT_EQ(ParseSqueueQuery({{"ids", "1,x"}}).status().message(), "ids: invalid job id 'x'");
  EXPECT_EQ(ParseSqueueQuery({{"states", "SLEEPING"}}).status().message(), "states: invalid job state 'SLEEPING'");
}

}  // namespace
}  // namespace muster
