// sacct's layouts against the captures sacct.txt, sacct_X.txt, sacct_long.txt (shared/peers/slurm/
// captures/): the same four jobs, ended as they had ended when Slurm printed them.
#include "report/sacct_format.h"

#include <gtest/gtest.h>

#include "base/json_test_util.h"
#include "report/slurm_format_testdata.h"

namespace muster {
namespace {

using testdata::kT0;

// The captured jobs after the run: 9148 and 9149 completed after 30 s, 9150 ran on n1 for no
// time once 9148 had ended, 9151 was cancelled by root while held.
std::vector<JobRecord> EndedJobs() {
  std::vector<JobRecord> jobs = testdata::CapturedJobs();
  for (JobRecord& j : jobs) j.reason = "None";
  jobs[0].state = jobs[1].state = JobState::kCompleted;
  jobs[0].end_time = jobs[1].end_time = kT0 + 30;
  jobs[2].state = JobState::kCompleted;
  jobs[2].start_time = jobs[2].end_time = kT0 + 30;
  jobs[2].allocation = {testdata::Alloc("n1", 1, 500, 4)};
  jobs[2].batch_host = "n1";
  jobs[3].state = JobState::kCancelled;
  jobs[3].cancelled_by = 0;
  jobs[3].end_time = kT0 + 31;
  return jobs;
}

class SacctFormatTest : public ::testing::Test {
 protected:
  void SetUp() override { testdata::UseUtc(); }
};

TEST_F(SacctFormatTest, DefaultLayoutMatchesCapture) {
  EXPECT_EQ(FormatSacct(EndedJobs(), {}, SacctOptions(), kT0 + 60),
            "JobID           JobName  Partition    Account  AllocCPUS      State ExitCode \n"
            "------------ ---------- ---------- ---------- ---------- ---------- -------- \n"
            "9148             gpujob        gpu       root          4  COMPLETED      0:0 \n"
            "9148.batch        batch                  root          4  COMPLETED      0:0 \n"
            "9149             cpujob        gpu       root          2  COMPLETED      0:0 \n"
            "9149.batch        batch                  root          1  COMPLETED      0:0 \n"
            "9150          waits4gpu        gpu       root          1  COMPLETED      0:0 \n"
            "9150.batch        batch                  root          1  COMPLETED      0:0 \n"
            "9151               held        gpu       root          1 CANCELLED+      0:0 \n");
}

TEST_F(SacctFormatTest, AllocationsWithWidthsMatchCapture) {
  SacctOptions o;
  o.steps = false;
  o.fields = *ParseSacctFields("JobID,JobName,Partition,Account,AllocCPUS,State,ExitCode,Elapsed,AllocTRES%50");
  EXPECT_EQ(FormatSacct(EndedJobs(), {}, o, kT0 + 60),
            "JobID           JobName  Partition    Account  AllocCPUS      State ExitCode    Elapsed                                          AllocTRES \n"
            "------------ ---------- ---------- ---------- ---------- ---------- -------- ---------- -------------------------------------------------- \n"
            "9148             gpujob        gpu       root          4  COMPLETED      0:0   00:00:30        billing=4,cpu=4,gres/gpu=8,mem=2000M,node=1 \n"
            "9149             cpujob        gpu       root          2  COMPLETED      0:0   00:00:30                   billing=2,cpu=2,mem=1000M,node=2 \n"
            "9150          waits4gpu        gpu       root          1  COMPLETED      0:0   00:00:00         billing=1,cpu=1,gres/gpu=4,mem=500M,node=1 \n"
            "9151               held        gpu       root          1 CANCELLED+      0:0   00:00:00                                                    \n");
}

TEST_F(SacctFormatTest, ParsableLayoutsAndSteps) {
  std::vector<JobRecord> jobs = {EndedJobs()[0]};
  StepRecord s;
  s.job_id = 9148;
  s.step_id = 0;
  s.name = "hostname";
  s.nodes = {"n1"};
  s.ntasks = 2;
  s.state = JobState::kFailed;
  s.start_time = kT0 + 5;
  s.end_time = kT0 + 7;
  s.exit_code = 1;
  SacctOptions o;
  o.layout = SacctLayout::kParsable2;
  o.fields = *ParseSacctFields("jobid,jobname,state,exitcode,nnodes,nodelist,elapsed,ntasks");
  EXPECT_EQ(FormatSacct(jobs, {s}, o, kT0 + 60),
            "JobID|JobName|State|ExitCode|NNodes|NodeList|Elapsed|NTasks\n"
            "9148|gpujob|COMPLETED|0:0|1|n1|00:00:30|\n"
            "9148.batch|batch|COMPLETED|0:0|1|n1|00:00:30|1\n"
            "9148.0|hostname|FAILED|1:0|1|n1|00:00:02|2\n");
  o.layout = SacctLayout::kParsable;
  o.header = false;
  o.steps = false;
  o.fields = *ParseSacctFields("JobID,State");
  EXPECT_EQ(FormatSacct(jobs, {s}, o, kT0 + 60), "9148|COMPLETED|\n");
  // The job's --wckey, on the job's line only.
  jobs[0].options.wckey = "proj";
  o.steps = true;
  o.fields = *ParseSacctFields("JobID,WCKey");
  EXPECT_EQ(FormatSacct(jobs, {s}, o, kT0 + 60), "9148|proj|\n9148.batch||\n9148.0||\n");
  o.steps = false;
  // A step's TRES: its CPUs, memory and GPUs (what it held).
  s.node_cpus = {4};  // held all the job's CPUs
  s.node_mem_mb = {1000};
  s.node_gpus = {{1, 3}};
  o.steps = true;
  o.fields = *ParseSacctFields("JobID,AllocTRES");
  const std::string rows = FormatSacct(jobs, {s}, o, kT0 + 60);
  EXPECT_NE(rows.find("9148.0|cpu=4,gres/gpu=2,mem=1000M,node=1|\n"), std::string::npos) << rows;
  // The derived exit code is the largest of the steps'.
  const test_json::Json js = SacctJson(jobs, {s}, "peer", kT0 + 60);
  EXPECT_EQ(js["jobs"][0]["derived_exit_code"]["return_code"], 1);
  EXPECT_EQ(js["jobs"][0]["steps"].size(), 1u);
  EXPECT_EQ(js["jobs"][0]["time"]["elapsed"], 30);
  EXPECT_EQ(js["jobs"][0]["time"]["limit"], 10);
  EXPECT_EQ(js["jobs"][0]["state"]["current"], "COMPLETED");
  EXPECT_EQ(js["jobs"][0]["wckey"]["wckey"], "proj");
}

TEST_F(SacctFormatTest, LongHeaderMatchesCapture) {
  SacctOptions o;
  o.fields = SacctLongFields();
  o.layout = SacctLayout::kParsable2;
  const std::string text = FormatSacct({}, {}, o, kT0);
  EXPECT_EQ(text,
            "JobID|JobIDRaw|JobName|Partition|MaxVMSize|MaxVMSizeNode|MaxVMSizeTask|AveVMSize|MaxRSS|MaxRSSNode|"
            "MaxRSSTask|AveRSS|MaxPages|MaxPagesNode|MaxPagesTask|AvePages|MinCPU|MinCPUNode|MinCPUTask|AveCPU|"
            "NTasks|AllocCPUS|Elapsed|State|ExitCode|AveCPUFreq|ReqCPUFreqMin|ReqCPUFreqMax|ReqCPUFreqGov|ReqMem|"
            "ConsumedEnergy|MaxDiskRead|MaxDiskReadNode|MaxDiskReadTask|AveDiskRead|MaxDiskWrite|MaxDiskWriteNode|"
            "MaxDiskWriteTask|AveDiskWrite|ReqTRES|AllocTRES|TRESUsageInAve|TRESUsageInMax|TRESUsageInMaxNode|"
            "TRESUsageInMaxTask|TRESUsageInMin|TRESUsageInMinNode|TRESUsageInMinTask|TRESUsageInTot|"
            "TRESUsageOutMax|TRESUsageOutMaxNode|TRESUsageOutMaxTask|TRESUsageOutAve|TRESUsageOutTot\n");
}

TEST_F(SacctFormatTest, FieldErrorsAndTimes) {
  EXPECT_EQ(ParseSacctFields("JobID,NoSuchField").status().message(), "Invalid field requested: \"NoSuchField\"");
  EXPECT_EQ(ParseSacctFields("JobID%x").status().message(), "Invalid field requested: \"JobID%x\"");
  EXPECT_EQ(ParseSacctFields("jobname%3")->front(), (SacctField{"JobName", 3, true}));
  EXPECT_EQ(SacctElapsed(0), "00:00:00");
  EXPECT_EQ(SacctElapsed(3 * 86400 + 3723), "3-01:02:03");
  // A running job: its batch step runs too; elapsed counts to now; End is Unknown.
  SacctOptions o;
  o.fields = *ParseSacctFields("JobID,State,Elapsed,End");
  EXPECT_EQ(FormatSacct({testdata::Job9148()}, {}, o, kT0 + 65),
            "JobID             State    Elapsed                 End \n"
            "------------ ---------- ---------- ------------------- \n"
            "9148            RUNNING   00:01:05             Unknown \n"
            "9148.batch      RUNNING   00:01:05             Unknown \n");
}

}  // namespace
}  // namespace muster
