// The shared Slurm formatting pieces and squeue, against the captures squeue.txt, squeue_l.txt and
// squeue_bad_job.txt (ids, hosts and times as captured; the records are in slurm_format_testdata.h).
#include "report/slurm_format.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "report/slurm_format_testdata.h"
#include "report/squeue_format.h"

namespace muster {
namespace {

using testdata::kT0;

class SlurmFormatTest : public ::testing::Test {
 protected:
  void SetUp() override { testdata::UseUtc(); }
};

// ---- Primitives ----

TEST_F(SlurmFormatTest, PrintFieldCutsAndPads) {
  EXPECT_EQ(PrintField("waits4gpu", 8, true), "waits4gp");
  EXPECT_EQ(PrintField("waits4gpu", 8, false), "waits4gp");
  EXPECT_EQ(PrintField("gpu", 9, true), "      gpu");
  EXPECT_EQ(PrintField("gpu", 9, false), "gpu      ");
  EXPECT_EQ(PrintField("TIME_LIMIT", 9, true), "TIME_LIMI");
  EXPECT_EQ(PrintField("anything at all", 0, true), "anything at all");
  EXPECT_EQ(PrintField("", 3, false), "   ");
}

TEST_F(SlurmFormatTest, ElapsedLikeSqueue) {
  EXPECT_EQ(FormatElapsed(0), "0:00");
  EXPECT_EQ(FormatElapsed(3), "0:03");
  EXPECT_EQ(FormatElapsed(600), "10:00");
  EXPECT_EQ(FormatElapsed(3599), "59:59");
  EXPECT_EQ(FormatElapsed(3723), "1:02:03");
  EXPECT_EQ(FormatElapsed(93784), "1-02:03:04");
  EXPECT_EQ(FormatElapsed(-1), "INVALID");
  EXPECT_EQ(FormatElapsed(int64_t{366} * 86400), "INVALID");
}

TEST_F(SlurmFormatTest, TimesAndDates) {
  EXPECT_EQ(FormatSlurmTime(kT0), "2026-11-30T03:12:59");
  EXPECT_EQ(FormatSlurmTime(0), "Unknown");
  EXPECT_EQ(FormatSlurmTime(0, "N/A"), "N/A");
  EXPECT_EQ(FormatDateLine(kT0 + 3), "Mon Nov 30 03:13:02 2026");
  EXPECT_EQ(FormatDateLine(kT0 - 29 * 86400), "Sun Nov  1 03:12:59 2026");  // ctime pads the day
}

TEST_F(SlurmFormatTest, MemoryUnits) {
  EXPECT_EQ(FormatMemoryExact(500), "500M");
  EXPECT_EQ(FormatMemoryExact(2000), "2000M");  // job TRES in scontrol_show_job_running.txt
  EXPECT_EQ(FormatMemoryExact(2500), "2500M");  // AllocTRES in scontrol_show_node_n1.txt
  EXPECT_EQ(FormatMemoryExact(2048), "2G");
  EXPECT_EQ(FormatMemoryExact(2560), "2.50G");
  EXPECT_EQ(FormatMemoryExact(1024 * 1024), "1T");
  EXPECT_EQ(FormatMemoryExact(0), "0");
  EXPECT_EQ(FormatMemoryRounded(64000), "62.50G");   // CfgTRES
  EXPECT_EQ(FormatMemoryRounded(256000), "250G");    // partition TRES
  EXPECT_EQ(FormatMemoryRounded(1000), "1000M");
}

TEST_F(SlurmFormatTest, ParseFormatSyntax) {
  StatusOr<std::vector<FormatField>> f = ParseFormat("head %.18i|%-10j %5u%%%t", "job");
  ASSERT_TRUE(f.ok());
  ASSERT_EQ(f->size(), 4u);  // "head " is dropped, "%%" prints nothing
  EXPECT_EQ((*f)[0].type, 'i');
  EXPECT_TRUE((*f)[0].right);
  EXPECT_EQ((*f)[0].width, 18);
  EXPECT_EQ((*f)[0].suffix, "|");
  EXPECT_EQ((*f)[1].type, 'j');
  EXPECT_FALSE((*f)[1].right);
  EXPECT_EQ((*f)[1].width, 10);
  EXPECT_EQ((*f)[2].type, 'u');
  EXPECT_EQ((*f)[2].width, 5);
  EXPECT_EQ((*f)[3].type, 't');
  EXPECT_FALSE(ParseFormat("%.10", "job").ok());
}

// The format of the finding: 10 KB of wide fields would render gigabytes under the controller's
// lock. Refused with Slurm's message, naming the bound; a long real format passes.
TEST_F(SlurmFormatTest, AbsurdFormatsAreRefused) {
  std::string wide;
  while (wide.size() < 10000) wide += "%.99999i";
  StatusOr<std::vector<FormatField>> f = ParseFormat(wide, "job");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message(), "Invalid job format specification: more than 100 fields or 4096 columns");
  std::string many;
  for (int i = 0; i < 101; ++i) many += "%i";
  EXPECT_FALSE(ParseFormat(many, "job").ok());
  EXPECT_TRUE(ParseFormat("%.18i %.9P %.30j %.8u %.8T %.10M %.9l %.6D %.20S %.20e %R %b %Z", "job").ok());
}

TEST_F(SlurmFormatTest, NotFoundErrors) {
  const SlurmOutput bad = InvalidJobIdError();  // squeue_bad_job.txt, scontrol_show_job_bad.txt
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.out, "");
  EXPECT_EQ(bad.err, "slurm_load_jobs error: Invalid job id specified\n");
  const SlurmOutput scancel = ScancelInvalidJob(999999);  // scancel_bad.txt: nothing, exit 0
  EXPECT_EQ(scancel.exit_code, 0);
  EXPECT_EQ(scancel.out + scancel.err, "");
  EXPECT_EQ(NodeNotFoundError("n9").err, "Node n9 not found\n");
  EXPECT_EQ(PartitionNotFoundError("x").err, "Partition x not found\n");
}

