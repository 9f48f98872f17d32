// Integration tests: a real local cluster (musterctld + musterd processes talking over Unix
// sockets, a SQLite file, real child processes and cgroups) driven through the real commands,
// with assertions on what a user sees. Label "integration" in CTest.
#include "local_cluster_test_util.h"
#include "fake_nvml_cluster_test_util.h"

#include <dlfcn.h>

#include <algorithm>
#include <map>

#include <boost/json.hpp>

#include "base/json_test_util.h"
#include <sstream>

namespace test_json = muster::test_json;

namespace {

using namespace muster_test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

using LocalCluster = LocalClusterTest;

TEST_F(LocalCluster, BatchJobRunsToCompletionWithSlurmEnvironmentAndOutputFile) {
  const int64_t id = Submit("-J envjob --gres=gpu:2 -o out-%j.txt --wrap 'env; echo done'");
  ASSERT_TRUE(WaitState(id, "COMPLETED")) << State(id);
  const std::string out = ReadFile((work_ / ("out-" + std::to_string(id) + ".txt")).string());
  const std::string sid = std::to_string(id);
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  for (const std::string& line :
       {"SLURM_JOB_ID=" + sid, std::string("SLURM_JOB_NAME=envjob"), std::string("SLURM_JOB_NUM_NODES=1"),
        std::string("SLURM_NNODES=1"), std::string("SLURM_JOB_PARTITION=gpu"), std::string("CUDA_VISIBLE_DEVICES=0,1"),
        std::string("SLURM_GPUS_ON_NODE=2"), "SLURM_SUBMIT_DIR=" + work_.string(), std::string("SLURMD_NODENAME=node1"),
        std::string("SLURM_JOB_NODELIST=node1"), "SLURM_SUBMIT_HOST=" + std::string(host), std::string("done")}) {
    EXPECT_NE(out.find(line + "\n"), std::string::npos) << "missing '" << line << "' in:\n" << out;
  }
  // The default output name, and a failing job's exit code.
  const int64_t bad = Submit("--wrap 'echo oops; exit 3'");
  ASSERT_TRUE(WaitState(bad, "FAILED")) << State(bad);
  EXPECT_EQ(ReadFile((work_ / ("slurm-" + std::to_string(bad) + ".out")).string()), "oops\n");
  const std::string shown = Run("scontrol show job " + std::to_string(bad)).out;
  EXPECT_NE(shown.find("ExitCode=3:0"), std::string::npos) << shown;
  EXPECT_NE(shown.find(" BatchFlag=1 "), std::string::npos) << shown;
  EXPECT_NE(shown.find("   StdOut=" + (work_ / ("slurm-" + std::to_string(bad) + ".out")).string() + "\n"),
            std::string::npos) << shown;
  // -o: one line per job; an unknown id is Slurm's error.
  const std::string both = Run("scontrol -o show job").out;
  EXPECT_EQ(std::count(both.begin(), both.end(), '\n'), 2) << both;
  Result missing = Run("scontrol show job 999999");
  EXPECT_NE(missing.rc, 0);
  EXPECT_NE(missing.out.find("Invalid job id specified"), std::string::npos) << missing.out;
  // The daemons' logs name the job and the node on each line about them.
  const std::string ctld_log = ReadFile((dir_ / "c" / "log" / "musterctld.log").string());
  EXPECT_NE(ctld_log.find("Z musterctld info: JobId=" + sid + ": started on node1 (run 0)\n"), std::string::npos) << ctld_log;
  EXPECT_NE(ctld_log.find("Z musterctld info: JobId=" + std::to_string(bad) + ": ended: FAILED, exit 3:0\n"),
            std::string::npos) << ctld_log;
  EXPECT_NE(ctld_log.find("Z musterctld info: NodeName=node1: registered ("), std::string::npos) << ctld_log;
  const std::string agent_log = ReadFile((dir_ / "c" / "log" / "musterd-node1.log").string());
  EXPECT_NE(agent_log.find("Z musterd[node1] info: JobId=" + std::to_string(bad) + ": run 0 ended, exit 3:0\n"),
            std::string::npos) << agent_log;
}

TEST_F(LocalCluster, JobsRunAsTheSubmittingUser) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to switch users";
  Result r = RunAs("nobody", "sbatch --parsable --wrap id");
  ASSERT_EQ(r.rc, 0) << r.out;
  const int64_t id = std::atoll(r.out.c_str());
  ASSERT_TRUE(WaitState(id, "COMPLETED")) << State(id);
  const std::string out = ReadFile((work_ / ("slurm-" + std::to_string(id) + ".out")).string());
  EXPECT_NE(out.find("uid=65534(nobody)"), std::string::npos) << out;
  EXPECT_NE(Run("squeue -h -t all -o '%i %u'").out.find(std::to_string(id) + " nobody"), std::string::npos);
  // The commands make no user-database lookups: --me is the caller's uid, and -u names are
  // checked by the controller.
  const std::string line = std::to_string(id) + "\n";
  EXPECT_EQ(RunAs("nobody", "squeue -h -t all --me -o %i").out, line);
  EXPECT_EQ(Run("squeue -h -t all -u nobody -o %i").out, line);
  EXPECT_EQ(Run("squeue -h -t all --me -o %i").out, "");
  EXPECT_NE(Run("squeue --json -t all -u nobody").out.find("\"id\": " + std::to_string(id) + ","), std::string::npos);
  for (const char* cmd : {"squeue -u nosuchuser", "squeue --json -u nosuchuser"}) {
    Result bad = Run(cmd);
    EXPECT_EQ(bad.rc, 1) << cmd;
    EXPECT_EQ(bad.out, "squeue: error: Invalid user: nosuchuser\n") << cmd;
  }
}

TEST_F(LocalCluster, SqueueAndSinfoShowWhatRunsAndWhy) {
  const int64_t a = Submit("-N 2 --gres=gpu:4 --wrap 'sleep 30'");
  ASSERT_TRUE(WaitState(a, "RUNNING"));
  const int64_t b = Submit("--gres=gpu:1 --wrap true");
  ASSERT_TRUE(WaitFor([&] { return Run("squeue -h -j " + std::to_string(b) + " -o %R").out == "(Resources)\n"; }, 5s));
  Result q = Run("squeue");
  EXPECT_NE(q.out.find("             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n"),
            std::string::npos)
      << q.out;
  EXPECT_NE(q.out.find("R       0:0"), std::string::npos) << q.out;
  EXPECT_NE(q.out.find("node[1-2]"), std::string::npos) << q.out;
  Result s = Run("sinfo");
  EXPECT_NE(s.out.find("PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("gpu*         up   infinite      2"), std::string::npos) << s.out;
  Result bad = Run("squeue -j 999999");
  EXPECT_EQ(bad.rc, 1);
  EXPECT_EQ(bad.out, "slurm_load_jobs error: Invalid job id specified\n");
  EXPECT_EQ(Run("scancel " + std::to_string(a)).rc, 0);
  ASSERT_TRUE(WaitState(b, "COMPLETED"));
}

TEST_F(LocalCluster, SubmissionErrorsAreSlurms) {
  Result r = Run("sbatch --gres=gpu:9 --wrap true");
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out, "sbatch: error: Batch job submission failed: Requested node configuration is not available\n");
  r = Run("sbatch --mem=999999 --wrap true");
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out,
            "sbatch: error: Memory specification can not be satisfied\n"
            "sbatch: error: Batch job submission failed: Requested node configuration is not available\n");
  r = Run("salloc --mem=999999 true");
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out,
            "salloc: error: Memory specification can not be satisfied\n"
            "salloc: error: Job submit/allocate failed: Requested node configuration is not available\n");
  r = Run("sbatch -p nosuch --wrap true");
  EXPECT_EQ(r.rc, 1);
  EXPECT_NE(r.out.find("Invalid partition name specified"), std::string::npos) << r.out;
  r = Run("sbatch --bogus --wrap true");
  EXPECT_EQ(r.rc, 255);
  EXPECT_EQ(r.out, "sbatch: unrecognized option '--bogus'\nTry \"sbatch --help\" for more information\n");
  EXPECT_EQ(Trim(Run("squeue -h -t all | wc -l").out), "0");  // nothing half-accepted
}

