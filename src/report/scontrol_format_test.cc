// scontrol show job/node/partition against the captures scontrol_show_job_running.txt,
// scontrol_show_job_pending.txt, scontrol_show_node_n1.txt and scontrol_show_partition.txt. Values
// Muster does not keep are substituted with what Slurm prints when they are unset; each
// substitution is named next to the golden text.
#include "report/scontrol_format.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "report/slurm_format_testdata.h"

namespace muster {
namespace {

using testdata::kT0;

class ScontrolFormatTest : public ::testing::Test {
 protected:
  void SetUp() override { testdata::UseUtc(); }
};

// Substituted from the captures: WorkDir=$PEER/... -> /work (the test's directory);
// AccrueTime=2026-11-30T03:12:59 -> Unknown, LastSchedEval=2026-11-30T03:12:59 -> Unknown;
// the pending job: AllocNode:Sid=localhost:2108 -> (null):0 (its record names no submitter).
TEST_F(ScontrolFormatTest, RunningJobMatchesCapture) {
  EXPECT_EQ(FormatScontrolJob(testdata::Job9148(), kT0 + 3),
            "JobId=9148 JobName=gpujob\n"
            "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
            "   Priority=4294892681 Nice=0 Account=root QOS=normal\n"
            "   JobState=RUNNING Reason=None Dependency=(null)\n"
            "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
            "   RunTime=00:00:03 TimeLimit=00:10:00 TimeMin=N/A\n"
            "   SubmitTime=2026-11-30T03:12:59 EligibleTime=2026-11-30T03:12:59\n"
            "   AccrueTime=Unknown\n"
            "   StartTime=2026-11-30T03:12:59 EndTime=2026-11-30T03:22:59 Deadline=N/A\n"
            "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=Unknown Scheduler=Main\n"
            "   Partition=gpu AllocNode:Sid=localhost:2108\n"
            "   ReqNodeList=n1 ExcNodeList=(null)\n"
            "   NodeList=n1\n"
            "   BatchHost=n1\n"
            "   NumNodes=1 NumCPUs=4 NumTasks=4 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
            "   TRES=cpu=4,mem=2000M,node=1,billing=4,gres/gpu=8\n"
            "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
            "   MinCPUsNode=1 MinMemoryCPU=500M MinTmpDiskNode=0\n"
            "   Features=(null) DelayBoot=00:00:00\n"
            "   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)\n"
            "   Command=(null)\n"
            "   WorkDir=/work\n"
            "   StdErr=/work/cap_9148.out\n"
            "   StdIn=/dev/null\n"
            "   StdOut=/work/cap_9148.out\n"
            "   Power=\n"
            "   TresPerNode=gres:gpu:8\n"
            "   \n"
            "\n");
}

TEST_F(ScontrolFormatTest, PendingJobMatchesCapture) {  // same substitutions as above
  EXPECT_EQ(FormatScontrolJob(testdata::Job9150(), kT0 + 3),
            "JobId=9150 JobName=waits4gpu\n"
            "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
            "   Priority=4294892679 Nice=0 Account=root QOS=normal\n"
            "   JobState=PENDING Reason=Resources Dependency=(null)\n"
            "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
            "   RunTime=00:00:00 TimeLimit=UNLIMITED TimeMin=N/A\n"
            "   SubmitTime=2026-11-30T03:12:59 EligibleTime=2026-11-30T03:12:59\n"
            "   AccrueTime=Unknown\n"
            "   StartTime=Unknown EndTime=Unknown Deadline=N/A\n"
            "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=Unknown Scheduler=Main\n"
            "   Partition=gpu AllocNode:Sid=(null):0\n"
            "   ReqNodeList=n1 ExcNodeList=(null)\n"
            "   NodeList=\n"
            "   NumNodes=1 NumCPUs=1 NumTasks=1 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
            "   TRES=cpu=1,mem=500M,node=1,billing=1,gres/gpu=4\n"
            "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
            "   MinCPUsNode=1 MinMemoryCPU=500M MinTmpDiskNode=0\n"
            "   Features=(null) DelayBoot=00:00:00\n"
            "   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)\n"
            "   Command=(null)\n"
            "   WorkDir=/work\n"
            "   StdErr=/dev/null\n"
            "   StdIn=/dev/null\n"
            "   StdOut=/dev/null\n"
            "   Power=\n"
            "   TresPerNode=gres:gpu:4\n"
            "   \n"
            "\n");
}

// The first line of each record shown.
std::vector<std::string> FirstLines(const std::string& text) {
  std::vector<std::string> out;
  size_t at = 0;
  while ((at = text.find("JobId=", at)) != std::string::npos) {
    out.push_back(text.substr(at, text.find('\n', at) - at));
    at = text.find('\n', at);
  }
  return out;
}

// Slurm's meta record: the array's waiting tasks are one record; a running task is its own.
TEST_F(ScontrolFormatTest, WaitingArrayTasksAreOneRecord) {
  std::vector<JobRecord> tasks;
  for (int t = 0; t < 8; ++t) {
    JobRecord j = testdata::BaseJob(50 + t, "arr");
    j.array_job_id = 50;
    j.array_task_id = t;
    j.array_max_running = 2;
    j.state = t < 2 ? JobState::kRunning : JobState::kPending;
    tasks.push_back(j);
  }
  JobRecord alone = testdata::BaseJob(70, "other");
  std::vector<const JobRecord*> shown;
  for (const JobRecord& j : tasks) shown.push_back(&j);
  shown.push_back(&alone);
  EXPECT_EQ(FirstLines(FormatScontrolJobs(shown, kT0)),
            (std::vector<std::string>{"JobId=50 ArrayJobId=50 ArrayTaskId=0 JobName=arr",
                                      "JobId=51 ArrayJobId=50 ArrayTaskId=1 JobName=arr",
                                      "JobId=52 ArrayJobId=50 ArrayTaskId=2-7%2 ArrayTaskThrottle=2 JobName=arr",
                                      "JobId=70 JobName=other"}));
  // One waiting task alone (as `scontrol show job 55` asks) is itself.
  EXPECT_EQ(FirstLines(FormatScontrolJobs({&tasks[5]}, kT0)),
            (std::vector<std::string>{"JobId=55 ArrayJobId=50 ArrayTaskId=5 JobName=arr"}));
  // Without a limit, no "%N" nor ArrayTaskThrottle; one line per record with -o.
  for (JobRecord& j : tasks) j.array_max_running = 0;
  const std::string one_line = FormatScontrolJobs(shown, kT0, /*one_liner=*/true);
  EXPECT_EQ(std::count(one_line.begin(), one_line.end(), '\n'), 4);
  EXPECT_EQ(FirstLines(one_line)[2].rfind("JobId=52 ArrayJobId=50 ArrayTaskId=2-7 JobName=arr UserId=", 0), 0u);
}

// scontrol -d as Slurm 22.05 prints it (captured on the peer: `sbatch -N2 -n3 --gres=gpu:2
// --mem=1000`), without CPU_IDs, which the controller does not choose.
TEST_F(ScontrolFormatTest, DetailLines) {
  JobRecord j = testdata::Job9148();
  NodeAllocation second = j.allocation.front();
  second.node = "n2";
  second.gpus = FromStoredGpus({{2, 3, 5}});
  second.memory_mb = 1000;
  j.allocation.push_back(second);
  const std::string text = FormatScontrolJobs({&j}, kT0 + 3, false, {}, /*details=*/true, {{9148, 3}});
  EXPECT_NE(text.find("   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n   DerivedExitCode=3:0\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("CoreSpec=*\n   JOB_GRES=gpu:11\n     Nodes=n1 Mem=2000 GRES=gpu:8(IDX:0-7)\n"
                      "     Nodes=n2 Mem=1000 GRES=gpu:3(IDX:2-3,5)\n   MinCPUsNode="),
            std::string::npos)
      << text;
  EXPECT_EQ(FormatScontrolJobs({&j}, kT0 + 3), FormatScontrolJob(j, kT0 + 3)) << "no detail lines without -d";
  const std::string one = FormatScontrolJobs({&j}, kT0 + 3, true, {}, true, {});
  EXPECT_NE(one.find(" DerivedExitCode=0:0 "), std::string::npos) << one;
  EXPECT_NE(one.find(" JOB_GRES=gpu:11   Nodes=n1 Mem=2000 GRES=gpu:8(IDX:0-7)   Nodes=n2"), std::string::npos) << one;
}

// Restarts= counts the requeues of runs that started: lost launches (runs that never started on
// their node) are left out, though restart_count, the run's number, counts them.
TEST_F(ScontrolFormatTest, RestartsLeaveLostLaunchesOut) {
  JobRecord j = testdata::Job9148();
  j.restart_count = 3;
  j.lost_launches = 1;
  std::string text = FormatScontrolJob(j, kT0 + 3);
  EXPECT_NE(text.find("   Requeue=1 Restarts=2 BatchFlag=1 "), std::string::npos) << text;
  j.lost_launches = 3;
  text = FormatScontrolJob(j, kT0 + 3);
  EXPECT_NE(text.find("   Requeue=1 Restarts=0 BatchFlag=1 "), std::string::npos) << text;
}

TEST_F(ScontrolFormatTest, JobVariants) {
  JobRecord j = testdata::Job9150();
  j.reason = "ReqNodeNotAvail";
  j.reason_detail = "UnavailableNodes:n[3-4]";
  j.request.min_nodes = 2;
  j.request.max_nodes = 4;
  j.request.exclude = {"n7", "n8"};
  j.request.gpus_per_node = 0;
  j.request.gpus_total = 8;
  j.request.gpu_type = "a100";
  j.request.exclusive = true;
  j.requeue = false;
  j.stdout_pattern = "";
  j.stderr_pattern = "logs/%x-%A_%a.err";
  const std::string out = FormatScontrolJob(j, kT0);
  EXPECT_NE(out.find(" Reason=ReqNodeNotAvail,_UnavailableNodes:n[3-4] "), std::string::npos) << out;
  EXPECT_NE(out.find("   Requeue=0 "), std::string::npos);
  EXPECT_NE(out.find("ExcNodeList=n[7-8]\n"), std::string::npos);
  EXPECT_NE(out.find("   NumNodes=2-4 "), std::string::npos);
  EXPECT_NE(out.find("   OverSubscribe=NO "), std::string::npos);
  EXPECT_NE(out.find("   StdErr=/work/logs/waits4gpu-9150_4294967294.err\n"), std::string::npos);
  EXPECT_NE(out.find("   StdOut=/work/slurm-9150.out\n"), std::string::npos);
  EXPECT_NE(out.find("   Power=\n   TresPerJob=gres:gpu:a100:8\n   \n\n"), std::string::npos);
  const std::string one = FormatScontrolJob(testdata::Job9148(), kT0 + 3, /*one_liner=*/true);
  EXPECT_EQ(one.find('\n'), one.size() - 1);
  EXPECT_NE(one.find(" MCS_label=N/A Priority="), std::string::npos);
  EXPECT_EQ(one.substr(one.size() - 25), " TresPerNode=gres:gpu:8 \n");
}

// --mail-type and --mail-user: Slurm's line after the TRES ones, the job's user by default; none
// without a mail type.
TEST_F(ScontrolFormatTest, MailLine) {
  JobRecord j = testdata::Job9150();
  j.options.mail_user = "someone@example.org";
  EXPECT_EQ(FormatScontrolJob(j, kT0).find("MailUser="), std::string::npos);
  j.options.mail_type = kMailEnd | kMailFail;
  std::string out = FormatScontrolJob(j, kT0);
  EXPECT_NE(out.find("   TresPerNode=gres:gpu:4\n   MailUser=someone@example.org MailType=END,FAIL\n"),
            std::string::npos)
      << out;
  j.options.mail_user.clear();
  out = FormatScontrolJob(j, kT0);
  EXPECT_NE(out.find("   MailUser=" + j.user + " MailType=END,FAIL\n"), std::string::npos) << out;
}

// Substituted from the capture: NodeHostName=vm -> n1 (a node's host name is its name).
TEST_F(ScontrolFormatTest, NodeMatchesCapture) {
  NodeRecord n1 = testdata::CapturedNode("n1", kT0);
  n1.agent_address = "127.0.0.1:16821";
  n1.version = "22.05.8";
  n1.boot_time = 1796005566;  // 2026-11-30T02:26:06
  n1.start_time = 1796006993;  // 2026-11-30T02:49:53
  n1.arch = "x86_64";
  n1.os = "Linux 6.18.44-fc-v782 #1 SMP PREEMPT_DYNAMIC @0";
  NodeActivity usage;
  usage.cpus = 5;
  usage.memory_mb = 2500;
  usage.gpus = 8;
  usage.cpu_load = 14.01;
  usage.free_memory_mb = 23411;
  usage.last_busy = kT0;
  // scontrol -d: Slurm's two lines after Gres= (captured from the peer).
  EXPECT_NE(FormatScontrolNode(n1, testdata::CapturedPartitions(), usage, kT0, false, 300, /*details=*/true)
                .find("   Gres=gpu:8\n   GresDrain=N/A\n   GresUsed=gpu:8\n   NodeAddr="),
            std::string::npos);
  EXPECT_EQ(FormatScontrolNode(n1, testdata::CapturedPartitions(), usage, kT0),
            "NodeName=n1 Arch=x86_64 CoresPerSocket=8 \n"
            "   CPUAlloc=5 CPUEfctv=16 CPUTot=16 CPULoad=14.01\n"
            "   AvailableFeatures=(null)\n"
            "   ActiveFeatures=(null)\n"
            "   Gres=gpu:8\n"
            "   NodeAddr=127.0.0.1 NodeHostName=n1 Version=22.05.8\n"
            "   OS=Linux 6.18.44-fc-v782 #1 SMP PREEMPT_DYNAMIC @0 \n"
            "   RealMemory=64000 AllocMem=2500 FreeMem=23411 Sockets=2 Boards=1\n"
            "   State=MIXED ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A\n"
            "   Partitions=gpu,debug \n"
            "   BootTime=2026-11-30T02:26:06 SlurmdStartTime=2026-11-30T02:49:53\n"
            "   LastBusyTime=2026-11-30T03:12:59\n"
            "   CfgTRES=cpu=16,mem=62.50G,billing=16,gres/gpu=8\n"
            "   AllocTRES=cpu=5,mem=2500M,gres/gpu=8\n"
            "   CapWatts=n/a\n"
            "   CurrentWatts=0 AveWatts=0\n"
            "   ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s\n"
            "\n");
}

TEST_F(ScontrolFormatTest, NodeUnsetValuesAndReason) {
  NodeRecord n = testdata::CapturedNode("gpu-017", kT0 - 3600);  // silent for an hour
  n.node.drain = true;
  n.node.reason = "ECC errors";
  n.node.features = {"h100", "nvlink"};
  for (Gpu& g : n.node.gpus) g.model = "h100";
  const std::string out = FormatScontrolNode(n, {}, NodeActivity(), kT0);
  EXPECT_EQ(out,
            "NodeName=gpu-017 CoresPerSocket=8 \n"
            "   CPUAlloc=0 CPUEfctv=16 CPUTot=16 CPULoad=N/A\n"
            "   AvailableFeatures=h100,nvlink\n"
            "   ActiveFeatures=h100,nvlink\n"
            "   Gres=gpu:h100:8\n"
            "   NodeAddr=gpu-017 NodeHostName=gpu-017 Version=(null)\n"
            "   RealMemory=64000 AllocMem=0 FreeMem=N/A Sockets=2 Boards=1\n"
            "   State=IDLE+DRAIN+NOT_RESPONDING ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A\n"
            "   BootTime=None SlurmdStartTime=None\n"
            "   LastBusyTime=Unknown\n"
            "   CfgTRES=cpu=16,mem=62.50G,billing=16,gres/gpu=8\n"
            "   AllocTRES=\n"
            "   CapWatts=n/a\n"
            "   CurrentWatts=0 AveWatts=0\n"
            "   ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s\n"
            "   Reason=ECC errors\n"
            "\n");
}

// Verbatim from the capture (MinNodes=0: no minimum, Slurm's default).
TEST_F(ScontrolFormatTest, PartitionsMatchCapture) {
  const std::vector<NodeRecord> nodes = testdata::CapturedNodes(kT0);
  std::string out;
  for (const Partition& p : testdata::CapturedPartitions()) out += FormatScontrolPartition(p, nodes);
  EXPECT_EQ(out,
            "PartitionName=gpu\n"
            "   AllowGroups=ALL AllowAccounts=ALL AllowQos=ALL\n"
            "   AllocNodes=ALL Default=YES QoS=N/A\n"
            "   DefaultTime=NONE DisableRootJobs=NO ExclusiveUser=NO GraceTime=0 Hidden=NO\n"
            "   MaxNodes=UNLIMITED MaxTime=UNLIMITED MinNodes=0 LLN=NO MaxCPUsPerNode=UNLIMITED\n"
            "   Nodes=n[1-4]\n"
            "   PriorityJobFactor=1 PriorityTier=1 RootOnly=NO ReqResv=NO OverSubscribe=NO\n"
            "   OverTimeLimit=NONE PreemptMode=OFF\n"
            "   State=UP TotalCPUs=64 TotalNodes=4 SelectTypeParameters=NONE\n"
            "   JobDefaults=(null)\n"
            "   DefMemPerNode=UNLIMITED MaxMemPerNode=UNLIMITED\n"
            "   TRES=cpu=64,mem=250G,node=4,billing=64,gres/gpu=32\n"
            "\n"
            "PartitionName=debug\n"
            "   AllowGroups=ALL AllowAccounts=ALL AllowQos=ALL\n"
            "   AllocNodes=ALL Default=NO QoS=N/A\n"
            "   DefaultTime=NONE DisableRootJobs=NO ExclusiveUser=NO GraceTime=0 Hidden=NO\n"
            "   MaxNodes=UNLIMITED MaxTime=00:30:00 MinNodes=0 LLN=NO MaxCPUsPerNode=UNLIMITED\n"
            "   Nodes=n1\n"
            "   PriorityJobFactor=1 PriorityTier=1 RootOnly=NO ReqResv=NO OverSubscribe=NO\n"
            "   OverTimeLimit=NONE PreemptMode=OFF\n"
            "   State=UP TotalCPUs=16 TotalNodes=1 SelectTypeParameters=NONE\n"
            "   JobDefaults=(null)\n"
            "   DefMemPerNode=UNLIMITED MaxMemPerNode=UNLIMITED\n"
            "   TRES=cpu=16,mem=62.50G,node=1,billing=16,gres/gpu=8\n"
            "\n");
}

TEST_F(ScontrolFormatTest, PartitionSettings) {
  Partition p;
  p.name = "short";
  p.nodes = {"n2", "n3"};
  p.up = false;
  p.max_nodes = 2;
  p.default_time_s = 3600;
  p.max_time_s = 86400 + 7200;
  p.priority_tier = 5;
  p.def_mem_per_cpu_mb = 2048;
  const std::string out = FormatScontrolPartition(p, testdata::CapturedNodes(kT0));
  EXPECT_NE(out.find("   DefaultTime=01:00:00 "), std::string::npos) << out;
  EXPECT_NE(out.find("   MaxNodes=2 MaxTime=1-02:00:00 "), std::string::npos);
  EXPECT_NE(out.find(" PriorityTier=5 "), std::string::npos);
  EXPECT_NE(out.find("   State=DOWN TotalCPUs=32 TotalNodes=2 "), std::string::npos);
  EXPECT_NE(out.find("   DefMemPerCPU=2048 MaxMemPerNode=UNLIMITED\n"), std::string::npos);
  EXPECT_NE(out.find("   TRES=cpu=32,mem=125G,node=2,billing=32,gres/gpu=16\n\n"), std::string::npos);
}

// partition_info.c: AllowGroups always; DenyAccounts/DenyQos in place of the Allow form when only
// the Deny list is set.
TEST_F(ScontrolFormatTest, PartitionAccessLists) {
  Partition p;
  p.name = "gpu";
  p.nodes = {"n1"};
  p.access.allow_groups = {"gpu", "staff"};
  p.access.allow_accounts = {"physics"};
  p.access.deny_qos = {"low", "scavenger"};
  const std::vector<NodeRecord> nodes = testdata::CapturedNodes(kT0);
  EXPECT_NE(FormatScontrolPartition(p, nodes).find("\n   AllowGroups=gpu,staff AllowAccounts=physics DenyQos=low,scavenger\n"),
            std::string::npos)
      << FormatScontrolPartition(p, nodes);
  p.access = PartitionAccess{};
  p.access.deny_accounts = {"guests"};
  p.access.allow_qos = {"high"};
  EXPECT_NE(FormatScontrolPartition(p, nodes, /*one_liner=*/true).find(" AllowGroups=ALL DenyAccounts=guests AllowQos=high "),
            std::string::npos)
      << FormatScontrolPartition(p, nodes, true);
}

}  // namespace
}  // namespace muster
