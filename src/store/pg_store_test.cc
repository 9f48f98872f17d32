// The PostgreSQL store's own behaviour beyond the contract (store_contract_test.cc runs that):
// errors that name the server without its password, schemas it refuses, a connection that drops,
// and the controllers' lease with its fencing token.
#include "store/pg_store.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <sys/stat.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
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

TEST(PgStoreUrl, APasswordFileIsLibpqsPassfileParameter) {
  EXPECT_EQ(PgUrlWithPassfile("postgresql://u@h/db", ""), "postgresql://u@h/db");
  EXPECT_EQ(PgUrlWithPassfile("postgresql://u@h/db", "/etc/muster/pgpass"), "postgresql://u@h/db?passfile=/etc/muster/pgpass");
  EXPECT_EQ(PgUrlWithPassfile("postgres://u@h/db?sslmode=require", "/a b/p&q"),
            "postgres://u@h/db?sslmode=require&passfile=/a%20b/p%26q");
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
  EXPECT_NE(s.status().message().find("has schema version 9, newer than this Muster supports (4)"), std::string::npos)
      << s.status().message();
}

// A read whose jobs take long to decode (a large table, a loaded host) keeps its transaction open
// past the session's 5 s idle-in-transaction limit (for the lease's lock): the read still gets its
// scripts. (Seen in CI: an ASan build on two busy cores decoded 4,500 jobs in over 5 s, and the
// server closed the read's session under it.)
TEST_F(PgStoreTest, AReadOutlastsTheSessionsIdleLimit) {
  StatusOr<std::unique_ptr<PgStore>> s = PgStore::Open(PgTestUrl(), 1, schema_);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  PgStore& store = **s;
  std::vector<JobRecord> tasks(2);
  for (int t = 0; t < 2; ++t) {
    tasks[t].id = 10 + t;
    tasks[t].array_job_id = 10;
    tasks[t].array_task_id = t;
    tasks[t].script = "#!/bin/sh\necho $SLURM_ARRAY_TASK_ID\n";
  }
  ASSERT_TRUE(store.SaveJobs(tasks).ok());
  int pauses = 0;
  // (the pause stands for a decode this slow: the idle time is what is tested, not a wait for it)
  store.SetBetweenReadsForTest([&] {
    ++pauses;
    std::this_thread::sleep_for(std::chrono::milliseconds(5600));
  });
  StatusOr<std::vector<JobRecord>> back = store.LoadJobs();
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(pauses, 1);
  ASSERT_EQ(back->size(), 2u);
  for (const JobRecord& j : *back) EXPECT_EQ(j.script.str(), "#!/bin/sh\necho $SLURM_ARRAY_TASK_ID\n") << j.id;
  store.SetBetweenReadsForTest(nullptr);
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

// Waits (polling the server, never a fixed sleep) until the lease has lapsed by the server's clock.
void WaitForLapse(Store& store) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (true) {
    StatusOr<Leadership> l = store.ReadLeadership();
    ASSERT_TRUE(l.ok()) << l.status().ToString();
    if (l->remaining_ms <= 0) return;
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the lease never lapsed";
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min<int64_t>(l->remaining_ms + 1, 50)));
  }
}

