// The controller's job steps (controller_steps.cc): their CPUs, memory, GPUs, nodes and ids, as
// srun inside an allocation asks for them.
#include <gtest/gtest.h>

#include <set>

#include "ctld/controller.h"
#include "ctld/controller_test_fixture.h"

namespace muster {
namespace {

using namespace ctld_test;  // NOLINT(build/namespaces)

// Slurm 22.05's step CPUs: a plain step holds all the job's CPUs on its nodes, --exact (or -c)
// only its tasks' CPUs, --overlap none; a step that does not fit beside the running ones is busy.
TEST_F(ControllerTest, StepsHoldTheJobsCpusUnlessExactOrOverlapping) {
  RegisterAll();
  const int64_t id = Submit({"-n", "4"});
  ctld_->ScheduleOnce();
  ASSERT_EQ(Job(id).state, JobState::kRunning);
  ASSERT_EQ(Job(id).allocation.size(), 1u);
  StepRequest whole;
  StatusOr<StepCreated> s0 = ctld_->CreateStep(id, whole, kAlice);
  ASSERT_TRUE(s0.ok()) << s0.status().ToString();
  EXPECT_EQ(s0->step.node_cpus, std::vector<int>{4});
  StatusOr<StepCreated> busy = ctld_->CreateStep(id, whole, kAlice);
  EXPECT_EQ(busy.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(busy.status().message(), "Requested nodes are busy");
  StepRequest shared;
  shared.overlap = true;
  StatusOr<StepCreated> s1 = ctld_->CreateStep(id, shared, kAlice);
  ASSERT_TRUE(s1.ok());
  EXPECT_TRUE(s1->step.node_cpus.empty());
  ASSERT_TRUE(ctld_->FinishStep(id, 0, 0, kAlice).ok());
  StepRequest exact;
  exact.exact = true;
  exact.shape = {.ntasks = 1};
  for (int k = 0; k < 4; ++k) {
    StatusOr<StepCreated> s = ctld_->CreateStep(id, exact, kAlice);
    ASSERT_TRUE(s.ok()) << k << ": " << s.status().ToString();
    EXPECT_EQ(s->step.node_cpus, std::vector<int>{1});
  }
  EXPECT_EQ(ctld_->CreateStep(id, exact, kAlice).status().code(), StatusCode::kUnavailable) << "four CPUs held";
  StepRequest wide;
  wide.overlap = true;
  wide.shape = {.ntasks = 5};
  EXPECT_EQ(ctld_->CreateStep(id, wide, kAlice).status().message(), "More processors requested than permitted");
  wide.overcommit = true;
  EXPECT_TRUE(ctld_->CreateStep(id, wide, kAlice).ok());
  StepRequest big;
  big.cpus_per_task = 5;
  big.shape = {.ntasks = 1};
  EXPECT_EQ(ctld_->CreateStep(id, big, kAlice).status().code(), StatusCode::kInvalidArgument) << "never fits";
  // Held CPUs survive a controller restart (the step records keep them).
  Open();
  EXPECT_EQ(ctld_->CreateStep(id, exact, kAlice).status().code(), StatusCode::kUnavailable);
}

// `srun -n1 --exclusive` steps in a two-node job go where the running steps leave room: one on
// each node at once, as Slurm places them, not one after another on the first.
TEST_F(ControllerTest, ExclusiveStepsSpreadOverTheJobsNodes) {
  RegisterAll();
  const int64_t id = Submit({"-N", "2", "-n", "2"});
  ctld_->ScheduleOnce();
  ASSERT_EQ(Job(id).state, JobState::kRunning);
  ASSERT_EQ(Job(id).allocation.size(), 2u);
  StepRequest one;
  one.exact = true;
  one.shape = {.ntasks = 1};
  StatusOr<StepCreated> first = ctld_->CreateStep(id, one, kAlice);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  StatusOr<StepCreated> second = ctld_->CreateStep(id, one, kAlice);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  ASSERT_EQ(first->step.nodes.size(), 1u);
  ASSERT_EQ(second->step.nodes.size(), 1u);
  EXPECT_NE(first->step.nodes[0], second->step.nodes[0]);
  EXPECT_EQ(first->layout.nodes, first->step.nodes);
  EXPECT_EQ(second->layout.nodes, second->step.nodes);
  EXPECT_EQ(ctld_->CreateStep(id, one, kAlice).status().code(), StatusCode::kUnavailable) << "both CPUs held";
  // When the first ends, its node is free again and the next step goes there.
  ASSERT_TRUE(ctld_->FinishStep(id, first->step.step_id, 0, kAlice).ok());
  StatusOr<StepCreated> third = ctld_->CreateStep(id, one, kAlice);
  ASSERT_TRUE(third.ok()) << third.status().ToString();
  EXPECT_EQ(third->step.nodes, first->step.nodes);
}

// Slurm 22.05's step memory: a step holds the job's memory per CPU times its CPUs (all of it for
// a plain step), --mem or --mem-per-cpu when given, all of it when the job asked memory per node;
// --overlap shares CPUs but not memory, and a step the memory left cannot hold fails at once.
TEST_F(ControllerTest, StepsHoldMemoryOfTheJobsAndOverlapDoesNotShareIt) {
  RegisterAll();
  const int64_t id = Submit({"-n", "4", "--mem-per-cpu=1000"});
  ctld_->ScheduleOnce();
  ASSERT_EQ(Job(id).state, JobState::kRunning);
  ASSERT_EQ(Job(id).allocation.at(0).memory_mb, 4000);
  StatusOr<StepCreated> plain = ctld_->CreateStep(id, StepRequest{}, kAlice);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(plain->step.node_mem_mb, std::vector<int64_t>{4000});
  StepRequest overlap;
  overlap.overlap = true;
  overlap.shape = {.ntasks = 1};
  EXPECT_EQ(ctld_->CreateStep(id, overlap, kAlice).status().message(), "Memory required by task is not available");
  ASSERT_TRUE(ctld_->FinishStep(id, plain->step.step_id, 0, kAlice).ok());
  StepRequest exact;
  exact.exact = true;
  exact.shape = {.ntasks = 1};
  for (int k = 0; k < 2; ++k) {
    StatusOr<StepCreated> s = ctld_->CreateStep(id, exact, kAlice);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ(s->step.node_mem_mb, std::vector<int64_t>{1000});
  }
  overlap.mem_mb = 2000;
  StatusOr<StepCreated> sized = ctld_->CreateStep(id, overlap, kAlice);
  ASSERT_TRUE(sized.ok()) << sized.status().ToString();
  EXPECT_EQ(sized->step.node_mem_mb, std::vector<int64_t>{2000});
  overlap.mem_mb = -1;
  overlap.mem_per_cpu_mb = 100;
  EXPECT_EQ(ctld_->CreateStep(id, overlap, kAlice).status().message(), "Memory required by task is not available")
      << "all 4000 held";
  // A job that asked memory per node gives each step all of it.
  const int64_t per_node = Submit({"-n", "2", "--mem=3000"});
  ctld_->ScheduleOnce();
  ASSERT_EQ(Job(per_node).state, JobState::kRunning);
  StatusOr<StepCreated> one = ctld_->CreateStep(per_node, exact, kAlice);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(one->step.node_mem_mb, std::vector<int64_t>{3000});
  EXPECT_EQ(ctld_->CreateStep(per_node, exact, kAlice).status().message(), "Memory required by task is not available");
  // Held memory survives a controller restart (the step records keep it).
  Open();
  EXPECT_EQ(ctld_->CreateStep(id, overlap, kAlice).status().message(), "Memory required by task is not available");
  // --mem-per-gpu: times the step's GPUs on the node (all the job's there unless it names some).
  const int64_t gpu_job = Submit({"-n", "2", "--gres=gpu:2", "--mem=8000"});
  ctld_->ScheduleOnce();
  ASSERT_EQ(Job(gpu_job).state, JobState::kRunning);
  StepRequest per_gpu;
  per_gpu.exact = true;
  per_gpu.shape = {.ntasks = 1};
  per_gpu.mem_per_gpu_mb = 1500;
  per_gpu.gpus = StepGpuRequest{.given = true, .total = 1};
  StatusOr<StepCreated> one_gpu = ctld_->CreateStep(gpu_job, per_gpu, kAlice);
  ASSERT_TRUE(one_gpu.ok()) << one_gpu.status().ToString();
  EXPECT_EQ(one_gpu->step.node_mem_mb, std::vector<int64_t>{1500});
  per_gpu.gpus = StepGpuRequest{};
  per_gpu.overlap = true;
  StatusOr<StepCreated> all_gpus = ctld_->CreateStep(gpu_job, per_gpu, kAlice);
  ASSERT_TRUE(all_gpus.ok()) << all_gpus.status().ToString();
  EXPECT_EQ(all_gpus->step.node_mem_mb, std::vector<int64_t>{3000}) << "both of the job's GPUs";
  per_gpu.mem_per_gpu_mb = 3000;
  EXPECT_EQ(ctld_->CreateStep(gpu_job, per_gpu, kAlice).status().message(), "Memory required by task is not available")
      << "6000 more with 4500 held of 8000";
}

// Slurm 22.05's step GPUs: a step holds all the job's GPUs on its nodes unless it names some
// (srun --gpus=1 ...), so steps of one GPU each run side by side on distinct GPUs; --overlap
// shares them; asking more than the job has fails at once.
TEST_F(ControllerTest, StepsHoldTheirGpusUnlessOverlapping) {
  RegisterAll();
  const int64_t id = Submit({"-n", "4", "--gres=gpu:4"});
  ctld_->ScheduleOnce();
  ASSERT_EQ(Job(id).state, JobState::kRunning);
  ASSERT_EQ(Job(id).allocation.at(0).gpus.size(), 4u);
  StepRequest one;
  one.exact = true;
  one.shape = {.ntasks = 1};
  one.gpus = {.given = true, .total = 1};
  std::set<int> seen;
  for (int k = 0; k < 4; ++k) {
    StatusOr<StepCreated> s = ctld_->CreateStep(id, one, kAlice);
    ASSERT_TRUE(s.ok()) << k << ": " << s.status().ToString();
    ASSERT_EQ(s->step.node_gpus.size(), 1u);
    ASSERT_EQ(s->step.node_gpus[0].size(), 1u);
    seen.insert(s->step.node_gpus[0][0]);
  }
  EXPECT_EQ(seen.size(), 4u) << "four distinct GPUs";
  ASSERT_TRUE(ctld_->FinishStep(id, 1, 0, kAlice).ok());
  ASSERT_TRUE(ctld_->FinishStep(id, 2, 0, kAlice).ok());
  // Steps 0 and 3 hold two CPUs and two GPUs; a step of all the job's GPUs must wait.
  StepRequest all;
  all.exact = true;
  all.shape = {.ntasks = 1};
  EXPECT_EQ(ctld_->CreateStep(id, all, kAlice).status().message(), "Requested nodes are busy");
  StepRequest two = one;
  two.gpus = {.given = true, .per_node = 2};
  StatusOr<StepCreated> s2 = ctld_->CreateStep(id, two, kAlice);
  ASSERT_TRUE(s2.ok()) << s2.status().ToString();
  EXPECT_EQ(s2->step.node_gpus[0].size(), 2u);
  EXPECT_EQ(ctld_->CreateStep(id, one, kAlice).status().message(), "Requested nodes are busy") << "all four held";
  StepRequest shared = one;
  shared.overlap = true;
  EXPECT_TRUE(ctld_->CreateStep(id, shared, kAlice).ok());
  StepRequest none = one;
  none.gpus = {.given = true};
  StatusOr<StepCreated> cpu_only = ctld_->CreateStep(id, none, kAlice);
  ASSERT_TRUE(cpu_only.ok()) << cpu_only.status().ToString();
  EXPECT_TRUE(cpu_only->step.node_gpus.empty());
  StepRequest five = shared;
  five.gpus = {.given = true, .per_node = 5};
  EXPECT_EQ(ctld_->CreateStep(id, five, kAlice).status().code(), StatusCode::kInvalidArgument);
  // A step with a time limit that ran that long and failed ended by it: TIMEOUT.
  StepRequest limited = shared;
  limited.time_limit_s = 60;
  StatusOr<StepCreated> timed = ctld_->CreateStep(id, limited, kAlice);
  ASSERT_TRUE(timed.ok()) << timed.status().ToString();
  EXPECT_EQ(timed->step.time_limit_s, 60);
  StatusOr<StepCreated> quick = ctld_->CreateStep(id, limited, kAlice);
  ASSERT_TRUE(quick.ok());
  ASSERT_TRUE(ctld_->FinishStep(id, quick->step.step_id, 1, kAlice).ok());
  clock_.AdvanceSeconds(60);
  ASSERT_TRUE(ctld_->FinishStep(id, timed->step.step_id, 143, kAlice).ok());
  for (const StepRecord& r : ctld_->ListSteps()) {
    if (r.step_id == quick->step.step_id) {
      EXPECT_EQ(r.state, JobState::kFailed) << "failed within its limit";
    }
    if (r.step_id == timed->step.step_id) {
      EXPECT_EQ(r.state, JobState::kTimeout);
    }
  }
  // Held GPUs survive a controller restart (the step records keep them); a CPU is free.
  ASSERT_TRUE(ctld_->FinishStep(id, cpu_only->step.step_id, 0, kAlice).ok());
  Open();
  EXPECT_EQ(ctld_->CreateStep(id, one, kAlice).status().message(), "Requested nodes are busy");
  EXPECT_TRUE(ctld_->CreateStep(id, none, kAlice).ok());
}

// srun -C inside an allocation: the step runs on the job's nodes with the features; none: refused
// at once (Slurm's step would wait for ever).
TEST_F(ControllerTest, StepConstraintChoosesTheJobsNodesWithTheFeatures) {
  for (const Node& n : config_.cluster.nodes) {
    NodeRecord r;
    r.node = n;
    if (n.name == "n2") r.node.features = {"ib", "a100"};
    r.agent_address = "unix:/nowhere/" + n.name;
    ASSERT_TRUE(ctld_->RegisterNode(r, {}, kAdmin).ok());
  }
  const int64_t id = Submit({"-N", "2"});
  ctld_->ScheduleOnce();
  ASSERT_EQ(Job(id).state, JobState::kRunning);
  StepRequest req;
  req.overlap = true;
  for (const char* expr : {"ib", "ib&a100", "h100|a100"}) {
    req.constraint = expr;
    StatusOr<StepCreated> s = ctld_->CreateStep(id, req, kAlice);
    ASSERT_TRUE(s.ok()) << expr << ": " << s.status().ToString();
    EXPECT_EQ(s->step.nodes, std::vector<std::string>{"n2"}) << expr;
  }
  req.constraint = "ib&h100";
  EXPECT_EQ(ctld_->CreateStep(id, req, kAlice).status().message(), "Requested node configuration is not available");
  req.constraint = "ib[2]";
  EXPECT_NE(ctld_->CreateStep(id, req, kAlice).status().message().find("brackets and counts are not supported"),
            std::string::npos);
  req.constraint = "";
  StatusOr<StepCreated> all = ctld_->CreateStep(id, req, kAlice);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->step.nodes, (std::vector<std::string>{"n1", "n2"}));
}

TEST_F(ControllerTest, StepsOfARunningJobGetIdsLayoutAndEnd) {
  RegisterAll();
  const int64_t id = Submit({"-N", "2", "--gres=gpu:4"});
  // Not running yet: no steps.
  StepRequest req;
  req.name = "train";
  EXPECT_EQ(ctld_->CreateStep(id, req, kAlice).status().message(), "Job is pending execution");
  ctld_->ScheduleOnce();
  ASSERT_EQ(Job(id).state, JobState::kRunning);
  // Only the owner (or an admin) creates steps.
  EXPECT_EQ(ctld_->CreateStep(id, req, kBob).status().code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(ctld_->CreateStep(999, req, kAlice).status().code(), StatusCode::kNotFound);
  StatusOr<StepCreated> s0 = ctld_->CreateStep(id, req, kAlice);
  ASSERT_TRUE(s0.ok()) << s0.status().ToString();
  EXPECT_EQ(s0->step.step_id, 0);
  EXPECT_EQ(s0->step.name, "train");
  EXPECT_EQ(s0->step.state, JobState::kRunning);
  EXPECT_EQ(s0->step.nodes, (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ(s0->step.ntasks, 2);  // the job's tasks: one per node
  EXPECT_EQ(s0->layout.tasks, (std::vector<int>{1, 1}));
  ASSERT_EQ(s0->nodes.size(), 2u);
  EXPECT_EQ(s0->nodes[1].agent_address, "unix:/nowhere/n2");
  EXPECT_EQ(s0->job.id, id);
  // Explicit shapes; ids count up per job. (--overlap: beside step 0, which holds the job's CPUs;
  // --overcommit: more tasks than the job's one CPU per node.)
  req.overlap = true;
  req.overcommit = true;
  req.shape = {.ntasks = 5};
  StatusOr<StepCreated> s1 = ctld_->CreateStep(id, req, kAdmin);
  ASSERT_TRUE(s1.ok());
  EXPECT_EQ(s1->step.step_id, 1);
  EXPECT_EQ(s1->layout.tasks, (std::vector<int>{3, 2}));
  req.shape = {.nnodes = 3};
  EXPECT_EQ(ctld_->CreateStep(id, req, kAlice).status().message(), "Only allocated 2 nodes asked for 3");
  req.shape = {.nnodes = 1, .ntasks_per_node = 4};
  StatusOr<StepCreated> s2 = ctld_->CreateStep(id, req, kAlice);
  ASSERT_TRUE(s2.ok());
  EXPECT_EQ(s2->step.step_id, 2);
  EXPECT_EQ(s2->step.nodes, (std::vector<std::string>{"n1"}));
  EXPECT_EQ(s2->step.ntasks, 4);
  // Ends: 0 -> COMPLETED, else FAILED; only the owner or an admin; repeats change nothing.
  clock_.AdvanceSeconds(7);
  EXPECT_EQ(ctld_->FinishStep(id, 0, 0, kBob).code(), StatusCode::kPermissionDenied);
  ASSERT_TRUE(ctld_->FinishStep(id, 0, 0, kAlice).ok());
  ASSERT_TRUE(ctld_->FinishStep(id, 1, 3, kAlice).ok());
  ASSERT_TRUE(ctld_->FinishStep(id, 1, 0, kAlice).ok());
  EXPECT_EQ(ctld_->FinishStep(id, 9, 0, kAlice).code(), StatusCode::kNotFound);
  std::vector<StepRecord> steps = ctld_->ListSteps();
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0].state, JobState::kCompleted);
  EXPECT_EQ(steps[0].end_time - steps[0].start_time, 7);
  EXPECT_EQ(steps[1].state, JobState::kFailed);
  EXPECT_EQ(steps[1].exit_code, 3);
  EXPECT_EQ(steps[2].state, JobState::kRunning);
  // Durable: a restarted controller has them, and continues the numbering.
  Open();
  EXPECT_EQ(ctld_->ListSteps(), steps);
  req.shape = {};
  StatusOr<StepCreated> s3 = ctld_->CreateStep(id, req, kAlice);
  ASSERT_TRUE(s3.ok());
  EXPECT_EQ(s3->step.step_id, 3);
  // A finished job takes no more steps.
  clock_.AdvanceSeconds(4);
  ASSERT_TRUE(ctld_->JobExited(id, "n1", ExitReport{}, kAdmin).ok());
  EXPECT_EQ(ctld_->CreateStep(id, req, kAlice).status().code(), StatusCode::kFailedPrecondition);
  // Steps still running when the job ended (srun never reported) end with it, also after a restart.
  for (int round = 0; round < 2; ++round) {
    steps = ctld_->ListSteps();
    ASSERT_EQ(steps.size(), 4u);
    EXPECT_EQ(steps[0].state, JobState::kCompleted);
    for (int k : {2, 3}) {
      EXPECT_EQ(steps[k].state, JobState::kCancelled) << "step " << k << " round " << round;
      EXPECT_EQ(steps[k].end_time, Job(id).end_time);
    }
    Open();
  }
}

// A run requeued because its node fell silent ends its steps (CANCELLED): they held its nodes, and
// their agent on the lost node never reports them, so the next run's srun would wait on them.
TEST_F(ControllerTest, ARequeuedRunsStepsEndWithIt) {
  RegisterAll();
  const int64_t id = Submit({"-N", "2", "--gres=gpu:4"});
  ctld_->ScheduleOnce();
  ASSERT_EQ(Job(id).state, JobState::kRunning);
  StepRequest req;
  ASSERT_TRUE(ctld_->CreateStep(id, req, kAlice).ok());
  ASSERT_EQ(ctld_->ListSteps().at(0).state, JobState::kRunning);
  // n1 falls silent, n2 beats on with the run: the job is requeued once n1's lease is over.
  for (int s = 0; s < 300 && Job(id).state != JobState::kPending; ++s) {
    clock_.AdvanceSeconds(1);
    NodeReport n2;
    if (Job(id).state == JobState::kRunning) n2.running.push_back(JobRun{id, Job(id).restart_count});
    ASSERT_TRUE(ctld_->Heartbeat("n2", n2, kAdmin).ok());
    ctld_->Tick();
  }
  ASSERT_EQ(Job(id).state, JobState::kPending);
  EXPECT_EQ(Job(id).restart_count, 1);
  std::vector<StepRecord> steps = ctld_->ListSteps();
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].state, JobState::kCancelled);
  EXPECT_GT(steps[0].end_time, steps[0].start_time);
  // Also for a controller that starts (or takes over) while the job waits.
  Open();
  steps = ctld_->ListSteps();
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].state, JobState::kCancelled);
}

}  // namespace
}  // namespace muster
