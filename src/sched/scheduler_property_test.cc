// Property tests over random clusters and queues (fixed seeds): no over-allocation of any CPU,
// byte of memory or GPU fraction; gangs are whole or absent; a multi-node job that fits under one
// leaf switch is placed under one; the decisions do not depend on node or queue order.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "sched/cluster_builder.h"
#include "sched/scenario_harness.h"
#include "sched/scheduler.h"

namespace muster {
namespace {

struct RandomCase {
  ClusterSnapshot cluster;
  std::vector<PendingJob> jobs;
};

RandomCase MakeCase(uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  ClusterBuilder b;
  const int leaves = pick(1, 5);
  int node_no = 0;
  std::vector<std::string> leaf_names;
  const char* layouts[] = {"nvswitch", "islands:4", "pcie", "dgx1"};
  for (int l = 0; l < leaves; ++l) {
    const int n = pick(1, 5);
    std::string first = std::to_string(node_no + 1), last = std::to_string(node_no + n);
    NodeTemplate t;
    t.cpus = 8 * pick(1, 8);
    t.memory_mb = 1024 * pick(8, 512);
    t.gpus = pick(0, 2) == 0 ? 4 : 8;
    t.layout = t.gpus == 8 ? layouts[pick(0, 3)] : layouts[pick(0, 2)];
    if (pick(0, 3) == 0) t.features = {"ib"};
    std::string hl = "n[" + first + "-" + last + "]";
    b.Nodes(hl, t);
    b.Leaf("leaf" + std::to_string(l + 1), hl);
    leaf_names.push_back("leaf" + std::to_string(l + 1));
    node_no += n;
  }
  if (leaves > 2) {
    b.Spine("spineA", "leaf[1-2]");
    b.Spine("spineB", "leaf[3-" + std::to_string(leaves) + "]");
  }
  b.Partition("p", "n[1-" + std::to_string(node_no) + "]", true);
  // Random existing usage and node states.
  for (int i = 1; i <= node_no; ++i) {
    std::string name = "n" + std::to_string(i);
    if (pick(0, 9) == 0) b.Drain(name);
    if (pick(0, 2) == 0) {
      std::vector<int> g(8);
      for (int& m : g) m = pick(0, 3) == 0 ? (pick(0, 1) ? 1000 : 250 * pick(1, 3)) : 0;
      b.Use(name, pick(0, 8), 1024 * pick(0, 8), g);
    }
  }
  RandomCase rc;
  rc.cluster = b.Build();
  // Usage must stay within capacity for the generator to be valid: clamp to node size.
  for (size_t i = 0; i < rc.cluster.usage.size(); ++i) {
    NodeUsage& u = rc.cluster.usage[i];
    const Node& n = rc.cluster.nodes[i];
    u.cpu_milli = std::min<int64_t>(u.cpu_milli, int64_t{n.cpus} * 1000);
    u.memory_mb = std::min(u.memory_mb, n.memory_mb);
    u.gpus.resize(n.gpus.size());
  }
  const char* shapes[] = {"--gres=gpu:1", "--gres=gpu:2", "--gres=gpu:4", "--gres=gpu:8", "-N 2 --gres=gpu:8",
                          "-N 3 --gres=gpu:4", "-N 4 --gres=gpu:8", "--gpus=12", "--gpus=20", "-n 6 -c 4",
                          "-n 12 --ntasks-per-node=4 -c 2 --gpus-per-task=1", "--gpu-fraction=0.25",
                          "--gpu-fraction=0.5", "--gpu-memory=20G", "--exclusive", "-N 2 --exclusive",
                          "-C ib --gres=gpu:2", "--mem=64G --gres=gpu:1", "-c 16 --mem-per-cpu=2G"};
  const int njobs = pick(1, 30);
  for (int j = 1; j <= njobs; ++j) {
    rc.jobs.push_back(MakeJob(j, shapes[pick(0, std::size(shapes) - 1)], pick(0, 3), pick(0, 100)));
  }
  return rc;
}

// Expected total units of a job's allocation, by shape.
void CheckGangWhole(const PendingJob& job, const Decision& d) {
  const JobRequest& r = job.request;
  int gpus = 0, tasks = 0;
  for (const NodeAllocation& a : d.nodes) {
    for (const GpuShare& g : a.gpus) gpus += g.milli == 1000 ? 1 : 0;
    tasks += a.tasks;
  }
  const int nodes = static_cast<int>(d.nodes.size());
  if (r.min_nodes > 0) {
    EXPECT_GE(nodes, r.min_nodes) << d.ToString();
  }
  if (r.max_nodes > 0) {
    EXPECT_LE(nodes, r.max_nodes) << d.ToString();
  }
  if (r.exclusive) return;  // takes every GPU of its nodes
  if (r.gpus_total > 0) {
    EXPECT_EQ(gpus, r.gpus_total) << d.ToString();
  }
  if (r.gpus_per_node > 0) {
    EXPECT_EQ(gpus, r.gpus_per_node * nodes) << d.ToString();
  }
  if (r.ntasks > 0) {
    EXPECT_EQ(tasks, r.ntasks) << d.ToString();
  }
  if (r.gpus_per_task > 0) {
    EXPECT_EQ(gpus, r.gpus_per_task * r.ntasks) << d.ToString();
  }
  if (r.wants_fraction()) {
    ASSERT_EQ(d.nodes.size(), 1u);
    ASSERT_EQ(d.nodes[0].gpus.size(), 1u);
    EXPECT_LT(d.nodes[0].gpus[0].milli, 1000);
  }
}

// For "-N k --gres=gpu:g" jobs: if some leaf had k nodes able to take it, all chosen nodes must share a leaf.
void CheckOneLeafWhenPossible(const ClusterSnapshot& before, const PendingJob& job, const Decision& d) {
  const JobRequest& r = job.request;
  if (r.min_nodes < 2 || r.gpus_per_node == 0 || r.exclusive) return;
  std::map<std::string, std::string> leaf_of;
  for (const Switch& s : before.topology.switches()) {
    for (const std::string& n : s.nodes) leaf_of[n] = s.name;
  }
  std::map<std::string, int> able;
  for (size_t i = 0; i < before.nodes.size(); ++i) {
    const Node& n = before.nodes[i];
    if (!n.schedulable()) continue;
    int free_gpus = 0;
    for (size_t g = 0; g < n.gpus.size(); ++g) {
      int used = before.usage.empty() || before.usage[i].gpus.size() <= g ? 0 : before.usage[i].gpus[g].milli;
      free_gpus += used == 0;
    }
    int64_t free_cpu = int64_t{n.cpus} * 1000 - (before.usage.empty() ? 0 : before.usage[i].cpu_milli);
    bool excl = !before.usage.empty() && before.usage[i].exclusive;
    if (!excl && free_gpus >= r.gpus_per_node && free_cpu >= 1000) able[leaf_of[n.name]]++;
  }
  bool possible = false;
  for (auto& [leaf, count] : able) possible = possible || count >= r.min_nodes;
  std::set<std::string> used;
  for (const NodeAllocation& a : d.nodes) used.insert(leaf_of[a.node]);
  if (possible) {
    EXPECT_EQ(used.size(), 1u) << "spread over leaves although one could hold it: " << d.ToString();
  }
}

TEST(SchedulerPropertyTest, RandomClustersAndQueues) {
  int starts = 0, gangs = 0;
  for (uint64_t seed = 1; seed <= 2500; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    RandomCase rc = MakeCase(seed);
    for (bool strict : {true, false}) {
      SchedulerOptions opt{.strict_priority = strict};
      std::vector<Decision> ds = RunCycle(rc.cluster, rc.jobs, opt);
      ASSERT_EQ(ds.size(), rc.jobs.size());
      std::map<int64_t, const PendingJob*> by_id;
      for (const auto& j : rc.jobs) by_id[j.id] = &j;
      ClusterSnapshot state = rc.cluster;
      for (const Decision& d : ds) {
        if (d.kind != DecisionKind::kStart) {
          EXPECT_TRUE(d.nodes.empty()) << d.ToString();
          continue;
        }
        ++starts;
        if (d.nodes.size() > 1) ++gangs;
        CheckGangWhole(*by_id[d.job_id], d);
        CheckOneLeafWhenPossible(state, *by_id[d.job_id], d);
        ApplyAllocation(state, d.nodes);
        // Never over-allocated: Validate() checks every CPU, MiB and GPU milli is within capacity.
        Status st = state.Validate();
        ASSERT_TRUE(st.ok()) << st.ToString() << " after " << d.ToString();
        for (size_t i = 0; i < state.nodes.size(); ++i) {
          if (state.usage[i].exclusive) {
            EXPECT_EQ(state.usage[i].jobs, 1) << state.nodes[i].name;
          }
        }
      }
      // Order does not matter.
      std::mt19937_64 rng(seed);
      ClusterSnapshot shuffled = ShuffleNodes(rc.cluster, rng);
      std::vector<PendingJob> jobs = rc.jobs;
      std::shuffle(jobs.begin(), jobs.end(), rng);
      EXPECT_EQ(DecisionStrings(RunCycle(shuffled, jobs, opt)), DecisionStrings(ds));
    }
  }
  // The generator must actually exercise placement (guards against a vacuous pass).
  EXPECT_GT(starts, 10000);
  EXPECT_GT(gangs, 1000);
}

}  // namespace
}  // namespace muster