// One holder at a time: the lease is renewed by its holder under the same token, refused to
// another while it runs, and goes to another (with the next token) once resigned or lapsed.
TEST_F(PgStoreTest, TheLeaseHasOneHolderAndANewTokenAtEachChange) {
  StatusOr<std::unique_ptr<PgStore>> a = PgStore::Open(PgTestUrl(), 1, schema_);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  StatusOr<std::unique_ptr<PgStore>> b = PgStore::Open(PgTestUrl(), 1, schema_);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  StatusOr<Leadership> none = (*b)->ReadLeadership();
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_EQ(none->token, 0);
  EXPECT_EQ(none->holder, "");
  EXPECT_LE(none->remaining_ms, 0);

  StatusOr<Leadership> first = (*a)->TryLead("ctld-a", "ctl1:6817", 60000);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(first->leading);
  EXPECT_EQ(first->token, 1);
  EXPECT_GT(first->remaining_ms, 55000);
  EXPECT_LE(first->remaining_ms, 60000);

  StatusOr<Leadership> refused = (*b)->TryLead("ctld-b", "ctl2:6817", 60000);
  ASSERT_TRUE(refused.ok()) << refused.status().ToString();
  EXPECT_FALSE(refused->leading);
  EXPECT_EQ(refused->holder, "ctld-a");
  EXPECT_EQ(refused->address, "ctl1:6817");
  EXPECT_EQ(refused->token, 1);
  EXPECT_GT(refused->remaining_ms, 0);

  StatusOr<Leadership> renewed = (*a)->TryLead("ctld-a", "ctl1:6817", 60000);
  ASSERT_TRUE(renewed.ok()) << renewed.status().ToString();
  EXPECT_TRUE(renewed->leading);
  EXPECT_EQ(renewed->token, 1) << "a renewal keeps the token";

  ASSERT_TRUE((*a)->Resign("ctld-a").ok());
  StatusOr<Leadership> taken = (*b)->TryLead("ctld-b", "ctl2:6817", 300);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  EXPECT_TRUE(taken->leading);
  EXPECT_EQ(taken->token, 2);
  EXPECT_EQ(taken->address, "ctl2:6817");

  WaitForLapse(**a);  // b stops renewing (a killed leader): its lease lapses, a may take it
  StatusOr<Leadership> back = (*a)->TryLead("ctld-a", "ctl1:6817", 60000);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(back->leading);
  EXPECT_EQ(back->token, 3);
  EXPECT_EQ((*a)->TryLead("", "x", 1000).status().code(), StatusCode::kInvalidArgument);
}

