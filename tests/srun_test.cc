// srun inside batch jobs on a real local cluster (musterctld + two musterd, fake GPUs): task
// placement and environment, live output, exit codes and Slurm's messages, signals, and that no
// task outlives its step or job. Label "integration" in CTest.
#include <sys/sysmacros.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <sstream>

#include "local_cluster_test_util.h"

namespace {

using namespace muster_test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

class Srun : public LocalClusterTest {
 protected:
  // Writes `body` as a batch script and submits it with `args`; returns the job id.
  int64_t SubmitScript(const std::string& args, const std::string& body, const std::string& user = "") {
    const fs::path script = work_ / ("job" + std::to_string(scripts_++) + ".sh");
    std::ofstream(script) << "#!/bin/bash\n" << body;
    fs::permissions(script, fs::perms::all);
    const std::string cmd = "sbatch --parsable " + args + " " + script.string();
    Result r = user.empty() ? Run(cmd) : RunAs(user, cmd);
    EXPECT_EQ(r.rc, 0) << r.out;
    return std::atoll(r.out.c_str());
  }
  bool WaitEnded(int64_t id, const std::string& state) { return WaitState(id, state, 20s); }
  std::string Output(int64_t id) { return ReadFile((work_ / ("slurm-" + std::to_string(id) + ".out")).string()); }
  bool Dead(const std::string& pid) { return muster_test::Dead(std::atoi(pid.c_str())); }

