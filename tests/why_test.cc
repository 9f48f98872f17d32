// muster why on a real local cluster: a job waiting behind one that holds every GPU is explained
// with the start and nodes squeue --start shows for it (the same backfill plan), and jobs not
// pending, unknown or misnamed are said so.
#include "local_cluster_test_util.h"

namespace muster_test {
namespace {

class Why : public LocalClusterTest {};

TEST_F(Why, ThePlannedStartIsSqueueStartsAndTheWordsArePlain) {
  // Two nodes of 4 GPUs, all held for (at most) ten minutes.
  const int64_t blocker = Submit("-N2 --gres=gpu:4 -t 10 --wrap 'while [ ! -e release ]; do sleep 0.1; done'");
  ASSERT_TRUE(WaitState(blocker, "RUNNING")) << State(blocker);
  const int64_t id = Submit("--gres=gpu:4 -t 5 --wrap true");
  const std::string j = std::to_string(id);
  // The pass has planned it: squeue --start has its start and nodes.
  ASSERT_TRUE(WaitFor([&] { return Trim(Run("squeue -h -j " + j + " -o '%r %S'").out).rfind("Resources 2", 0) == 0; }, 15s))
      << Run("squeue --start").out;
  const std::string start = Trim(Run("squeue -h -j " + j + " -o %S").out);
  const std::string nodes = Trim(Run("squeue -h -j " + j + " -o %Y").out);
  // squeue --start stays Slurm's table, this job in it.
  Result table = Run("squeue --start");
  EXPECT_NE(table.out.find("START_TIME"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find(start), std::string::npos) << table.out;

  Result why = Run("muster why " + j);
  ASSERT_EQ(why.rc, 0) << why.out;
  EXPECT_NE(why.out.find("Job " + j + " (root"), std::string::npos) << why.out;
  EXPECT_NE(why.out.find("is pending: Resources - the 4 GPUs it asks for are not free now.\n"), std::string::npos) << why.out;
  EXPECT_NE(why.out.find("The scheduler takes it 1st of 1 waiting job.\n"), std::string::npos) << why.out;
  EXPECT_NE(why.out.find("Expected start: " + start + " on " + nodes + " GPUs 0-3 (backfill plan).\n"), std::string::npos)
      << why.out << "squeue: " << start << " " << nodes;
  // Every GPU is held until the same moment: nothing the job could change starts it sooner.
  EXPECT_NE(why.out.find("Nothing checked starts it sooner"), std::string::npos) << why.out;

  Result json = Run("muster why --json " + j);
  ASSERT_EQ(json.rc, 0) << json.out;
  EXPECT_NE(json.out.find("\"start\": \"planned\""), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"sched_nodes\": \"" + nodes + "\""), std::string::npos) << json.out;

  // Not pending, unknown, misnamed.
  Result running = Run("muster why " + std::to_string(blocker));
  EXPECT_EQ(running.rc, 0) << running.out;
  EXPECT_EQ(running.out.rfind("Job " + std::to_string(blocker) + " (root", 0), 0u) << running.out;
  EXPECT_NE(running.out.find(") is RUNNING: it is not pending.\n"), std::string::npos) << running.out;
  Result unknown = Run("muster why 999999");
  EXPECT_EQ(unknown.rc, 1) << unknown.out;
  EXPECT_EQ(unknown.out, "muster why: job 999999: Invalid job id specified\n");
  EXPECT_EQ(Run("muster why x").rc, 2);

  std::ofstream(work_ / "release") << "";
  ASSERT_TRUE(WaitState(id, "COMPLETED", 30s)) << State(id);
}

}  // namespace
}  // namespace muster_test
