// Integration tests for the Slurm features a batch user scripts against: job arrays, dependencies,
// begin times, requeue, accounting (sacct) and the job environment, on a real local cluster driven
// through the real commands. Label "integration" in CTest.
#include "local_cluster_test_util.h"

#include <algorithm>
#include <ctime>
#include <set>

namespace {

using namespace muster_test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

using SlurmParity = LocalClusterTest;

int Lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

TEST_F(SlurmParity, ArrayTasksRunWithTheirEnvironmentOutputFilesAndLimit) {
  const int64_t a = Submit(
      "--array=0-4:2 -o out_%A_%a.txt --wrap 'echo $SLURM_ARRAY_JOB_ID $SLURM_ARRAY_TASK_ID $SLURM_ARRAY_TASK_COUNT "
      "$SLURM_ARRAY_TASK_MIN $SLURM_ARRAY_TASK_MAX $SLURM_ARRAY_TASK_STEP $SLURM_JOB_ID'");
  const std::string sa = std::to_string(a);
  ASSERT_TRUE(WaitFor([&] { return Run("squeue -h -t all -r -j " + sa + " -o %T").out == "COMPLETED\nCOMPLETED\nCOMPLETED\n"; },
                      20s))
      << Run("squeue -t all -r -j " + sa).out;
  // Each task is a job of its own, named <array>_<task>, with its own job id.
  const std::string ids = Run("squeue -h -t all -r -j " + sa + " -o '%i %A' -S K").out;
  std::set<std::string> own;
  for (int t : {0, 2, 4}) {
    const std::string out = ReadFile((work_ / ("out_" + sa + "_" + std::to_string(t) + ".txt")).string());
    const size_t last = out.rfind(' ');
    ASSERT_NE(last, std::string::npos) << out;
    EXPECT_EQ(out.substr(0, last), sa + " " + std::to_string(t) + " 3 0 4 2") << out;
    const std::string job_id = Trim(out.substr(last + 1));
    own.insert(job_id);
    EXPECT_NE(ids.find(sa + "_" + std::to_string(t) + " " + job_id + "\n"), std::string::npos) << ids;
  }
  EXPECT_EQ(own.size(), 3u);

  // A '%' limit: one task at a time, the others wait with JobArrayTaskLimit; waiting tasks show
  // as one line unless -r; scancel <array>_<task> ends one task, scancel <array> the rest.
  const int64_t b = Submit("--array=1-4%1 -o /dev/null --wrap 'sleep 30'");
  const std::string sb = std::to_string(b);
  ASSERT_TRUE(WaitFor([&] { return Run("squeue -h -j " + sb + " -t R -o %i").out == sb + "_1\n"; }, 10s))
      << Run("squeue -r -j " + sb).out;
  EXPECT_TRUE(WaitFor([&] { return Run("squeue -h -j " + sb + " -t PD -o '%i %r'").out == sb + "_[2-4%1] JobArrayTaskLimit\n"; }, 5s))
      << Run("squeue -j " + sb).out;
  EXPECT_EQ(Lines(Run("squeue -h -r -j " + sb + " -t PD -o %i").out), 3);
  EXPECT_EQ(Run("scancel " + sb + "_3").rc, 0);
  EXPECT_TRUE(WaitFor([&] { return Run("squeue -h -r -j " + sb + " -t PD -o %i").out == sb + "_2\n" + sb + "_4\n"; }, 5s))
      << Run("squeue -t all -r -j " + sb).out;
  EXPECT_EQ(Run("scancel " + sb).rc, 0);
  EXPECT_TRUE(WaitFor([&] { return Run("squeue -h -j " + sb + " -t PD,R,CG -o %i").out.empty(); }, 15s))
      << Run("squeue").out;
  // A bad specification is Slurm's error, and nothing is submitted.
  Result bad = Run("sbatch --array=5-1 --wrap true");
  EXPECT_EQ(bad.rc, 1);
  EXPECT_EQ(bad.out, "sbatch: error: Batch job submission failed: Invalid job array specification\n");
}

TEST_F(SlurmParity, DependenciesAndBeginTimesOrderTheJobs) {
  const int64_t a = Submit("-o /dev/null --wrap 'sleep 2; exit 1'");
  const std::string sa = std::to_string(a);
  const int64_t ok = Submit("-o /dev/null -d afterok:" + sa + " --wrap true");
  const int64_t notok = Submit("-o notok.txt -d afternotok:" + sa + " --wrap 'echo ran after $SLURM_JOB_ID'");
  const int64_t any = Submit("-o /dev/null --dependency=afterany:" + sa + " --wrap true");
  ASSERT_TRUE(WaitFor([&] { return Run("squeue -h -j " + std::to_string(ok) + " -o '%r %E'").out ==
                                   "Dependency afterok:" + sa + "(unfulfilled)\n"; }, 5s))
      << Run("squeue -j " + std::to_string(ok)).out;
  ASSERT_TRUE(WaitState(a, "FAILED", 20s)) << State(a);
  ASSERT_TRUE(WaitState(notok, "COMPLETED", 15s)) << State(notok);
  ASSERT_TRUE(WaitState(any, "COMPLETED", 15s)) << State(any);
  EXPECT_EQ(ReadFile((work_ / "notok.txt").string()), "ran after " + std::to_string(notok) + "\n");
  // afterok on a failed job can never be met: it waits, saying so, until cancelled.
  EXPECT_TRUE(WaitFor([&] { return Run("squeue -h -j " + std::to_string(ok) + " -o '%T %r %E'").out ==
                                   "PENDING DependencyNeverSatisfied afterok:" + sa + "(failed)\n"; }, 5s))
      << Run("scontrol show job " + std::to_string(ok)).out;
  EXPECT_NE(Run("scontrol show job " + std::to_string(ok)).out.find(" Dependency=afterok:" + sa + "(failed)\n"),
            std::string::npos);
  EXPECT_EQ(Run("scancel " + std::to_string(ok)).rc, 0);
  // A syntax error is refused with Slurm's message.
  Result bad = Run("sbatch --dependency=after:x --wrap true");
  EXPECT_EQ(bad.rc, 1);
  EXPECT_EQ(bad.out, "sbatch: error: Batch job submission failed: Job dependency problem\n");
  // --begin: eligible only from then on.
  const int64_t later = Submit("-o /dev/null --begin=now+3 --wrap true");
  EXPECT_EQ(Run("squeue -h -j " + std::to_string(later) + " -o %r").out, "BeginTime\n");
  EXPECT_TRUE(WaitState(later, "COMPLETED", 15s)) << State(later);
  EXPECT_EQ(Run("sbatch --begin=someday --wrap true").out,
            "Invalid time specification (pos=0): someday\nsbatch: error: Invalid --begin specification\n");
  // --begin=midnight: the coming midnight, as Slurm reads it (not this morning's, which has passed).
  auto next_midnight = [] {
    const time_t tomorrow = time(nullptr) + 86400;
    std::tm tm{};
    localtime_r(&tomorrow, &tm);
    char text[32];
    strftime(text, sizeof text, "EligibleTime=%Y-%m-%dT00:00:00", &tm);
    return std::string(text);
  };
  const std::string before = next_midnight();
  const int64_t night = Submit("-o /dev/null --begin=midnight --wrap true");
  const std::string after = next_midnight();  // differs from `before` only across a midnight
  EXPECT_EQ(Run("squeue -h -j " + std::to_string(night) + " -o %r").out, "BeginTime\n");
  const std::string shown = Run("scontrol show job " + std::to_string(night)).out;
  EXPECT_TRUE(shown.find(before) != std::string::npos || shown.find(after) != std::string::npos)
      << shown << "\nhas no " << before;
  EXPECT_EQ(Run("scancel " + std::to_string(night)).rc, 0);
}

TEST_F(SlurmParity, RequeueRunsTheJobAgainAndSacctKeepsEveryJobAcrossRestarts) {
  const int64_t id = Submit("-J again -o runs.txt --open-mode=append "
                            "--wrap 'echo run ${SLURM_RESTART_COUNT:-0} on $SLURMD_NODENAME; sleep 30'");
  const std::string s = std::to_string(id);
  ASSERT_TRUE(WaitFor([&] { return ReadFile((work_ / "runs.txt").string()).find("run 0") != std::string::npos; }, 15s));
  EXPECT_EQ(Run("scontrol requeue " + s).rc, 0);
  ASSERT_TRUE(WaitFor([&] { return ReadFile((work_ / "runs.txt").string()).find("run 1") != std::string::npos; }, 30s))
      << ReadFile((work_ / "runs.txt").string()) << Run("scontrol show job " + s).out;
  EXPECT_NE(Run("scontrol show job " + s).out.find(" Restarts=1 "), std::string::npos);
  EXPECT_EQ(Run("scancel " + s).rc, 0);
  ASSERT_TRUE(WaitState(id, "CANCELLED", 20s)) << State(id);
  const int64_t done = Submit("-o /dev/null --comment=nightly --wckey=proj --wrap 'exit 0'");
  ASSERT_TRUE(WaitState(done, "COMPLETED", 15s));
  const std::string sd = std::to_string(done);
  const std::string want = sd + "|COMPLETED|0:0|nightly|proj\n" + sd + ".batch|COMPLETED|0:0||\n";
  EXPECT_EQ(Run("sacct -n -P -j " + sd + " -o JobID,State,ExitCode,Comment,WCKey").out, want);
  EXPECT_EQ(Run("sacct -n -X -P -j " + s + " -o JobID,JobName,State").out, s + "|again|CANCELLED by 0\n");
  // The records outlive the controller's memory of them: restart it.
  ASSERT_TRUE(RestartControllerWith(""));
  EXPECT_EQ(Run("sacct -n -P -j " + sd + " -o JobID,State,ExitCode,Comment,WCKey").out, want);
  Result bad = Run("sacct -o NoSuchField");
  EXPECT_EQ(bad.rc, 1);
  EXPECT_EQ(bad.out, "sacct: error: Invalid field requested: \"NoSuchField\"\n");
}

TEST_F(SlurmParity, InputEnvironmentUpdatesAndHolds) {
  // SBATCH_* variables are options: below the command line, above #SBATCH lines.
  {
    std::ofstream script((work_ / "job.sh").string());
    script << "#!/bin/sh\n#SBATCH -J fromscript\n#SBATCH -t 3\necho $SLURM_JOB_NAME\n";
  }
  const std::string id = Trim(Run("SBATCH_JOB_NAME=fromenv SBATCH_TIMELIMIT=7 sbatch --parsable -H -t 9 job.sh").out);
  EXPECT_EQ(Run("squeue -h -j " + id + " -o '%j %l %r'").out, "fromenv 9:00 JobHeldUser\n");
  // scontrol update of a waiting job; a hold by an admin is JobHeldAdmin.
  EXPECT_EQ(Run("scontrol update JobId=" + id + " TimeLimit=5 Name=renamed").rc, 0);
  EXPECT_EQ(Run("squeue -h -j " + id + " -o '%j %l'").out, "renamed 5:00\n");
  Result bad = Run("scontrol update JobId=" + id + " NoSuchKey=1");
  EXPECT_EQ(bad.rc, 1);
  EXPECT_EQ(bad.out, "Update of this parameter is not supported: NoSuchKey=1\nRequest aborted\n");
  EXPECT_EQ(Run("scontrol release " + id).rc, 0);
  const std::string later = std::to_string(Submit("-o /dev/null --begin=now+60 --wrap true"));
  EXPECT_EQ(Run("scontrol hold " + later).rc, 0);
  EXPECT_EQ(Run("squeue -h -j " + later + " -o %r").out, "JobHeldAdmin\n");
  EXPECT_EQ(Run("scancel " + later).rc, 0);
  // -V, --usage and --help answer for every command.
  for (const char* cmd : {"sbatch", "srun", "salloc", "squeue", "sinfo", "scancel", "sacct", "scontrol", "sprio",
                          "sshare", "sacctmgr"}) {
    for (const char* opt : {"-V", "--usage", "--help"}) {
      Result r = Run(std::string(cmd) + " " + opt);
      EXPECT_EQ(r.rc, 0) << cmd << " " << opt << ": " << r.out;
      EXPECT_FALSE(r.out.empty()) << cmd << " " << opt;
    }
  }
  EXPECT_EQ(Run("scontrol show hostnames 'n[1-3],x'").out, "n1\nn2\nn3\nx\n");
}

TEST_F(SlurmParity, SallocRunsACommandInsideAnAllocationAndReleasesIt) {
  Result r = Run("salloc -N 2 -J inside sh -c 'echo job=$SLURM_JOB_ID nodes=$SLURM_JOB_NUM_NODES $SLURM_JOB_NODELIST; "
                 "srun -N 2 -n 2 -l hostname | sort; exit 3'");
  EXPECT_EQ(r.rc, 3) << r.out;
  const size_t granted = r.out.find("salloc: Granted job allocation ");
  ASSERT_NE(granted, std::string::npos) << r.out;
  const std::string id = r.out.substr(granted + 31, r.out.find('\n', granted) - granted - 31);
  EXPECT_NE(r.out.find("salloc: Pending job allocation " + id + "\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("job=" + id + " nodes=2 node[1-2]\n"), std::string::npos) << r.out;
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  EXPECT_NE(r.out.find("0: " + std::string(host) + "\n1: " + std::string(host) + "\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("salloc: Relinquishing job allocation " + id + "\n"), std::string::npos) << r.out;
  EXPECT_EQ(Run("sacct -n -X -P -j " + id + " -o JobName,State,ExitCode,NNodes").out, "inside|FAILED|3:0|2\n");
  EXPECT_EQ(Run("sacct -n -P -j " + id + " -o JobID,State").out, id + "|FAILED\n" + id + ".0|COMPLETED\n");
  // --no-shell: the allocation stays until scancel ends it.
  Result kept = Run("salloc --no-shell -n 1 -J kept");
  ASSERT_EQ(kept.rc, 0) << kept.out;
  const std::string kid = Trim(kept.out.substr(kept.out.rfind(' ') + 1));
  EXPECT_EQ(Run("squeue -h -j " + kid + " -o '%j %T'").out, "kept RUNNING\n");
  EXPECT_EQ(Run("scancel " + kid).rc, 0);
  EXPECT_TRUE(WaitFor([&] { return State(std::atoll(kid.c_str())) == "CANCELLED"; }, 20s)) << State(std::atoll(kid.c_str()));
  EXPECT_EQ(Run("salloc --bogus true").out, "salloc: unrecognized option '--bogus'\nTry \"salloc --help\" for more information\n");
}

// sbatch --wait returns the job's exit code; --test-only says when and where without submitting;
// --signal=B:SIG@T reaches the batch shell before the limit; scancel -b/-s/-f pick who gets a signal.
TEST_F(SlurmParity, WaitTestOnlySignalsAndWhoGetsThem) {
  Result waited = Run("sbatch --wait -o /dev/null --wrap 'sleep 1; exit 3'");
  EXPECT_EQ(waited.rc, 3) << waited.out;
  EXPECT_EQ(waited.out.rfind("Submitted batch job ", 0), 0u) << waited.out;
  Result array = Run("sbatch --wait --parsable --array=1-2 -o /dev/null --wrap 'exit $SLURM_ARRAY_TASK_ID'");
  EXPECT_EQ(array.rc, 2) << array.out;

  const std::string jobs_before = Run("squeue -h -t all -o %i | sort").out;
  Result test = Run("sbatch --test-only -N 2 --wrap true");
  EXPECT_EQ(test.rc, 0) << test.out;
  EXPECT_EQ(test.out.rfind("sbatch: Job ", 0), 0u) << test.out;
  EXPECT_NE(test.out.find(" to start at "), std::string::npos) << test.out;
  EXPECT_NE(test.out.find(" processors on nodes node[1-2] in partition "), std::string::npos) << test.out;
  EXPECT_EQ(Run("squeue -h -t all -o %i | sort").out, jobs_before) << "--test-only submits nothing";
  Result never = Run("sbatch --test-only --gres=gpu:99 --wrap true");
  EXPECT_EQ(never.rc, 1);
  EXPECT_EQ(never.out, "allocation failure: Requested node configuration is not available\n");

  // A cancelled job's output ends with Slurm's line (musterd's name in place of slurmstepd's).
  const int64_t cancelled = Submit("-o cancelled.txt --wrap 'echo started; sleep 30'");
  ASSERT_TRUE(WaitFor([&] { return ReadFile((work_ / "cancelled.txt").string()) == "started\n"; }, 15s));
  EXPECT_EQ(Run("scancel " + std::to_string(cancelled)).rc, 0);
  ASSERT_TRUE(WaitFor([&] { return State(cancelled) == "CANCELLED"; }, 20s)) << State(cancelled);
  const std::string log = ReadFile((work_ / "cancelled.txt").string());
  EXPECT_EQ(log.rfind("started\nmusterd: error: *** JOB " + std::to_string(cancelled) + " ON node1 CANCELLED AT ", 0), 0u)
      << log;
  EXPECT_EQ(log.substr(log.size() - 5), " ***\n") << log;

  // 60 s limit, the signal 55 s before: about 5 s after the start.
  const int64_t warned = Submit("-t 1 --signal=B:USR1@55 -o warned.txt --wrap "
                                "'trap \"echo got USR1; exit 0\" USR1; for i in $(seq 40); do sleep 0.5; done; echo no signal'");
  ASSERT_TRUE(WaitFor([&] { return State(warned) == "COMPLETED"; }, 30s)) << State(warned);
  EXPECT_EQ(ReadFile((work_ / "warned.txt").string()), "got USR1\n");

  // The batch shell traps USR2, and so does the step srun runs: -b reaches only the shell, -s only
  // the step.
  std::ofstream(work_ / "who.sh") << "#!/bin/bash\n"
                                     "trap 'echo batch-usr2' USR2\n"
                                     "srun sh -c 'trap \"echo step-usr2\" USR2; touch step-ready; i=0; "
                                     "while [ $i -lt 30 ]; do sleep 0.2; i=$((i+1)); done' &\n"
                                     "while kill -0 $! 2>/dev/null; do sleep 0.2; done\n";
  fs::permissions(work_ / "who.sh", fs::perms::all);
  const int64_t who = Submit("-o who.txt who.sh");
  // The step's task is up and has set its trap (the batch shell set its own before starting srun).
  ASSERT_TRUE(WaitFor([&] { return fs::exists(work_ / "step-ready"); }, 15s));
  EXPECT_EQ(Run("scancel -b -s USR2 " + std::to_string(who)).rc, 0);
  ASSERT_TRUE(WaitFor([&] { return ReadFile((work_ / "who.txt").string()).find("batch-usr2") != std::string::npos; }, 10s));
  EXPECT_EQ(Run("scancel -s USR2 " + std::to_string(who)).rc, 0);
  ASSERT_TRUE(WaitFor([&] { return ReadFile((work_ / "who.txt").string()).find("step-usr2") != std::string::npos; }, 10s));
  ASSERT_TRUE(WaitFor([&] { return State(who) == "COMPLETED"; }, 20s)) << State(who);
  // Each got it once (the step's sleep, in the task's process group, dies of it: its shell says so).
  const std::string who_out = ReadFile((work_ / "who.txt").string());
  EXPECT_EQ(who_out.find("batch-usr2"), who_out.rfind("batch-usr2")) << who_out;
  EXPECT_EQ(who_out.find("step-usr2"), who_out.rfind("step-usr2")) << who_out;
  EXPECT_LT(who_out.find("batch-usr2"), who_out.find("step-usr2")) << who_out;

  // A signal sent right after sbatch, while the job waits or starts, is not lost: scancel tries
  // again (as Slurm's, 5 s later) until the job runs. Caught or not, it ends the script early.
  const int64_t early = Submit("-o early.txt --wrap 'trap \"echo got-usr1; exit 3\" USR1; "
                               "for i in $(seq 200); do sleep 0.1; done; echo no signal'");
  Result sent = Run("scancel -v -b -s USR1 " + std::to_string(early));
  EXPECT_EQ(sent.rc, 0) << sent.out;
  ASSERT_TRUE(WaitFor([&] { return State(early) != "PENDING" && State(early) != "RUNNING"; }, 40s)) << State(early);
  EXPECT_EQ(ReadFile((work_ / "early.txt").string()).find("no signal"), std::string::npos)
      << sent.out << ReadFile((work_ / "early.txt").string());
  EXPECT_EQ(State(early), "FAILED");
}

}  // namespace