// Fencing: a leader whose lease was taken over (it stalled, or was cut off) has every later write
// refused, though its connections are alive; the new leader's writes go through.
TEST_F(PgStoreTest, ADeposedLeadersWritesAreRefused) {
  StatusOr<std::unique_ptr<PgStore>> old_leader = PgStore::Open(PgTestUrl(), 1, schema_);
  ASSERT_TRUE(old_leader.ok()) << old_leader.status().ToString();
  StatusOr<std::unique_ptr<PgStore>> standby = PgStore::Open(PgTestUrl(), 1, schema_);
  ASSERT_TRUE(standby.ok()) << standby.status().ToString();
  ASSERT_TRUE((*old_leader)->TryLead("old", "ctl1:6817", 300).ok());
  JobRecord before;
  before.id = 1;
  ASSERT_TRUE((*old_leader)->SaveJob(before).ok());
  WaitForLapse(**standby);
  StatusOr<Leadership> taken = (*standby)->TryLead("new", "ctl2:6817", 60000);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  ASSERT_TRUE(taken->leading);

  JobRecord late;
  late.id = 2;
  Status refused = (*old_leader)->SaveJob(late);
  EXPECT_EQ(refused.code(), StatusCode::kFailedPrecondition) << refused.ToString();
  EXPECT_NE(refused.message().find("this controller no longer leads (its lease's token is 1, the store's 2)"),
            std::string::npos)
      << refused.ToString();
  EXPECT_EQ((*old_leader)->SetMeta("k", "v").code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ((*old_leader)->AllocateJobIds(1).status().code(), StatusCode::kFailedPrecondition);
  // Its renewal is refused too: it learns that it was deposed.
  StatusOr<Leadership> again = (*old_leader)->TryLead("old", "ctl1:6817", 300);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_FALSE(again->leading);
  EXPECT_EQ(again->holder, "new");

  JobRecord mine;
  mine.id = 3;
  ASSERT_TRUE((*standby)->SaveJob(mine).ok());
  StatusOr<std::vector<JobRecord>> jobs = (*standby)->LoadJobs();
  ASSERT_TRUE(jobs.ok()) << jobs.status().ToString();
  EXPECT_EQ(*jobs, (std::vector<JobRecord>{before, mine}));
}

// Two controllers sharing the store: only the leader numbers jobs. The new leader numbers on just
// past the old one's last stored job (the old one's unused block is numbered again), and the old
// leader, deposed, can store no job with an id of its block: no id is given twice. Nor can it take
// a token's nonce.
TEST_F(PgStoreTest, ANewLeaderNumbersOnFromTheStoredJobsAndTheOldOneCannotStoreItsIds) {
  StatusOr<std::unique_ptr<PgStore>> old_leader = PgStore::Open(PgTestUrl(), 1, schema_);
  ASSERT_TRUE(old_leader.ok()) << old_leader.status().ToString();
  StatusOr<std::unique_ptr<PgStore>> standby = PgStore::Open(PgTestUrl(), 1, schema_);
  ASSERT_TRUE(standby.ok()) << standby.status().ToString();
  ASSERT_TRUE((*old_leader)->TryLead("old", "ctl1:6817", 300).ok());
  ASSERT_EQ((*old_leader)->RewindJobIds(1).value(), 1);
  const int64_t block = (*old_leader)->AllocateJobIds(1000).value();
  JobRecord stored;
  stored.id = block;
  ASSERT_TRUE((*old_leader)->SaveJob(stored).ok());
  ASSERT_TRUE((*old_leader)->UseNonce("n1", 4000000000, 1).value());
  WaitForLapse(**standby);
  ASSERT_TRUE((*standby)->TryLead("new", "ctl2:6817", 60000).value().leading);
  EXPECT_EQ((*standby)->RewindJobIds(1).value(), block + 1);
  JobRecord late;
  late.id = block + 1;  // the next id of the old leader's block
  EXPECT_EQ((*old_leader)->SaveJob(late).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ((*old_leader)->UseNonce("n2", 4000000000, 1).status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ((*standby)->AllocateJobIds(1).value(), block + 1);
  EXPECT_FALSE((*standby)->UseNonce("n1", 4000000000, 1).value()) << "the old leader's nonce stays used";
  EXPECT_TRUE((*standby)->UseNonce("n2", 4000000000, 1).value());
}

// A lease handed over is reserved for its successor for a while: another standby (or the leader
// that handed it over) cannot take it, the successor can, at the next token.
TEST_F(PgStoreTest, ALeaseHandedOverIsTheSuccessorsAlone) {
  StatusOr<std::unique_ptr<PgStore>> a = PgStore::Open(PgTestUrl(), 1, schema_);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  StatusOr<std::unique_ptr<PgStore>> b = PgStore::Open(PgTestUrl(), 1, schema_);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  StatusOr<std::unique_ptr<PgStore>> c = PgStore::Open(PgTestUrl(), 1, schema_);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ((*a)->HandOver("a", "ctl2:6817", 60000).code(), StatusCode::kFailedPrecondition) << "never led";
  ASSERT_TRUE((*a)->TryLead("a", "ctl1:6817", 60000).ok());
  EXPECT_EQ((*a)->HandOver("x", "ctl2:6817", 60000).code(), StatusCode::kFailedPrecondition) << "not x's lease";
  ASSERT_TRUE((*a)->HandOver("a", "ctl2:6817", 60000).ok());
  StatusOr<Leadership> lapsed = (*c)->ReadLeadership();
  ASSERT_TRUE(lapsed.ok()) << lapsed.status().ToString();
  EXPECT_LE(lapsed->remaining_ms, 0);
  StatusOr<Leadership> other = (*c)->TryLead("c", "ctl3:6817", 60000);
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  EXPECT_FALSE(other->leading) << "reserved for ctl2";
  StatusOr<Leadership> again = (*a)->TryLead("a", "ctl1:6817", 60000);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_FALSE(again->leading) << "the one that handed it over cannot take it back";
  StatusOr<Leadership> taken = (*b)->TryLead("b", "ctl2:6817", 300);
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  EXPECT_TRUE(taken->leading);
  EXPECT_EQ(taken->token, 2);
  // Taken: the reservation is spent; once b's lease lapses anyone may take it.
  WaitForLapse(**c);
  StatusOr<Leadership> third = (*c)->TryLead("c", "ctl3:6817", 60000);
  ASSERT_TRUE(third.ok()) << third.status().ToString();
  EXPECT_TRUE(third->leading);
  EXPECT_EQ(third->token, 3);
}

// A successor that never comes: the reservation runs out and anyone may take the lease.
TEST_F(PgStoreTest, AReservationForASuccessorThatNeverComesRunsOut) {
  StatusOr<std::unique_ptr<PgStore>> a = PgStore::Open(PgTestUrl(), 1, schema_);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE((*a)->TryLead("a", "ctl1:6817", 60000).ok());
  ASSERT_TRUE((*a)->HandOver("a", "ctl2:6817", 200).ok());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  StatusOr<Leadership> l = (*a)->TryLead("c", "ctl3:6817", 60000);
  while (l.ok() && !l->leading && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    l = (*a)->TryLead("c", "ctl3:6817", 60000);
  }
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  EXPECT_TRUE(l->leading);
}

// Each controller's view replaces its last; old views are left out.
TEST_F(PgStoreTest, ControllersViewsAreReadFreshOnly) {
  StatusOr<std::unique_ptr<PgStore>> s = PgStore::Open(PgTestUrl(), 1, schema_);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  StatusOr<std::vector<ControllerView>> none = (*s)->ReadViews(60000);
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_TRUE(none->empty());
  ASSERT_TRUE((*s)->ReportView("ctl2:6817", 1).ok());
  ASSERT_TRUE((*s)->ReportView("ctl3:6817", 4).ok());
  ASSERT_TRUE((*s)->ReportView("ctl2:6817", 2).ok());
  StatusOr<std::vector<ControllerView>> views = (*s)->ReadViews(60000);
  ASSERT_TRUE(views.ok()) << views.status().ToString();
  ASSERT_EQ(views->size(), 2u);
  EXPECT_EQ((*views)[0].address, "ctl2:6817");
  EXPECT_EQ((*views)[0].agents, 2);
  EXPECT_EQ((*views)[1].address, "ctl3:6817");
  EXPECT_EQ((*views)[1].agents, 4);
  EXPECT_GE((*views)[1].age_ms, 0);
  sql_.Run("UPDATE \"" + schema_ + "\".controllers SET reported_at = reported_at - interval '1 minute' "
           "WHERE address = 'ctl3:6817'");
  views = (*s)->ReadViews(30000);
  ASSERT_TRUE(views.ok()) << views.status().ToString();
  ASSERT_EQ(views->size(), 1u);
  EXPECT_EQ((*views)[0].address, "ctl2:6817");
}

// The URL without its password, and a password file (muster.yaml's controller.state_password_file,
// as `muster up --state` writes it): the store connects; without the file it cannot.
TEST_F(PgStoreTest, APasswordFileStandsInForTheUrlsPassword) {
  const std::string url = PgTestUrl();  // postgresql://muster:PASSWORD@127.0.0.1:PORT/muster_test
  const size_t colon = url.find(':', url.find("://") + 3), at = url.find('@');
  ASSERT_LT(colon, at) << url;
  const std::string bare = url.substr(0, colon) + url.substr(at);
  const std::string file = "/tmp/muster_pgpass_" + std::to_string(getpid());
  {
    std::FILE* f = std::fopen(file.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fprintf(f, "*:*:*:*:%s\n", url.substr(colon + 1, at - colon - 1).c_str());
    std::fclose(f);
  }
  ASSERT_EQ(chmod(file.c_str(), 0600), 0);
  if (std::getenv("PGPASSWORD") == nullptr && std::getenv("PGPASSFILE") == nullptr) {
    StatusOr<std::unique_ptr<PgStore>> refused = PgStore::Open(bare + "?passfile=/nonexistent", 1, schema_);
    EXPECT_FALSE(refused.ok()) << "the server asks for a password";
  }
  StatusOr<std::unique_ptr<PgStore>> s = PgStore::Open(PgUrlWithPassfile(bare, file), 1, schema_);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  std::remove(file.c_str());
}

// A store of schema version 2 (a lease without handover) gains the handover and the views.
TEST_F(PgStoreTest, AVersionTwoStoreGainsTheHandover) {
  {
    StatusOr<std::unique_ptr<PgStore>> s = PgStore::Open(PgTestUrl(), 1, schema_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    ASSERT_TRUE((*s)->TryLead("a", "ctl1:6817", 60000).ok());
  }
  sql_.Run("DROP TABLE \"" + schema_ + "\".controllers");
  sql_.Run("DROP TABLE \"" + schema_ + "\".nonces");
  sql_.Run("ALTER TABLE \"" + schema_ + "\".leader DROP COLUMN successor, DROP COLUMN reserved_until");
  sql_.Run("UPDATE \"" + schema_ + "\".meta SET value = '2' WHERE key = 'schema_version'");
  StatusOr<std::unique_ptr<PgStore>> s = PgStore::Open(PgTestUrl(), 1, schema_);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(sql_.Run("SELECT value FROM \"" + schema_ + "\".meta WHERE key = 'schema_version'"), "4");
  StatusOr<Leadership> kept = (*s)->ReadLeadership();
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_EQ(kept->holder, "a") << "the lease itself is kept";
  EXPECT_TRUE((*s)->ReportView("ctl2:6817", 1).ok());
}

// A store of schema version 3 (no nonces) gains them, its data kept.
TEST_F(PgStoreTest, AVersionThreeStoreGainsTheNonces) {
  {
    StatusOr<std::unique_ptr<PgStore>> s = PgStore::Open(PgTestUrl(), 1, schema_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    ASSERT_TRUE((*s)->SetMeta("cluster", "lab").ok());
  }
  sql_.Run("DROP TABLE \"" + schema_ + "\".nonces");
  sql_.Run("UPDATE \"" + schema_ + "\".meta SET value = '3' WHERE key = 'schema_version'");
  StatusOr<std::unique_ptr<PgStore>> s = PgStore::Open(PgTestUrl(), 1, schema_);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(sql_.Run("SELECT value FROM \"" + schema_ + "\".meta WHERE key = 'schema_version'"), "4");
  EXPECT_EQ(*(*s)->GetMeta("cluster"), "lab");
  EXPECT_EQ((*s)->UseNonce("n1", 200, 100).value(), true);
  EXPECT_EQ((*s)->UseNonce("n1", 200, 100).value(), false);
}

// A store of schema version 1 (before the lease) is upgraded when opened, its data kept.
TEST_F(PgStoreTest, AVersionOneStoreGainsTheLease) {
  {
    StatusOr<std::unique_ptr<PgStore>> s = PgStore::Open(PgTestUrl(), 1, schema_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    ASSERT_TRUE((*s)->SetMeta("cluster", "lab").ok());
  }
  sql_.Run("DROP TABLE \"" + schema_ + "\".leader");
  sql_.Run("DROP TABLE \"" + schema_ + "\".controllers");
  sql_.Run("DROP TABLE \"" + schema_ + "\".nonces");
  sql_.Run("UPDATE \"" + schema_ + "\".meta SET value = '1' WHERE key = 'schema_version'");
  StatusOr<std::unique_ptr<PgStore>> s = PgStore::Open(PgTestUrl(), 1, schema_);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(sql_.Run("SELECT value FROM \"" + schema_ + "\".meta WHERE key = 'schema_version'"), "4");
  EXPECT_EQ(*(*s)->GetMeta("cluster"), "lab");
  StatusOr<Leadership> l = (*s)->TryLead("a", "ctl1:6817", 1000);
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  EXPECT_TRUE(l->leading);
}

}  // namespace
}  // namespace muster
