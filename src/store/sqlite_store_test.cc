// SqliteStore beyond the Store contract: opening bad files, damaged rows, the schema, and the
// group-commit writer (batching, one failing operation inside a batch, draining on close).
#include "store/sqlite_store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "base/check.h"
#include "base/test_util.h"

namespace muster {
namespace {

class SqliteStoreTest : public ::testing::Test {
 protected:
  std::unique_ptr<SqliteStore> Open(int64_t first_job_id = 1) {
    StatusOr<std::unique_ptr<SqliteStore>> s = SqliteStore::Open(path_, first_job_id);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(s).value() : nullptr;
  }

  // Runs SQL on a connection of its own, as another process would.
  void RawSql(const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
    EXPECT_EQ(rc, SQLITE_OK) << sql << ": " << (err != nullptr ? err : "");
    sqlite3_free(err);
    sqlite3_close(db);
  }

  TempDir tmp_{"muster_sqlite_"};
  const std::string dir_ = tmp_.path();
  const std::string path_ = dir_ + "/muster.db";
};

JobRecord Job(int64_t id) {
  JobRecord j;
  j.id = id;
  j.name = "job" + std::to_string(id);
  j.user = "bob";
  return j;
}

NodeRecord NodeNamed(const std::string& name) {
  NodeRecord n;
  n.node.name = name;
  return n;
}

void ExpectError(const Status& st, StatusCode code, const std::vector<std::string>& mentions) {
  EXPECT_EQ(st.code(), code) << st.ToString();
  for (const std::string& m : mentions) EXPECT_NE(st.message().find(m), std::string::npos) << st.ToString();
}

TEST_F(SqliteStoreTest, MissingDirectoryIsNotFound) {
  const std::string path = dir_ + "/no/such/dir/muster.db";
  StatusOr<std::unique_ptr<Store>> s = OpenSqliteStore(path);
  ASSERT_FALSE(s.ok());
  ExpectError(s.status(), StatusCode::kNotFound, {path, "No such file or directory"});
}

TEST_F(SqliteStoreTest, NonSqliteFileIsRefused) {
  std::ofstream(path_) << std::string(8192, 'x') << "\nnot a database\n";
  StatusOr<std::unique_ptr<Store>> s = OpenSqliteStore(path_);
  ASSERT_FALSE(s.ok());
  ExpectError(s.status(), StatusCode::kFailedPrecondition, {path_, "not a SQLite database"});
}

TEST_F(SqliteStoreTest, ForeignSqliteDatabaseIsRefused) {
  RawSql("CREATE TABLE photos(id INTEGER PRIMARY KEY, data BLOB)");
  StatusOr<std::unique_ptr<Store>> s = OpenSqliteStore(path_);
  ASSERT_FALSE(s.ok());
  ExpectError(s.status(), StatusCode::kFailedPrecondition, {path_, "not a Muster store", "photos"});
}

// A SQLite file is not shared between hosts: it holds no lease, and says what does.
TEST_F(SqliteStoreTest, HoldsNoLeaseForSeveralControllers) {
  StatusOr<std::unique_ptr<Store>> s = OpenSqliteStore(path_);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ExpectError((*s)->TryLead("a", "ctl1:6817", 5000).status(), StatusCode::kFailedPrecondition,
              {"controller.hosts needs a PostgreSQL store"});
  ExpectError((*s)->ReadLeadership().status(), StatusCode::kFailedPrecondition, {"PostgreSQL"});
}

TEST_F(SqliteStoreTest, NewerSchemaIsRefusedAndVersionIsReserved) {
  {
    auto store = Open();
    ASSERT_NE(store, nullptr);
    EXPECT_EQ(store->GetMeta("schema_version").value(), "3");
    ExpectError(store->SetMeta("schema_version", "2"), StatusCode::kInvalidArgument, {"schema_version"});
  }
  RawSql("UPDATE meta SET value='99' WHERE key='schema_version'");
  StatusOr<std::unique_ptr<Store>> s = OpenSqliteStore(path_);
  ASSERT_FALSE(s.ok());
  ExpectError(s.status(), StatusCode::kFailedPrecondition, {path_, "99", "newer"});
}

// Every user's scripts and environments are in the store: its files are readable by their owner
// alone, whatever the umask, and an older store left looser is tightened when opened.
TEST_F(SqliteStoreTest, FilesAreReadableByTheirOwnerAlone) {
  auto mode = [](const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 ? static_cast<int>(st.st_mode & 0777) : -1;
  };
  const mode_t old_umask = ::umask(0);
  {
    auto store = Open();
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->SaveJob(Job(1)).ok());
    EXPECT_EQ(mode(path_), 0600);
    EXPECT_EQ(mode(path_ + "-wal"), 0600);
    EXPECT_EQ(mode(path_ + "-shm"), 0600);
  }
  ASSERT_EQ(::chmod(path_.c_str(), 0644), 0);
  if (mode(path_ + "-wal") >= 0) ASSERT_EQ(::chmod((path_ + "-wal").c_str(), 0644), 0);
  {
    auto store = Open();
    ASSERT_NE(store, nullptr);
    EXPECT_EQ(mode(path_), 0600);
    if (mode(path_ + "-wal") >= 0) EXPECT_EQ(mode(path_ + "-wal"), 0600);
    EXPECT_EQ(store->LoadJobs().value().size(), 1u);
  }
  ::umask(old_umask);
}

// A 1,001-task array of a 100 KB script costs the file one script, not 1,001.
TEST_F(SqliteStoreTest, AnArraysScriptIsStoredOnce) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  std::vector<JobRecord> tasks(1001);
  const SharedText script = "#!/bin/sh\n" + std::string(100000, '#') + "\n";
  for (int t = 0; t < 1001; ++t) {
    tasks[t] = Job(10 + t);
    tasks[t].array_job_id = 10;
    tasks[t].array_task_id = t;
    tasks[t].script = script;
  }
  ASSERT_TRUE(store->SaveJobs(tasks).ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT sum(length(record)), (SELECT count(*) FROM scripts) FROM jobs", -1, &s, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_LT(sqlite3_column_int64(s, 0), 1001 * 2000) << "no task row holds the script";
  EXPECT_EQ(sqlite3_column_int64(s, 1), 1);
  sqlite3_finalize(s);
  sqlite3_close(db);
}

// A store written by the first schema (no uid/account/partition/array columns, no scripts table)
// is upgraded when opened, its rows queryable by the new columns.
TEST_F(SqliteStoreTest, UpgradesAVersion1Store) {
  RawSql(R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
CREATE TABLE counters(name TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL);
CREATE TABLE jobs(id INTEGER PRIMARY KEY, state TEXT NOT NULL, user TEXT NOT NULL,
                  submit_time INTEGER NOT NULL, end_time INTEGER NOT NULL, record TEXT NOT NULL);
CREATE TABLE nodes(name TEXT PRIMARY KEY NOT NULL, record TEXT NOT NULL);
CREATE TABLE steps(job_id INTEGER NOT NULL, step_id INTEGER NOT NULL, record TEXT NOT NULL, PRIMARY KEY(job_id, step_id));
INSERT INTO meta VALUES('schema_version', '1');
INSERT INTO counters VALUES('next_job_id', 8);
INSERT INTO jobs VALUES(7, 'COMPLETED', 'bob', 100, 200,
  '{"id": 7, "uid": 1001, "user": "bob", "account": "vision", "partition": "debug", "state": "COMPLETED", "script": "#!/bin/sh\n"}');
)sql");
  auto store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->GetMeta("schema_version").value(), "3");
  StatusOr<std::vector<JobRecord>> got = store->QueryJobs(JobFilter{.users = {"1001"}, .accounts = {"vision"}});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ((*got)[0].partition, "debug");
  EXPECT_EQ((*got)[0].script.str(), "#!/bin/sh\n");
  EXPECT_EQ(store->AllocateJobIds(1).value(), 8);
}