TEST_F(LocalCluster, CancelEndsEveryProcessOfTheJob) {
  const int64_t id = Submit("--wrap 'sleep 300 & echo $! > child.pid; sleep 300'");
  ASSERT_TRUE(WaitState(id, "RUNNING"));
  ASSERT_TRUE(WaitFor([&] { return fs::exists(work_ / "child.pid"); }, 5s));
  const pid_t child = std::atoi(ReadFile((work_ / "child.pid").string()).c_str());
  ASSERT_GT(child, 0);
  EXPECT_EQ(kill(child, 0), 0);
  Result r = Run("scancel " + std::to_string(id));
  EXPECT_EQ(r.rc, 0) << r.out;
  ASSERT_TRUE(WaitState(id, "CANCELLED")) << State(id);
  // The background child of the script is gone too (cgroup / process group cleanup).
  EXPECT_TRUE(WaitFor([&] { return Dead(child); }, 5s));
}

TEST_F(LocalCluster, ScancelByUserOrNameCancelsEveryMatchingJob) {
  // Held, so none of them ends on its own meanwhile.
  std::vector<int64_t> a, b;
  for (int i = 0; i < 3; ++i) a.push_back(Submit("-H -J alpha --wrap true"));
  for (int i = 0; i < 2; ++i) b.push_back(Submit("-H -J beta --wrap true"));
  // -n with an id: only the jobs matching both.
  EXPECT_EQ(Run("scancel -n alpha " + std::to_string(b[0]) + "," + std::to_string(a[2])).rc, 0);
  EXPECT_EQ(State(a[2]), "CANCELLED");
  EXPECT_EQ(State(b[0]), "PENDING");
  EXPECT_EQ(State(a[0]), "PENDING");
  EXPECT_EQ(Run("scancel -n alpha").rc, 0);
  EXPECT_EQ(State(a[0]), "CANCELLED");
  EXPECT_EQ(State(a[1]), "CANCELLED");
  EXPECT_EQ(State(b[1]), "PENDING");
  Result r = Run("scancel -u $(id -un)");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(State(b[0]), "CANCELLED");
  EXPECT_EQ(State(b[1]), "CANCELLED");
  EXPECT_EQ(Trim(Run("squeue -h | wc -l").out), "0");
}

TEST_F(LocalCluster, MemoryLimitKillIsOutOfMemory) {
  if (geteuid() != 0) GTEST_SKIP() << "cgroups need root";
  const int64_t id = Submit("--mem=64M --wrap 'python3 -c \"a = bytearray(300 * 1024 * 1024)\"'");
  ASSERT_TRUE(WaitState(id, "OUT_OF_MEMORY", 20s)) << State(id);
}

TEST_F(LocalCluster, AnotherUserCannotCancelOrDrain) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to switch users";
  const int64_t id = Submit("--wrap 'sleep 60'");
  ASSERT_TRUE(WaitState(id, "RUNNING"));
  Result r = RunAs("nobody", "scancel " + std::to_string(id));
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out, "scancel: error: Kill job error on job id " + std::to_string(id) + ": Access/permission denied\n");
  EXPECT_EQ(State(id), "RUNNING");
  r = RunAs("nobody", "scontrol update NodeName=node1 State=DRAIN Reason=x");
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out, "slurm_update error: Access/permission denied\n");
  EXPECT_EQ(Run("scancel " + std::to_string(id)).rc, 0);
}

TEST_F(LocalCluster, DrainedNodeGetsNoNewWork) {
  ASSERT_EQ(Run("scontrol update NodeName=node1 State=DRAIN Reason=maintenance").rc, 0);
  EXPECT_NE(Run("sinfo -N -l").out.find("drained"), std::string::npos);
  const int64_t a = Submit("--gres=gpu:4 --wrap 'sleep 30'");
  ASSERT_TRUE(WaitState(a, "RUNNING"));
  EXPECT_EQ(Trim(Run("squeue -h -j " + std::to_string(a) + " -o %N").out), "node2");
  const int64_t b = Submit("--gres=gpu:4 --wrap true");
  // A pass has looked at it (a reason set) and kept it waiting: node1 is drained, node2 is full.
  const std::string b_id = std::to_string(b);
  EXPECT_TRUE(WaitFor([&] { return Trim(Run("squeue -h -j " + b_id + " -o %T:%r").out) == "PENDING:Resources"; }, 10s))
      << Run("squeue -h -j " + b_id + " -o %T:%r").out;
  ASSERT_EQ(Run("scontrol update NodeName=node1 State=RESUME").rc, 0);
  ASSERT_TRUE(WaitState(b, "COMPLETED"));
  EXPECT_EQ(Run("scancel " + std::to_string(a)).rc, 0);
}

TEST_F(LocalCluster, ControllerKilledWithJobsPendingAndRunningLosesNothing) {
  const int64_t run = Submit("--gres=gpu:4 -N 2 --wrap 'sleep 3; echo finished'");
  ASSERT_TRUE(WaitState(run, "RUNNING"));
  const int64_t wait = Submit("--gres=gpu:4 --wrap 'echo second'");
  ASSERT_EQ(kill(std::atoi(Pid("musterctld").c_str()), SIGKILL), 0);
  EXPECT_TRUE(WaitFor([&] { return Run("squeue").rc != 0; }, 10s));  // it is really gone
  Result restart = Sh("setsid " + BinDir() + "/musterctld --conf " + (dir_ / "c/muster.yaml").string() +
                      " >> " + (dir_ / "c/log/musterctld.log").string() + " 2>&1 & echo $! > " +
                      (dir_ / "c/musterctld.pid").string());
  ASSERT_EQ(restart.rc, 0);
  ASSERT_TRUE(WaitFor([&] { return Run("squeue").rc == 0; }, 5s));
  EXPECT_EQ(State(run), "RUNNING");
  ASSERT_TRUE(WaitState(run, "COMPLETED", 20s)) << State(run);
  EXPECT_EQ(ReadFile((work_ / ("slurm-" + std::to_string(run) + ".out")).string()), "finished\n");
  ASSERT_TRUE(WaitState(wait, "COMPLETED", 20s)) << State(wait);
}