TEST_F(SlurmFormatTest, JobValues) {
  const JobRecord running = testdata::Job9148();
  EXPECT_EQ(JobElapsed(running, kT0 + 3), 3);
  EXPECT_EQ(JobExpectedEnd(running), kT0 + 600);
  EXPECT_EQ(JobCpuCount(running), 4);
  EXPECT_EQ(JobGpuCount(running), 8);
  EXPECT_EQ(JobTres(running), "cpu=4,mem=2000M,node=1,billing=4,gres/gpu=8");
  const JobRecord pending = testdata::Job9150();
  EXPECT_EQ(JobElapsed(pending, kT0 + 100), 0);
  EXPECT_EQ(JobExpectedEnd(pending), 0);
  EXPECT_EQ(JobTres(pending), "cpu=1,mem=500M,node=1,billing=1,gres/gpu=4");
  EXPECT_EQ(JobTresPerNode(pending), "gres:gpu:4");
  JobRecord typed = pending;
  typed.request.gpu_type = "h100";
  EXPECT_EQ(JobTresPerNode(typed), "gres:gpu:h100:4");
  JobRecord detail = pending;
  detail.reason = "ReqNodeNotAvail";
  detail.reason_detail = "UnavailableNodes:n[3-4]";
  EXPECT_EQ(JobReason(detail), "ReqNodeNotAvail, UnavailableNodes:n[3-4]");
  JobRecord done = running;
  done.state = JobState::kCompleted;
  done.end_time = kT0 + 42;
  EXPECT_EQ(JobElapsed(done, kT0 + 1000), 42);
  EXPECT_EQ(JobExpectedEnd(done), kT0 + 42);
  JobRecord forever = testdata::Job9149();
  EXPECT_EQ(JobExpectedEnd(forever), kT0 + 365 * 86400);
  // Suspended (SUSPEND preemption): the clock stands still. 30 s suspended before, and suspended
  // again since kT0 + 100: at kT0 + 500 it has run 70 s; its end moves by what is known so far.
  JobRecord suspended = running;
  suspended.state = JobState::kSuspended;
  suspended.suspended_s = 30;
  suspended.suspend_time = kT0 + 100;
  EXPECT_EQ(JobElapsed(suspended, kT0 + 500), 70);
  EXPECT_EQ(JobExpectedEnd(suspended), kT0 + 630);
  suspended.state = JobState::kRunning;
  suspended.suspend_time = 0;
  EXPECT_EQ(JobElapsed(suspended, kT0 + 500), 470);
}

// ---- squeue ----

TEST_F(SlurmFormatTest, SqueueDefaultMatchesCapture) {  // squeue.txt
  StatusOr<std::string> out = FormatSqueue(testdata::CapturedJobs(), SqueueOptions(), kT0 + 3);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out,
            "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n"
            "              9150       gpu waits4gp     root PD       0:00      1 (Resources)\n"
            "              9151       gpu     held     root PD       0:00      1 (JobHeldUser)\n"
            "              9148       gpu   gpujob     root  R       0:03      1 n1\n"
            "              9149       gpu   cpujob     root  R       0:03      2 n[1-2]\n");
}

TEST_F(SlurmFormatTest, SqueueLongMatchesCapture) {  // squeue_l.txt
  StatusOr<std::string> out = FormatSqueue(testdata::CapturedJobs(), SqueueLongOptions(), kT0 + 3);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out,
            "Mon Nov 30 03:13:02 2026\n"
            "             JOBID PARTITION     NAME     USER    STATE       TIME TIME_LIMI  NODES NODELIST(REASON)\n"
            "              9150       gpu waits4gp     root  PENDING       0:00 UNLIMITED      1 (Resources)\n"
            "              9151       gpu     held     root  PENDING       0:00 UNLIMITED      1 (JobHeldUser)\n"
            "              9148       gpu   gpujob     root  RUNNING       0:03     10:00      1 n1\n"
            "              9149       gpu   cpujob     root  RUNNING       0:03 UNLIMITED      2 n[1-2]\n");
}

