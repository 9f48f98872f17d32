#include "api/controller_metrics.h"

#include <gtest/gtest.h>

#include <sstream>

#include "ctld/controller_test_fixture.h"

namespace muster {
namespace {

using namespace ctld_test;  // NOLINT(build/namespaces)

// The lines of `text` that begin with `prefix`.
std::vector<std::string> Lines(const std::string& text, const std::string& prefix) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(prefix)) out.push_back(line);
  }
  return out;
}

TEST_F(ControllerTest, MetricsShowJobsGpusCountersAndHistograms) {
  RegisterAll();  // n1, n2: 4 GPUs each
  Submit({"--gres=gpu:3"});
  Submit({"--gres=gpu:4"});
  Submit({"--gres=gpu:4"});  // waits for GPUs
  ASSERT_EQ(ctld_->ScheduleOnce(), 2);
  ASSERT_TRUE(ctld_->UpdateNode("n2", "DRAIN", "maintenance", kAdmin).ok());
  ctld_->stats().ApiRequest("/v1/jobs/{id}", "GET", 0.003);
  StatusOr<std::string> text = api::ControllerMetricsText(*ctld_);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  const std::string& t = *text;
  EXPECT_EQ(Lines(t, "muster_jobs{"),
            (std::vector<std::string>{"muster_jobs{state=\"pending\",partition=\"gpu\",reason=\"Resources\",account=\"\"} 1"}));
  EXPECT_EQ(Lines(t, "muster_jobs_running{"),
            (std::vector<std::string>{"muster_jobs_running{partition=\"gpu\",account=\"\"} 2"}));
  // 7 held; the spare GPU is idle on n1, drained on n2 (which takes no work).
  int on_n2 = 0;
  for (const JobRecord& j : ctld_->ListJobs(JobQuery{.active_only = true})) {
    if (j.state == JobState::kRunning && j.batch_host == "n2") on_n2 = j.allocation.at(0).gpus.size();
  }
  ASSERT_GT(on_n2, 0);
  EXPECT_EQ(Lines(t, "muster_gpus{"),
            (std::vector<std::string>{
                "muster_gpus{state=\"allocated\"} 7",
                "muster_gpus{state=\"drained\"} " + std::to_string(4 - on_n2),
                "muster_gpus{state=\"idle\"} " + std::to_string(4 - (7 - on_n2)),
                "muster_gpus{state=\"unhealthy\"} 0",
            }));
  EXPECT_EQ(Lines(t, "muster_jobs_submitted_total "), (std::vector<std::string>{"muster_jobs_submitted_total 3"}));
  EXPECT_EQ(Lines(t, "muster_jobs_started_total "), (std::vector<std::string>{"muster_jobs_started_total 2"}));
  EXPECT_EQ(Lines(t, "muster_scheduler_pass_seconds_count "),
            (std::vector<std::string>{"muster_scheduler_pass_seconds_count 1"}));
  EXPECT_EQ(Lines(t, "muster_scheduler_pass_seconds_bucket{le=\"+Inf\"} "),
            (std::vector<std::string>{"muster_scheduler_pass_seconds_bucket{le=\"+Inf\"} 1"}));
  EXPECT_EQ(Lines(t, "muster_api_request_seconds_bucket{route=\"/v1/jobs/{id}\",method=\"GET\",le=\"0.0025\"} "),
            (std::vector<std::string>{
                "muster_api_request_seconds_bucket{route=\"/v1/jobs/{id}\",method=\"GET\",le=\"0.0025\"} 0"}));
  EXPECT_EQ(Lines(t, "muster_api_request_seconds_bucket{route=\"/v1/jobs/{id}\",method=\"GET\",le=\"0.005\"} "),
            (std::vector<std::string>{
                "muster_api_request_seconds_bucket{route=\"/v1/jobs/{id}\",method=\"GET\",le=\"0.005\"} 1"}));
  EXPECT_EQ(Lines(t, "# TYPE muster_api_request_seconds "),
            (std::vector<std::string>{"# TYPE muster_api_request_seconds histogram"}));

  // A job ends: n2's GPUs it held are now drained (the node takes no work).
  const std::vector<JobRecord> jobs = ctld_->ListJobs(JobQuery{.active_only = true});
  for (const JobRecord& j : jobs) {
    if (j.state == JobState::kRunning && j.batch_host == "n2") {
      ASSERT_TRUE(ctld_->JobExited(j.id, "n2", ExitReport{}, kAdmin).ok());
    }
  }
  text = api::ControllerMetricsText(*ctld_);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(Lines(*text, "muster_gpus{state=\"drained\"}"), (std::vector<std::string>{"muster_gpus{state=\"drained\"} 4"}));
  EXPECT_EQ(Lines(*text, "muster_jobs_ended_total{"),
            (std::vector<std::string>{"muster_jobs_ended_total{state=\"COMPLETED\"} 1"}));
}

TEST_F(PolicyTest, MetricsShowEachAccountsQuotaLimitGpusAndFairShare) {
  SchedPolicy p;
  Account team;
  team.name = "team";
  team.quota.gpus = 4;
  team.limit.gpus = 6;
  p.accounts.accounts = {team};
  p.accounts.users = {UserAssociation{"4242", "team", 1}};
  UsePolicy(p);
  SubmitAs(kHeavy, {"--gres=gpu:2"}, "", "team");
  ASSERT_EQ(ctld_->ScheduleOnce(), 1);
  Pass(100);
  ctld_->Tick();  // its usage is charged and the shares refreshed
  StatusOr<std::string> text = api::ControllerMetricsText(*ctld_);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  const std::string& t = *text;
  EXPECT_EQ(Lines(t, "muster_account_quota_gpus{"), (std::vector<std::string>{"muster_account_quota_gpus{account=\"team\"} 4"}));
  EXPECT_EQ(Lines(t, "muster_account_limit_gpus{"), (std::vector<std::string>{"muster_account_limit_gpus{account=\"team\"} 6"}));
  EXPECT_EQ(Lines(t, "muster_account_gpus_allocated{"),
            (std::vector<std::string>{"muster_account_gpus_allocated{account=\"team\"} 2"}));
  EXPECT_EQ(Lines(t, "muster_jobs_running{"),
            (std::vector<std::string>{"muster_jobs_running{partition=\"gpu\",account=\"team\"} 1"}));
  // The only account with usage holds all of it, and the whole cluster's share.
  EXPECT_EQ(Lines(t, "muster_account_fairshare_usage{account=\"team\"}"),
            (std::vector<std::string>{"muster_account_fairshare_usage{account=\"team\"} 1"}));
  EXPECT_EQ(Lines(t, "muster_account_fairshare_shares{account=\"team\"}"),
            (std::vector<std::string>{"muster_account_fairshare_shares{account=\"team\"} 1"}));
}

}  // namespace
}  // namespace muster
