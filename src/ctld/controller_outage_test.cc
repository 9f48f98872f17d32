// The outage rule on the controller's side (ctld/outage_guard.h, model/outage.h), in virtual
// time: many nodes silent at once requeue nothing; one node silent alone is requeued as before;
// a node still silent after the others returned waits a whole lease first; the agents are told
// their peers.
#include <map>
#include <set>

#include "ctld/controller_test_fixture.h"

namespace muster::ctld_test {
namespace {

class OutageTest : public ControllerTest {
 protected:
  void SetUp() override {
    ControllerTest::SetUp();
    NodeTemplate t;
    t.cpus = 16;
    t.memory_mb = 65536;
    t.gpus = 4;
    config_.cluster = ClusterBuilder().Nodes("n[1-4]", t).Leaf("leaf1", "n[1-4]").Partition("gpu", "n[1-4]", true).Build();
    config_.heartbeat_interval_s = 5;  // out of touch after 7.5 s; claims after 8.5 s
    Open();
    RegisterAll();
    for (int i = 0; i < 4; ++i) jobs_.push_back(Submit({"--gres=gpu:4"}));
    ctld_->ScheduleOnce();
    for (int64_t id : jobs_) {
      ASSERT_EQ(Job(id).state, JobState::kRunning);
      on_[Job(id).batch_host] = id;
    }
    ASSERT_EQ(on_.size(), 4u);
  }
  // Node n<i>'s heartbeat with the run it holds.
  void Beat(int i) {
    const std::string node = "n" + std::to_string(i);
    NodeReport r;
    for (int64_t id : jobs_) {
      const JobRecord j = Job(id);
      if (HoldsResources(j.state) && j.batch_host == node) r.running.push_back(JobRun{id, j.restart_count});
    }
    ASSERT_TRUE(ctld_->Heartbeat(node, r, kAdmin).ok());
  }
  // `seconds` pass, a Tick each second, with the nodes in `beating` heartbeating every 5 s.
  void Pass(int seconds, const std::set<int>& beating) {
    for (int s = 1; s <= seconds; ++s) {
      clock_.AdvanceSeconds(1);
      if (s % 5 == 0) {
        for (int i : beating) Beat(i);
      }
      ctld_->Tick();
    }
  }
  int StillOnFirstRun() {
    int n = 0;
    for (int64_t id : jobs_) n += Job(id).state == JobState::kRunning && Job(id).restart_count == 0;
    return n;
  }
  const int64_t hold_s_ = 30 + 10 + kLeaseMarginS;  // lease, kill wait, margin
  std::vector<int64_t> jobs_;
  std::map<std::string, int64_t> on_;  // the job on each node
};

TEST_F(OutageTest, EveryNodeSilentForFiveMinutesRequeuesNothing) {
  Pass(300, {});
  EXPECT_EQ(StillOnFirstRun(), 4) << "a job was given up while every node was silent";
  EXPECT_TRUE(ctld_->outage().own_fault);
  EXPECT_EQ(ctld_->outage().out, 4);
  EXPECT_EQ(ctld_->outage().peers, 4);
  EXPECT_EQ(ctld_->outage().outages, 1);
  for (const NodeRecord& n : ctld_->ListNodes()) EXPECT_EQ(n.node.reason, "Not responding") << n.node.name;
  // They answer again, with their runs: nothing was lost, nothing runs twice.
  for (int i = 1; i <= 4; ++i) Beat(i);
  Pass(120, {1, 2, 3, 4});
  EXPECT_FALSE(ctld_->outage().own_fault);
  EXPECT_EQ(StillOnFirstRun(), 4);
  for (const NodeRecord& n : ctld_->ListNodes()) EXPECT_NE(n.node.state, NodeState::kDown) << n.node.name;
  for (int64_t id : jobs_) EXPECT_EQ(Job(id).restart_count, 0);
}

TEST_F(OutageTest, OneNodeSilentAloneIsGivenUpAfterItsLease) {
  Pass(static_cast<int>(hold_s_) - 1, {2, 3, 4});
  EXPECT_EQ(StillOnFirstRun(), 4);
  Pass(1, {2, 3, 4});
  EXPECT_FALSE(ctld_->outage().own_fault);
  EXPECT_EQ(Job(on_["n1"]).state, JobState::kPending);
  EXPECT_EQ(Job(on_["n1"]).restart_count, 1);
  EXPECT_EQ(StillOnFirstRun(), 3);
}

TEST_F(OutageTest, AtTheThresholdTheSilenceIsTheControllers) {
  // 3 of 4 (75%) silent: its own fault; 2 of 4 (50%, under 55%): theirs.
  Pass(120, {4});
  EXPECT_TRUE(ctld_->outage().own_fault);
  EXPECT_EQ(StillOnFirstRun(), 4);
  config_.outage_threshold_pct = 80;  // 75% is under it: n1-n3 are cut off
  Open();
  Pass(static_cast<int>(hold_s_), {4});
  EXPECT_FALSE(ctld_->outage().own_fault);
  EXPECT_EQ(StillOnFirstRun(), 1);
}

TEST_F(OutageTest, ANodeStillSilentAfterTheOthersReturnWaitsAWholeLease) {
  Pass(120, {});
  ASSERT_TRUE(ctld_->outage().own_fault);
  for (int i = 2; i <= 4; ++i) Beat(i);
  // n1 stays silent: its lease may have been renewed by its peers until they returned, so its
  // job is given up only a whole lease, kill wait and margin after that.
  Pass(static_cast<int>(hold_s_) - 1, {2, 3, 4});
  EXPECT_FALSE(ctld_->outage().own_fault);
  EXPECT_EQ(StillOnFirstRun(), 4);
  Pass(2, {2, 3, 4});
  EXPECT_EQ(Job(on_["n1"]).state, JobState::kPending);
  EXPECT_EQ(StillOnFirstRun(), 3);
}

TEST_F(OutageTest, AnAdminSaysSoDuringAnOutage) {
  Pass(120, {});
  ASSERT_TRUE(ctld_->outage().own_fault);
  ASSERT_TRUE(ctld_->UpdateNode("n1", "DOWN", "dead PSU", kAdmin).ok());
  EXPECT_EQ(Job(on_["n1"]).state, JobState::kPending);
  EXPECT_EQ(StillOnFirstRun(), 3);
}

TEST_F(OutageTest, ARestartedControllerGivesEveryNodeALeaseToRegister) {
  Pass(60, {});  // the controller "was down": nobody heard
  Open();        // a new controller on the same store
  // n1 never comes back; the others register again with their runs.
  for (int i = 2; i <= 4; ++i) {
    NodeRecord r;
    r.node = config_.cluster.nodes[i - 1];
    r.agent_address = "unix:/nowhere/n" + std::to_string(i);
    ASSERT_TRUE(ctld_->RegisterNode(r, Running({on_["n" + std::to_string(i)]}), kAdmin).ok());
  }
  Pass(static_cast<int>(hold_s_) - 1, {2, 3, 4});
  EXPECT_EQ(StillOnFirstRun(), 4);
  Pass(1, {2, 3, 4});
  EXPECT_EQ(Job(on_["n1"]).state, JobState::kPending);
  EXPECT_EQ(StillOnFirstRun(), 3);
}

TEST_F(OutageTest, TheAgentsAreToldTheirPeersAndTheRule) {
  NodeRecord r;
  r.node = config_.cluster.nodes[0];
  r.agent_address = "unix:/nowhere/n1";
  StatusOr<NodeOrders> reg = ctld_->RegisterNode(r, Running({on_["n1"]}), kAdmin);
  ASSERT_TRUE(reg.ok());
  ASSERT_TRUE(reg->witness.has_value());
  const WitnessView v = *reg->witness;
  EXPECT_EQ(v.peers, 4);
  EXPECT_FALSE(v.sampled);
  EXPECT_EQ(v.threshold_pct, 55);
  EXPECT_EQ(v.claim_ms, 8500);
  ASSERT_EQ(v.ask.size(), 3u);
  for (const PeerAgent& p : v.ask) {
    EXPECT_NE(p.node, "n1");
    EXPECT_EQ(p.address, "unix:/nowhere/" + p.node);
  }
  // A heartbeat that holds the current list gets none; one that holds another gets it.
  StatusOr<NodeOrders> same = ctld_->Heartbeat("n1", Running({on_["n1"]}), kAdmin, v.generation);
  ASSERT_TRUE(same.ok());
  EXPECT_FALSE(same->witness.has_value());
  // An agent that registers again at another address moves the list on; an admin's DOWN does not
  // (the nodes counted are the configured ones: a view never counts fewer than the controller).
  ASSERT_TRUE(ctld_->UpdateNode("n4", "DOWN", "bad fan", kAdmin).ok());
  StatusOr<NodeOrders> down = ctld_->Heartbeat("n1", Running({on_["n1"]}), kAdmin, v.generation);
  ASSERT_TRUE(down.ok());
  EXPECT_FALSE(down->witness.has_value());
  NodeRecord moved;
  moved.node = config_.cluster.nodes[2];
  moved.agent_address = "10.0.0.3:6818";
  ASSERT_TRUE(ctld_->RegisterNode(moved, Running({on_["n3"]}), kAdmin).ok());
  StatusOr<NodeOrders> after = ctld_->Heartbeat("n1", Running({on_["n1"]}), kAdmin, v.generation);
  ASSERT_TRUE(after.ok() && after->witness.has_value());
  EXPECT_GT(after->witness->generation, v.generation);
  EXPECT_EQ(after->witness->peers, 4);
  ASSERT_EQ(after->witness->ask.size(), 3u);
  bool found = false;
  for (const PeerAgent& p : after->witness->ask) found |= p.node == "n3" && p.address == "10.0.0.3:6818";
  EXPECT_TRUE(found);
  // A restarted controller's generations are above the last one's (it counts from its start).
  clock_.AdvanceSeconds(1);
  Open();
  RegisterAll();
  StatusOr<NodeOrders> fresh = ctld_->Heartbeat("n1", {}, kAdmin, after->witness->generation);
  ASSERT_TRUE(fresh.ok() && fresh->witness.has_value());
  EXPECT_GT(fresh->witness->generation, after->witness->generation);
}

TEST_F(OutageTest, TheFirstNodeToRegisterCountsEveryConfiguredNode) {
  // A view never counts fewer nodes than the controller: a node that registers before the others
  // is told the cluster's count, with none to ask yet (so, cut off then, it takes itself for cut
  // off); a node configured FUTURE is told none (its lease is never renewed by peers).
  NodeTemplate t;
  t.cpus = 4;
  t.memory_mb = 4096;
  config_.cluster = ClusterBuilder().Nodes("m[1-3]", t).Leaf("leaf1", "m[1-3]").Partition("p", "m[1-3]", true).Build();
  config_.cluster.nodes[2].state = NodeState::kFuture;
  Open();
  NodeRecord r;
  r.node = config_.cluster.nodes[0];
  r.agent_address = "unix:/nowhere/m1";
  StatusOr<NodeOrders> first = ctld_->RegisterNode(r, {}, kAdmin);
  ASSERT_TRUE(first.ok() && first->witness.has_value());
  EXPECT_EQ(first->witness->peers, 2);
  EXPECT_TRUE(first->witness->ask.empty());
  r.node = config_.cluster.nodes[2];
  r.agent_address = "unix:/nowhere/m3";
  StatusOr<NodeOrders> future = ctld_->RegisterNode(r, {}, kAdmin);
  ASSERT_TRUE(future.ok() && future->witness.has_value());
  EXPECT_EQ(future->witness->peers, 0);
  // A node that never registers is out of touch: m1 alone silent with m2 never there is 2 of 2.
  Pass(10, {});
  EXPECT_TRUE(ctld_->outage().own_fault);
  EXPECT_EQ(ctld_->outage().peers, 2);
}

TEST_F(OutageTest, ALargeClusterAsksASampleOfItsPeers) {
  NodeTemplate t;
  t.cpus = 4;
  t.memory_mb = 4096;
  config_.cluster = ClusterBuilder().Nodes("m[1-100]", t).Leaf("leaf1", "m[1-100]").Partition("p", "m[1-100]", true).Build();
  Open();
  RegisterAll();
  NodeRecord r;
  r.node = config_.cluster.nodes[0];
  r.agent_address = "unix:/nowhere/" + r.node.name;
  StatusOr<NodeOrders> a = ctld_->RegisterNode(r, {}, kAdmin);
  ASSERT_TRUE(a.ok() && a->witness.has_value());
  EXPECT_EQ(a->witness->peers, 100);
  EXPECT_TRUE(a->witness->sampled);
  ASSERT_EQ(a->witness->ask.size(), static_cast<size_t>(kMaxPeersAsked));
  std::set<std::string> seen;
  for (const PeerAgent& p : a->witness->ask) {
    EXPECT_NE(p.node, r.node.name);
    EXPECT_TRUE(seen.insert(p.node).second) << p.node << " asked twice";
  }
  // Another node draws another sample.
  StatusOr<NodeOrders> b = ctld_->Heartbeat("m2", {}, kAdmin);
  ASSERT_TRUE(b.ok() && b->witness.has_value());
  std::set<std::string> other;
  for (const PeerAgent& p : b->witness->ask) other.insert(p.node);
  EXPECT_NE(seen, other);
}

}  // namespace
}  // namespace muster::ctld_test
