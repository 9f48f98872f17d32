#include "wire/codec.h"

#include <gtest/gtest.h>

#include "wire/agent.h"
#include "wire/jobs.h"
#include "wire/policy.h"
#include "wire/priority.h"
#include "wire/steps.h"

namespace muster {
namespace {

NodeReport Sample() {
  NodeReport r;
  r.running = {{7, 0}, {9, 2}};
  RunExit e;
  e.job_id = 8;
  e.report.exit_code = 3;
  e.report.oom = true;
  e.report.note = "n\xff";  // the users' bytes travel as they are
  e.report.restart_count = 1;
  r.exits = {e};
  r.gpu_faults = std::vector<GpuFault>{{1, false, "Xid 79"}, {3, true, "row remap pending"}};
  r.node_health = NodeHealth{false, "disk full"};
  return r;
}

TEST(WireCodecTest, RecordsRoundTrip) {
  const NodeReport r = Sample();
  StatusOr<NodeReport> back = wire::Decode<NodeReport>(wire::Encode(r));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, r);
  NodeOrders o{30, {{7, 0}}, {2}, "c1", 4, "ab12"};
  EXPECT_EQ(*wire::Decode<NodeOrders>(wire::Encode(o)), o);
  EXPECT_NE(wire::Encode(o).find(R"("config_hash":"ab12")"), std::string::npos);
  // An older controller's answer has no config_hash: empty, which a configless agent ignores.
  EXPECT_EQ(wire::Decode<NodeOrders>(R"({"lease_s":3})")->config_hash, "");
  ServedConfig served{"00ff", "cluster: x\n", {{"cluster.yaml", "nodes: []\n"}, {"gres.conf", ""}}};
  EXPECT_EQ(*wire::Decode<ServedConfig>(wire::Encode(served)), served);
}

TEST(WireCodecTest, KeysAreTheDocumentedOnes) {
  ExitNotice n;
  n.node = "node1";
  n.exit.job_id = 4;
  n.exit.report.signal = 9;
  EXPECT_EQ(wire::Encode(n),
            R"({"node":"node1","job_id":4,"exit_code":0,"signal":9,"oom":false,"note":"","restart_count":0,"lease_expired":false})");
  // Unset optionals leave their keys out: a node that watches nothing says nothing of it.
  EXPECT_EQ(wire::Encode(NodeReport{}), R"({"running":[],"exits":[]})");
  EXPECT_NE(wire::Encode(Sample()).find(R"("gpu_health":[{"index":1,"condition":"failed","reason":"Xid 79"})"),
            std::string::npos);
}

TEST(WireCodecTest, MissingKeysKeepDefaultsAndUnknownOnesAreIgnored) {
  StatusOr<Heartbeat> b = wire::Decode<Heartbeat>(R"({"node":"n1","later":{"x":[1]},"running":[{"job_id":5}]})");
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->node, "n1");
  ASSERT_EQ(b->report.running.size(), 1u);
  EXPECT_EQ(b->report.running[0].restart_count, 0);
  EXPECT_FALSE(b->report.gpu_faults.has_value());
  EXPECT_FALSE(b->report.node_health.has_value());
  StatusOr<ExitCode> nulls = wire::Decode<ExitCode>(R"({"exit_code":null})");
  ASSERT_TRUE(nulls.ok());
  EXPECT_EQ(nulls->exit_code, 0);
}