// Preemption with real processes: a high-QOS job has a running normal job stopped (SIGTERM,
// which the job sees), requeued and run again after it.
TEST_F(LocalCluster, HighQosPreemptsAndTheVictimIsRequeued) {
  // The controller restarts with QOS configured (what runs and waits is kept).
  ASSERT_TRUE(RestartControllerWith("qos:\n  - {name: high, priority: 100, preempt: [normal]}\n"
                                    "preemption: {grace_time: 5}\n"))
      << Run("sinfo").out;
  const int64_t victim = Submit(
      "-N 2 --gres=gpu:4 -o victim.out --wrap 'trap \"echo term $SLURM_RESTART_COUNT; exit 1\" TERM; "
      "echo run ${SLURM_RESTART_COUNT:-0}; [ -n \"$SLURM_RESTART_COUNT\" ] && exit 0; sleep 300 & wait'");
  ASSERT_TRUE(WaitState(victim, "RUNNING"));
  ASSERT_TRUE(WaitFor([&] { return ReadFile((work_ / "victim.out").string()).find("run 0") != std::string::npos; }, 10s));
  EXPECT_NE(Run("sbatch -q gold --wrap true").out.find("Invalid qos specification"), std::string::npos);
  const int64_t urgent = Submit("-q high --gres=gpu:2 -o urgent.out --wrap 'echo urgent $SLURM_JOB_QOS'");
  ASSERT_TRUE(WaitState(urgent, "COMPLETED", 20s)) << State(urgent) << Run("squeue").out;
  EXPECT_EQ(ReadFile((work_ / "urgent.out").string()), "urgent high\n");
  // The victim saw SIGTERM, went back to the queue, and ran again (and ended) after the urgent job.
  ASSERT_TRUE(WaitState(victim, "COMPLETED", 20s)) << State(victim);
  const std::string out = ReadFile((work_ / "victim.out").string());
  EXPECT_NE(out.find("term"), std::string::npos) << out;
  EXPECT_NE(out.find("run 1"), std::string::npos) << out;
  const std::string show = Run("scontrol show job " + std::to_string(victim)).out;
  EXPECT_NE(show.find("Restarts=1"), std::string::npos) << show;
  EXPECT_NE(show.find("PreemptTime="), std::string::npos) << show;
  EXPECT_NE(Run("squeue -h -t all -o '%i %q' -j " + std::to_string(urgent)).out.find(std::to_string(urgent) + " high"),
            std::string::npos);
}

// SUSPEND: the victim's processes stop (the cgroup freezer) while its preemptor runs on its CPUs,
// then go on where they stood; squeue shows S meanwhile.
TEST_F(LocalCluster, SuspendModeStopsTheVictimUntilItsPreemptorIsDone) {
  ASSERT_TRUE(RestartControllerWith("qos:\n  - {name: high, priority: 100, preempt: [normal]}\n"
                                    "  - {name: normal, preempt_mode: suspend}\n"))
      << Run("sinfo").out;
  const std::string node = Run("scontrol show node node1").out;
  const size_t at_cpus = node.find("CPUTot=");
  ASSERT_NE(at_cpus, std::string::npos) << node;
  const std::string cpus = std::to_string(std::atoi(node.c_str() + at_cpus + 7));
  ASSERT_GT(std::atoi(cpus.c_str()), 0) << node;
  // Every CPU of node1, ticking 40 times, 0.1 s apart.
  const int64_t victim = Submit("-w node1 -c " + cpus + " -o victim.out --wrap "
                                "'for i in $(seq 1 40); do echo $i > ticks; sleep 0.1; done; echo done'");
  ASSERT_TRUE(WaitState(victim, "RUNNING"));
  ASSERT_TRUE(WaitFor([&] { return !ReadFile((work_ / "ticks").string()).empty(); }, 10s));
  const int64_t urgent = Submit("-q high -w node1 -o urgent.out --wrap 'sleep 2; echo urgent'");
  ASSERT_TRUE(WaitState(victim, "SUSPENDED")) << State(victim) << Run("squeue").out;
  EXPECT_EQ(Trim(Run("squeue -h -j " + std::to_string(victim) + " -o %t").out), "S");
  ASSERT_TRUE(WaitState(urgent, "RUNNING")) << State(urgent);
  // Stopped: no tick for a second while the urgent job runs.
  const std::string at = ReadFile((work_ / "ticks").string());
  std::this_thread::sleep_for(1s);
  EXPECT_EQ(ReadFile((work_ / "ticks").string()), at);
  EXPECT_EQ(State(victim), "SUSPENDED");
  // The urgent job ends; the victim goes on from where it stood and finishes.
  ASSERT_TRUE(WaitState(urgent, "COMPLETED", 20s)) << State(urgent);
  ASSERT_TRUE(WaitState(victim, "COMPLETED", 20s)) << State(victim);
  EXPECT_EQ(ReadFile((work_ / "victim.out").string()), "done\n");
  EXPECT_EQ(ReadFile((work_ / "ticks").string()), "40\n");
  const std::string show = Run("scontrol show job " + std::to_string(victim)).out;
  EXPECT_NE(show.find("PreemptTime="), std::string::npos) << show;
  EXPECT_NE(show.find("Restarts=0"), std::string::npos) << show;
}

TEST_F(LocalCluster, SacctmgrAddsAccountsAndQosAndShowsThem) {
  Result add = Run("sacctmgr -i add account vision Quota=gres/gpu=4 OverQuotaWeight=2 GrpTRES=gres/gpu=6 MaxJobs=1");
  ASSERT_EQ(add.rc, 0) << add.out;
  EXPECT_NE(add.out.find(" Adding Account(s)\n  vision\n"), std::string::npos) << add.out;
  ASSERT_EQ(Run("sacctmgr -i add qos high Priority=100 Preempt=normal MaxTRESPerUser=gres/gpu=8").rc, 0);
  ASSERT_EQ(Run("sacctmgr modify account where name=vision set MaxWall=1:00:00").rc, 0);
  Result show = Run("sacctmgr show account -P -n");
  EXPECT_EQ(show.out, "vision|root|1|gres/gpu=4|2|gres/gpu=6|1|01:00:00|\n") << show.out;
  Result qos = Run("sacctmgr show qos -P");
  EXPECT_NE(qos.out.find("high|100||normal||cluster||||gres/gpu=8|\n"), std::string::npos) << qos.out;
  EXPECT_NE(qos.out.find("normal|0|"), std::string::npos) << qos.out;
  // Only an admin changes them; a user may look.
  Result denied = RunAs("nobody", "sacctmgr add account mine");
  EXPECT_NE(denied.rc, 0);
  EXPECT_NE(denied.out.find("sacctmgr: error: Access/permission denied"), std::string::npos) << denied.out;
  EXPECT_EQ(RunAs("nobody", "sacctmgr show qos -n -P").rc, 0);
  // In force: the account's MaxJobs=1 holds its second job.
  const int64_t first = Submit("-A vision --wrap 'sleep 2'");
  const int64_t second = Submit("-A vision --wrap true");
  ASSERT_TRUE(WaitState(first, "RUNNING"));
  EXPECT_TRUE(WaitFor([&] {
    return Run("squeue -h -o %r -j " + std::to_string(second)).out.find("AssocMaxJobsLimit") != std::string::npos;
  }, 5s)) << Run("squeue").out;
  EXPECT_EQ(Run("sacctmgr add qos bad Preempt=gold").out.find("sacctmgr: error: QOS 'bad': preempt names unknown QOS 'gold'"),
            0u);
  ASSERT_TRUE(WaitState(second, "COMPLETED", 20s));
}

