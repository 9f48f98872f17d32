// The PostgreSQL store's own behaviour beyond the contract (store_contract_test.cc runs that):
// errors that name the server without its password, schemas it refuses, a connection that drops.
#include "store/pg_store.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "store/pg_test_util.h"

namespace muster {
namespace {

TEST(PgStoreUrl, RedactedFormHasNoPassword) {
  EXPECT_EQ(RedactedPgUrl("postgresql://muster:s3cret@127.0.0.1:5432/state"), "postgresql://muster@127.0.0.1:5432/state");
  EXPECT_EQ(RedactedPgUrl("postgres://bob:pw@db.example.org/muster?sslmode=require"),
            "postgresql://bob@db.example.org/muster");
  EXPECT_EQ(RedactedPgUrl("host=/run/postgresql dbname=muster user=ctld password=x"),
            "postgresql://ctld@/muster?host=/run/postgresql");
  EXPECT_EQ(RedactedPgUrl("postgresql://a:b@h:notaport/x?bogus=1"), "(a PostgreSQL URL that does not parse)");
  EXPECT_TRUE(IsPostgresUrl("postgresql://h/db"));
  EXPECT_TRUE(IsPostgresUrl("postgres://h/db"));
  EXPECT_FALSE(IsPostgresUrl("/var/lib/muster/state.db"));
  EXPECT_FALSE(IsPostgresUrl("sqlite:state.db"));
}

// Nothing listens on port 1 of the loopback: the error says so, names the URL, hides the password.
TEST(PgStoreOpen, UnreachableServerIsUnavailableAndNamed) {
  StatusOr<std::unique_ptr<PgStore>> s = PgStore::Open("postgresql://muster:s3cret@127.0.0.1:1/state");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kUnavailable) << s.status().ToString();
  const std::string& m = s.status().message();
  EXPECT_NE(m.find("cannot connect to PostgreSQL store 'postgresql://muster@127.0.0.1:1/state'"), std::string::npos) << m;
  EXPECT_NE(m.find("Connection refused"), std::string::npos) << m;
  EXPECT_EQ(m.find("s3cret"), std::string::npos) << m;
  EXPECT_EQ(PgStore::Open("").status().code(), StatusCode::kInvalidArgument);
}

// Runs SQL on the test server outside the store.
class PgSql {
 public:
  PgSql() : conn_(PQconnectdb(PgTestUrl().c_str())) {}
  ~PgSql() { PQfinish(conn_); }
  bool ok() const { return PQstatus(conn_) == CONNECTION_OK; }
  std::string Run(const std::string& sql) {
    PGresult* r = PQexec(conn_, sql.c_str());
    std::string out = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0 ? PQgetvalue(r, 0, 0) : "";
    const bool failed = PQresultStatus(r) != PGRES_TUPLES_OK && PQresultStatus(r) != PGRES_COMMAND_OK;
    if (failed) ADD_FAILURE() << sql << ": " << PQresultErrorMessage(r);
    PQclear(r);
    return out;
  }

 private:
  PGconn* conn_;
};

class PgStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MUSTER_PG_TEST_SERVER_OR_SKIP();
    // (short: "muster:" + the schema is the store's application_name, at most 63 bytes)
    schema_ = "t_pgstore_" + std::to_string(getpid()) + "_" +
              std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()).substr(0, 16);
    ASSERT_TRUE(sql_.ok());
    sql_.Run("DROP SCHEMA IF EXISTS \"" + schema_ + "\" CASCADE");
  }
  void TearDown() override {
    if (!PgTestUrl().empty()) (void)PgStore::DropSchema(PgTestUrl(), schema_);
  }
  std::string schema_;
  PgSql sql_;
};

TEST_F(PgStoreTest, ASchemaOfOtherTablesIsRefused) {
  sql_.Run("CREATE SCHEMA \"" + schema_ + "\"");
  sql_.Run("CREATE TABLE \"" + schema_ + "\".invoices(id int)");
  StatusOr<std::unique_ptr<PgStore>> s = PgStore::Open(PgTestUrl(), 1, schema_);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.status().message().find("is not a Muster store (it has table 'invoices' but no meta)"), std::string::npos)
      << s.status().message();
  EXPECT_EQ(s.status().message().find(PgTestUrl()), std::string::npos) << "the URL with its password";
}

