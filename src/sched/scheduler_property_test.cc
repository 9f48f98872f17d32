// Property tests over random clusters and queues (fixed seeds): no over-allocation of any CPU,
// byte of memory or GPU fraction; gangs are whole or absent; a multi-node job that fits under one
// leaf switch is placed under one; the decisions do not depend on node or queue order; a
// Scheduler kept over many cycles (its caches trusting the entries' revisions) decides as one
// built afresh each cycle (sched/cache_check.h).
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "sched/cache_check.h"
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

// Cycles as the controller runs them: one Scheduler and its index kept throughout, the snapshot
// and queue changed in place between cycles (jobs start, end, arrive, are preempted, change
// priority or are updated with a new revision), every cycle checked against a fresh one.
TEST(SchedulerPropertyTest, KeptCachesDecideAsAFreshScheduler) {
  int64_t kept_memos = 0, kept_running = 0, starts = 0, preemptions = 0, checked = 0;
  const char* shapes[] = {"--gres=gpu:1 -t 30", "--gres=gpu:2 -t 120", "--gres=gpu:4", "-N 2 --gres=gpu:8 -t 600",
                          "--gpus=12 -t 60", "-n 6 -c 4 -t 10", "--gpu-fraction=0.5 -t 20", "--exclusive -t 90",
                          "-C ib --gres=gpu:2", "--mem=64G --gres=gpu:1 -t 45"};
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed * 7919);
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    RandomCase rc = MakeCase(seed);
    const std::vector<NodeUsage> base = rc.cluster.usage;  // held for good (no running job behind it)
    SchedulerOptions opt{.strict_priority = seed % 3 != 0, .backfill = seed % 2 == 0};
    if (seed % 4 < 2) {
      auto policy = std::make_shared<SchedPolicy>();
      policy->qos = {Qos{.name = "normal"}, Qos{.name = "high", .priority = 10, .preempt = {"normal"}}};
      opt.policy = policy;
    }
    ClusterSnapshot snap = rc.cluster;
    snap.now = 1'000'000;
    uint64_t revision = 0;
    int64_t next_id = 1000;
    std::vector<PendingJob> queue = rc.jobs;
    auto renew = [&](PendingJob& j) {
      j.revision = ++revision;
      if (opt.policy && pick(0, 3) == 0) j.qos = "high";
    };
    for (PendingJob& j : queue) renew(j);
    ClusterIndex index(snap);
    Scheduler kept(snap, index, opt);
    std::set<std::pair<int64_t, uint64_t>> seen_pending, seen_running;
    for (int cycle = 0; cycle < 6; ++cycle) {
      if (cycle > 0) kept.Reload(opt);
      for (const PendingJob& j : queue) kept_memos += seen_pending.count({j.id, j.revision});
      for (const RunningJob& r : snap.running) kept_running += seen_running.count({r.id, r.revision});
      const std::vector<Decision> ds = kept.RunCycle(queue);
      ASSERT_EQ(CompareDecisions(ds, FreshCycle(snap, queue, opt)), "") << "cycle " << cycle;
      ++checked;
      for (const PendingJob& j : queue) seen_pending.insert({j.id, j.revision});
      for (const RunningJob& r : snap.running) seen_running.insert({r.id, r.revision});

      // What happens before the next cycle.
      snap.now += pick(60, 3600);
      std::set<int64_t> gone;
      for (const Decision& d : ds) {
        for (const Preemption& p : d.preempt) gone.insert(p.victim), ++preemptions;  // stopped at once
        if (d.kind != DecisionKind::kStart) continue;
        ++starts;
        auto it = std::find_if(queue.begin(), queue.end(), [&](const PendingJob& j) { return j.id == d.job_id; });
        ASSERT_NE(it, queue.end());
        RunningJob r;
        r.id = it->id;
        r.allocation = d.nodes;
        r.start_time = snap.now;
        r.end_time = it->request.time_limit_s > 0 ? snap.now + it->request.time_limit_s : kUnlimited;
        r.user = it->user;
        r.account = it->account;
        r.qos = it->qos;
        r.partition = "p";
        r.priority = it->priority;
        r.revision = ++revision;
        snap.running.push_back(r);
        queue.erase(it);
      }
      for (RunningJob& r : snap.running) {
        if (pick(0, 4) == 0) gone.insert(r.id);   // ended
        if (pick(0, 3) == 0) r.priority += pick(-5, 5);  // allowed without a new revision
      }
      std::erase_if(snap.running, [&](const RunningJob& r) { return gone.count(r.id) > 0; });
      for (PendingJob& j : queue) {
        if (pick(0, 2) == 0) j.priority = pick(0, 100);  // allowed without a new revision
        if (pick(0, 9) == 0) {                           // scontrol update: a new request, a new revision
          j.request = MakeJob(j.id, shapes[pick(0, std::size(shapes) - 1)]).request;
          renew(j);
        }
      }
      for (int n = pick(0, 4); n > 0; --n) {
        PendingJob j = MakeJob(next_id++, shapes[pick(0, std::size(shapes) - 1)], pick(0, 100), snap.now);
        renew(j);
        queue.push_back(j);
      }
      snap.usage = base;
      for (const RunningJob& r : snap.running) ApplyAllocation(snap, r.allocation);
    }
  }
  // The kept caches were used, and the cycles did work (guards against a vacuous pass).
  EXPECT_EQ(checked, 400 * 6);
  EXPECT_GT(kept_memos, 12000);
  EXPECT_GT(kept_running, 5000);
  EXPECT_GT(starts, 5000);
  EXPECT_GT(preemptions, 200);
}

// The check has teeth: a job whose request changed under an unchanged revision (a broken
// promise) is decided from the stale memo by the kept Scheduler, and the check says so.
TEST(SchedulerPropertyTest, AStaleRevisionFailsTheCheck) {
  ClusterSnapshot snap = ClusterBuilder().Nodes("n[1-2]", NodeTemplate{.cpus = 16, .memory_mb = 65536, .gpus = 4, .layout = "pcie"})
                             .Partition("p", "n[1-2]", true)
                             .Build();
  ClusterIndex index(snap);
  Scheduler kept(snap, index, {});
  std::vector<PendingJob> queue = {MakeJob(1, "-N 1 --gres=gpu:8")};  // no node has 8: never fits
  queue[0].revision = 7;
  const std::vector<Decision> first = kept.RunCycle(queue);
  EXPECT_EQ(CompareDecisions(first, FreshCycle(snap, queue, {})), "");
  ASSERT_NE(first[0].kind, DecisionKind::kStart);
  queue[0].request = MakeJob(1, "-N 1 --gres=gpu:2").request;  // changed, revision kept: stale
  kept.Reload({});
  const std::vector<Decision> second = kept.RunCycle(queue);
  const std::string diff = CompareDecisions(second, FreshCycle(snap, queue, {}));
  EXPECT_NE(diff, "");
  EXPECT_NE(diff.find("fresh 1 START n1"), std::string::npos) << diff;
  // With the revision moved, as the promise asks, the kept Scheduler decides as the fresh one.
  queue[0].revision = 8;
  kept.Reload({});
  EXPECT_EQ(CompareDecisions(kept.RunCycle(queue), FreshCycle(snap, queue, {})), "");
}

}  // namespace
}  // namespace muster
