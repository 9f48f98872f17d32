// sreport's figures over records with known answers (report/usage_report.h).
#include "report/usage_report.h"

#include <gtest/gtest.h>

namespace muster {
namespace {

constexpr int64_t kT = 1'800'000'000 - 1'800'000'000 % 3600;  // an hour's start
constexpr int64_t kH = 3600;

NodeRecord MakeNode(const std::string& name, int cpus, int gpus) {
  NodeRecord n;
  n.node.name = name;
  n.node.cpus = cpus;
  for (int i = 0; i < gpus; ++i) n.node.gpus.push_back(Gpu{});
  return n;
}

// A job that ran on `node` from `start` to `end` (0: still running) with `cpus` CPUs and `gpus` GPUs.
JobRecord Ran(int64_t id, const std::string& user, const std::string& account, const std::string& node, int cpus,
              int gpus, int64_t start, int64_t end) {
  JobRecord j;
  j.id = id;
  j.user = user;
  j.account = account;
  j.submit_time = j.eligible_time = start;
  j.start_time = start;
  j.end_time = end;
  j.state = end > 0 ? JobState::kCompleted : JobState::kRunning;
  NodeAllocation a;
  a.node = node;
  a.cpu_milli = cpus * 1000;
  for (int g = 0; g < gpus; ++g) a.gpus.push_back(GpuShare{g});
  j.allocation = {a};
  j.batch_host = node;
  return j;
}

TEST(UsageReportTest, JobsOverlappingThePeriodAreClipped) {
  const std::vector<NodeRecord> nodes = {MakeNode("n1", 16, 8), MakeNode("n2", 16, 8)};
  const std::vector<JobRecord> jobs = {
      // Began 30 min before the period: its last 30 min count.
      Ran(1, "alice", "ml", "n1", 4, 2, kT - 1800, kT + 1800),
      // Inside: 1 h on 8 CPUs.
      Ran(2, "bob", "ml", "n2", 8, 0, kT + kH, kT + 2 * kH),
      // Ends 15 min after the period.
      Ran(3, "alice", "ml", "n2", 2, 4, kT + kH + 2700, kT + 2 * kH + 900),
      // Wholly before and wholly after: nothing.
      Ran(4, "carol", "bio", "n1", 16, 8, kT - 2 * kH, kT - kH),
      Ran(5, "carol", "bio", "n1", 16, 8, kT + 3 * kH, kT + 4 * kH),
  };
  const UsageReport r = ComputeUsage(jobs, nodes, kT, kT + 2 * kH, kT + 10 * kH);
  EXPECT_EQ(r.measured_end, kT + 2 * kH);
  EXPECT_EQ(r.cpu.count, 32);
  EXPECT_EQ(r.gpu.count, 16);
  EXPECT_EQ(r.cpu.alloc_s, 1800 * 4 + kH * 8 + 900 * 2);
  EXPECT_EQ(r.gpu.alloc_s, 1800 * 2 + 900 * 4);
  EXPECT_EQ(r.cpu.reported_s(), 32 * 2 * kH);
  EXPECT_EQ(r.gpu.reported_s(), 16 * 2 * kH);
  EXPECT_EQ(r.cpu.idle_s, 32 * 2 * kH - r.cpu.alloc_s);
  EXPECT_EQ(r.cpu.down_s, 0);
  EXPECT_EQ(r.cpu.plan_s, 0);
  ASSERT_EQ(r.assocs.size(), 2u);  // carol's jobs fall outside
  EXPECT_EQ(r.assocs[0], (AssocUsage{"alice", "ml", 1800 * 4 + 900 * 2, 1800 * 2 + 900 * 4}));
  EXPECT_EQ(r.assocs[1], (AssocUsage{"bob", "ml", kH * 8, 0}));
}

TEST(UsageReportTest, NothingAfterNowIsCounted) {
  const std::vector<NodeRecord> nodes = {MakeNode("n1", 10, 2)};
  const std::vector<JobRecord> jobs = {Ran(1, "alice", "", "n1", 5, 1, kT + 600, 0)};  // still running
  const UsageReport r = ComputeUsage(jobs, nodes, kT, kT + 24 * kH, kT + 1800);
  EXPECT_EQ(r.measured_end, kT + 1800);
  EXPECT_EQ(r.cpu.alloc_s, 1200 * 5);
  EXPECT_EQ(r.gpu.alloc_s, 1200);
  EXPECT_EQ(r.cpu.reported_s(), 10 * 1800);
  EXPECT_EQ(r.gpu.idle_s, 2 * 1800 - 1200);
}

TEST(UsageReportTest, NothingBeforeTheRecordsBegin) {
  // The cluster's records begin 20 min into the period's second hour: nothing before is reported.
  const std::vector<NodeRecord> nodes = {MakeNode("n1", 10, 2)};
  const std::vector<JobRecord> jobs = {Ran(1, "alice", "ml", "n1", 5, 1, kT + kH + 1800, kT + 3 * kH)};
  const UsageReport r = ComputeUsage(jobs, nodes, kT, kT + 3 * kH, kT + 10 * kH, kT + kH + 1200);
  EXPECT_EQ(r.measured_start, kT + kH + 1200);
  EXPECT_EQ(r.cpu.reported_s(), 10 * (2 * kH - 1200));
  EXPECT_EQ(r.cpu.alloc_s, 5 * (kH + 1800));
  EXPECT_EQ(r.gpu.idle_s, 2 * (2 * kH - 1200) - (kH + 1800));
  // Records that begin after the period: nothing at all.
  const UsageReport none = ComputeUsage(jobs, nodes, kT, kT + kH, kT + 10 * kH, kT + 2 * kH);
  EXPECT_EQ(none.cpu.reported_s(), 0);
  EXPECT_TRUE(none.assocs.empty());
}

TEST(UsageReportTest, SuspendedJobsHoldTheirGpusNotTheirCpus) {
  const std::vector<NodeRecord> nodes = {MakeNode("n1", 8, 4)};
  JobRecord j = Ran(1, "alice", "ml", "n1", 4, 2, kT, 0);
  j.state = JobState::kSuspended;
  j.suspended_s = 300;           // an earlier suspension, undated: taken from the run's start
  j.suspend_time = kT + 3000;    // suspended since, still
  const UsageReport r = ComputeUsage(std::vector<JobRecord>{j}, nodes, kT, kT + kH, kT + kH);
  EXPECT_EQ(r.cpu.alloc_s, (3000 - 300) * 4);
  EXPECT_EQ(r.gpu.alloc_s, kH * 2);
  // As sacct's CPUTime: Elapsed (suspensions out) x CPUs.
  EXPECT_EQ(r.assocs.at(0).cpu_s, (kH - 300 - 600) * 4);
}

TEST(UsageReportTest, DownAndDrainedNodesFromTheirReasonTime) {
  std::vector<NodeRecord> nodes = {MakeNode("n1", 16, 8), MakeNode("n2", 16, 8), MakeNode("n3", 16, 8),
                                   MakeNode("n4", 16, 8)};
  nodes[0].node.state = NodeState::kDown;
  nodes[0].node.reason_time = kT + 1800;  // down for the period's last half hour
  nodes[1].node.drain = true;             // drained and idle: down
  nodes[1].node.reason_time = kT - kH;
  nodes[2].node.drain = true;             // draining (a job on it): not down
  nodes[2].node.reason_time = kT;
  nodes[3].node.state = NodeState::kDown;  // since when is not known: not counted
  const std::vector<JobRecord> jobs = {Ran(1, "alice", "ml", "n3", 16, 8, kT - kH, 0)};
  const UsageReport r = ComputeUsage(jobs, nodes, kT, kT + kH, kT + kH);
  EXPECT_EQ(r.cpu.down_s, 16 * 1800 + 16 * kH);
  EXPECT_EQ(r.gpu.down_s, 8 * 1800 + 8 * kH);
  EXPECT_EQ(r.cpu.alloc_s, 16 * kH);
  EXPECT_EQ(r.cpu.idle_s, 64 * kH - r.cpu.down_s - r.cpu.alloc_s);
  EXPECT_EQ(r.cpu.reported_s(), 64 * kH);
}

TEST(UsageReportTest, PlannedIsCappedAtWhatIsFreeAndTheRestIsOvercommitted) {
  const std::vector<NodeRecord> nodes = {MakeNode("n1", 8, 0)};
  // 6 CPUs busy for the hour; a pending job asking 4 CPUs waits the whole hour: 2 CPUs of it fit.
  JobRecord pending;
  pending.id = 2;
  pending.user = "bob";
  pending.state = JobState::kPending;
  pending.eligible_time = kT - 600;
  pending.request.ntasks = 4;
  const std::vector<JobRecord> jobs = {Ran(1, "alice", "ml", "n1", 6, 0, kT - kH, 0), pending};
  const UsageReport r = ComputeUsage(jobs, nodes, kT, kT + kH, kT + kH);
  EXPECT_EQ(r.cpu.alloc_s, 6 * kH);
  EXPECT_EQ(r.cpu.plan_s, 2 * kH);
  EXPECT_EQ(r.cpu.over_s, 2 * kH);
  EXPECT_EQ(r.cpu.idle_s, 0);
  EXPECT_EQ(r.gpu.plan_s, 0);  // Planned is CPU time only, as Slurm's rollup
  ASSERT_EQ(r.assocs.size(), 1u);  // the pending job used nothing
}

TEST(UsageReportTest, AllocationBeyondCapacityIsCapped) {
  const std::vector<NodeRecord> nodes = {MakeNode("n1", 4, 0)};
  const std::vector<JobRecord> jobs = {Ran(1, "a", "x", "n1", 4, 0, kT, kT + kH), Ran(2, "b", "x", "n1", 4, 0, kT, kT + kH)};
  const UsageReport r = ComputeUsage(jobs, nodes, kT, kT + kH, kT + kH);
  EXPECT_EQ(r.cpu.alloc_s, 4 * kH);
  EXPECT_EQ(r.cpu.idle_s, 0);
  EXPECT_EQ(r.assocs[0].cpu_s + r.assocs[1].cpu_s, 8 * kH);  // each association keeps its own
}

}  // namespace
}  // namespace muster