TEST_F(LocalCluster, KilledAgentMeansNodeDownAndJobRequeued) {
  const int64_t id = Submit("-w node2 --wrap 'echo $$ > run${SLURM_RESTART_COUNT:-0}.pid; sleep 300'");
  ASSERT_TRUE(WaitState(id, "RUNNING"));
  ASSERT_TRUE(WaitFor([&] { return !ReadFile((work_ / "run0.pid").string()).empty(); }, 10s));  // really started
  const pid_t first_run = std::atoi(ReadFile((work_ / "run0.pid").string()).c_str());
  // The controller has the agent's answer to the launch (until then a signal is refused as Slurm's
  // transitional state), so it knows the run started and a requeue counts as a restart. An agent
  // killed before it answers leaves the start unknown: the requeue is a lost launch, Restarts=0.
  ASSERT_TRUE(WaitFor([&] { return Run("scancel -s CONT " + std::to_string(id)).rc == 0; }, 10s));
  ASSERT_EQ(kill(std::atoi(Pid("musterd-node2").c_str()), SIGKILL), 0);
  ASSERT_TRUE(WaitFor([&] { return Run("sinfo -h -N -o '%N %t'").out.find("node2 down") != std::string::npos; }, 20s))
      << Run("sinfo -N").out;
  ASSERT_TRUE(WaitState(id, "PENDING", 30s)) << State(id);
  // The first run was ended by its shepherd when the node's lease ran out, before the controller
  // gave the job up: it never runs twice.
  EXPECT_TRUE(Dead(first_run)) << "pid " << first_run;
  // Why it waits: said by the next scheduling pass after the requeue.
  EXPECT_TRUE(WaitFor([&] {
    return Run("squeue -h -j " + std::to_string(id) + " -o %R").out.find("ReqNodeNotAvail") != std::string::npos;
  }, 10s)) << Run("squeue -h -j " + std::to_string(id) + " -o %R").out;
  // The agent comes back: the job runs again, counted as a restart.
  Result restart = Sh("setsid " + BinDir() + "/musterd --conf " + (dir_ / "c/muster.yaml").string() +
                      " --node node2 --end-jobs-on-stop >> " + (dir_ / "c/log/musterd-node2.log").string() +
                      " 2>&1 & echo $! > " + (dir_ / "c/musterd-node2.pid").string());
  ASSERT_EQ(restart.rc, 0);
  ASSERT_TRUE(WaitState(id, "RUNNING", 20s)) << State(id);
  EXPECT_NE(Run("scontrol show job " + std::to_string(id)).out.find("Restarts=1"), std::string::npos);
  EXPECT_EQ(Run("scancel " + std::to_string(id)).rc, 0);
}

}  // namespace

namespace {

using namespace muster_test;
using namespace std::chrono_literals;
using LocalCluster = LocalClusterTest;

TEST_F(LocalCluster, FairShareRanksTheUserWhoUsedLessFirst) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to submit as another user";
  const int64_t busy = Submit("-N 2 --gres=gpu:4 --wrap 'sleep 3'");
  ASSERT_TRUE(WaitState(busy, "RUNNING"));
  // Root queues first, nobody second. Root's running job is charged every second, so root's fair
  // share (and the priority of its queued job) drops below nobody's.
  auto priority = [&](int64_t id) {  // as squeue shows it (%Q); -1 when not listed
    std::string out = Run("squeue -h -t all -o %Q -j " + std::to_string(id)).out;
    return out.empty() ? int64_t{-1} : int64_t{std::atoll(out.c_str())};
  };
  const int64_t mine = Submit("-N 2 --gres=gpu:4 --wrap 'sleep 1'");
  Result r = RunAs("nobody", "sbatch --parsable -N 2 --gres=gpu:4 --wrap \"sleep 1\"");  // RunAs quotes with ''
  ASSERT_EQ(r.rc, 0) << r.out;
  const int64_t theirs = std::atoll(r.out.c_str());
  ASSERT_TRUE(WaitFor([&] { return priority(theirs) > priority(mine); }, 5s))
      << Run("sprio -l").out << Run("sshare -a -l").out;
  Result sprio = Run("sprio -u nobody");
  EXPECT_NE(sprio.out.find("JOBID PARTITION     USER   PRIORITY       SITE        AGE  FAIRSHARE"), std::string::npos)
      << sprio.out;
  EXPECT_NE(sprio.out.find(std::to_string(theirs) + " gpu         nobody"), std::string::npos) << sprio.out;
  EXPECT_EQ(sprio.out.find(" root "), std::string::npos) << sprio.out;
  // When the GPUs free up, nobody's job starts first although it was submitted later.
  ASSERT_TRUE(WaitFor([&] { return State(theirs) != "PENDING"; }, 10s));
  EXPECT_EQ(State(mine), "PENDING") << Run("scontrol show job " + std::to_string(theirs)).out;
  ASSERT_TRUE(WaitState(mine, "COMPLETED"));
  // sshare: root used 8 GPUs for ~3 s (and then 1 s more), nobody 8 GPUs for ~1 s.
  Result share = Run("sshare -a -P -n");
  ASSERT_EQ(share.rc, 0) << share.out;
  std::map<std::string, double> usage;
  std::istringstream lines(share.out);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string x; std::getline(fields, x, '|');) f.push_back(x);
    if (f.size() >= 5 && !f[1].empty()) usage[f[1]] = std::atof(f[4].c_str());
  }
  EXPECT_GE(usage["root"], 24) << share.out;
  EXPECT_GE(usage["nobody"], 4) << share.out;
  EXPECT_LT(usage["nobody"], usage["root"]) << share.out;
  // Without -a, a user sees its own associations only.
  Result own = RunAs("nobody", "sshare -n -P");
  EXPECT_NE(own.out.find("|nobody|"), std::string::npos) << own.out;
  EXPECT_EQ(own.out.find("|root|"), std::string::npos) << own.out;
}

