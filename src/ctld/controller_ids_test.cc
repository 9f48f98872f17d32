// Job ids across controller restarts: dense (a start numbers on from the largest stored job, so
// the block of ids the last run reserved and did not use is numbered again, after a clean stop or
// a crash alike), never given twice, never one a stored job has, and first_job_id as a floor.
#include <gtest/gtest.h>

#include <vector>

#include "ctld/controller_test_fixture.h"
#include "store/sqlite_store.h"

namespace muster {
namespace {

using namespace ctld_test;  // NOLINT(build/namespaces)

TEST_F(ControllerTest, JobIdsStayDenseAcrossRestarts) {
  std::vector<int64_t> ids;
  for (int start = 0; start < 5; ++start) {
    ids.push_back(Submit({}));
    ids.push_back(Submit({}));
    Open();  // a new controller on the same store, as after kill -9 or a restart
  }
  for (size_t k = 0; k < ids.size(); ++k) EXPECT_EQ(ids[k], static_cast<int64_t>(k) + 1) << "job " << k;
  // The next id is the one after the last stored job's: sbatch --test-only shows it, taking none.
  RegisterAll();
  JobSpec probe;
  probe.script = "#!/bin/sh\ntrue\n";
  StatusOr<WillRun> w = ctld_->TestOnly(probe, kAlice);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->job_id, 11);
  EXPECT_EQ(Submit({}), 11);
}

// An id is shown to no one before its job is stored, so the one a submission took and could not
// store (its caller got an error, never the id) is numbered again after a restart; the stored
// jobs keep theirs, and no stored job's id is ever given again.
TEST_F(ControllerTest, AnIdNeverStoredIsNumberedAgainAndAStoredOneNever) {
  EXPECT_EQ(Submit({}), 1);
  EXPECT_EQ(Submit({}), 2);
  auto* sqlite = dynamic_cast<SqliteStore*>(store_.get());
  ASSERT_NE(sqlite, nullptr);
  sqlite->SetFaultHookForTest([](const std::string& table, const std::string&) {
    return table == "jobs" ? Status(StatusCode::kUnavailable, "disk gone") : Status::Ok();
  });
  JobSpec lost;
  lost.script = "#!/bin/sh\ntrue\n";
  StatusOr<int64_t> failed = ctld_->Submit(lost, kAlice);
  ASSERT_FALSE(failed.ok());
  sqlite->SetFaultHookForTest(nullptr);
  Open();
  EXPECT_EQ(Submit({}), 3);
  EXPECT_EQ(Submit({}), 4);
  Open();
  EXPECT_EQ(Submit({}), 5);
  for (int64_t id = 1; id <= 5; ++id) EXPECT_TRUE(ctld_->GetJob(id).ok()) << "job " << id;
}

// A higher first_job_id (Slurm's FirstJobId) takes effect at the next start, as slurmctld's
// job_id_sequence = MAX(job_id_sequence, FirstJobId); a lower one brings back no id already used.
TEST_F(ControllerTest, FirstJobIdIsAFloorForNewIds) {
  EXPECT_EQ(Submit({}), 1);
  config_.first_job_id = 1000;
  Open();
  EXPECT_EQ(Submit({}), 1000);
  config_.first_job_id = 1;
  Open();
  EXPECT_EQ(Submit({}), 1001);
}

}  // namespace
}  // namespace muster