TEST_F(SlurmFormatTest, SqueueCapturedCustomFormat) {  // sbatch_time_over_partition_max.txt: -h -o '%i %T %r'
  JobRecord j = testdata::Job9150();
  j.id = 9157;
  j.partition = "debug";
  j.reason = "PartitionConfig";
  SqueueOptions o;
  o.format = "%i %T %r";
  o.no_header = true;
  StatusOr<std::string> out = FormatSqueue({j}, o, kT0);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, "9157 PENDING PartitionConfig\n");
}

TEST_F(SlurmFormatTest, SqueueTimesWidthsAndTruncation) {
  JobRecord j = testdata::Job9148();
  j.name = "a-very-long-job-name";
  j.user = "someone-with-a-long-name";
  j.time_limit_s = 2 * 86400;
  SqueueOptions o;
  o.format = "%.8j|%-6j|%10u|%M|%.10l|%L|%S|%e|%V";
  StatusOr<std::string> out = FormatSqueue({j}, o, kT0 + 93784);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out,
            "    NAME|NAME  |USER      |TIME|TIME_LIMIT|TIME_LEFT|START_TIME|END_TIME|SUBMIT_TIME\n"
            "a-very-l|a-very|someone-wi|1-02:03:04|2-00:00:00|21:56:56|2026-11-30T03:12:59|"
            "2026-12-02T03:12:59|2026-11-30T03:12:59\n");
  j.start_time = kT0;
  StatusOr<std::string> hour = FormatSqueue({j}, SqueueOptions(), kT0 + 3723);
  ASSERT_TRUE(hour.ok());
  EXPECT_NE(hour->find("   1:02:03"), std::string::npos);
}

TEST_F(SlurmFormatTest, SqueueStartShowsThePendingJobsExpectedStart) {
  JobRecord j = testdata::Job9150();  // pending
  SqueueOptions o;
  o.format = "%.18i %.2t %.19S %20Y %R";
  StatusOr<std::string> out = FormatSqueue({j}, o, kT0);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out,
            "             JOBID ST          START_TIME SCHEDNODES           NODELIST(REASON)\n"
            "              9150 PD                 N/A (null)               (Resources)\n");
  j.expected_start = kT0 + 3600;  // backfill's reservation
  j.sched_nodes = "gpu[01-02]";
  out = FormatSqueue({j}, o, kT0);
  ASSERT_TRUE(out.ok());
  EXPECT_NE(out->find(" PD 2026-11-30T04:12:59 gpu[01-02]"), std::string::npos) << *out;
}

TEST_F(SlurmFormatTest, SqueueMoreFields) {
  std::vector<JobRecord> jobs = {testdata::Job9148(), testdata::Job9150()};
  jobs[0].uid = 1000;
  jobs[0].gid = 100;
  jobs[0].group = "users";
  jobs[0].request.constraint = "a100&ib";
  SqueueOptions o;
  o.format = "%i %P %N %r %C %b %m %a %g %q %Q %Z %o %k %U %G %n %f %h %B %D";
  o.sort = false;
  StatusOr<std::string> out = FormatSqueue(jobs, o, kT0 + 3);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out,
            "JOBID PARTITION NODELIST REASON CPUS TRES_PER_NODE MIN_MEMORY ACCOUNT GROUP QOS PRIORITY WORK_DIR "
            "COMMAND COMMENT UID GID REQ_NODES FEATURES OVER_SUBSCRIBE EXEC_HOST NODES\n"
            "9148 gpu n1 None 4 gres:gpu:8 500M root users normal 4294892681 /work (null) (null) 1000 100 n1 a100&ib "
            "OK n1 1\n"
            "9150 gpu  Resources 1 gres:gpu:4 500M root root normal 4294892679 /work (null) (null) 0 0 n1 (null) "
            "OK n/a 1\n");
}

TEST_F(SlurmFormatTest, SqueueUnknownFieldIsAnError) {
  SqueueOptions o;
  o.format = "%i %z";
  StatusOr<std::string> out = FormatSqueue({}, o, kT0);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(), "Invalid job format specification: z");
}

TEST_F(SlurmFormatTest, SqueueEmptyQueuePrintsTheHeader) {
  StatusOr<std::string> out = FormatSqueue({}, SqueueOptions(), kT0);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n");
}

TEST_F(SlurmFormatTest, SqueueSortsByPartitionStatePriority) {
  std::vector<JobRecord> jobs = testdata::CapturedJobs();
  jobs[3].partition = "debug";  // 9151 moves to the front: "debug" < "gpu"
  SqueueOptions o;
  o.format = "%i";
  o.no_header = true;
  StatusOr<std::string> out = FormatSqueue(jobs, o, kT0);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, "9151\n9150\n9148\n9149\n");
}

}  // namespace
}  // namespace muster