TEST(WireCodecTest, ErrorsNameTheField) {
  auto message = [](std::string_view text) { return wire::Decode<Heartbeat>(text).status().message(); };
  EXPECT_EQ(message(R"({"node":3})"), "field 'node' has the wrong type");
  EXPECT_EQ(message(R"({"running":[{"job_id":"7"}]})"), "field 'running[].job_id' has the wrong type");
  EXPECT_EQ(message(R"({"running":[{"job_id":1.5}]})"), "field 'running[].job_id' has the wrong type");
  EXPECT_EQ(message(R"({"running":[{"job_id":1e300}]})"), "field 'running[].job_id' has the wrong type");
  EXPECT_EQ(message(R"({"running":{}})"), "field 'running' has the wrong type");
  EXPECT_EQ(message(R"({"running":[3]})"), "field 'running' has the wrong type");
  EXPECT_EQ(message(R"({"exits":[{"restart_count":99999999999}]})"), "field 'exits[].restart_count' has the wrong type");
  EXPECT_EQ(message(R"({"gpu_health":[{"index":1,"condition":"tired"}]})"),
            "field 'gpu_health[].condition' must be one of \"failed\", \"needs_reset\"");
  EXPECT_EQ(message(R"({"node_health":{"ok":"yes"}})"), "field 'node_health.ok' has the wrong type");
  EXPECT_EQ(message("[1]"), "expected a JSON object");
  EXPECT_EQ(message("{\"node\":"), "request body is not valid JSON");
  EXPECT_EQ(message(std::string(40, '[') + std::string(40, ']')), "request body nests deeper than 32 levels");
  EXPECT_EQ(wire::Decode<NodeOrders>("x", "the controller's answer").status().message(),
            "the controller's answer is not valid JSON");
}

TEST(WireCodecTest, NodeReportsAreChecked) {
  NodeReport r;
  r.gpu_faults = std::vector<GpuFault>{{5, false, "a"}, {2, true, "b"}};
  StatusOr<NodeReport> checked = wire::CheckedNodeReport(r);
  ASSERT_TRUE(checked.ok());
  EXPECT_EQ(checked->gpu_faults->front().index, 2) << "sorted by index";
  r.gpu_faults->push_back({4096, false, "c"});
  EXPECT_EQ(wire::CheckedNodeReport(r).status().message(), "field 'gpu_health[].index' is out of range: 4096");
}

TEST(WireCodecTest, PolicyAnswersRoundTrip) {
  PolicyAnswer p;
  Account a;
  a.name = "team";
  a.quota.gpus = 8;
  a.over_quota_weight = 2.5;
  a.qos = {"normal", "high"};
  p.accounts = {a};
  p.users = {{"alice", "team", 3}};
  Qos own, cluster;
  own.name = "high";
  own.preempt = {"normal"};
  own.has_preempt_mode = true;
  own.preempt_mode = PreemptMode::kSuspend;
  cluster.name = "normal";
  p.qos = {own, cluster};
  p.warnings = {"w"};
  const std::string text = wire::Encode(p);
  EXPECT_NE(text.find(R"("preempt_mode":"SUSPEND")"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("preempt_mode":"")"), std::string::npos) << "a QOS that takes the cluster's mode";
  StatusOr<PolicyAnswer> back = wire::Decode<PolicyAnswer>(text);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->qos, p.qos);
  EXPECT_EQ(back->accounts.at(0).quota, a.quota);
  EXPECT_EQ(back->accounts.at(0).qos, a.qos);
  EXPECT_DOUBLE_EQ(back->accounts.at(0).over_quota_weight, 2.5);
  EXPECT_EQ(back->users.at(0).shares, 3);
  EXPECT_EQ(back->warnings, p.warnings);
  // A mode the reader does not know is an error naming the field (it once read as the cluster's);
  // the name is read in any case, and "" is the cluster's.
  std::string bad = text;
  bad.replace(bad.find(R"("preempt_mode":"SUSPEND")"), 24, R"("preempt_mode":"SLEEP")");
  EXPECT_EQ(wire::Decode<PolicyAnswer>(bad).status().message(),
            "field 'qos[].preempt_mode': invalid preempt mode 'SLEEP' (expected OFF, CANCEL, REQUEUE or SUSPEND)");
  std::string lower = text;
  lower.replace(lower.find(R"("preempt_mode":"SUSPEND")"), 24, R"("preempt_mode":"suspend")");
  ASSERT_TRUE(wire::Decode<PolicyAnswer>(lower).ok());
  EXPECT_EQ(wire::Decode<PolicyAnswer>(lower)->qos, p.qos);
  std::string number = text;
  number.replace(number.find(R"("preempt_mode":"SUSPEND")"), 24, R"("preempt_mode":3)");
  EXPECT_EQ(wire::Decode<PolicyAnswer>(number).status().message(), "field 'qos[].preempt_mode' has the wrong type");
  PolicyOp op{"add", "qos", "x", {{"Priority", "10"}, {"Preempt", "normal"}}};
  EXPECT_EQ(*wire::Decode<PolicyOp>(wire::Encode(op)), op);
  EXPECT_EQ(wire::Decode<PolicyOp>(R"({"fields": [["a"]]})").status().message(), "field 'fields' has the wrong type");
}

// A key read by a function (wire::Parsed): written with its formatter, read with its parser, and a
// value the parser refuses is an error naming the field, inside lists too.
struct Minutes {
  using WireRecord = void;
  int64_t limit_s = 0;
  static std::string Text(const int64_t& s) { return std::to_string(s / 60) + "m"; }
  static StatusOr<int64_t> Parse(const std::string& t) {
    if (t.size() < 2 || t.back() != 'm' || t.find_first_not_of("0123456789") != t.size() - 1) {
      return InvalidArgument("'" + t + "' is not a number of minutes");
    }
    return std::stoll(t) * 60;
  }
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("limit", wire::Parsed{s.limit_s, &Text, &Parse});
  }
};
struct MinutesList {
  using WireRecord = void;
  std::vector<Minutes> items;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("items", s.items);
  }
};

