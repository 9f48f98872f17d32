// A standby's side of several controllers (api/standby.h): which agents it counts as cut off from
// the leader, its entry of controller.hosts, and its answers.
#include "api/standby.h"

#include <gtest/gtest.h>

#include "wire/agent.h"
#include "wire/codec.h"

namespace muster::api {
namespace {

HttpRequest AgentPost(const std::string& path, const std::string& body, const std::string& unreachable) {
  HttpRequest r;
  r.method = "POST";
  r.path = path;
  r.body = body;
  if (!unreachable.empty()) r.query["unreachable"] = unreachable;
  r.caller.authenticated = true;
  r.caller.uid = 0;
  r.caller.via = "token";
  return r;
}

TEST(StandbyTest, CountsOnlyAgentsThatSayTheyCannotReachTheLeader) {
  Heartbeat beat;
  beat.node = "node7";
  const std::string hb = wire::Encode(beat);
  Registration reg;
  reg.node.emplace();
  reg.node->node.name = "node8";
  const std::string rg = wire::Encode(reg);
  const std::vector<uint32_t> agents = {0};
  EXPECT_EQ(FailedOverNode(AgentPost("/v1/agent/heartbeat", hb, "ctl1:6817"), "ctl1:6817", agents), "node7");
  EXPECT_EQ(FailedOverNode(AgentPost("/v1/agent/register", rg, "ctl1:6817"), "ctl1:6817", agents), "node8");
  // No word of the leader, or of another address (a standby that is down): not counted.
  EXPECT_EQ(FailedOverNode(AgentPost("/v1/agent/heartbeat", hb, ""), "ctl1:6817", agents), "");
  EXPECT_EQ(FailedOverNode(AgentPost("/v1/agent/heartbeat", hb, "ctl3:6817"), "ctl1:6817", agents), "");
  // No leader known (the lease lapsed): nothing to compare with.
  EXPECT_EQ(FailedOverNode(AgentPost("/v1/agent/heartbeat", hb, "ctl1:6817"), "", agents), "");
  // Not an agent: a user's token, or no token at all.
  HttpRequest user = AgentPost("/v1/agent/heartbeat", hb, "ctl1:6817");
  user.caller.uid = 1000;
  EXPECT_EQ(FailedOverNode(user, "ctl1:6817", agents), "");
  HttpRequest anonymous = AgentPost("/v1/agent/heartbeat", hb, "ctl1:6817");
  anonymous.caller.authenticated = false;
  EXPECT_EQ(FailedOverNode(anonymous, "ctl1:6817", agents), "");
  // Another route, or a body that is not a heartbeat.
  EXPECT_EQ(FailedOverNode(AgentPost("/v1/jobs", hb, "ctl1:6817"), "ctl1:6817", agents), "");
  EXPECT_EQ(FailedOverNode(AgentPost("/v1/agent/heartbeat", "[1", "ctl1:6817"), "ctl1:6817", agents), "");
}

TEST(StandbyTest, AStandbyAnswersThePingAndSendsEveryoneElseToTheLeader) {
  Leadership last;
  last.address = "ctl1:6817";
  last.remaining_ms = 2000;
  HttpRequest ping;
  ping.method = "GET";
  ping.path = "/v1/ping";
  HttpResponse p = StandbyAnswer(ping, "lab", "ctl2:6817", last);
  EXPECT_EQ(p.status, 200);
  EXPECT_NE(p.body.find("\"role\":\"standby\""), std::string::npos) << p.body;
  EXPECT_NE(p.body.find("\"leader\":\"ctl1:6817\""), std::string::npos) << p.body;
  HttpResponse other = StandbyAnswer(AgentPost("/v1/agent/heartbeat", "{}", ""), "lab", "ctl2:6817", last);
  EXPECT_EQ(other.status, 503);
  EXPECT_NE(other.body.find("controller ctl2:6817 is a standby: the leader is at ctl1:6817"), std::string::npos)
      << other.body;
  HttpRequest metrics;
  metrics.method = "GET";
  metrics.path = "/metrics";
  last.token = 4;
  HttpResponse m = StandbyAnswer(metrics, "lab", "ctl2:6817", last);
  EXPECT_EQ(m.status, 200);
  EXPECT_NE(m.body.find("\nmuster_controller_leader{address=\"ctl2:6817\"} 0\n"), std::string::npos) << m.body;
  EXPECT_NE(m.body.find("\nmuster_controller_leaderships_total 4\n"), std::string::npos) << m.body;
  last.remaining_ms = 0;
  other = StandbyAnswer(AgentPost("/v1/agent/heartbeat", "{}", ""), "lab", "ctl2:6817", last);
  EXPECT_NE(other.body.find("no controller leads now"), std::string::npos) << other.body;
}

}  // namespace
}  // namespace muster::api
