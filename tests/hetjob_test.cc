// Heterogeneous jobs on a real local cluster (musterctld + three musterd, fake GPUs): `#SBATCH
// hetjob` and ':' components started as one gang, Slurm's J+K ids in squeue and sacct, the
// HetJob lines of scontrol, the _HET_GROUP_K variables, srun --het-group, and cancelling (the
// whole job by its leader; a waiting component alone is refused). Label "integration" in CTest.
#include <fstream>
#include <string>

#include "local_cluster_test_util.h"

namespace {

using namespace muster_test;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

class HetJob : public LocalClusterTest {
 protected:
  void SetUp() override {
    nodes_ = 3;
    LocalClusterTest::SetUp();
  }
  // The states of every component of heterogeneous job `id` (its leader's id selects them all).
  std::string States(int64_t id) { return Trim(Run("squeue -h -t all -j " + std::to_string(id) + " -o %T").out); }
  bool WaitStates(int64_t id, const std::string& state, std::chrono::milliseconds limit = 20s) {
    return WaitFor([&] { return States(id) == state + "\n" + state; }, limit);
  }
};

TEST_F(HetJob, ComponentsRunTogetherAndEachStepSeesItsOwn) {
  std::ofstream(work_ / "het.sh") << "#!/bin/bash\n"
                                     "#SBATCH -J het -n1 --gres=gpu:1 -o het-%j.out\n"
                                     "#SBATCH hetjob\n"
                                     "#SBATCH -N2 -n2 --gres=gpu:2\n"
                                     "env | grep -E '^SLURM_(HET_SIZE|JOB_ID|JOB_NODELIST|NTASKS)' | sort\n"
                                     "echo ---\n"
                                     "srun --het-group=1 bash -c 'echo task $SLURM_PROCID on $SLURMD_NODENAME' | sort\n"
                                     "srun --het-group=0,1 true || echo two-groups-refused\n"
                                     "touch started; while [ ! -e finish ]; do sleep 0.1; done\n";
  const int64_t id = Submit("het.sh");
  const std::string j = std::to_string(id), c = std::to_string(id + 1);
  ASSERT_TRUE(WaitFor([&] { return fs::exists(work_ / "started"); }, 20s)) << Run("squeue").out;
  // squeue: one line per component, Slurm's J+K ids; the leader's id selects both.
  Result q = Run("squeue -h -j " + j + " -o '%i %A %T %D'");
  EXPECT_EQ(q.out, j + "+0 " + j + " RUNNING 1\n" + j + "+1 " + c + " RUNNING 2\n");
  // scontrol: HetJobId, HetJobOffset and HetJobIdSet on each component's record.
  Result show = Run("scontrol show job " + j);
  EXPECT_NE(show.out.find("JobId=" + j + " HetJobId=" + j + " HetJobOffset=0 JobName=het\n   HetJobIdSet=" + j + "-" + c),
            std::string::npos) << show.out;
  EXPECT_NE(show.out.find("JobId=" + c + " HetJobId=" + j + " HetJobOffset=1 JobName=het\n"), std::string::npos) << show.out;
  EXPECT_EQ(Run("scontrol -o show job " + j + "+1 | cut -d' ' -f1").out, "JobId=" + c + "\n");
  // The component's GPUs and nodes are its own: two nodes, no GPU given twice on a node.
  Result nodes = Run("squeue -h -j " + c + " -o %N");
  EXPECT_NE(Trim(nodes.out), "") << nodes.out;

  std::ofstream(work_ / "finish") << "";
  ASSERT_TRUE(WaitStates(id, "COMPLETED")) << States(id);
  const std::string out = ReadFile((work_ / ("het-" + j + ".out")).string());
  for (const std::string& line :
       {std::string("SLURM_HET_SIZE=2"), "SLURM_JOB_ID=" + j, "SLURM_JOB_ID_HET_GROUP_0=" + j, "SLURM_JOB_ID_HET_GROUP_1=" + c,
        std::string("SLURM_NTASKS_HET_GROUP_1=2"), std::string("task 0 on node"), std::string("task 1 on node"),
        std::string("two-groups-refused")}) {
    EXPECT_NE(out.find(line), std::string::npos) << "missing '" << line << "' in:\n" << out;
  }
  EXPECT_NE(out.find("srun: error: --het-group=0,1: Muster runs a step in one component"), std::string::npos) << out;
  // The component's step ran on its two nodes.
  const size_t t0 = out.find("task 0 on "), t1 = out.find("task 1 on ");
  ASSERT_NE(t0, std::string::npos);
  ASSERT_NE(t1, std::string::npos);
  EXPECT_NE(out.substr(t0 + 10, out.find('\n', t0) - t0 - 10), out.substr(t1 + 10, out.find('\n', t1) - t1 - 10)) << out;
  // sacct: J+0 and J+1, with the batch step and the component's step.
  Result acct = Run("sacct -n -P -j " + j + " -o jobid,state");
  EXPECT_NE(acct.out.find(j + "+0|COMPLETED\n" + j + "+0.batch|COMPLETED\n"), std::string::npos) << acct.out;
  EXPECT_NE(acct.out.find(j + "+1|COMPLETED\n" + j + "+1.0|COMPLETED\n"), std::string::npos) << acct.out;
}

TEST_F(HetJob, TheGangWaitsWholeAndIsCancelledWhole) {
  // Component 1 asks for more GPUs than are free while a job holds two nodes' GPUs: neither
  // component starts, and neither holds anything meanwhile.
  const int64_t blocker = Submit("-N2 --gres=gpu:4 --wrap 'while [ ! -e release ]; do sleep 0.1; done'");
  ASSERT_TRUE(WaitState(blocker, "RUNNING")) << State(blocker);
  const int64_t id = Submit("-n1 --gres=gpu:1 : -N2 --gres=gpu:4 --wrap 'srun --het-group=1 hostname'");
  const std::string j = std::to_string(id);
  ASSERT_TRUE(WaitFor([&] { return Run("squeue -h -j " + j + " -o '%i %T %r'").out ==
                                   j + "+0 PENDING Resources\n" + j + "+1 PENDING Resources\n"; }, 15s))
      << Run("squeue -h -j " + j + " -o '%i %T %r'").out;
  // (The leader alone would fit node3: it stays idle.)
  EXPECT_EQ(Trim(Run("sinfo -h -N -o '%N %t' | grep -c idle").out), "1") << Run("sinfo -N").out;
  // A waiting component cannot be cancelled alone (Slurm's words), nor held.
  Result one = Run("scancel " + j + "+1");
  EXPECT_EQ(one.rc, 60);  // Slurm's: ESLURM_NOT_WHOLE_HET_JOB, cut to a byte
  EXPECT_EQ(one.out, "scancel: error: Kill job error on job id " + j +
                         "+1: Operation not permitted on individual component of heterogeneous job\n");
  EXPECT_EQ(State(id + 1), "PENDING");
  // Held and released whole, by the leader's id.
  ASSERT_EQ(Run("scontrol hold " + j).rc, 0);
  EXPECT_EQ(Run("squeue -h -j " + j + " -o '%i %r %Q' | sort").out, j + "+0 JobHeldAdmin 0\n" + j + "+1 JobHeldAdmin 0\n");  // (root holds as an admin)
  ASSERT_EQ(Run("scontrol release " + j).rc, 0);
  EXPECT_EQ(Run("squeue -h -j " + j + " -o %r | sort -u").out.find("JobHeld"), std::string::npos);
  // Once the blocker is gone both start together, and both end with the leader.
  std::ofstream(work_ / "release") << "";
  ASSERT_TRUE(WaitStates(id, "COMPLETED")) << States(id);
  // Cancelling a waiting job by its leader's id cancels every component.
  const int64_t later = Submit("--begin=now+1hour -n1 : -n1 --wrap true");
  ASSERT_EQ(Run("scancel " + std::to_string(later)).rc, 0);
  ASSERT_TRUE(WaitStates(later, "CANCELLED")) << States(later);
}

}  // namespace