TEST(WireCodecTest, ParsedKeysReportBadValuesByName) {
  EXPECT_EQ(wire::Encode(Minutes{120}), R"({"limit":"2m"})");
  EXPECT_EQ(wire::Decode<Minutes>(R"({"limit":"5m"})")->limit_s, 300);
  EXPECT_EQ(wire::Decode<Minutes>("{}")->limit_s, 0);
  EXPECT_EQ(wire::Decode<Minutes>(R"({"limit":"soon"})").status().message(),
            "field 'limit': 'soon' is not a number of minutes");
  EXPECT_EQ(wire::Decode<Minutes>(R"({"limit":5})").status().message(), "field 'limit' has the wrong type");
  EXPECT_EQ(wire::Decode<MinutesList>(R"({"items":[{"limit":"1m"},{"limit":"x"}]})").status().message(),
            "field 'items[].limit': 'x' is not a number of minutes");
}

// The agents' bodies carry the records in the records' own codec (model/record_json.h): the
// registration is one decode of the node record beside the report, the launch the job in full.
TEST(WireCodecTest, AgentBodiesCarryRecordsInTheirOwnCodec) {
  Registration reg;
  NodeRecord n;
  n.node.name = "n1";
  n.node.gpus.push_back(Gpu{0, "h100", 81920, "GPU-0", 0, "", -1});
  n.agent_address = "unix:/run/musterd.sock";
  reg.node = n;
  reg.report.running = {JobRun{7, 1}};
  StatusOr<Registration> back = wire::Decode<Registration>(wire::Encode(reg));
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_TRUE(back->node.has_value());
  EXPECT_EQ(*back->node, n);
  EXPECT_EQ(back->report, reg.report);
  EXPECT_EQ(wire::Decode<Registration>(R"({"node": {"node": {"cpus": "many"}}})").status().message(),
            "node.cpus: wrong type");
  EXPECT_FALSE(wire::Decode<Registration>(R"({"running": []})")->node.has_value());

  JobRecord job;
  job.id = 7;
  job.script = "#!/bin/sh\ntrue\n";
  job.environment = {"A=1"};
  job.state = JobState::kRunning;
  StatusOr<LaunchOrder> launch = wire::Decode<LaunchOrder>(wire::Encode(LaunchOrder{FullJob{job}, 5}));
  ASSERT_TRUE(launch.ok()) << launch.status().message();
  ASSERT_TRUE(launch->job.has_value());
  EXPECT_EQ(launch->job->job, job);  // the script and environment too
  EXPECT_EQ(launch->not_after_ms, 5);
  EXPECT_EQ(wire::Decode<LaunchOrder>(R"({"job": {"uid": "root"}})").status().message(), "job.uid: wrong type");
}

