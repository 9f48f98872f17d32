#include "ctld/controller_stats.h"

#include <gtest/gtest.h>

#include "ctld/controller_diag.h"
#include "ctld/controller_test_fixture.h"

namespace muster {
namespace {

using namespace ctld_test;  // NOLINT(build/namespaces)

TEST(HistogramTest, BucketsAreCumulativeAndInclusiveOfTheirBound) {
  Histogram h({0.1, 1, 10});
  h.Observe(0.05);
  h.Observe(0.1);   // on a bound: in its bucket (le)
  h.Observe(0.5);
  h.Observe(20);    // past every bound: only in +Inf (the count)
  EXPECT_EQ(h.cumulative(), (std::vector<uint64_t>{2, 3, 3}));
  EXPECT_EQ(h.count(), 4u);
  EXPECT_DOUBLE_EQ(h.sum(), 20.65);
}

TEST(ControllerStatsTest, CountsPassesBackfillAndRequestsAndResets) {
  ControllerStats s(100);
  s.Submitted(3);
  s.Started();
  s.Ended(JobState::kCompleted);
  s.Ended(JobState::kCompleted);
  s.Ended(JobState::kTimeout);
  s.Preempted(2);
  s.Pass(300, 5, /*backfill=*/false, 0, 101);
  s.Pass(100, 2, /*backfill=*/true, 1, 102);
  s.ApiRequest("/v1/jobs/{id}", "GET", 0.002);
  s.ApiRequest("/v1/jobs/{id}", "GET", 0.004);
  StatsSnapshot v = s.Snapshot();
  EXPECT_EQ(v.since, 100);
  EXPECT_EQ(v.submitted, 3u);
  EXPECT_EQ(v.started, 1u);
  EXPECT_EQ(v.preempted, 2u);
  EXPECT_EQ(v.ended, (std::map<std::string, uint64_t>{{"COMPLETED", 2}, {"TIMEOUT", 1}}));
  EXPECT_EQ(v.passes, 2u);
  EXPECT_EQ(v.pass_last_us, 100u);
  EXPECT_EQ(v.pass_max_us, 300u);
  EXPECT_EQ(v.pass_total_us, 400u);
  EXPECT_EQ(v.depth_total, 7u);
  EXPECT_EQ(v.last_queue_length, 2u);
  EXPECT_EQ(v.pass_seconds.count(), 2u);
  EXPECT_EQ(v.backfill_passes, 1u);
  EXPECT_EQ(v.backfill_last_when, 102);
  EXPECT_EQ(v.backfill_reservations_total, 1u);
  const ApiRouteStats& r = v.api.at({"/v1/jobs/{id}", "GET"});
  EXPECT_EQ(r.count, 2u);
  EXPECT_NEAR(r.total_s, 0.006, 1e-12);
  EXPECT_EQ(r.seconds.count(), 2u);
  s.Reset(200);
  v = s.Snapshot();
  EXPECT_EQ(v.since, 200);
  EXPECT_EQ(v.submitted, 0u);
  EXPECT_EQ(v.passes, 0u);
  EXPECT_TRUE(v.api.empty());
}

TEST_F(ControllerTest, CountsSubmitsStartsEndsAndPassesAsDiagShowsThem) {
  RegisterAll();  // 2 nodes x 4 GPUs
  const int64_t a = Submit({"--gres=gpu:4"});
  const int64_t b = Submit({"--gres=gpu:4"});
  const int64_t c = Submit({"--gres=gpu:4"});  // waits: no GPU left
  EXPECT_EQ(ctld_->ScheduleOnce(), 2);
  ASSERT_TRUE(ctld_->JobExited(a, Job(a).batch_host, ExitReport{0, 0, false, ""}, kAdmin).ok());
  ASSERT_TRUE(ctld_->JobExited(b, Job(b).batch_host, ExitReport{2, 0, false, ""}, kAdmin).ok());
  EXPECT_EQ(ctld_->ScheduleOnce(), 1);
  ASSERT_TRUE(ctld_->Cancel(c, 0, kAlice).ok());
  const int64_t d = Submit({"--gres=gpu:1"});
  ASSERT_TRUE(ctld_->Cancel(d, 0, kAlice).ok());  // pending: ends at once
  const DiagAnswer diag = ControllerDiag(*ctld_, 4);
  EXPECT_EQ(diag.jobs_submitted, 4);
  EXPECT_EQ(diag.jobs_started, 3);
  EXPECT_EQ(diag.jobs_completed, 1);
  EXPECT_EQ(diag.jobs_failed, 1);
  EXPECT_EQ(diag.jobs_canceled, 1);   // d; c is still being stopped (COMPLETING)
  EXPECT_EQ(diag.cycles, 2);
  EXPECT_EQ(diag.cycle_depth_total, 3 + 1);  // the first pass saw 3 waiting, the second 1
  EXPECT_GE(diag.cycle_max_us, diag.cycle_last_us);
  EXPECT_EQ(diag.jobs_pending, 0);
  EXPECT_EQ(diag.server_threads, 4);
  EXPECT_GT(diag.gettimeofday_latency_us, 0);  // 1000 calls take more than a microsecond
}

TEST_F(ControllerTest, DiagCountsRequestsByTheCallerTheServerIdentified) {
  ctld_->stats().ApiRequest("/v1/jobs", "GET", 0.25, 0u);
  ctld_->stats().ApiRequest("/v1/jobs", "POST", 0.5, 0u);
  ctld_->stats().ApiRequest("/v1/jobs", "GET", 0.001, 4242424u);
  ctld_->stats().ApiRequest("/metrics", "GET", 0.001);  // no caller: by message type only
  const DiagAnswer d = ControllerDiag(*ctld_, 4);
  ASSERT_EQ(d.rpc_users.size(), 2u);
  EXPECT_EQ(d.rpc_users[0].user, "root");
  EXPECT_EQ(d.rpc_users[0].uid, 0);
  EXPECT_EQ(d.rpc_users[0].count, 2);
  EXPECT_EQ(d.rpc_users[0].total_us, 750000);
  EXPECT_EQ(d.rpc_users[1].user, "4242424");  // no name on this host: the uid written out
  EXPECT_EQ(d.rpc_users[1].count, 1);
  int64_t by_type = 0;
  for (const DiagRpc& r : d.rpcs) by_type += r.count;
  EXPECT_EQ(by_type, 4);
}

TEST_F(ControllerTest, CountsAJobStartedAheadOfAReservationAsBackfilled) {
  config_.scheduler.backfill = true;
  Open();
  RegisterAll();  // n1, n2: 4 GPUs each
  const int64_t a = Submit({"--gres=gpu:4", "-t", "60"});
  ASSERT_EQ(ctld_->ScheduleOnce(), 1);  // a on one node
  const int64_t big = Submit({"-N", "2", "--gres=gpu:4", "-t", "60"});  // waits for a: a reservation
  const int64_t small = Submit({"--gres=gpu:2", "-t", "10"});         // ends before a: backfilled
  ASSERT_EQ(ctld_->ScheduleOnce(), 1);
  EXPECT_EQ(Job(a).state, JobState::kRunning);
  EXPECT_EQ(Job(big).state, JobState::kPending);
  EXPECT_GT(Job(big).expected_start, 0);
  EXPECT_EQ(Job(small).state, JobState::kRunning);
  const DiagAnswer d = ControllerDiag(*ctld_, 4);
  EXPECT_EQ(d.bf_cycles, 2);
  EXPECT_EQ(d.bf_reservations_total, 1);
  EXPECT_EQ(d.bf_last_reservations, 1);
  EXPECT_EQ(d.bf_backfilled_jobs, 1);  // small, not a (no reservation was ahead of it)
  EXPECT_EQ(d.bf_backfilled_het, 0);
}

}  // namespace
}  // namespace muster