// A store of version 2 (no nonces) gains the nonces' table when opened, its data kept.
TEST_F(SqliteStoreTest, UpgradesAVersion2Store) {
  {
    auto store = Open();
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->SaveJob(Job(3)).ok());
  }
  RawSql("DROP TABLE nonces; UPDATE meta SET value='2' WHERE key='schema_version';");
  auto store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->GetMeta("schema_version").value(), "3");
  EXPECT_EQ(store->LoadJobs().value().size(), 1u);
  EXPECT_EQ(store->UseNonce("n1", 200, 100).value(), true);
  EXPECT_EQ(store->UseNonce("n1", 200, 100).value(), false);
}

TEST_F(SqliteStoreTest, UsesWalAndDefaultsSurviveRawInspection) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->SaveJob(Job(3)).ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &s, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)), "wal");
  sqlite3_finalize(s);
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT state, user FROM jobs WHERE id=3", -1, &s, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)), "PENDING");
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(s, 1)), "bob");
  sqlite3_finalize(s);
  sqlite3_close(db);
}

TEST_F(SqliteStoreTest, DamagedRowsAreErrorsNamingTableAndKey) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->SaveJobs({Job(1), Job(7)}).ok());
  ASSERT_TRUE(store->SaveNode(NodeNamed("gpu3")).ok());
  StepRecord step;
  step.job_id = 7;
  step.step_id = 2;
  ASSERT_TRUE(store->SaveStep(step).ok());

  RawSql("UPDATE jobs SET record='{not json' WHERE id=7");
  ExpectError(store->LoadJobs().status(), StatusCode::kInternal, {"jobs", "id 7", "not valid JSON"});
  RawSql("UPDATE jobs SET record='{\"id\": 7, \"uid\": \"root\"}' WHERE id=7");
  ExpectError(store->LoadJobs().status(), StatusCode::kInternal, {"jobs", "id 7", "uid"});
  RawSql("UPDATE jobs SET record='{\"id\": 8}' WHERE id=7");
  ExpectError(store->LoadJobs().status(), StatusCode::kInternal, {"jobs", "id 7", "record has id 8"});

  RawSql("UPDATE nodes SET record='{\"node\": {\"name\": \"gpu3\", \"state\": \"melted\"}}'");
  ExpectError(store->LoadNodes().status(), StatusCode::kInternal, {"nodes", "'gpu3'", "melted"});
  RawSql("UPDATE steps SET record='[1, 2]'");
  ExpectError(store->LoadSteps().status(), StatusCode::kInternal, {"steps", "7.2"});

  // The store keeps working, and a repaired row loads again.
  ASSERT_TRUE(store->SaveJob(Job(7)).ok());
  EXPECT_EQ(store->LoadJobs().value().size(), 2u);
}