// `muster up --gpus nvml` on a host with no NVIDIA driver: the agent's error, at once, and nothing
// left running.
TEST(MusterUp, NvmlWithoutADriverSaysSoAndLeavesNothingRunning) {
  if (void* nvml = dlopen("libnvidia-ml.so.1", RTLD_LAZY)) {
    dlclose(nvml);
    GTEST_SKIP() << "this host has NVML";
  }
  const fs::path dir = fs::temp_directory_path() / ("muster_nvml_" + std::to_string(getpid()));
  fs::remove_all(dir);
  Result up = Sh("PATH=" + BinDir() + ":$PATH muster up --gpus nvml --dir " + dir.string());
  EXPECT_EQ(up.rc, 1) << up.out;
  EXPECT_NE(up.out.find("muster up: musterd for node1 exited: musterd[node1] error: NVML: cannot load libnvidia-ml.so.1"),
            std::string::npos)
      << up.out;
  EXPECT_NE(ReadFile((dir / "muster.yaml").string()).find("gpus: nvml"), std::string::npos);
  for (const auto& e : fs::directory_iterator(dir)) EXPECT_NE(e.path().extension(), ".pid") << e.path();
  // The controller it had started is gone (stopped by pid, from its pid file).
  EXPECT_EQ(Sh("PATH=" + BinDir() + ":$PATH MUSTER_CONF=" + (dir / "muster.yaml").string() +
               " squeue")
                .rc,
            1);
  fs::remove_all(dir);
}

}  // namespace

namespace {

// GPU feature discovery on real daemons: NVML's facts become node features, which sinfo and
// scontrol show and --constraint selects on.
TEST_F(FakeNvmlCluster, NvmlFeaturesAreNodeFeaturesThatConstraintsSelect) {
  Result up = Sh(env_ + "muster up --gpus nvml --nvml-library " + Library() + " --nodes 2 --dir " + (dir_ / "c").string());
  ASSERT_EQ(up.rc, 0) << up.out;
  EXPECT_NE(up.out.find("with this host's GPUs (NVML)"), std::string::npos) << up.out;
  Result sinfo = Sh(env_ + "sinfo -h -o '%N %G %f'");
  EXPECT_EQ(Trim(sinfo.out), "node[1-2] gpu:h100:4 cc_9.0,cuda_13.0,driver_580,gpumem_80g,h100") << sinfo.out;
  Result show = Sh(env_ + "scontrol show node node2");
  EXPECT_NE(show.out.find("AvailableFeatures=cc_9.0,cuda_13.0,driver_580,gpumem_80g,h100"), std::string::npos) << show.out;
  Result ok = Sh("export " + env_ + "; cd " + dir_.string() + " && sbatch --parsable -C 'cc_9.0&gpumem_80g' --gres=gpu:4 -o " +
                 (dir_ / "out.%j").string() + " --wrap 'echo $SLURM_JOB_GPUS'");
  ASSERT_EQ(ok.rc, 0) << ok.out;
  const std::string id = Trim(ok.out);
  EXPECT_TRUE(WaitFor([&] { return Trim(ReadFile((dir_ / ("out." + id)).string())) == "0,1,2,3"; }, 15s))
      << "a job holding all 4 GPUs (fenced with cgroups as root) runs: " << ReadFile((dir_ / ("out." + id)).string());
  Result bad = Sh(env_ + "sbatch -C cc_8.0 --wrap true");
  EXPECT_NE(bad.rc, 0);
  EXPECT_NE(bad.out.find("Invalid feature specification"), std::string::npos) << bad.out;
}

// tools/gpu-check.sh, run on the fake backend with a fake nvidia-smi: every check runs and passes
// (this checks the script and the paths it drives; on a real GPU host it checks the GPUs).
TEST_F(FakeNvmlCluster, GpuCheckScriptRunsEveryCheck) {
  if (getuid() != 0) GTEST_SKIP() << "gpu-check.sh runs as root";
  Result r = Sh(env_ + std::string(MUSTER_SOURCE_DIR) + "/tools/gpu-check.sh --bin " + BinDir() + " --nvml-library " +
                Library());
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("gpu-check: 12 passed, 0 failed, 0 skipped"), std::string::npos) << r.out;
  for (const char* check : {"PASS  discovery UUIDs", "PASS  cuda: 4 1-GPU jobs covered every GPU once",
                            "PASS  full node: a job holding all 4 GPUs sees 4", "PASS  fencing: a GPU-less job sees none",
                            "PASS  fencing: a 1-GPU step inside a 2-GPU job sees 1", "PASS  environment"}) {
    EXPECT_NE(r.out.find(check), std::string::npos) << check << "\n" << r.out;
  }
}

}  // namespace