  int scripts_ = 0;
};

TEST_F(Srun, GangStepRunsATaskOnEveryNodeWithItsGpusAndSlurmsEnvironment) {
  const int64_t id = SubmitScript("-N 2 --gres=gpu:4",
                                  "srun -l bash -c 'echo $SLURM_PROCID $SLURMD_NODENAME $CUDA_VISIBLE_DEVICES "
                                  "$SLURM_STEP_ID $SLURM_NNODES $SLURM_NTASKS $SLURM_NODEID $SLURM_LOCALID'\n"
                                  "srun -n 4 -O -l bash -c 'echo $SLURM_PROCID $SLURMD_NODENAME $SLURM_LOCALID "
                                  "$SLURM_STEP_ID $SLURM_TASKS_PER_NODE'\n"
                                  "srun --nodes=1 hostname >/dev/null && echo one-node-ok\n"
                                  // srun's input variables, as Slurm's srun reads them: SLURM_NTASKS is its
                                  // -n (two tasks on one node of one CPU), SLURM_NNODES (the job's, 2) its -N
                                  "SLURM_NTASKS=2 srun --nodes=1 hostname >/dev/null || echo one-node-two-tasks-refused\n"
                                  "srun -w node2 bash -c 'echo on-w $SLURMD_NODENAME $SLURM_NODEID'\n"
                                  "srun -x node2 true || echo x-refused\n"
                                  "srun -N1 -x node2 bash -c 'echo on-x $SLURMD_NODENAME $SLURM_NNODES'\n"
                                  "srun -w node9 true || echo not-the-jobs\n");
  ASSERT_TRUE(WaitEnded(id, "COMPLETED")) << State(id) << "\n" << Output(id);
  const std::string out = Output(id);
  for (const std::string& line : std::vector<std::string>{
           "0: 0 node1 0,1,2,3 0 2 2 0 0\n", "1: 1 node2 0,1,2,3 0 2 2 1 0\n", "0: 0 node1 0 1 2(x2)\n",
        "1: 1 node1 1 1 2(x2)\n", "2: 2 node2 0 1 2(x2)\n", "3: 3 node2 1 1 2(x2)\n", "one-node-ok\n",
        "Unable to create step for job " + std::to_string(id) + ": More processors requested than permitted\n"
        "one-node-two-tasks-refused\n",
        "on-w node2 1\n", "on-w node1 0\n",  // -w's node, and SLURM_NNODES's second (Slurm's too)
        "srun: error: Only allocated 1 nodes asked for 2\nsrun: error: Are required nodes explicitly excluded?\n"
        "x-refused\n",
        "on-x node1 1\n",
        "Unable to create step for job " + std::to_string(id) + ": Requested node configuration is not available\n",
        "not-the-jobs\n"}) {
    EXPECT_NE(out.find(line), std::string::npos) << "missing '" << line << "' in:\n" << out;
  }
}

TEST_F(Srun, ExitCodesAndSlurmsMessages) {
  const int64_t id = SubmitScript("-N 2",
                                  "srun -l bash -c 'echo out-$SLURM_PROCID; echo err-$SLURM_PROCID >&2; "
                                  "exit $((SLURM_PROCID * 3))'\n"
                                  "echo rc=$?\n"
                                  "srun -n 1 bash -c 'kill -9 $$'\n"
                                  "echo rc=$?\n"
                                  "srun no-such-program-xyz\n"
                                  "echo rc=$?\n"
                                  "srun -N 3 true\n"
                                  "echo rc=$?\n"
                                  "srun -n 1 -N 2 true\n"
                                  "echo rc=$?\n"
                                  "srun -N x true\n"
                                  "echo rc=$?\n");
  ASSERT_TRUE(WaitEnded(id, "COMPLETED")) << State(id);
  const std::string out = Output(id);
  for (const char* line :
       {"0: out-0\n", "1: err-1\n", "srun: error: node2: task 1: Exited with exit code 3\nrc=3\n",
        "srun: error: node1: task 0: Killed\nrc=137\n", "srun: error: node2: task 1: Exited with exit code 2\n",
        "srun: error: Only allocated 2 nodes asked for 3\nrc=1\n",
        "srun: Warning: can't run 1 processes on 2 nodes, setting nnodes to 1\nrc=0\n",
        "srun: error: \"x\" is not a valid node count\nrc=255\n"}) {  // (Slurm's exit -1)
    EXPECT_NE(out.find(line), std::string::npos) << "missing '" << line << "' in:\n" << out;
  }
  EXPECT_NE(out.find("cannot execute 'no-such-program-xyz'"), std::string::npos) << out;
  EXPECT_EQ(out.find("task 0: Exited with exit code 0"), std::string::npos) << out;
}

TEST_F(Srun, CancelEndsTheStepsTasksOnEveryNode) {
  const int64_t id = SubmitScript(
      "-N 2", "srun bash -c 'sleep 300 & echo $! > bg-$SLURM_PROCID.pid; echo $$ > task-$SLURM_PROCID.pid; wait'\n");
  ASSERT_TRUE(WaitFor([&] { return fs::exists(work_ / "task-1.pid") && fs::exists(work_ / "bg-1.pid"); }, 15s));
  std::this_thread::sleep_for(200ms);
  ASSERT_EQ(Run("scancel " + std::to_string(id)).rc, 0);
  ASSERT_TRUE(WaitEnded(id, "CANCELLED")) << State(id);
  // Each node tells srun, as Slurm's slurmstepd does, before the job's own last line.
  const std::string sid = std::to_string(id);
  EXPECT_TRUE(WaitFor([&] { return Output(id).find("JOB " + sid + " ON node1 CANCELLED AT") != std::string::npos; }, 5s));
  const std::string out = Output(id);
  for (const std::string node : {"node1", "node2"}) {
    EXPECT_NE(out.find("musterd: error: *** STEP " + sid + ".0 ON " + node + " CANCELLED AT "), std::string::npos) << out;
  }
  for (const char* f : {"task-0.pid", "task-1.pid", "bg-0.pid", "bg-1.pid"}) {
    const std::string pid = Trim(ReadFile(work_ / f));
    ASSERT_FALSE(pid.empty()) << f;
    EXPECT_TRUE(WaitFor([&] { return Dead(pid); }, 5s)) << f << " (pid " << pid << ") still runs";
  }
}

TEST_F(Srun, TasksEndWhenSrunDiesAndSignalsAreForwarded) {
  const int64_t id = SubmitScript("-N 2",
                                  "srun bash -c 'echo $$ > task-$SLURM_PROCID.pid; sleep 300' &\n"
                                  "while [ ! -s task-1.pid ] || [ ! -s task-0.pid ]; do sleep 0.1; done\n"
                                  "kill -9 $!; wait $!\n"
                                  "srun -l bash -c 'trap \"echo got-term; exit 0\" TERM; sleep 300 & wait' &\n"
                                  "sleep 1; kill -TERM $!; wait $!; echo rc=$?\n");
  ASSERT_TRUE(WaitEnded(id, "COMPLETED")) << State(id) << "\n" << Output(id);
  for (const char* f : {"task-0.pid", "task-1.pid"}) {
    const std::string pid = Trim(ReadFile(work_ / f));
    EXPECT_TRUE(WaitFor([&] { return Dead(pid); }, 5s)) << f << " (pid " << pid << ") outlived srun";
  }
  const std::string out = Output(id);
  EXPECT_NE(out.find("0: got-term\n"), std::string::npos) << out;
  EXPECT_NE(out.find("1: got-term\n"), std::string::npos) << out;
  EXPECT_NE(out.find("rc=0\n"), std::string::npos) << out;
  // The killed srun's step was ended by its nodes (else its CPUs stay held: the second srun ran).
  EXPECT_EQ(Run("sacct -n -P -j " + std::to_string(id) + " -o JobID,State").out,
            std::to_string(id) + "|COMPLETED\n" + std::to_string(id) + ".batch|COMPLETED\n" + std::to_string(id) +
                ".0|FAILED\n" + std::to_string(id) + ".1|COMPLETED\n");
}

TEST_F(Srun, RunsAsTheJobsUserAndOnlyForThem) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to switch users";
  const int64_t id = SubmitScript("-N 2", "srun -l id -un\n", "nobody");
  ASSERT_TRUE(WaitEnded(id, "COMPLETED")) << State(id);
  // One line per task; the two nodes' output comes in either order.
  std::vector<std::string> lines;
  std::istringstream out(Output(id));
  for (std::string l; std::getline(out, l);) lines.push_back(l);
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<std::string>{"0: nobody", "1: nobody"})) << Output(id);
  // Another user cannot add a step to the job.
  const int64_t mine = SubmitScript("", "sleep 30\n");
  ASSERT_TRUE(WaitFor([&] { return State(mine) == "RUNNING"; }, 15s));
  Result r = Sh("cd " + work_.string() + " && su -s /bin/sh nobody -c '" + env_ +
                "SLURM_JOB_ID=" + std::to_string(mine) + " srun true'");
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out,
            "srun: error: Unable to create step for job " + std::to_string(mine) + ": Access/permission denied\n");
  EXPECT_EQ(Run("scancel " + std::to_string(mine)).rc, 0);
}

// srun -t inside a job: the step's time limit. Its nodes end it (SIGTERM, then SIGKILL after
// KillWait) with Slurm's line, and it is accounted TIMEOUT; the job goes on.
TEST_F(Srun, StepTimeLimitEndsTheStepNotTheJob) {
  const int64_t id = SubmitScript("-N 2", "srun -t 0:02 -l sleep 60; echo rc=$?\nsrun -t 1 echo in-time\n");
  ASSERT_TRUE(WaitEnded(id, "COMPLETED")) << State(id) << "\n" << Output(id);
  const std::string out = Output(id), sid = std::to_string(id);
  for (const std::string node : {"node1", "node2"}) {
    EXPECT_NE(out.find("musterd: error: *** STEP " + sid + ".0 ON " + node + " CANCELLED AT "), std::string::npos) << out;
  }
  EXPECT_NE(out.find(" DUE TO TIME LIMIT ***\n"), std::string::npos) << out;
  EXPECT_NE(out.find("rc=143\n"), std::string::npos) << "SIGTERM ended the tasks:\n" << out;
  EXPECT_NE(out.find("in-time\n"), std::string::npos) << out;
  const std::string acct = Run("sacct -n -P -j " + sid + " -o JobID,State").out;
  EXPECT_NE(acct.find(sid + ".0|TIMEOUT\n"), std::string::npos) << acct;
  EXPECT_NE(acct.find(sid + ".1|COMPLETED\n"), std::string::npos) << acct;
}

