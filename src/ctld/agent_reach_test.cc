// AgentReach: what a standby counts of the agents that cannot reach the leader, and when the
// leader hands the lease over (the whole path, with real controllers and agents in network
// namespaces, is tests/netns_test.cc's).
#include "ctld/agent_reach.h"

#include <gtest/gtest.h>

namespace muster {
namespace {

TEST(AgentReach, CountsDistinctNodesWithinItsWindowAndForgetsTheOlder) {
  AgentReach reach(8000);
  EXPECT_EQ(reach.Count(0), 0);
  reach.Note("node1", 1000);
  reach.Note("node1", 2000);  // the same agent again: one node
  reach.Note("node2", 3000);
  EXPECT_EQ(reach.Count(3000), 2);
  EXPECT_EQ(reach.Count(10000), 2) << "node1 came at 2000: 8000 ms ago, still within";
  EXPECT_EQ(reach.Count(10001), 1) << "node1 is forgotten, node2 is not";
  EXPECT_EQ(reach.Count(11001), 0);
  reach.Note("node1", 12000);
  EXPECT_EQ(reach.Count(12000), 1) << "a node that comes back is counted again";
}

TEST(AgentReach, TheLeaseGoesToTheStandbyThatHearsMoreAgentsThanTheLeader) {
  const std::vector<ControllerView> views = {{"ctl1:6817", 0, 100}, {"ctl2:6817", 3, 100}, {"ctl3:6817", 2, 100}};
  // The leader (ctl1) hears nobody: ctl2, which hears the most, gets it.
  std::optional<ControllerView> to = AgentReach::Successor(0, views, "ctl1:6817");
  ASSERT_TRUE(to.has_value());
  EXPECT_EQ(to->address, "ctl2:6817");
  EXPECT_EQ(to->agents, 3);
  // It hears 2: still ctl2 (3 > 2); it hears 3: nobody does better, it keeps the lease.
  EXPECT_EQ(AgentReach::Successor(2, views, "ctl1:6817")->address, "ctl2:6817");
  EXPECT_FALSE(AgentReach::Successor(3, views, "ctl1:6817").has_value()) << "a tie keeps the leader";
  EXPECT_FALSE(AgentReach::Successor(0, {}, "ctl1:6817").has_value()) << "no standby reports: nothing to do";
  EXPECT_FALSE(AgentReach::Successor(0, {{"ctl1:6817", 5, 0}}, "ctl1:6817").has_value())
      << "its own old report (from when it stood by) never counts";
  // Equal counts: the first address.
  EXPECT_EQ(AgentReach::Successor(0, {{"ctl2:6817", 2, 0}, {"ctl3:6817", 2, 0}}, "ctl1:6817")->address, "ctl2:6817");
}

TEST(AgentReach, TheWindowsFollowTheLeaseAndTheHeartbeat) {
  EXPECT_EQ(LeaderHeardWindowS(6, 5), 10);  // two heartbeats: a node that missed one is still heard
  EXPECT_EQ(LeaderHeardWindowS(3, 1), 3);
  EXPECT_EQ(StandbyReachWindowMs(3, 1), 8000);  // two tries of an agent: a heartbeat and a timed-out call each
}

}  // namespace
}  // namespace muster