namespace {

using test_json::Json;

// The GPUs job `id` holds on `node` (scontrol --json show job), and its run number.
struct Held {
  std::vector<int> gpus;
  int restart_count = -1;
  std::string state;
};

class GpuHealthCluster : public FakeNvmlCluster {
 protected:
  void Up() {
    Result up = Sh(env_ + "muster up --gpus nvml --nvml-library " + Library() + " --nodes 2 --dir " + (dir_ / "c").string());
    ASSERT_EQ(up.rc, 0) << up.out;
  }
  Result Run(const std::string& cmd) { return Sh("export " + env_ + "; cd " + dir_.string() + " && " + cmd); }
  Held JobOn(int64_t id, const std::string& node) {
    Held h;
    Result r = Run("scontrol --json show job " + std::to_string(id));
    const Json j = test_json::Parse(r.out);
    if (!j.is_object() || j["jobs"].size() == 0) return h;
    const Json job = j["jobs"][0];
    h.restart_count = job["restart_count"].is_null() ? 0 : job["restart_count"].get<int>();
    h.state = job["state"].str();
    const Json allocation = job["allocation"];
    for (size_t i = 0; i < allocation.size(); ++i) {
      const Json a = allocation[i];
      if (a["node"].str() == node) h.gpus = a["gpus"].is_null() ? std::vector<int>{} : a["gpus"].get<std::vector<int>>();
    }
    return h;
  }
  // Rewrites the fake NVML's file with these faults (node -> GPU -> fields).
  void Faults(const boost::json::value& faults) {
    const boost::json::object spec = {{"gpus", 4}, {"name", "NVIDIA H100 80GB HBM3"}, {"memory_mb", 81559}, {"faults", faults}};
    const std::string tmp = (dir_ / "nvml.json.tmp").string();
    std::ofstream(tmp) << boost::json::serialize(spec);
    fs::rename(tmp, dir_ / "nvml.json");
  }
  std::string Reasons() { return Run("sinfo -R -h -o '%N|%E'").out; }
};

// An Xid on one GPU of a running 2-node gang: the gang is requeued whole and runs again on healthy
// GPUs; the other job on that node runs on; the GPU is named where admins look, and returns after
// three healthy checks.
TEST_F(GpuHealthCluster, AnXidTakesOneGpuOutRequeuesTheGangAndTheGpuReturns) {
  Up();
  Result gang = Run("sbatch --parsable -N2 --gres=gpu:2 -o /dev/null --wrap 'sleep 300'");
  ASSERT_EQ(gang.rc, 0) << gang.out;
  Result other = Run("sbatch --parsable -w node2 --gres=gpu:1 -o /dev/null --wrap 'sleep 300'");
  ASSERT_EQ(other.rc, 0) << other.out;
  const int64_t g = std::atoll(gang.out.c_str()), o = std::atoll(other.out.c_str());
  Held before;
  ASSERT_TRUE(WaitFor([&] { return (before = JobOn(g, "node2")).state == "RUNNING" && JobOn(o, "node2").state == "RUNNING"; }, 15s));
  ASSERT_EQ(before.gpus.size(), 2u);
  const int bad = before.gpus[0];
  const std::vector<int> other_gpus = JobOn(o, "node2").gpus;
  Faults({{"node2", {{std::to_string(bad), {{"xid", {79}}}}}}});
  // Requeued (run 1) and running again, on node2's healthy GPUs only.
  Held after;
  ASSERT_TRUE(WaitFor([&] { return (after = JobOn(g, "node2")).restart_count == 1 && after.state == "RUNNING"; }, 20s))
      << "gang: " << after.state << " run " << after.restart_count << "\n" << Run("squeue -t all").out;
  EXPECT_EQ(std::count(after.gpus.begin(), after.gpus.end(), bad), 0) << "placed again on the GPU that failed";
  const Held still = JobOn(o, "node2");
  EXPECT_EQ(still.state, "RUNNING");
  EXPECT_EQ(still.restart_count, 0) << "the other job on the node runs on";
  EXPECT_EQ(still.gpus, other_gpus);
  const std::string reason = "GPU " + std::to_string(bad) + " failed: Xid 79 (GPU has fallen off the bus)";
  EXPECT_NE(Reasons().find("node2|" + reason), std::string::npos) << Reasons();
  EXPECT_NE(Run("scontrol show node node2").out.find("Reason=" + reason), std::string::npos);
  EXPECT_EQ(Trim(Run("sinfo -h -n node2 -o %t").out), "mix") << "node2 still takes work";
  // One-shot: the checks after it are healthy; three of them (2 s apart) bring the GPU back.
  EXPECT_TRUE(WaitFor([&] { return Reasons().find("node2|") == std::string::npos; }, 20s)) << Reasons();
  EXPECT_EQ(Run("scontrol show node node2").out.find("Xid 79"), std::string::npos);
  Run("scancel " + std::to_string(g) + " " + std::to_string(o));
}

// A GPU that needs a reset (a pending row remap) stays out, an admin's RESUME takes it back only
// until the next check finds it still pending, and it returns once the remap is done.
TEST_F(GpuHealthCluster, AGpuThatNeedsAResetStaysOutUntilItHadOne) {
  Up();
  Faults({{"node1", {{"3", {{"remap_pending", true}}}}}});
  const std::string reason = "node1|GPU 3 needs a reset: row remapping pending: the GPU needs a reset";
  ASSERT_TRUE(WaitFor([&] { return Reasons().find(reason) != std::string::npos; }, 15s)) << Reasons();
  // Four GPUs asked of node1: only three are healthy there.
  Result big = Run("sbatch --parsable -w node1 --gres=gpu:4 -o /dev/null --wrap true");
  ASSERT_EQ(big.rc, 0) << big.out;
  EXPECT_TRUE(WaitFor([&] { return Trim(Run("squeue -h -j " + Trim(big.out) + " -o %T").out) == "PENDING"; }, 5s));
  ASSERT_EQ(Run("scontrol update NodeName=node1 State=RESUME").rc, 0);
  EXPECT_TRUE(WaitFor([&] { return Reasons().find(reason) != std::string::npos; }, 15s))
      << "still pending: out again at the next check\n" << Reasons();
  Faults(boost::json::object());  // the reset happened
  EXPECT_TRUE(WaitFor([&] { return Reasons().find("node1|") == std::string::npos; }, 20s)) << Reasons();
  EXPECT_TRUE(WaitFor([&] { return Run("sacct -n -X -j " + Trim(big.out) + " -o State").out.find("COMPLETED") != std::string::npos; },
                      15s))
      << "the 4-GPU job runs once all four are back";
}

}  // namespace

