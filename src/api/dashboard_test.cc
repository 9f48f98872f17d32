#include "api/dashboard.h"

#include <gtest/gtest.h>

#include "api/ui_assets.h"
#include "ctld/controller_test_fixture.h"

namespace muster {
namespace {

using namespace ctld_test;  // NOLINT(build/namespaces)
namespace bj = wire::bj;

class DashboardTest : public ControllerTest {
 protected:
  void SetUp() override {
    ControllerTest::SetUp();
    api::AddDashboardRoutes(*ctld_, router_, "");
  }
  HttpResponse Get(const std::string& path, const Caller& who = kAlice,
                   std::map<std::string, std::string> query = {}) {
    HttpRequest req;
    req.method = "GET";
    req.path = path;
    req.caller = who;
    req.query = std::move(query);
    return router_.Handle(req);
  }
  bj::object GetJson(const std::string& path, std::map<std::string, std::string> query = {}) {
    HttpResponse r = Get(path, kAlice, std::move(query));
    EXPECT_EQ(r.status, 200) << r.body;
    return bj::parse(r.body).as_object();
  }
  Router router_;
};

TEST_F(DashboardTest, ServesItsFilesWithAStrictPolicyAndNothingElse) {
  HttpResponse page = Get("/ui", Caller{});  // no credentials needed: the files hold no data
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_NE(page.body.find("<script src=\"/ui/app.js\""), std::string::npos);
  std::string policy;
  for (const auto& [k, v] : page.headers) {
    if (k == "Content-Security-Policy") policy = v;
  }
  EXPECT_TRUE(policy.starts_with("default-src 'self'")) << policy;
  EXPECT_EQ(Get("/ui/app.js", Caller{}).content_type, "text/javascript; charset=utf-8");
  EXPECT_EQ(Get("/ui/style.css", Caller{}).content_type, "text/css; charset=utf-8");
  EXPECT_EQ(Get("/ui/nothing.js", Caller{}).status, 404);
  // Nothing of the page comes from another origin.
  for (const api::UiAsset& a : api::UiAssets()) {
    EXPECT_EQ(a.content.find("http://"), a.name == "app.js" ? a.content.find("http://www.w3.org/2000/svg") : std::string::npos)
        << a.name;
    EXPECT_EQ(a.content.find("https://"), std::string_view::npos) << a.name;
  }
}

TEST_F(DashboardTest, DataNeedsACaller) {
  for (const char* path : {"/v1/ui/cluster", "/v1/ui/queue", "/v1/ui/teams", "/v1/ui/jobs/1"}) {
    HttpResponse r = Get(path, Caller{});
    EXPECT_EQ(r.status, 401) << path;
    EXPECT_NE(r.body.find("scontrol token"), std::string::npos) << r.body;
  }
}

TEST_F(DashboardTest, ClusterQueueAndJobShowWhatTheControllerHolds) {
  RegisterAll();  // n1, n2: 4 GPUs each
  const int64_t a = Submit({"--gres=gpu:3", "-t", "60"});
  const int64_t b = Submit({"--gres=gpu:4", "-t", "60"}, kBob);
  const int64_t c = Submit({"--gres=gpu:4"});  // waits for GPUs
  ASSERT_EQ(ctld_->ScheduleOnce(), 2);
  ASSERT_TRUE(ctld_->UpdateNode("n2", "DRAIN", "maintenance", kAdmin).ok());

  bj::object cluster = GetJson("/v1/ui/cluster");
  const bj::object& totals = cluster.at("totals").as_object();
  EXPECT_EQ(totals.at("gpus").as_int64(), 8);
  EXPECT_EQ(totals.at("allocated").as_int64(), 7);
  const JobRecord ja = Job(a);
  const std::string spare_node = ja.batch_host;
  EXPECT_EQ(totals.at("idle").as_int64(), spare_node == "n1" ? 1 : 0);
  EXPECT_EQ(totals.at("drained").as_int64(), spare_node == "n2" ? 1 : 0);
  int held_by_a = 0;
  for (const bj::value& n : cluster.at("nodes").as_array()) {
    for (const bj::value& g : n.at("gpus").as_array()) {
      for (const bj::value& j : g.at("jobs").as_array()) held_by_a += j.at("id").as_int64() == a;
    }
    if (n.at("name").as_string() == "n2") {
      EXPECT_EQ(n.at("reason").as_string(), "maintenance");
    }
  }
  EXPECT_EQ(held_by_a, 3);
  EXPECT_FALSE(cluster.at("utilization_reported").as_bool());  // shown as unknown

  // A heartbeat with the GPUs' utilization: its figures on its node's GPUs, none on the other's.
  NodeReport beat;
  for (const JobRecord& j : ctld_->ListJobs(JobQuery{.active_only = true})) {
    if (HoldsResources(j.state) && j.batch_host == spare_node) beat.running.push_back(JobRun{j.id, j.restart_count});
  }
  beat.gpu_usage = std::vector<GpuUtilization>{{0, 73.5, 40000.0}, {2, 12.0, std::nullopt}};
  ASSERT_TRUE(ctld_->Heartbeat(spare_node, beat, kAdmin).ok());
  cluster = GetJson("/v1/ui/cluster");
  EXPECT_TRUE(cluster.at("utilization_reported").as_bool());
  for (const bj::value& n : cluster.at("nodes").as_array()) {
    for (const bj::value& g : n.at("gpus").as_array()) {
      const int64_t index = g.at("index").as_int64();
      const bool reported = n.at("name").as_string() == spare_node && (index == 0 || index == 2);
      EXPECT_EQ(g.as_object().contains("util_pct"), reported) << n.at("name").as_string() << " GPU " << index;
      if (reported) {
        EXPECT_DOUBLE_EQ(g.at("util_pct").as_double(), index == 0 ? 73.5 : 12.0);
      }
      EXPECT_EQ(g.as_object().contains("fb_used_mib"), reported && index == 0);
    }
  }
  // Once the node is overdue, its figures are no longer shown.
  clock_.AdvanceSeconds(config_.heartbeat_timeout_s + 1);
  EXPECT_FALSE(GetJson("/v1/ui/cluster").at("utilization_reported").as_bool());

  bj::object queue = GetJson("/v1/ui/queue");
  const bj::array& pending = queue.at("pending").as_array();
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].at("id").as_int64(), c);
  EXPECT_EQ(pending[0].at("position").as_int64(), 1);
  EXPECT_EQ(pending[0].at("reason").as_string(), Job(c).reason);
  EXPECT_EQ(pending[0].at("expected_start").as_int64(), Job(c).expected_start);
  EXPECT_EQ(pending[0].at("gpus").as_string(), "4 per node");
  const bj::array& running = queue.at("running").as_array();
  ASSERT_EQ(running.size(), 2u);
  EXPECT_EQ(running[0].at("id").as_int64(), a);
  EXPECT_EQ(running[0].at("gpus").as_double(), 3.0);
  EXPECT_EQ(running[1].at("user").as_string(), Job(b).user);

