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

// As Slurm 22.05's squeue (_filter_job; compat/ case scancel_state_name): -j does not lift the
// default state filter; an ended job shows with -t.
TEST(SqueueSelection, NamedJobsShowOnlyWhileNotFinishedUnlessStatesAreGiven) {
  SqueueSelection s;
  s.ids = {7};
  EXPECT_FALSE(s.Matches(Job(7, "a", 1, "gpu", JobState::kCompleted)));
  EXPECT_TRUE(s.Matches(Job(7, "a", 1, "gpu", JobState::kRunning)));
  EXPECT_FALSE(s.Matches(Job(8, "a", 1, "gpu", JobState::kPending)));
  s.states = {"ALL"};
  EXPECT_TRUE(s.Matches(Job(7, "a", 1, "gpu", JobState::kCompleted)));
}

TEST(SqueueSelection, AnArrayIdNamesItsTasks) {
  SqueueSelection s;
  s.ids = {7};
  JobRecord task = Job(9, "a", 1, "gpu", JobState::kPending);
  task.array_job_id = 7;
  task.array_task_id = 2;
  EXPECT_TRUE(s.Matches(task));
  task.array_job_id = 8;
  EXPECT_FALSE(s.Matches(task));
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

TEST(SqueueFormat, WaitingArrayTasksFoldIntoOneLineUnlessExpanded) {
  std::vector<JobRecord> jobs;
  for (int t : {0, 2, 4, 6}) {
    JobRecord j = Job(20 + t, "a", 1, "gpu", t == 0 ? JobState::kRunning : JobState::kPending);
    j.array_job_id = 20;
    j.array_task_id = t;
    j.array_max_running = 1;
    jobs.push_back(j);
  }
  SqueueOptions o;
  o.format = "%i %A %F %K %t";
  o.no_header = true;
  EXPECT_EQ(*FormatSqueue(jobs, o, 0), "20_[2,4,6%1] 22 20 2 PD\n20_0 20 20 0 R\n");
  o.expand_arrays = true;
  EXPECT_EQ(*FormatSqueue(jobs, o, 0), "20_2 22 20 2 PD\n20_4 24 20 4 PD\n20_6 26 20 6 PD\n20_0 20 20 0 R\n");
  o.sort_keys = "-K";
  EXPECT_EQ(*FormatSqueue(jobs, o, 0), "20_6 26 20 6 PD\n20_4 24 20 4 PD\n20_2 22 20 2 PD\n20_0 20 20 0 R\n");
  EXPECT_EQ(*SqueueFormatFromFields("JobID,Name:30,State:.10"), "%20i%30j%.10T");
  EXPECT_EQ(SqueueFormatFromFields("JobID,NoSuch").status().message(), "Invalid job format specification: NoSuch");
}

TEST(SqueueStepsTest, SrunStepsThenTheBatchStepInSlurmsLayout) {
  const int64_t now = 1'700'000'000;
  JobRecord j;
  j.id = 7;
  j.partition = "gpu";
  j.user = "alice";
  j.state = JobState::kRunning;
  j.start_time = now - 65;
  j.batch_host = "n1";
  j.time_limit_s = 3600;
  JobRecord pending = j;
  pending.id = 8;
  pending.state = JobState::kPending;
  StepRecord s;
  s.job_id = 7;
  s.step_id = 0;
  s.name = "sleep";
  s.nodes = {"n1", "n2"};
  s.ntasks = 2;
  s.start_time = now - 5;
  std::vector<StepRecord> steps = {s};
  for (StepRecord& b : BatchSteps({j, pending})) steps.push_back(b);
  SlurmOutput o = FormatSqueueSteps(steps, {j, pending}, kSqueueStepsFormat, true, false, now);
  EXPECT_EQ(o.out,
            "         STEPID     NAME PARTITION     USER      TIME NODELIST\n"
            "            7.0    sleep       gpu    alice      0:05 n[1-2]\n"
            "        7.batch    batch       gpu    alice      1:05 n1\n");
  EXPECT_EQ(o.err, "");
  o = FormatSqueueSteps(steps, {j}, "%i %A %l %a", false, false, now);
  EXPECT_EQ(o.out, "7.0 2 1:00:00 %a\n7.batch 1 1:00:00 %a\n");
  EXPECT_EQ(o.err, "squeue: error: Invalid job step format specification: a\n");
}

}  // namespace
}  // namespace muster
