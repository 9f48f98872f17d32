// `muster admin migrate`'s copy (MigrateStore): a SQLite store with every kind of record, moved to
// PostgreSQL (MUSTER_TEST_PG_URL's server, a database of the test's own) and back to SQLite, and
// SQLite to SQLite without a server; each destination is read back and compared with the source.
#include "store/migrate.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "base/check.h"
#include "base/test_util.h"
#include "store/pg_test_util.h"
#include "store/sqlite_store.h"
#include "store/store_test_records.h"

namespace muster {
namespace {

struct Contents {
  std::vector<JobRecord> jobs;
  std::vector<NodeRecord> nodes;
  std::vector<StepRecord> steps;
  std::map<std::string, std::string> meta;
};

Contents Read(Store& s) {
  return {s.LoadJobs().value(), s.LoadNodes().value(), s.LoadSteps().value(), s.LoadMeta().value()};
}

// A store as a controller leaves it: jobs of every kind (rich ones, an array sharing one script,
// a heterogeneous pair, finished history), steps, nodes, the usage ledger and the policy log, and
// ids handed out past the last job saved.
Contents Fill(Store& s) {
  std::vector<JobRecord> jobs = {RichJob(3), RichJob(4)};
  for (int t = 0; t < 5; ++t) {
    JobRecord task;
    task.id = 10 + t;
    task.array_job_id = 10;
    task.array_task_id = t;
    task.script = "#!/bin/sh\necho task $SLURM_ARRAY_TASK_ID\n";
    task.state = t < 2 ? JobState::kCompleted : JobState::kPending;
    task.end_time = t < 2 ? 1700000100 : 0;
    jobs.push_back(task);
  }
  for (int k = 0; k < 2; ++k) {
    JobRecord het = RichJob(20 + k);
    het.array_job_id = 0;
    het.array_task_id = 0;
    het.het_job_id = 20;
    het.het_job_offset = k;
    jobs.push_back(het);
  }
  MUSTER_CHECK(s.SaveJobs(jobs).ok()) << "fill";
  MUSTER_CHECK(s.SaveNode(RichNode("gpu10")).ok()) << "fill";
  MUSTER_CHECK(s.SaveNode(RichNode("gpu2")).ok()) << "fill";
  MUSTER_CHECK(s.SaveStep(RichStep(3, -5)).ok()) << "fill";
  MUSTER_CHECK(s.SaveStep(RichStep(3, 0)).ok()) << "fill";
  MUSTER_CHECK(s.SaveStep(RichStep(21, 1)).ok()) << "fill";
  MUSTER_CHECK(s.SetMeta("usage", R"({"alice":{"gpu_s":3600.5}})").ok()) << "fill";
  MUSTER_CHECK(s.SetMeta("policy", "[{\"op\":\"add account\",\"name\":\"vision\"}]").ok()) << "fill";
  MUSTER_CHECK(s.AllocateJobIds(100).ok()) << "fill";  // ids up to about 122 handed out, 22 saved last
  return Read(s);
}

void ExpectSame(const Contents& want, const Contents& got) {
  EXPECT_EQ(got.jobs, want.jobs);
  EXPECT_EQ(got.nodes, want.nodes);
  EXPECT_EQ(got.steps, want.steps);
  EXPECT_EQ(got.meta, want.meta);
  ASSERT_EQ(got.jobs.size(), 9u);
  for (const JobRecord& j : got.jobs) {  // the array's tasks carry their script again
    if (j.array_job_id == 10) {
      EXPECT_EQ(j.script.str(), "#!/bin/sh\necho task $SLURM_ARRAY_TASK_ID\n");
    }
  }
}

TEST(MigrateStore, SqliteToSqliteCopiesEverythingAndTheNextId) {
  TempDir dir("muster_migrate_");
  const std::string from = dir.path() + "/old.db";
  Contents want;
  int64_t next_in_source = 0;
  {
    std::unique_ptr<Store> s = OpenSqliteStore(from).value();
    want = Fill(*s);
    next_in_source = s->AllocateJobIds(1).value() + 1;  // (MigrateStore takes one more)
  }
  StatusOr<MigrationCounts> n = MigrateStore("sqlite:" + from, "sqlite:" + dir.path() + "/new.db");
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(n->jobs, 9u);
  EXPECT_EQ(n->nodes, 2u);
  EXPECT_EQ(n->steps, 3u);
  EXPECT_EQ(n->meta, 2u);
  EXPECT_EQ(n->next_job_id, next_in_source);
  std::unique_ptr<Store> to = OpenSqliteStore(dir.path() + "/new.db").value();
  ExpectSame(want, Read(*to));
  EXPECT_EQ(to->AllocateJobIds(1).value(), next_in_source) << "ids go on where the source stopped";

  // A second migration into the same (now full) destination is refused, and changes nothing.
  StatusOr<MigrationCounts> again = MigrateStore(from, dir.path() + "/new.db");
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(again.status().message().find("the destination is not empty (9 jobs, 2 nodes, 3 steps, 2 meta keys)"),
            std::string::npos)
      << again.status().message();
  ExpectSame(want, Read(*to));
}

TEST(MigrateStore, AMissingSourceIsNotCreated) {
  TempDir dir("muster_migrate_");
  StatusOr<MigrationCounts> n = MigrateStore("sqlite:" + dir.path() + "/none.db", dir.path() + "/new.db");
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().code(), StatusCode::kNotFound);
  EXPECT_NE(n.status().message().find("none.db' does not exist"), std::string::npos) << n.status().message();
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/none.db"));
  EXPECT_EQ(MigrateStore("a.db", "a.db").status().code(), StatusCode::kInvalidArgument);
}

// SQLite -> PostgreSQL -> SQLite: both directions through the real server, each read back.
TEST(MigrateStore, SqliteToPostgresAndBack) {
  MUSTER_PG_TEST_SERVER_OR_SKIP();
  TempDir dir("muster_migrate_");
  // A database of this test's own on the test server (the store's default schema, "muster", in it).
  const std::string db = "t_migrate_" + std::to_string(getpid());
  PGconn* admin = PQconnectdb(PgTestUrl().c_str());
  ASSERT_EQ(PQstatus(admin), CONNECTION_OK) << PQerrorMessage(admin);
  PQclear(PQexec(admin, ("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)").c_str()));
  PGresult* created = PQexec(admin, ("CREATE DATABASE " + db).c_str());
  ASSERT_EQ(PQresultStatus(created), PGRES_COMMAND_OK) << PQresultErrorMessage(created);
  PQclear(created);
  const std::string base = PgTestUrl();
  const size_t slash = base.rfind('/');
  ASSERT_NE(slash, std::string::npos);
  const std::string url = base.substr(0, slash + 1) + db;

  Contents want;
  {
    std::unique_ptr<Store> s = OpenSqliteStore(dir.path() + "/old.db").value();
    want = Fill(*s);
  }
  StatusOr<MigrationCounts> n = MigrateStore("sqlite:" + dir.path() + "/old.db", url);
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(n->jobs, 9u);
  {
    std::unique_ptr<Store> pg = OpenStore(url).value();
    ExpectSame(want, Read(*pg));
    EXPECT_EQ(pg->AllocateJobIds(1).value(), n->next_job_id);
  }
  StatusOr<MigrationCounts> back = MigrateStore(url, "sqlite:" + dir.path() + "/back.db");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_GT(back->next_job_id, n->next_job_id);
  ExpectSame(want, Read(*OpenSqliteStore(dir.path() + "/back.db").value()));
  PQclear(PQexec(admin, ("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)").c_str()));
  PQfinish(admin);
}

}  // namespace
}  // namespace muster