// srun -Z runs on the -w nodes without a job, for the cluster's own user (Slurm: root and
// SlurmUser) and nobody else; no job appears, none is accounted.
TEST_F(Srun, NoAllocateRunsOnTheNamedNodesForTrustedUsersOnly) {
  Result r = Run("srun -Z -w node[1-2] -l bash -c 'echo $SLURMD_NODENAME $SLURM_NTASKS $SLURM_PROCID'");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("0: node1 2 0\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1: node2 2 1\n"), std::string::npos) << r.out;
  r = Run("srun -Z -w node2 bash -c 'exit 3'");
  EXPECT_EQ(r.rc, 3) << r.out;
  EXPECT_EQ(Trim(Run("squeue -h").out), "") << "no job was made";
  EXPECT_EQ(Trim(Run("sacct -n -X -o JobID").out), "") << "none was accounted";
  EXPECT_NE(r.out.find("srun: do not allocate resources\n"), std::string::npos) << "Slurm's line: " << r.out;
  r = Run("srun -Z true");
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out, "srun: error: --no-allocate (-Z) needs the nodes to run on: -w/--nodelist\n");
  r = Run("srun -Z -w node9 true");
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.out, "srun: do not allocate resources\nsrun: error: Invalid node name specified: node9\n");
  if (geteuid() != 0) GTEST_SKIP() << "needs root to switch users";
  r = Sh("cd " + work_.string() + " && su -s /bin/sh nobody -c '" + env_ + "srun -Z -w node1 true'");
  EXPECT_NE(r.rc, 0);
  EXPECT_NE(r.out.find("Access/permission denied"), std::string::npos) << r.out;
}

// Outside an allocation srun makes one (its resource options), runs the step, releases it.
TEST_F(Srun, OutsideAnAllocationAllocatesRunsAndReleases) {
  Result r = Run("env -u SLURM_JOB_ID -u SLURM_JOBID srun -N 2 -n 2 --gres=gpu:1 -l -J both "
                 "sh -c 'echo $SLURM_NNODES $CUDA_VISIBLE_DEVICES' | sort");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(r.out, "0: 2 0\n1: 2 0\n");
  Result fail = Run("env -u SLURM_JOB_ID -u SLURM_JOBID srun -n 2 -N 1 sh -c 'exit 1'");
  EXPECT_EQ(fail.rc, 1);
  EXPECT_EQ(fail.out, "srun: error: node1: tasks 0-1: Exited with exit code 1\n");
  Result big = Run("env -u SLURM_JOB_ID -u SLURM_JOBID srun --gres=gpu:9 true");
  EXPECT_EQ(big.rc, 1);
  EXPECT_EQ(big.out, "srun: error: Unable to allocate resources: Requested node configuration is not available\n");
  // The allocations ended with their steps: nothing left running, sacct has them.
  EXPECT_EQ(Run("squeue -h").out, "");
  EXPECT_EQ(Run("sacct -n -X -P -n -o JobName,State,ExitCode").out, "both|COMPLETED|0:0\nsh|FAILED|1:0\n");
}