namespace {

// A site's health-check program (Slurm's HealthCheckProgram): failing, it drains the node with its
// first output line as the reason; passing again, it resumes the node it drained.
TEST(HealthCheck, AFailingCheckDrainsTheNodeAndAPassingOneResumesIt) {
  const fs::path dir = fs::temp_directory_path() / ("muster_hc_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path flag = dir / "broken";
  {
    std::ofstream(dir / "check") << "#!/bin/sh\necho x >> " << (dir / "runs").string() << "\nif [ -e " << flag.string()
                                 << " ]; then echo 'NHC: /scratch is not mounted'; exit 1; fi\nexit 0\n";
  }
  fs::permissions(dir / "check", fs::perms::owner_all);
  const std::string env = "export PATH=" + BinDir() + ":$PATH MUSTER_CONF=" + (dir / "c/muster.yaml").string() + "; ";
  Result up = Sh(env + "muster up --nodes 2 --health-check " + (dir / "check").string() + " --dir " + (dir / "c").string());
  ASSERT_EQ(up.rc, 0) << up.out;
  auto reasons = [&] { return Sh(env + "sinfo -R -h -o '%N|%E|%u'").out; };
  auto drained = [&](const std::string& node, const std::string& why) {
    return Sh(env + "scontrol show node " + node).out.find("Reason=" + why) != std::string::npos;
  };
  EXPECT_EQ(Trim(reasons()), "");
  std::ofstream(flag).put('x');
  const std::string why = "health check: NHC: /scratch is not mounted";
  EXPECT_TRUE(WaitFor([&] { return drained("node1", why) && drained("node2", why); }, 15s)) << reasons();
  EXPECT_NE(reasons().find("|" + why + "|musterd"), std::string::npos) << reasons();
  Result job = Sh(env + "sbatch --parsable --wrap true");
  EXPECT_TRUE(WaitFor([&] { return Sh(env + "squeue -h -j " + Trim(job.out) + " -o %T").out.find("PENDING") != std::string::npos; }, 5s));
  fs::remove(flag);
  EXPECT_TRUE(WaitFor([&] { return Trim(reasons()).empty(); }, 15s)) << reasons();
  EXPECT_TRUE(WaitFor([&] { return Trim(Sh(env + "squeue -h -j " + Trim(job.out) + " -o %T").out).empty(); }, 15s))
      << "the job runs once the nodes are back";
  // An admin's drain is the admin's: a passing check does not lift it.
  ASSERT_EQ(Sh(env + "scontrol update NodeName=node1 State=DRAIN Reason=maintenance").rc, 0);
  auto runs = [&] { return ReadFile((dir / "runs").string()).size() / 2; };  // "x\n" per check
  const size_t now = runs();
  EXPECT_TRUE(WaitFor([&] { return runs() >= now + 4; }, 20s)) << "two checks on each node pass meanwhile";
  EXPECT_NE(reasons().find("node1|maintenance"), std::string::npos) << reasons();
  Sh(env + "muster down --dir " + (dir / "c").string());
  fs::remove_all(dir);
}

}  // namespace

namespace {

// Fractional GPUs with limits: under MPS (a stand-in control program here) two sharers of a GPU
// get their shares as MPS limits, the daemon runs from the first to the last; without MPS the job
// and scontrol say the share is not enforced.
TEST(GpuShares, SharersGetMpsLimitsAndTheDaemonLivesFromFirstToLast) {
  const fs::path dir = fs::temp_directory_path() / ("muster_mps_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "work");
  fs::permissions(dir, fs::perms::all);
  fs::permissions(dir / "work", fs::perms::all);
  const std::string calls = (dir / "calls").string();
  {
    std::ofstream(dir / "mps-control") << "#!/bin/sh\nif [ \"$1\" = -d ]; then echo \"start $CUDA_VISIBLE_DEVICES\" >> " << calls
                                       << "; exit 0; fi\nread cmd; echo \"$cmd $CUDA_VISIBLE_DEVICES\" >> " << calls << "\n";
  }
  fs::permissions(dir / "mps-control", fs::perms::owner_all);
  const std::string env = "export PATH=" + BinDir() + ":$PATH MUSTER_CONF=" + (dir / "c/muster.yaml").string() + "; cd " +
                          (dir / "work").string() + "; ";
  Result up = Sh(env + "muster up --nodes 1 --gpus-per-node 2 --mps " + (dir / "mps-control").string() + " --dir " +
                 (dir / "c").string());
  ASSERT_EQ(up.rc, 0) << up.out;
  EXPECT_NE(Sh(env + "sinfo -h -o %f").out.find("mps"), std::string::npos) << "the node says it has MPS";
  const std::string show = "env | grep -E \"^(CUDA_MPS_ACTIVE_THREAD_PERCENTAGE|CUDA_MPS_PINNED_DEVICE_MEM_LIMIT|MUSTER_GPU_SHARE)=\" | sort; "
                           "touch started.$SLURM_JOB_ID; while [ ! -e go ]; do sleep 0.1; done";
  Result a = Sh(env + "sbatch --parsable --gpu-fraction=0.25 -o a.out --wrap '" + show + "'");
  Result b = Sh(env + "sbatch --parsable --gpu-memory=20G -o b.out --wrap '" + show + "'");
  ASSERT_EQ(a.rc, 0) << a.out;
  ASSERT_EQ(b.rc, 0) << b.out;
  const std::string ida = Trim(a.out), idb = Trim(b.out);
  ASSERT_TRUE(WaitFor([&] { return fs::exists(dir / "work" / ("started." + ida)) && fs::exists(dir / "work" / ("started." + idb)); }, 15s));
  // Both on one GPU (they fit), one daemon for it.
  EXPECT_EQ(ReadFile(calls), "start 0\n") << ReadFile(calls);
  EXPECT_NE(Sh(env + "scontrol show job " + ida).out.find("GpuShare=250/1000 of GPU 0 on node1 (enforced by MPS)"),
            std::string::npos)
      << Sh(env + "scontrol show job " + ida).out;
  std::ofstream(dir / "work/go").put('x');
  ASSERT_TRUE(WaitFor([&] { return Trim(Sh(env + "squeue -h -o %i").out).empty(); }, 15s));
  const std::string out_a = ReadFile((dir / "work/a.out").string()), out_b = ReadFile((dir / "work/b.out").string());
  EXPECT_NE(out_a.find("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25\n"), std::string::npos) << out_a;
  EXPECT_NE(out_a.find("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=20480M\n"), std::string::npos) << out_a << "(a quarter of 80G)";
  EXPECT_NE(out_a.find("MUSTER_GPU_SHARE=250/1000 of GPU 0 on node1 (20480 MiB), enforced by MPS"), std::string::npos) << out_a;
  EXPECT_NE(out_b.find("CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=20480M\n"), std::string::npos) << out_b;
  EXPECT_TRUE(WaitFor([&] { return ReadFile(calls) == "start 0\nquit 0\n"; }, 10s)) << "stopped after the last sharer: "
                                                                                   << ReadFile(calls);
  Sh(env + "muster down --dir " + (dir / "c").string());
  // Without MPS: said, not enforced.
  up = Sh(env + "muster up --nodes 1 --gpus-per-node 2 --mps off --dir " + (dir / "c").string());
  ASSERT_EQ(up.rc, 0) << up.out;
  Result c = Sh(env + "sbatch --parsable --gpu-fraction=0.5 -o c.out --wrap 'echo $MUSTER_GPU_SHARE; touch started.c; while [ ! -e go2 ]; do sleep 0.1; done'");
  ASSERT_EQ(c.rc, 0) << c.out;
  ASSERT_TRUE(WaitFor([&] { return fs::exists(dir / "work/started.c"); }, 15s));
  EXPECT_NE(Sh(env + "scontrol show job " + Trim(c.out)).out.find("GpuShare=500/1000 of GPU 0 on node1 (not enforced: no MPS on node1)"),
            std::string::npos)
      << Sh(env + "scontrol show job " + Trim(c.out)).out << Sh(env + "sinfo -h -o %f").out;
  std::ofstream(dir / "work/go2").put('x');
  ASSERT_TRUE(WaitFor([&] { return Trim(Sh(env + "squeue -h -o %i").out).empty(); }, 15s));
  EXPECT_NE(ReadFile((dir / "work/c.out").string()).find("500/1000 of GPU 0 on node1 (40960 MiB), not enforced: no MPS"),
            std::string::npos)
      << ReadFile((dir / "work/c.out").string());
  Sh(env + "muster down --dir " + (dir / "c").string());
  fs::remove_all(dir);
}

}  // namespace

namespace {

// MIG on real daemons, with the fake backend describing a layout: each slice is a GPU of the node
// with its profile and UUID, and a job placed on a slice finds it by its MIG UUID.
TEST_F(FakeNvmlCluster, MigSlicesAreDiscoveredAndJobsGetThemByUuid) {
  std::ofstream(dir_ / "nvml.json", std::ios::trunc)
      << R"({"gpus": 2, "name": "NVIDIA H100 80GB HBM3", "memory_mb": 81559, "mig": {"1": ["1g.10gb", "3g.40gb"]}})";
  Result up = Sh(env_ + "muster up --gpus nvml --nvml-library " + Library() + " --nodes 1 --dir " + (dir_ / "c").string());
  ASSERT_EQ(up.rc, 0) << up.out;
  Result gres = Sh(env_ + "sinfo -h -o %G");
  EXPECT_NE(gres.out.find("gpu:1g.10gb:1"), std::string::npos) << gres.out;
  EXPECT_NE(gres.out.find("gpu:3g.40gb:1"), std::string::npos) << gres.out;
  EXPECT_NE(Sh(env_ + "sinfo -h -o %f").out.find("mig_on"), std::string::npos);
  const test_json::Json node = test_json::Parse(Sh(env_ + "scontrol --json show node node1").out)["nodes"][0]["node"];
  ASSERT_EQ(node["gpus"].size(), 3u) << node;
  EXPECT_EQ(node["gpus"][1]["mig_profile"], "1g.10gb");
  EXPECT_EQ(node["gpus"][1]["memory_mb"], 10240);
  const std::string slice = node["gpus"][1]["uuid"].str();
  EXPECT_EQ(slice.rfind("MIG-", 0), 0u) << slice;
  Result job = Sh("export " + env_ + "; cd " + dir_.string() + " && sbatch --parsable --gres=gpu:1g.10gb:1 -o " +
                  (dir_ / "mig.out").string() + " --wrap 'echo $CUDA_VISIBLE_DEVICES $SLURM_JOB_GPUS'");
  ASSERT_EQ(job.rc, 0) << job.out;
  EXPECT_TRUE(WaitFor([&] { return Trim(ReadFile((dir_ / "mig.out").string())) == slice + " 1"; }, 15s))
      << ReadFile((dir_ / "mig.out").string());
}

}  // namespace

namespace {

// A cluster started from a Slurm site's slurm.conf whose partitions limit who may submit
// (AllowGroups=, AllowAccounts=, DenyQos=): users outside are refused with Slurm's messages, users
// inside are let in. The users are the system's nobody and daemon; nobody joins a group made for
// the test (a supplementary group, as sites use), removed again at the end.
class SlurmConfAccess : public LocalClusterTest {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (other users submit, a group is made)";
    group_ = "muster_acl_" + std::to_string(getpid());
    ASSERT_EQ(Sh("groupadd " + group_).rc, 0);
    group_made_ = true;
    ASSERT_EQ(Sh("gpasswd -a nobody " + group_).rc, 0);
    conf_ = fs::temp_directory_path() / ("muster_acl_" + std::to_string(getpid()) + ".conf");
    std::ofstream(conf_) << "ClusterName=acl\n"
                            "AuthType=auth/munge\n"
                            "OverTimeLimit=5\n"
                            "FirstJobId=5000\n"
                            "NodeName=node[1-2] CPUs=2 RealMemory=1000\n"
                            "PartitionName=open Nodes=node[1-2] Default=YES\n"
                            "PartitionName=team Nodes=node[1-2] AllowGroups=" + group_ + "\n"
                            "PartitionName=physics Nodes=node[1-2] AllowAccounts=physics\n"
                            "PartitionName=scavenge Nodes=node[1-2] DenyQos=normal\n";
    up_args_ = " --cluster " + conf_.string();
    cluster_started_ = true;
    LocalClusterTest::SetUp();
  }
  void TearDown() override {
    if (cluster_started_) LocalClusterTest::TearDown();
    std::error_code ec;
    if (!conf_.empty()) fs::remove(conf_, ec);
    if (group_made_) {
      EXPECT_EQ(Sh("groupdel " + group_).rc, 0);
    }
  }
  std::string group_;
  bool group_made_ = false, cluster_started_ = false;
  fs::path conf_;
};

TEST_F(SlurmConfAccess, OnlyAllowedUsersSubmitToAPartition) {
  // AllowGroups: nobody is in the group (a supplementary one), daemon is not; root passes anyway.
  Result outside = RunAs("daemon", "sbatch -p team --wrap true");
  EXPECT_NE(outside.rc, 0);
  EXPECT_NE(outside.out.find("sbatch: error: Batch job submission failed: User's group not permitted to use this "
                             "partition"),
            std::string::npos)
      << outside.out;
  Result inside = RunAs("nobody", "sbatch --parsable -p team --wrap true");
  ASSERT_EQ(inside.rc, 0) << inside.out;
  EXPECT_GE(std::atoll(inside.out.c_str()), 5000) << "FirstJobId=5000 not honoured: " << inside.out;
  EXPECT_TRUE(WaitState(std::atoll(inside.out.c_str()), "COMPLETED")) << State(std::atoll(inside.out.c_str()));
  EXPECT_EQ(Run("sbatch --parsable -p team --wrap true").rc, 0);
  Result salloc = RunAs("daemon", "salloc -p team --no-shell");
  EXPECT_NE(salloc.rc, 0);
  EXPECT_NE(salloc.out.find("User's group not permitted to use this partition"), std::string::npos) << salloc.out;
  Result srun = RunAs("daemon", "srun -p team true");
  EXPECT_NE(srun.rc, 0);
  EXPECT_NE(srun.out.find("User's group not permitted to use this partition"), std::string::npos) << srun.out;
  // The open partition takes everyone.
  EXPECT_EQ(RunAs("daemon", "sbatch --parsable --wrap true").rc, 0);
  // scontrol shows the lists as Slurm does.
  const std::string team = Run("scontrol show partition team").out;
  EXPECT_NE(team.find("   AllowGroups=" + group_ + " AllowAccounts=ALL AllowQos=ALL\n"), std::string::npos) << team;
  EXPECT_NE(Run("scontrol -o show partition scavenge").out.find(" AllowGroups=ALL AllowAccounts=ALL DenyQos=normal "),
            std::string::npos);

  // DenyQos: the normal QOS (a job's when it names none) may not use the partition, root's neither.
  Result denied_qos = Run("sbatch -p scavenge --wrap true");
  EXPECT_NE(denied_qos.rc, 0);
  EXPECT_NE(denied_qos.out.find("Batch job submission failed: Invalid qos specification"), std::string::npos)
      << denied_qos.out;

  // AllowAccounts: nobody's account is physics, daemon's is chemistry.
  ASSERT_TRUE(RestartControllerWith("accounts:\n  - {name: physics, users: [nobody]}\n"
                                    "  - {name: chemistry, users: [daemon]}\n"));
  Result wrong_account = RunAs("daemon", "sbatch -p physics --wrap true");
  EXPECT_NE(wrong_account.rc, 0);
  EXPECT_NE(wrong_account.out.find("Batch job submission failed: Invalid account or account/partition combination "
                                   "specified"),
            std::string::npos)
      << wrong_account.out;
  Result right_account = RunAs("nobody", "sbatch --parsable -p physics --wrap true");
  EXPECT_EQ(right_account.rc, 0) << right_account.out;


  // muster up and the controller's log name what of slurm.conf Muster ignores.
  EXPECT_NE(up_out_.find("muster up: warning: " + conf_.string() + ":3: OverTimeLimit=5: not supported by Muster, "
                         "ignored\n"),
            std::string::npos)
      << up_out_;
  const std::string log = ReadFile((dir_ / "c" / "log" / "musterctld.log").string());
  const std::string line = conf_.string() + ":3: OverTimeLimit=5: not supported by Muster, ignored";
  const size_t at = log.find(line);
  EXPECT_NE(at, std::string::npos) << log;
  EXPECT_NE(log.find("ignored: AuthType (line 2)"), std::string::npos) << log;
}

}  // namespace