TEST(WireCodecTest, SharesLeaveAnInfiniteLevelOut) {
  SharesAnswer s;
  s.caller = "alice";
  s.shares.push_back({"team", "", 0, 1, 0.5, 0, 0, std::nullopt, 0});
  s.shares.push_back({"team", "alice", 1, 1, 0.5, 10, 0.25, 2.0, 0.75});
  const std::string text = wire::Encode(s);
  EXPECT_EQ(text.find("level_fs\":null"), std::string::npos);
  StatusOr<SharesAnswer> back = wire::Decode<SharesAnswer>(text);
  ASSERT_TRUE(back.ok());
  EXPECT_FALSE(back->shares[0].level_fs.has_value());
  EXPECT_EQ(back->shares[1].level_fs, 2.0);
  EXPECT_EQ(back->shares[1].norm_usage, 0.25);
  PriorityAnswer pr;
  pr.weights.age = 1000;
  pr.jobs.push_back({7, "gpu", "alice", "team", 1234, {0.5, 0.25, 0, 1, 0}});
  StatusOr<PriorityAnswer> p2 = wire::Decode<PriorityAnswer>(wire::Encode(pr));
  ASSERT_TRUE(p2.ok());
  EXPECT_EQ(p2->weights.age, 1000);
  EXPECT_EQ(p2->jobs.at(0).priority, 1234);
  EXPECT_EQ(p2->jobs.at(0).factors.fairshare, 0.25);
}

TEST(WireCodecTest, StepsCarryTheJobInTheListsForm) {
  StepCreate c;
  c.name = "train";
  c.ntasks = 4;
  c.nodelist = "n[1-2]";
  c.gpus = StepGpus{0, 2, 0};
  StatusOr<StepCreate> c2 = wire::Decode<StepCreate>(wire::Encode(c));
  ASSERT_TRUE(c2.ok());
  EXPECT_EQ(c2->mem_mb, -1) << "not given";
  EXPECT_EQ(c2->nodelist, "n[1-2]");
  ASSERT_TRUE(c2->gpus.has_value());
  EXPECT_EQ(c2->gpus->total, 2);
  StepAnswer a;
  a.step_id = 3;
  a.ntasks = 2;
  a.job.id = 42;
  a.job.user = "alice";
  a.job.restart_count = 1;
  a.job.script = "#!/bin/sh\nsecret\n";
  a.nodes = {{"n1", "unix:/run/a.sock", {0}, std::vector<int>{1}}, {"n2", "host:7", {1}, std::nullopt}};
  const std::string text = wire::Encode(a);
  EXPECT_EQ(text.find("secret"), std::string::npos) << "a list's job carries no script";
  StatusOr<StepAnswer> back = wire::Decode<StepAnswer>(text);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->job.id, 42);
  EXPECT_EQ(back->job.user, "alice");
  EXPECT_EQ(back->job.restart_count, 1);
  EXPECT_EQ(back->kill_wait_s, 30);
  ASSERT_EQ(back->nodes.size(), 2u);
  EXPECT_EQ(back->nodes[0].gpus, std::vector<int>{1});
  EXPECT_FALSE(back->nodes[1].gpus.has_value());
  EXPECT_EQ(wire::Decode<StepAnswer>(R"({"job": {"uid": "x"}})").status().message(), "job.uid: wrong type");
  EXPECT_EQ(wire::Decode<StepAnswer>(R"({"job": 3})").status().message(), "field 'job' has the wrong type");
}

}  // namespace
}  // namespace muster