TEST_F(SqliteStoreTest, InvalidRecordsAreRejectedBeforeWriting) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ExpectError(store->SaveJob(Job(0)), StatusCode::kInvalidArgument, {"job id"});
  JobRecord bad_bytes = Job(5);
  bad_bytes.environment = {"LANG=\xff\xfe"};
  ExpectError(store->SaveJobs({Job(4), bad_bytes}), StatusCode::kInvalidArgument, {"job 5", "UTF-8"});
  ExpectError(store->SaveNode(NodeNamed("")), StatusCode::kInvalidArgument, {"node name"});
  StepRecord orphan;
  ExpectError(store->SaveStep(orphan), StatusCode::kInvalidArgument, {"step 0.0"});
  EXPECT_TRUE(store->LoadJobs().value().empty()) << "a rejected SaveJobs wrote part of its jobs";
  EXPECT_EQ(store->stats().operations, 0);
}

TEST_F(SqliteStoreTest, FirstJobIdSeedsOnlyANewStore) {
  {
    auto store = Open(1000);
    ASSERT_NE(store, nullptr);
    EXPECT_EQ(store->AllocateJobIds(2).value(), 1000);
  }
  auto store = Open(5);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->AllocateJobIds(1).value(), 1002);
  EXPECT_EQ(SqliteStore::Open(path_, 0).status().code(), StatusCode::kInvalidArgument);
}