TEST_F(PgStoreTest, ANewerSchemaIsRefused) {
  {
    StatusOr<std::unique_ptr<PgStore>> s = PgStore::Open(PgTestUrl(), 1, schema_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ((*s)->SetMeta("schema_version", "9").code(), StatusCode::kInvalidArgument);
  }
  sql_.Run("UPDATE \"" + schema_ + "\".meta SET value = '9' WHERE key = 'schema_version'");
  StatusOr<std::unique_ptr<PgStore>> s = PgStore::Open(PgTestUrl(), 1, schema_);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.status().message().find("has schema version 9, newer than this Muster supports (1)"), std::string::npos)
      << s.status().message();
}

// The server ends the store's sessions (a restart, a failover, an admin): the call that finds its
// connection gone fails with Unavailable, unacknowledged, and the store reconnects for the next.
TEST_F(PgStoreTest, ADroppedConnectionFailsOneCallThenReconnects) {
  StatusOr<std::unique_ptr<PgStore>> s = PgStore::Open(PgTestUrl(), 1, schema_);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  PgStore& store = **s;
  JobRecord a;
  a.id = 1;
  ASSERT_TRUE(store.SaveJob(a).ok());
  const std::string app = "muster:" + schema_;
  EXPECT_EQ(sql_.Run("SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                     "application_name = '" + app + "') t"),
            "2");
  // pg_terminate_backend signals; wait until both sessions are gone.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (sql_.Run("SELECT count(*) FROM pg_stat_activity WHERE application_name = '" + app + "'") != "0") {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the store's sessions did not end";
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  JobRecord b;
  b.id = 2;
  Status first = store.SaveJob(b);
  ASSERT_FALSE(first.ok()) << "a save on a dead connection was acknowledged";
  EXPECT_EQ(first.code(), StatusCode::kUnavailable) << first.ToString();
  EXPECT_NE(first.message().find("PostgreSQL store 'postgresql://muster@127.0.0.1:"), std::string::npos) << first.ToString();
  ASSERT_TRUE(store.SaveJob(b).ok());
  StatusOr<std::vector<JobRecord>> jobs = store.LoadJobs();
  if (!jobs.ok()) {  // the read connection finds out on its first use too
    EXPECT_EQ(jobs.status().code(), StatusCode::kUnavailable) << jobs.status().ToString();
    jobs = store.LoadJobs();
  }
  ASSERT_TRUE(jobs.ok()) << jobs.status().ToString();
  EXPECT_EQ(*jobs, (std::vector<JobRecord>{a, b}));
  EXPECT_EQ(store.stats().failed_batches, 1);
}

// An operation the server refuses (text with a NUL byte) fails alone: the others of its batch are
// committed (the batch runs again with savepoints), and the failure is the caller's error.
TEST_F(PgStoreTest, AFailingOperationFailsAloneInItsBatch) {
  StatusOr<std::unique_ptr<PgStore>> s = PgStore::Open(PgTestUrl(), 1, schema_);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  PgStore& store = **s;
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::atomic<int64_t> saved{0};
  std::vector<std::thread> savers;
  for (int t = 0; t < 6; ++t) {
    savers.emplace_back([&, t] {
      for (int64_t i = 1; !stop; ++i) {
        JobRecord j;
        j.id = t * 1000000 + i;
        if (store.SaveJob(j).ok()) {
          ++saved;
        } else {
          ++failures;
        }
      }
    });
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  int bad_calls = 0;
  while (store.stats().retried_batches == 0 && std::chrono::steady_clock::now() < deadline) {
    Status bad = store.SetMeta("k", std::string("a\0b", 3));
    ++bad_calls;
    EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument) << bad.ToString();
    if (bad_calls == 1) EXPECT_NE(bad.message().find("set meta 'k'"), std::string::npos) << bad.ToString();
  }
  stop = true;
  for (std::thread& t : savers) t.join();
  EXPECT_GT(store.stats().retried_batches, 0) << "no batch held the failing operation with others";
  EXPECT_EQ(failures.load(), 0);
  StatusOr<std::vector<JobRecord>> jobs = store.LoadJobs();
  ASSERT_TRUE(jobs.ok()) << jobs.status().ToString();
  EXPECT_EQ(static_cast<int64_t>(jobs->size()), saved.load());
  EXPECT_EQ(store.GetMeta("k").status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace muster