  bj::object job = GetJson("/v1/ui/jobs/" + std::to_string(a));
  EXPECT_EQ(job.at("job").at("state").as_string(), "RUNNING");
  std::vector<std::string> events;
  for (const bj::value& e : job.at("timeline").as_array()) events.emplace_back(e.at("event").as_string());
  EXPECT_EQ(events, (std::vector<std::string>{"submit", "eligible", "start"}));
  ASSERT_EQ(job.at("placement").as_array().size(), 1u);
  EXPECT_EQ(job.at("placement").at(0).at("gpus").as_array().size(), 3u);
  EXPECT_EQ(job.at("output").at("stdout").as_string(), "/tmp/slurm-" + std::to_string(a) + ".out");
  EXPECT_EQ(Get("/v1/ui/jobs/999999").status, 404);
  EXPECT_EQ(Get("/v1/ui/jobs/x1").status, 400);
}

TEST_F(DashboardTest, TeamsChargeEachHourTheGpusHeld) {
  RegisterAll();
  clock_.AdvanceSeconds(3600 - clock_.NowSeconds() % 3600);  // on the hour
  const int64_t a = Submit({"--gres=gpu:2"});
  ASSERT_EQ(ctld_->ScheduleOnce(), 1);
  clock_.AdvanceSeconds(5400);  // 1.5 hours on
  for (const Node& n : config_.cluster.nodes) ASSERT_TRUE(ctld_->Heartbeat(n.name, Running({a}), kAdmin).ok());
  bj::object teams = GetJson("/v1/ui/teams", {{"hours", "3"}});
  EXPECT_EQ(teams.at("total_gpus").as_int64(), 8);
  ASSERT_EQ(teams.at("accounts").as_array().size(), 1u);
  const bj::object& acct = teams.at("accounts").at(0).as_object();
  EXPECT_EQ(acct.at("gpus_now").as_double(), 2.0);
  EXPECT_EQ(acct.at("gpu_hours").as_double(), 3.0);  // 2 GPUs for 1.5 h
  // Buckets: [-1 h, 0 h) nothing, [0, 1 h) 2 GPUs, [1 h, 1.5 h) 2 GPUs (the part of the hour passed).
  const bj::array& usage = acct.at("usage").as_array();
  ASSERT_EQ(usage.size(), 3u);
  EXPECT_EQ(usage[0].as_double(), 0.0);
  EXPECT_EQ(usage[1].as_double(), 2.0);
  EXPECT_EQ(usage[2].as_double(), 2.0);
  EXPECT_EQ(Get("/v1/ui/teams", kAlice, {{"hours", "0"}}).status, 400);
  EXPECT_EQ(Get("/v1/ui/teams", kAlice, {{"hours", "x"}}).status, 400);
}

}  // namespace
}  // namespace muster