TEST_F(SqliteStoreTest, AllocationSkipsIdsSavedDirectly) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->SaveJob(Job(50)).ok());
  EXPECT_EQ(store->AllocateJobIds(1).value(), 51);
  EXPECT_EQ(store->AllocateJobIds(1).value(), 52);
}

TEST_F(SqliteStoreTest, ExhaustedIdsAreOutOfRange) {
  auto store = Open(std::numeric_limits<int64_t>::max() - 3);
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->AllocateJobIds(2).ok());
  ExpectError(store->AllocateJobIds(5).status(), StatusCode::kOutOfRange, {"exhausted"});
  EXPECT_TRUE(store->AllocateJobIds(1).ok());
}

// Operations queued while the writer is busy share one transaction.
TEST_F(SqliteStoreTest, QueuedOperationsCommitInOneTransaction) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  store->SetWriterPausedForTest(true);
  std::vector<Status> results(5);
  std::vector<std::thread> threads;
  threads.emplace_back([&] { results[0] = store->SaveJob(Job(1)); });
  threads.emplace_back([&] { results[1] = store->SaveJobs({Job(2), Job(3)}); });
  threads.emplace_back([&] { results[2] = store->SaveNode(NodeNamed("gpu1")); });
  threads.emplace_back([&] { results[3] = store->SetMeta("cluster_name", "alpha"); });
  threads.emplace_back([&] { results[4] = store->AllocateJobIds(4).status(); });
  store->WaitForQueuedForTest(5);
  EXPECT_EQ(store->stats().operations, 0);
  store->SetWriterPausedForTest(false);
  for (std::thread& t : threads) t.join();
  for (const Status& r : results) EXPECT_TRUE(r.ok()) << r.ToString();
  SqliteStoreStats stats = store->stats();
  EXPECT_EQ(stats.commits, 1);
  EXPECT_EQ(stats.operations, 5);
  EXPECT_EQ(stats.largest_batch, 5);
  EXPECT_EQ(store->LoadJobs().value().size(), 3u);
}

// A failing operation rolls back its own rows only; the others in its transaction commit.
TEST_F(SqliteStoreTest, FailingOperationDoesNotFailItsBatch) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  store->SetFaultHookForTest([](const std::string& table, const std::string& key) {
    if (table == "jobs" && key == "12") return Status(StatusCode::kUnavailable, "injected fault");
    return Status::Ok();
  });
  store->SetWriterPausedForTest(true);
  Status partial, other, meta;
  std::thread a([&] { partial = store->SaveJobs({Job(10), Job(11), Job(12)}); });
  store->WaitForQueuedForTest(1);  // queued first: its rows 10 and 11 are written before it fails
  std::thread b([&] { other = store->SaveJob(Job(20)); });
  std::thread c([&] { meta = store->SetMeta("k", "v"); });
  store->WaitForQueuedForTest(3);
  store->SetWriterPausedForTest(false);
  a.join();
  b.join();
  c.join();
  ExpectError(partial, StatusCode::kUnavailable, {"injected fault"});
  EXPECT_TRUE(other.ok()) << other.ToString();
  EXPECT_TRUE(meta.ok()) << meta.ToString();
  EXPECT_EQ(store->stats().commits, 1);
  std::vector<JobRecord> jobs = store->LoadJobs().value();
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].id, 20);
  EXPECT_EQ(store->GetMeta("k").value(), "v");

  store->SetFaultHookForTest(nullptr);
  EXPECT_TRUE(store->SaveJobs({Job(10), Job(11), Job(12)}).ok());
  EXPECT_EQ(store->LoadJobs().value().size(), 4u);
}

TEST_F(SqliteStoreTest, CloseAnswersQueuedOperations) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  store->SetWriterPausedForTest(true);
  Status saved(StatusCode::kInternal, "not answered");
  std::thread t([&] { saved = store->SaveJob(Job(9)); });
  store->WaitForQueuedForTest(1);
  store.reset();  // still paused: closing drains the queue anyway
  t.join();
  EXPECT_TRUE(saved.ok()) << saved.ToString();
  store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->LoadJobs().value(), std::vector<JobRecord>{Job(9)});
}

}  // namespace
}  // namespace muster