// srun's per-task options: --multi-prog, -o/-e patterns and task ids, task prolog/epilog,
// --export, the umask and soft limits srun and sbatch propagate, --cpu-bind.
TEST_F(Srun, MultiProgOutputFilesTaskPrologExportAndLimits) {
  std::ofstream(work_ / "mp.conf") << "# rank program args\n0 echo zero %t\n1-3  echo 'rest %t' %o  # trailing\n";
  std::ofstream(work_ / "prolog.sh") << "#!/bin/sh\necho \"export FROM_PROLOG=p$SLURM_PROCID\"\necho 'print hi-from-prolog'\n";
  std::ofstream(work_ / "epilog.sh") << "#!/bin/sh\ntouch epilog-ran-$SLURM_PROCID\n";
  std::ofstream(work_ / "hang.sh") << "#!/bin/sh\nsleep 300\n";
  fs::permissions(work_ / "hang.sh", fs::perms::all);
  fs::permissions(work_ / "prolog.sh", fs::perms::all);
  fs::permissions(work_ / "epilog.sh", fs::perms::all);
  const fs::path script = work_ / "opts.sh";
  std::ofstream(script) << "#!/bin/bash\n"
                           "echo batch umask=$(umask) nofile=$(ulimit -Sn)\n"
                           "srun -n 4 -l --multi-prog mp.conf | sort\n"
                           "srun -n 4 -o 'out-%t-%N.txt' -e 'err-%J.txt' sh -c 'echo o$SLURM_PROCID; echo e$SLURM_PROCID >&2'\n"
                           "echo files rc=$?\n"
                           "srun -n 2 -o 1 sh -c 'echo only$SLURM_PROCID'\n"
                           "srun -n 1 --task-prolog=prolog.sh --task-epilog=./epilog.sh sh -c 'echo got=$FROM_PROLOG'\n"
                           "srun -n 1 --task-epilog=./hang.sh echo before-hang; echo hang rc=$?\n"
                           "srun -n 1 -c 2 sh -c 'echo cpt=$SLURM_CPUS_PER_TASK own-pid=$([ \"$SLURM_TASK_PID\" = $$ ] && echo y) "
                           "srun-at=$SLURM_SRUN_COMM_HOST launch=$SLURM_LAUNCH_NODE_IPADDR'\n"
                           "SECRET=s1 srun -n 1 --export=NONE sh -c 'echo none secret=${SECRET:-unset} job=$SLURM_JOB_ID'\n"
                           "SECRET=s1 srun -n 1 --export=PATH,X=7 sh -c 'echo list secret=${SECRET:-unset} x=$X'\n"
                           "(umask 077; ulimit -Sn 200; srun -n 1 sh -c 'echo step umask=$(umask) nofile=$(ulimit -Sn)')\n"
                           "srun -n 1 --cpu-bind=cores true; echo bind rc=$?\n"
                           "srun -n 1 --cpu-bind=none echo bind-none-ok\n";
  fs::permissions(script, fs::perms::all);
  Result sub = Run("sh -c \"umask 027; ulimit -Sn 300; exec sbatch --parsable -N 2 --ntasks-per-node=2 " + script.string() + "\"");
  ASSERT_EQ(sub.rc, 0) << sub.out;
  const int64_t id = std::atoll(sub.out.c_str());
  ASSERT_TRUE(WaitEnded(id, "COMPLETED")) << State(id) << "\n" << Output(id);
  const std::string out = Output(id);
  for (const char* line :
       {"batch umask=0027 nofile=300\n", "0: zero 0\n1: rest 1 0\n2: rest 2 1\n3: rest 3 2\n", "files rc=0\n",
        "only1\n", "hi-from-prolog\ngot=p0\n", "none secret=unset job=", "list secret=unset x=7\n",
        "step umask=0077 nofile=200\n",
        // (SLURM_NNODES=2 is srun's -N, as in Slurm: one task warns)
        "srun: cluster configuration lacks support for cpu binding\n"
        "srun: Warning: can't run 1 processes on 2 nodes, setting nnodes to 1\nbind rc=0\n",
        "bind-none-ok\n", "cpt=2 own-pid=y srun-at=127.0.0.1 launch=127.0.0.1\n"}) {
    EXPECT_NE(out.find(line), std::string::npos) << "missing '" << line << "' in:\n" << out;
  }
  // A hung task epilog is ended after 5 s (slurmstepd's limit); the step ends as its task did.
  EXPECT_NE(out.find("before-hang\ntask epilog " + (work_ / "./hang.sh").string() +
                     " killed: still running after 5 s\nhang rc=0\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("only0"), std::string::npos) << out;
  EXPECT_EQ(out.find("o0\n"), std::string::npos) << "task output went to files, not srun:\n" << out;
  EXPECT_EQ(ReadFile((work_ / "out-0-node1.txt").string()), "o0\n");
  EXPECT_EQ(ReadFile((work_ / "out-3-node2.txt").string()), "o3\n");
  std::string err = ReadFile((work_ / ("err-" + std::to_string(id) + ".1.txt")).string());
  std::sort(err.begin(), err.end());
  EXPECT_EQ(err, "\n\n\n\n0123eeee") << "the four tasks' stderr in one file";
  EXPECT_TRUE(fs::exists(work_ / "epilog-ran-0"));
}

// Step CPUs as in Slurm 22.05: a plain step holds the job's CPUs, so a second one waits for it
// (and says so); --exact steps share them out; --overlap runs beside anything.
TEST_F(Srun, StepsWaitForCpusHeldByOtherStepsUnlessExactOrOverlapping) {
  const int64_t id = SubmitScript("-n 2",
                                  "srun -n1 sleep 3 &\n"
                                  "for i in $(seq 150); do squeue -s -h -o %i | grep -q \"^$SLURM_JOB_ID\\.0$\" && break; sleep 0.1; done\n"
                                  "srun -n1 echo second\n"
                                  "wait\n"
                                  "srun -n1 --exact sleep 3 &\n"
                                  "srun -n1 --exact sleep 3 &\n"
                                  "for i in $(seq 150); do [ $(squeue -s -h -o %i | grep -c \"^$SLURM_JOB_ID\\.[23]$\") = 2 ] && break; sleep 0.1; "
                                  "done\n"
                                  "srun -n1 --overlap echo overlapped\n"
                                  "squeue -s -h -o %i | sort | tr '\\n' ' '; echo\n"
                                  "wait\n");
  ASSERT_TRUE(WaitEnded(id, "COMPLETED")) << State(id);
  const std::string out = Output(id), sid = std::to_string(id);
  EXPECT_NE(out.find("srun: Job " + sid + " step creation temporarily disabled, retrying (Requested nodes are busy)\n"
                     "srun: Step created for job " + sid + "\nsecond\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("overlapped\n" + sid + ".2 " + sid + ".3 " + sid + ".batch \n"), std::string::npos)
      << "the two --exact steps ran side by side:\n" << out;
  EXPECT_EQ(out.find("retrying", out.find("second")), std::string::npos) << out;
}

// `srun -n1 --exclusive` steps of a two-node job (a CPU on each) run one on each node, side by
// side, as Slurm places them, instead of one after another on the first node.
TEST_F(Srun, ExclusiveStepsSpreadOverTheJobsNodes) {
  const int64_t id = SubmitScript("-N 2 -n 2",
                                  "for i in 1 2; do srun -n1 --exclusive bash -c 'echo on=$SLURMD_NODENAME; sleep 2' & done\n"
                                  "wait\n"
                                  "srun -v true\n"
                                  "scontrol -d show job $SLURM_JOB_ID | grep -E 'DerivedExitCode|JOB_GRES|Nodes='\n");
  ASSERT_TRUE(WaitEnded(id, "COMPLETED")) << State(id) << "\n" << Output(id);
  const std::string out = Output(id);
  // srun -v: the lines Slurm 22.05's srun -v prints (the options srun read from the job's
  // environment, the allocation, the launch and each end).
  const std::string sid = std::to_string(id);
  for (const std::string& line : std::vector<std::string>{
           "srun: defined options\nsrun: -------------------- --------------------\n"
           "srun: (null)              : node[1-2]\nsrun: jobid               : " + sid + "\n"
           "srun: nodes               : 2\nsrun: ntasks              : 2\nsrun: verbose             : 1\n"
           "srun: -------------------- --------------------\nsrun: end of defined options\n"
           "srun: jobid " + sid + ": nodes(2):`node[1-2]', cpu counts: 1(x2)\n"
           "srun: launch/slurm: launch_p_step_launch: CpuBindType=(null type)\n"
           "srun: launching StepId=" + sid + ".2 on host node1, 1 tasks: 0\n"
           "srun: launching StepId=" + sid + ".2 on host node2, 1 tasks: 1\n"
           "srun: route/default: init: route default plugin loaded\n"
           "srun: launch/slurm: _task_start: Node node1, 1 tasks started\n"
           "srun: launch/slurm: _task_start: Node node2, 1 tasks started\n",
           "srun: launch/slurm: _task_finish: Received task exit notification for 1 task of StepId=" + sid +
               ".2 (status=0x0000).\n",
           "srun: launch/slurm: _task_finish: node1: task 0: Completed\n",
           "srun: launch/slurm: _task_finish: node2: task 1: Completed\n",
           // scontrol -d: Slurm's detail lines
           "   DerivedExitCode=0:0\n", "   JOB_GRES=(null)\n     Nodes=node1 Mem=0\n     Nodes=node2 Mem=0\n"}) {
    EXPECT_NE(out.find(line), std::string::npos) << "missing '" << line << "' in:\n" << out;
  }
  EXPECT_NE(out.find("on=node1\n"), std::string::npos) << out;
  EXPECT_NE(out.find("on=node2\n"), std::string::npos) << out;
  EXPECT_EQ(out.find("retrying"), std::string::npos) << "the two steps ran side by side:\n" << out;
}

// Slurm 22.05's step GPUs: steps of one GPU each run side by side, each seeing its own;
// --gpus-per-task binds each task to its share; --gres=none gives a step none.
TEST_F(Srun, StepsOfOneGpuRunSideBySideAndGpusPerTaskBinds) {
  const int64_t id = SubmitScript("-n 4 --gres=gpu:4",
                                  "for i in 1 2 3 4; do srun -n1 --exact --gpus=1 bash -c "
                                  "'echo gpu=$CUDA_VISIBLE_DEVICES/$SLURM_STEP_GPUS; sleep 2' & done\n"
                                  "wait\n"
                                  "srun -n2 --gpus-per-task=2 -l bash -c 'echo bound=$CUDA_VISIBLE_DEVICES "
                                  "step=$SLURM_STEP_GPUS on=$SLURM_GPUS_ON_NODE'\n"
                                  "srun -n1 --gres=none bash -c 'echo none=${CUDA_VISIBLE_DEVICES-unset}'\n"
                                  "srun -n1 --gpus=5 true || echo refused\n"
                                  "srun -n3 --gpu-bind=map_gpu:3,1 -l bash -c 'echo map=$CUDA_VISIBLE_DEVICES'\n"
                                  "srun -n2 --gpu-bind=mask_gpu:0x5,0xA -l bash -c 'echo mask=$CUDA_VISIBLE_DEVICES'\n"
                                  "srun -n1 --gpus=1 --gpu-bind=map_gpu:1 bash -c 'echo beyond=$CUDA_VISIBLE_DEVICES'\n"
                                  "srun -n4 --gpu-bind=single:2 -l bash -c 'echo single=$CUDA_VISIBLE_DEVICES'\n");
  ASSERT_TRUE(WaitEnded(id, "COMPLETED")) << State(id) << "\n" << Output(id);
  const std::string out = Output(id);
  for (const char* gpu : {"gpu=0/0\n", "gpu=1/1\n", "gpu=2/2\n", "gpu=3/3\n"}) {
    EXPECT_NE(out.find(gpu), std::string::npos) << "missing '" << gpu << "' in:\n" << out;
  }
  EXPECT_EQ(out.find("retrying"), std::string::npos) << "four one-GPU steps fit side by side:\n" << out;
  EXPECT_NE(out.find("0: bound=0,1 step=0,1,2,3 on=4\n"), std::string::npos) << out;
  EXPECT_NE(out.find("1: bound=2,3 step=0,1,2,3 on=4\n"), std::string::npos) << out;
  EXPECT_NE(out.find("none=unset\n"), std::string::npos) << out;
  // As the Slurm peer prints them (checked there with the same commands).
  for (const char* line : {"0: map=3\n", "1: map=1\n", "2: map=3\n", "0: mask=0,2\n", "1: mask=1,3\n", "beyond=0\n",
                           "0: single=0\n", "1: single=0\n", "2: single=1\n", "3: single=1\n"}) {
    EXPECT_NE(out.find(line), std::string::npos) << "missing '" << line << "' in:\n" << out;
  }
  EXPECT_NE(out.find("srun: error: Unable to create step for job " + std::to_string(id) +
                     ": Invalid generic resource (gres) specification"),
            std::string::npos)
      << out;
}

// Fake GPUs standing on device nodes of their own (muster up --gpu-devices, major 195 as NVIDIA's):
// with cgroups a job may open only its GPUs, and a step of some of them only those, numbered from
// 0 as under Slurm's step cgroup; a step without GPUs opens none.
class SrunFencedGpus : public Srun {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (device nodes, cgroups)";
    if (!fs::exists("/sys/fs/cgroup/devices/tasks") && !fs::exists("/sys/fs/cgroup/cgroup.controllers")) {
      GTEST_SKIP() << "no cgroup devices controller here";
    }
    devs_ = fs::temp_directory_path() / ("muster_devs_" + std::to_string(getpid()));
    fs::create_directories(devs_);
    for (int minor = 0; minor < 4; ++minor) {
      const std::string node = (devs_ / ("nvidia" + std::to_string(minor))).string();
      if (mknod(node.c_str(), S_IFCHR | 0666, makedev(195, minor)) != 0) {
        GTEST_SKIP() << "cannot create device nodes here: " << std::strerror(errno);
      }
    }
    up_args_ = " --gpu-devices " + devs_.string();
    nodes_ = 1;
    Srun::SetUp();
    started_ = true;
  }
  void TearDown() override {
    if (started_) Srun::TearDown();
    if (!devs_.empty()) fs::remove_all(devs_);
  }
  // "ok" or "denied" for each of nvidia0..3 as `who` found them in `out` (lines "who: <shell's
  // error naming the device>").
  std::string Opens(const std::string& out, const std::string& who) {
    std::string result;
    for (int minor = 0; minor < 4; ++minor) {
      const std::string device = (devs_ / ("nvidia" + std::to_string(minor))).string() + ":";
      std::string line;
      std::istringstream lines(out);
      for (std::string l; std::getline(lines, l);) {
        if (l.rfind(who + ": ", 0) == 0 && l.find(device) != std::string::npos) line = l;
      }
      result += std::string(result.empty() ? "" : " ") +
                (line.find("No such device or address") != std::string::npos ? "ok"
                 : line.find("Operation not permitted") != std::string::npos  ? "denied"
                                                                              : "?");
    }
    return result;
  }
  // The expected Opens for the GPUs listed in `list` ("1,2").
  static std::string Allowed(const std::string& list) {
    std::set<int> gpus;
    std::stringstream in(list);
    for (std::string g; std::getline(in, g, ',');) gpus.insert(std::atoi(g.c_str()));
    std::string result;
    for (int minor = 0; minor < 4; ++minor) result += std::string(result.empty() ? "" : " ") + (gpus.count(minor) ? "ok" : "denied");
    return result;
  }
  fs::path devs_;
  bool started_ = false;
};

TEST_F(SrunFencedGpus, JobAndStepCgroupsShowOnlyTheirGpus) {
  const std::string probe = "for i in 0 1 2 3; do true < " + devs_.string() + "/nvidia$i; done 2>&1";
  const int64_t id = SubmitScript("-n2 --gres=gpu:2",
                                  "echo job=$CUDA_VISIBLE_DEVICES/$SLURM_JOB_GPUS/\n" + probe + " | sed 's/^/job: /'\n" +
                                      "srun -n1 --gpus=1 bash -c 'echo step=$CUDA_VISIBLE_DEVICES/$SLURM_STEP_GPUS/; " +
                                      probe + " | sed \"s/^/step: /\"'\n" +
                                      "srun -n1 --gres=none bash -c '" + probe + " | sed \"s/^/none: /\"'\n" +
                                      "srun -n2 bash -c 'echo whole=$CUDA_VISIBLE_DEVICES'\n");
  ASSERT_TRUE(WaitEnded(id, "COMPLETED")) << State(id) << "\n" << Output(id);
  const std::string out = Output(id);
  // "<key>=<CUDA_VISIBLE_DEVICES>/<SLURM_JOB_GPUS or SLURM_STEP_GPUS>/": the two lists.
  auto lists = [&](const std::string& key) {
    const size_t at = out.find(key + "=");
    std::stringstream line(at == std::string::npos ? "" : out.substr(at + key.size() + 1, out.find('\n', at) - at));
    std::pair<std::string, std::string> v;
    std::getline(line, v.first, '/');
    std::getline(line, v.second, '/');
    return v;
  };
  const auto [visible, job_gpus] = lists("job");
  EXPECT_EQ(visible, "0,1") << "renumbered under the job's cgroup:\n" << out;
  EXPECT_EQ(Opens(out, "job"), Allowed(job_gpus)) << out;
  const auto [step_visible, step_gpus] = lists("step");
  EXPECT_EQ(step_visible, "0") << "the step's one GPU, numbered in its own cgroup:\n" << out;
  ASSERT_EQ(step_gpus.size(), 1u) << out;
  EXPECT_NE(job_gpus.find(step_gpus), std::string::npos) << "the step's GPU is the job's:\n" << out;
  EXPECT_EQ(Opens(out, "step"), Allowed(step_gpus)) << out;
  EXPECT_EQ(Opens(out, "none"), "denied denied denied denied") << out;
  EXPECT_NE(out.find("whole=0,1\nwhole=0,1\n"), std::string::npos) << "a step of all the job's GPUs:\n" << out;
}

// srun --jobid runs a step in a job from outside it; -I gives up on an allocation not granted at once.
TEST_F(Srun, JobidAndImmediate) {
  const int64_t id = SubmitScript("-N 2 --exclusive", "sleep 60\n");
  ASSERT_TRUE(WaitState(id, "RUNNING", 15s)) << State(id);
  Result in = Run("env -u SLURM_JOB_ID -u SLURM_JOBID srun --jobid=" + std::to_string(id) +
                  " -n 1 sh -c 'echo in=$SLURM_JOB_ID'");
  EXPECT_EQ(in.rc, 0) << in.out;
  EXPECT_EQ(in.out, "in=" + std::to_string(id) + "\n");
  // squeue -s: the batch step, and a step srun runs in the job from outside it.
  const std::string sid = std::to_string(id);
  Result steps = Run("env -u SLURM_JOB_ID -u SLURM_JOBID srun --jobid=" + sid +
                     " -n 2 -J napper sleep 4 >/dev/null 2>&1 & for i in $(seq 150); do squeue -s -h -o %i | grep -q '^" + sid +
                     "\\.1$' && break; sleep 0.1; done; squeue -s -h -o '%i %j %N %A'; "
                     "squeue --steps=" + sid + ".batch -h -o %i; wait");
  EXPECT_EQ(steps.out, sid + ".1 napper node[1-2] 2\n" + sid + ".batch batch node1 1\n" + sid + ".batch\n");
  Result busy = Run("env -u SLURM_JOB_ID -u SLURM_JOBID srun -I -n 1 true");
  EXPECT_EQ(busy.rc, 1);
  EXPECT_NE(busy.out.find("srun: error: Unable to allocate resources: Job can not start immediately\n"),
            std::string::npos)
      << busy.out;
  Result salloc_busy = Run("salloc -I1 -n 1 true");
  EXPECT_EQ(salloc_busy.rc, 1);
  EXPECT_NE(salloc_busy.out.find("salloc: error: Unable to allocate resources: Job can not start immediately\n"),
            std::string::npos)
      << salloc_busy.out;
  EXPECT_EQ(Run("scancel " + std::to_string(id)).rc, 0);
}

// Slurm's srun options for a new allocation and its tasks: -D/--chdir (relative to srun's directory,
// and where relative -o files go), --test-only (nothing runs), -H/--hold (srun waits for the release).
TEST_F(Srun, ChdirTestOnlyAndHold) {
  fs::create_directories(work_ / "sub");
  Result d = Run("env -u SLURM_JOB_ID -u SLURM_JOBID srun -D sub -n 1 -o here.out pwd; cat sub/here.out");
  EXPECT_EQ(d.rc, 0) << d.out;
  EXPECT_EQ(d.out, (work_ / "sub").string() + "\n");
  Result t = Run("env -u SLURM_JOB_ID -u SLURM_JOBID srun --test-only -n 1 true; echo rc=$?; squeue -h | wc -l");
  EXPECT_NE(t.out.find("srun: Job "), std::string::npos) << t.out;
  EXPECT_NE(t.out.find(" to start at "), std::string::npos) << t.out;
  EXPECT_NE(t.out.find(" processors on nodes "), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("rc=0\n0\n"), std::string::npos) << t.out;
  Result h = Run("env -u SLURM_JOB_ID -u SLURM_JOBID srun -H -n 1 -J held echo released >held.out 2>&1 & "
                 "for i in $(seq 150); do id=$(squeue -h -n held -o %i); [ -n \"$id\" ] && break; sleep 0.1; done; "
                 "squeue -h -n held -o %t; scontrol release $id; wait; grep released held.out");
  EXPECT_EQ(h.out, "PD\nreleased\n");
}

// srun's stdin goes to every task (Slurm's default), or to one with -i N; a task that never reads
// it does not hold the step; --pty runs task 0 on a terminal that an interactive shell can use.
TEST_F(Srun, StdinReachesTheTasksAndPtyRunsAnInteractiveShell) {
  const std::string out_of_job = "env -u SLURM_JOB_ID -u SLURM_JOBID ";
  Result all = Run("printf 'a\\nb\\n' | " + out_of_job + "srun -N 2 -n 2 -l cat | sort");
  EXPECT_EQ(all.rc, 0) << all.out;
  EXPECT_EQ(all.out, "0: a\n0: b\n1: a\n1: b\n");
  Result one = Run("printf 'x\\n' | " + out_of_job + "srun -n 2 -N 1 -i 1 -l sh -c 'cat; echo end' | sort");
  EXPECT_EQ(one.out, "0: end\n1: end\n1: x\n");  // (sorted) task 0 read nothing
  // More than every buffer on the way holds: it all arrives, in order.
  Result big = Run("seq 400000 | " + out_of_job + "srun -n 1 sh -c 'md5sum; wc -l' && seq 400000 | md5sum");
  ASSERT_EQ(big.rc, 0) << big.out;
  std::vector<std::string> lines;
  std::istringstream split(big.out);
  for (std::string line; std::getline(split, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u) << big.out;
  EXPECT_EQ(lines[0], lines[2]);
  // wc saw nothing after md5sum read it all: the stream ended once.
  EXPECT_EQ(lines[1], "0");
  Result ignored = Run("yes | " + out_of_job + "srun -n 1 true; echo rc=$?");
  EXPECT_EQ(ignored.out, "rc=0\n");
  Result none = Run("echo unread | " + out_of_job + "srun -n 1 -i none sh -c 'cat; echo none-ok'");
  EXPECT_EQ(none.out, "none-ok\n");

  // --pty: driven through a terminal of our own, as a person at a keyboard would.
  std::ofstream(work_ / "drive_tty.py")
      << "import fcntl, os, pty, select, struct, sys, termios, time\n"
         "pid, fd = pty.fork()\n"
         "if pid == 0:\n"
         "    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack('HHHH', 24, 80, 0, 0))\n"
         "    os.execvp('srun', ['srun', '--pty', '-n', '1', 'bash', '--norc', '--noprofile', '-i'])\n"
         "out = b''\n"
         "def until(word, limit=20):\n"
         "    global out\n"
         "    end = time.time() + limit\n"
         "    while word not in out and time.time() < end:\n"
         "        if select.select([fd], [], [], 0.2)[0]:\n"
         "            try: out += os.read(fd, 4096)\n"
         "            except OSError: break\n"
         "    return word in out\n"
         "os.write(fd, b'tty; [ -t 0 ] && echo in-$((6*7)); echo \"rows=$(stty size)\"; echo d$((1+1))one\\r')\n"
         "until(b'd2one')\n"
         "fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', 30, 100, 0, 0))  # the window grows\n"
         "os.write(fd, b'echo \"rows2=$(stty size)\"; echo e$((2+1))nd\\r')\n"
         "until(b'e3nd')\n"
         "os.write(fd, b'exit 3\\r')\n"
         "until(b'never', 3)\n"
         "_, status = os.waitpid(pid, 0)\n"
         "sys.stdout.write(out.decode(errors='replace').replace('\\r', ''))\n"
         "print('srun-exit', os.waitstatus_to_exitcode(status))\n";
  Result pty = Run(out_of_job + "/usr/bin/python3 drive_tty.py");
  EXPECT_EQ(pty.rc, 0) << pty.out;
  EXPECT_NE(pty.out.find("/dev/pts/"), std::string::npos) << pty.out;
  EXPECT_NE(pty.out.find("in-42\n"), std::string::npos) << pty.out;
  EXPECT_NE(pty.out.find("rows=24 80\n"), std::string::npos) << "the terminal's size travels:\n" << pty.out;
  EXPECT_NE(pty.out.find("rows2=30 100\n"), std::string::npos) << "and follows a resize:\n" << pty.out;
  EXPECT_NE(pty.out.find("srun-exit 3\n"), std::string::npos) << pty.out;
  EXPECT_EQ(Run("squeue -h").out, "");
}

// The job environment as distributed training reads it, checked with Debian's PyTorch: torchrun
// started on every node by srun, told the node count and rank from SLURM_NNODES/SLURM_NODEID and
// the head from `scontrol show hostnames $SLURM_JOB_NODELIST`; and srun's tasks placing themselves
// from SLURM_PROCID/SLURM_NTASKS/SLURM_LOCALID as Lightning and submitit do. Each forms one gloo
// process group over loopback (every node of a local cluster is this host) and all-reduces.
TEST_F(Srun, TorchrunAndSlurmVariableReadersFormOneProcessGroup) {
  if (Sh("/usr/bin/python3 -c 'import torch.distributed as d; assert d.is_gloo_available()'").rc != 0) {
    GTEST_SKIP() << "needs Debian's python3-torch (tools/deps.sh installs it)";
  }
  std::ofstream(work_ / "dist.py")
      << "import os, sys, torch, torch.distributed as dist\n"
         "mode = sys.argv[1]\n"
         "if mode == 'srun':\n"
         "    os.environ.update(RANK=os.environ['SLURM_PROCID'], WORLD_SIZE=os.environ['SLURM_NTASKS'],\n"
         "                      LOCAL_RANK=os.environ['SLURM_LOCALID'])\n"
         "dist.init_process_group('gloo')\n"
         "t = torch.tensor([float(dist.get_rank())])\n"
         "dist.all_reduce(t)\n"
         "print(f\"{mode} rank={dist.get_rank()} world={dist.get_world_size()} local={os.environ['LOCAL_RANK']} \"\n"
         "      f\"node={os.environ['SLURM_NODEID']} sum={int(t.item())}\", flush=True)\n"
         "dist.destroy_process_group()\n";
  // torch 1.13 under Python 3.11 cannot parse torchrun's default --redirects/--tee of 0 (its Std
  // flag lookup skips the zero member): 1 and 1 keep stdout on the console.
  const int64_t id = SubmitScript(
      "-N 2 --ntasks-per-node=2",
      "head=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)\n"
      "echo head=$head nodes=$SLURM_NNODES\n"
      "export MASTER_ADDR=127.0.0.1 MASTER_PORT=$((20000 + SLURM_JOB_ID % 20000)) GLOO_SOCKET_IFNAME=lo\n"
      // One launcher per node: -n, as under Slurm (whose srun reads the job's SLURM_NTASKS=4 as -n
      // and would drop --ntasks-per-node=1 with a warning)
      "srun -N \"$SLURM_NNODES\" -n \"$SLURM_NNODES\" sh -c '/usr/bin/python3 -m torch.distributed.run "
      "--nnodes=$SLURM_NNODES --node_rank=$SLURM_NODEID --nproc_per_node=2 --redirects=1 --tee=1 "
      "--log_dir=torch-logs-$SLURM_NODEID --master_addr=$MASTER_ADDR --master_port=$MASTER_PORT dist.py torchrun' "
      "| grep -o 'torchrun .*' | sort\n"
      "export MASTER_PORT=$((MASTER_PORT + 1))\n"
      "srun -n 4 /usr/bin/python3 dist.py srun | sort\n");
  ASSERT_TRUE(WaitFor([&] { return State(id) == "COMPLETED" || State(id) == "FAILED"; }, 90s)) << State(id);
  const std::string out = Output(id);
  for (const char* line :
       {"head=node1 nodes=2\n",
        "torchrun rank=0 world=4 local=0 node=0 sum=6\ntorchrun rank=1 world=4 local=1 node=0 sum=6\n"
        "torchrun rank=2 world=4 local=0 node=1 sum=6\ntorchrun rank=3 world=4 local=1 node=1 sum=6\n",
        "srun rank=0 world=4 local=0 node=0 sum=6\nsrun rank=1 world=4 local=1 node=0 sum=6\n"
        "srun rank=2 world=4 local=0 node=1 sum=6\nsrun rank=3 world=4 local=1 node=1 sum=6\n"}) {
    EXPECT_NE(out.find(line), std::string::npos) << "missing '" << line << "' in:\n" << out;
  }
}

}  // namespace
