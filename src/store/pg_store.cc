#include "store/pg_store.h"

#include "store/pg_schema.h"
#include "store/pg_util.h"

#include <endian.h>
#include <libpq-fe.h>

#include <algorithm>
#include <atomic>
#include <boost/json.hpp>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

#include "base/mutex.h"
#include "base/pretty_json.h"
#include "model/name_order.h"
#include "model/record_json.h"
#include "store/record_codec.h"

namespace muster {
namespace {

using pg_internal::Args;
using pg_internal::Exec;
using pg_internal::ExecParams;
using pg_internal::IntArray;
using pg_internal::kAddHandover;
using pg_internal::kAddNonces;
using pg_internal::kCreateLeader;
using pg_internal::kCreateSchema;
using pg_internal::kSchemaVersion;
using pg_internal::PgError;
using pg_internal::QuoteIdent;
using pg_internal::Result;
using pg_internal::Succeeded;
using pg_internal::TextArray;

constexpr char kSchemaVersionKey[] = "schema_version";
constexpr char kNextJobIdCounter[] = "next_job_id";

// How often (seconds of the callers' clock) the nonces of expired tokens are deleted.
constexpr int64_t kNoncePurgeEvery = 60;

// The lease, for `holder` ($1, at address $2) for $3 ms: taken if free, lapsed or its own (a lease
// handed over is reserved for its successor until reserved_until, and is no longer the one's
// that handed it over); a new holder (or one whose lease lapsed) gets the next token. No row:
// another holds it.
constexpr const char* kTakeLease = R"sql(
UPDATE leader SET token = CASE WHEN holder = $1 AND expires_at > clock_timestamp() THEN token ELSE token + 1 END,
                  holder = $1, address = $2, successor = '',
                  expires_at = clock_timestamp() + make_interval(secs => $3::bigint / 1000.0)
WHERE id = 1 AND ((holder = $1 AND successor = '') OR (expires_at <= clock_timestamp() AND
                                  (successor IN ('', $2) OR reserved_until <= clock_timestamp())))
RETURNING token, holder, address, (EXTRACT(EPOCH FROM expires_at - clock_timestamp()) * 1000)::bigint
)sql";
constexpr const char* kReadLease =
    "SELECT token, holder, address, (EXTRACT(EPOCH FROM expires_at - clock_timestamp()) * 1000)::bigint "
    "FROM leader WHERE id = 1";

// The write statements, prepared on the write connection by name.
struct Prepared {
  const char* name;
  const char* sql;
};
constexpr Prepared kUpsertJob{
    "upsert_job",
    "INSERT INTO jobs(id, state, user_name, submit_time, end_time, record, uid, account, partition_name, "
    "array_job_id) VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT(id) DO UPDATE SET "
    "state=excluded.state, user_name=excluded.user_name, submit_time=excluded.submit_time, "
    "end_time=excluded.end_time, record=excluded.record, uid=excluded.uid, account=excluded.account, "
    "partition_name=excluded.partition_name, array_job_id=excluded.array_job_id"};
constexpr Prepared kInsertScript{"insert_script",
                                 "INSERT INTO scripts(array_job_id, script) VALUES($1, $2) ON CONFLICT DO NOTHING"};
constexpr Prepared kUpsertNode{
    "upsert_node", "INSERT INTO nodes(name, record) VALUES($1, $2) ON CONFLICT(name) DO UPDATE SET record=excluded.record"};
constexpr Prepared kUpsertStep{"upsert_step",
                               "INSERT INTO steps(job_id, step_id, record) VALUES($1, $2, $3) "
                               "ON CONFLICT(job_id, step_id) DO UPDATE SET record=excluded.record"};
constexpr Prepared kUpsertMeta{
    "upsert_meta", "INSERT INTO meta(key, value) VALUES($1, $2) ON CONFLICT(key) DO UPDATE SET value=excluded.value"};
constexpr Prepared kLockCounter{"lock_counter", "SELECT value FROM counters WHERE name=$1 FOR UPDATE"};
constexpr Prepared kMaxJobId{"max_job_id", "SELECT COALESCE(MAX(id), 0) FROM jobs"};
constexpr Prepared kSetCounter{"set_counter", "UPDATE counters SET value=$2 WHERE name=$1"};
constexpr Prepared kInsertNonce{"insert_nonce",
                                "INSERT INTO nonces(nonce, expires) VALUES($1, $2) ON CONFLICT(nonce) DO NOTHING"};
constexpr Prepared kPurgeNonces{"purge_nonces", "DELETE FROM nonces WHERE expires <= $1"};
constexpr Prepared kAllPrepared[] = {kUpsertJob, kInsertScript, kUpsertNode, kUpsertStep, kUpsertMeta,
                                     kLockCounter, kMaxJobId,    kSetCounter, kInsertNonce, kPurgeNonces};

StatusOr<Result> ExecPrepared(PGconn* conn, const Prepared& p, const Args& args, const std::string& what) {
  Result r(PQexecPrepared(conn, p.name, args.size(), args.values(), args.lengths(), args.formats(), 0));
  if (!Succeeded(r.get())) return PgError(conn, r.get(), what);
  return r;
}

using record_codec::DecodeRow;
using record_codec::Encode;
using record_codec::EncodedJob;
using record_codec::EncodeJobs;
using record_codec::ScriptKeptApart;

// The jobs of `r` (columns id, record), with their arrays' scripts from `scripts` (binary rows:
// array_job_id int8, script bytea).
StatusOr<std::vector<JobRecord>> DecodeJobs(const Result& r, const std::string& where) {
  std::vector<JobRecord> jobs;
  jobs.reserve(static_cast<size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) {
    const int64_t id = r.Int(i, 0);
    const std::string at = where + ": table jobs, id " + std::to_string(id);
    ASSIGN_OR_RETURN(JobRecord job, DecodeRow(r.Text(i, 1), &JobRecordFromJson, at));
    if (job.id != id) return Internal(at + ": record has id " + std::to_string(job.id));
    jobs.push_back(std::move(job));
  }
  return jobs;
}

StatusOr<std::vector<StepRecord>> DecodeSteps(const Result& r, const std::string& where) {
  std::vector<StepRecord> steps;
  for (int i = 0; i < r.rows(); ++i) {
    const int64_t job_id = r.Int(i, 0);
    const int64_t step_id = r.Int(i, 1);
    const std::string at = where + ": table steps, key " + std::to_string(job_id) + "." + std::to_string(step_id);
    ASSIGN_OR_RETURN(StepRecord step, DecodeRow(r.Text(i, 2), &StepRecordFromJson, at));
    if (step.job_id != job_id || step.step_id != step_id) return Internal(at + ": record has another key");
    steps.push_back(std::move(step));
  }
  return steps;
}

}  // namespace

struct PgStore::Impl final : GroupCommitBackend {
  std::string url;
  std::string schema;
  std::string where;       // "PostgreSQL store 'URL' (schema S)", for errors
  PGconn* wconn = nullptr;  // the current leader only, and Open
  Mutex read_mu{"PostgreSQL read"};
  PGconn* rconn GUARDED_BY(read_mu) = nullptr;
  // The lease's own connection (opened by the first TryLead), under a lock of its own: a renewal
  // never waits behind a batch of writes.
  Mutex lease_mu{"PostgreSQL lease"};
  PGconn* lconn GUARDED_BY(lease_mu) = nullptr;
  // The token of the lease this store's controller holds (0: not leading, no fencing). Each write
  // transaction first locks the lease row (FOR SHARE) and checks it: a new holder's takeover
  // (an UPDATE of that row) waits for the transactions already past the check, and every later
  // one sees the new token and is refused.
  std::atomic<int64_t> fence{0};
  int64_t next_nonce_purge = 0;  // (the batch's writer only)
  std::function<void()> between_reads GUARDED_BY(read_mu);  // SetBetweenReadsForTest

  GroupCommitWriter writer{*this, SavepointPolicy::kOnRetry};

  ~Impl() {
    PQfinish(lconn);
    PQfinish(rconn);
    PQfinish(wconn);
  }

  // A new connection with the session settings every statement relies on.
  StatusOr<PGconn*> Connect() {
    // connect_timeout before dbname: the URL's own value, if any, wins.
    // TCP keepalives: a server (or a link) that went silent fails the call within seconds, rather
    // than when the kernel gives up (a leader cut off from the database must find out before its
    // lease lapses). Unix sockets ignore them.
    const char* keywords[] = {"connect_timeout", "application_name", "client_encoding", "keepalives_idle",
                              "keepalives_interval", "keepalives_count", "tcp_user_timeout", "dbname", nullptr};
    const std::string app = "muster:" + schema;  // pg_stat_activity tells the stores apart
    const char* values[] = {"10", app.c_str(), "UTF8", "2", "1", "3", "5000", url.c_str(), nullptr};
    PGconn* conn = PQconnectdbParams(keywords, values, /*expand_dbname=*/1);
    if (conn == nullptr) return Status(StatusCode::kUnavailable, "cannot connect to " + where + ": out of memory");
    if (PQstatus(conn) != CONNECTION_OK) {
      std::string msg = PQerrorMessage(conn);
      while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
      PQfinish(conn);
      return Status(StatusCode::kUnavailable, "cannot connect to " + where + ": " + msg);
    }
    // The server's notices (DROP ... CASCADE lists what it drops) are not errors: libpq would print
    // them on the daemon's stderr.
    PQsetNoticeProcessor(conn, [](void*, const char*) {}, nullptr);
    Status st = SetUpSession(conn);
    if (!st.ok()) {
      PQfinish(conn);
      return st;
    }
    return conn;
  }

  Status SetUpSession(PGconn* conn) {
    // A transaction left open by a client that vanished (its host cut off) would hold the lease
    // row's lock and delay a takeover: the server ends such a session after 5 s idle.
    const std::string sql = "SET search_path TO " + QuoteIdent(schema) +
                            "; SET synchronous_commit TO on; SET idle_in_transaction_session_timeout TO 5000";
    return Exec(conn, sql.c_str(), where + ": session settings").status();
  }

  Status PrepareWrites() {
    for (const Prepared& p : kAllPrepared) {
      Result r(PQprepare(wconn, p.name, p.sql, 0, nullptr));
      if (!Succeeded(r.get())) return PgError(wconn, r.get(), where + ": prepare " + p.name);
    }
    return Status::Ok();
  }

  // A connection found broken is opened again (and the write one's statements prepared again).
  Status Revive(PGconn* conn, bool writes) {
    if (PQstatus(conn) == CONNECTION_OK) return Status::Ok();
    PQreset(conn);
    if (PQstatus(conn) != CONNECTION_OK) return PgError(conn, nullptr, "cannot reconnect to " + where);
    RETURN_IF_ERROR(SetUpSession(conn));
    return writes ? PrepareWrites() : Status::Ok();
  }

  // Creates the schema and its tables, or checks them, in one transaction under an advisory lock
  // (two controllers opening one fresh database create it once).
  Status InitSchema(int64_t first_job_id) {
    RETURN_IF_ERROR(Exec(wconn, "BEGIN", "open " + where).status());
    Status st = CreateOrCheckSchema(first_job_id);
    if (st.ok()) st = Exec(wconn, "COMMIT", "open " + where).status();
    if (!st.ok()) (void)Exec(wconn, "ROLLBACK", "rollback");
    return st;
  }

  Status CreateOrCheckSchema(int64_t first_job_id) {
    Args lock;
    lock.Text("muster-store:" + schema);
    const std::string open = "open " + where;
    RETURN_IF_ERROR(ExecParams(wconn, "SELECT pg_advisory_xact_lock(hashtext($1::text))", lock, open).status());
    Args name;
    name.Bytes(schema);
    ASSIGN_OR_RETURN(Result ns, ExecParams(wconn, "SELECT 1 FROM pg_namespace WHERE nspname=$1::text", name, open));
    if (ns.rows() == 0) {
      const std::string create = "CREATE SCHEMA " + QuoteIdent(schema);
      RETURN_IF_ERROR(Exec(wconn, create.c_str(), open + ": create schema").status());
    }
    ASSIGN_OR_RETURN(Result has_meta,
                     ExecParams(wconn,
                                "SELECT 1 FROM information_schema.tables WHERE table_schema=$1::text AND "
                                "table_name='meta'",
                                name, open));
    if (has_meta.rows() > 0) {
      Args key;
      key.Bytes(kSchemaVersionKey);
      ASSIGN_OR_RETURN(Result version, ExecParams(wconn, "SELECT value FROM meta WHERE key=$1::text", key, open));
      if (version.rows() == 0) return FailedPrecondition(where + " is not a Muster store (meta has no schema_version)");
      const std::string v(version.Text(0, 0));
      const int n = std::atoi(v.c_str());
      if (n < 1 || std::to_string(n) != v) return FailedPrecondition(where + ": invalid schema_version '" + v + "'");
      if (n > kSchemaVersion) {
        return FailedPrecondition(where + " has schema version " + v + ", newer than this Muster supports (" +
                                  std::to_string(kSchemaVersion) + ")");
      }
      // Older versions are brought up to this one (under the advisory lock, once).
      if (n == 1) RETURN_IF_ERROR(Exec(wconn, kCreateLeader, open + ": add the leader table").status());
      if (n <= 2) RETURN_IF_ERROR(Exec(wconn, kAddHandover, open + ": add the lease's handover").status());
      if (n <= 3) RETURN_IF_ERROR(Exec(wconn, kAddNonces, open + ": add the nonces").status());
      if (n == kSchemaVersion) return Status::Ok();
      const std::string set = "UPDATE meta SET value = '" + std::to_string(kSchemaVersion) + "' WHERE key = 'schema_version'";
      return Exec(wconn, set.c_str(), open).status();
    }
    ASSIGN_OR_RETURN(Result other, ExecParams(wconn,
                                              "SELECT table_name FROM information_schema.tables WHERE "
                                              "table_schema=$1::text LIMIT 1",
                                              name, open));
    if (other.rows() > 0) {
      return FailedPrecondition(where + " is not a Muster store (it has table '" + std::string(other.Text(0, 0)) +
                                "' but no meta)");
    }
    RETURN_IF_ERROR(Exec(wconn, kCreateSchema, open + ": create tables").status());
    RETURN_IF_ERROR(Exec(wconn, kCreateLeader, open + ": create the leader table").status());
    RETURN_IF_ERROR(Exec(wconn, kAddHandover, open + ": add the lease's handover").status());
    RETURN_IF_ERROR(Exec(wconn, kAddNonces, open + ": add the nonces").status());
    Args meta;
    meta.Bytes(kSchemaVersionKey).Int(kSchemaVersion);
    RETURN_IF_ERROR(ExecParams(wconn, "INSERT INTO meta(key, value) VALUES($1::text, $2::text)", meta, open).status());
    Args counter;
    counter.Bytes(kNextJobIdCounter).Int(first_job_id);
    return ExecParams(wconn, "INSERT INTO counters(name, value) VALUES($1::text, $2::bigint)", counter, open).status();
  }

  std::string Where() const override { return where; }

  // The batch's transaction (GroupCommitBackend), on the write connection: reconnected first if
  // it broke; once this store took the lease, fenced by its token.
  Status Begin() override {
    Status st = Revive(wconn, /*writes=*/true);
    if (st.ok()) st = Exec(wconn, "BEGIN", where + ": begin transaction").status();
    if (!st.ok()) return st;
    const int64_t token = fence.load();
    if (token <= 0) return Status::Ok();
    StatusOr<Result> lease =
        Exec(wconn, "SELECT token FROM leader WHERE id = 1 FOR SHARE", where + ": check the lease");
    if (!lease.ok()) return TransactionLost(where, lease.status());
    const int64_t now = lease->rows() == 1 ? lease->Int(0, 0) : 0;
    if (now == token) return Status::Ok();
    const std::string tokens = std::to_string(token) + ", the store's " + std::to_string(now);
    return FailedPrecondition(where + ": this controller no longer leads (its lease's token is " + tokens +
                              "): the write is refused");
  }
  Status Savepoint() override { return Exec(wconn, "SAVEPOINT op", where + ": savepoint").status(); }
  Status ReleaseSavepoint() override {
    return Exec(wconn, "RELEASE SAVEPOINT op", where + ": release savepoint").status();
  }
  Status RollbackToSavepoint() override {
    Status st = Exec(wconn, "ROLLBACK TO SAVEPOINT op", where + ": rollback to savepoint").status();
    return st.ok() ? ReleaseSavepoint() : st;
  }
  bool InTransaction() override {
    return PQstatus(wconn) == CONNECTION_OK && PQtransactionStatus(wconn) != PQTRANS_IDLE;
  }
  Status Rollback() override { return Exec(wconn, "ROLLBACK", where + ": rollback").status(); }
  Status Commit() override {
    // (COMMIT in a failed transaction "succeeds" as a ROLLBACK: check the state, then the tag.)
    if (PQtransactionStatus(wconn) != PQTRANS_INTRANS) {
      return TransactionLost(where, Internal("the transaction is not open before COMMIT"));
    }
    StatusOr<Result> done = Exec(wconn, "COMMIT", where + ": commit");
    // A COMMIT whose answer was lost may have committed: its callers are told it failed, and
    // retrying a save is an idempotent upsert.
    if (!done.ok()) return done.status();
    if (std::string_view(PQcmdStatus(done->get())) != "COMMIT") {
      return Status(StatusCode::kUnavailable, where + ": transaction rolled back at COMMIT");
    }
    return Status::Ok();
  }

  // Jobs (a WHERE clause, or "") and, in the same snapshot, their arrays' scripts. Holds read_mu.
  StatusOr<std::vector<JobRecord>> SelectJobs(const std::string& where_clause, const Args& args) REQUIRES(read_mu) {
    Impl& impl = *this;
    impl.read_mu.AssertHeld();  // (the analysis does not see that impl is *this)
    // Jobs and scripts in one snapshot (REPEATABLE READ): a task's script is saved with it.
    RETURN_IF_ERROR(impl.Revive(impl.rconn, /*writes=*/false));
    // The session's 5 s idle-in-transaction limit (SetUpSession: for the lease row's lock) does not
    // fit here: between the two selects the jobs are decoded, which for a large table (or a loaded
    // host: an ASan build on 2 busy cores took over 5 s for 4,500 jobs) outlasts it, and the server
    // closed the session under the read. A read-only snapshot holds no lock: 10 minutes.
    RETURN_IF_ERROR(Exec(impl.rconn,
                         "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET LOCAL idle_in_transaction_session_timeout TO 600000",
                         impl.where + ": begin read")
                        .status());
    auto body = [&]() -> StatusOr<std::vector<JobRecord>> {
      impl.read_mu.AssertHeld();  // run below, under it
      const std::string sql = "SELECT id, record FROM jobs " + where_clause + " ORDER BY id";
      ASSIGN_OR_RETURN(Result r, ExecParams(impl.rconn, sql, args, impl.where + ": " + sql));
      ASSIGN_OR_RETURN(std::vector<JobRecord> jobs, DecodeJobs(r, impl.where));
      if (impl.between_reads) impl.between_reads();
      std::set<int64_t> arrays;
      for (const JobRecord& j : jobs) {
        if (j.array_job_id != 0 && j.script.empty()) arrays.insert(j.array_job_id);
      }
      if (arrays.empty()) return jobs;
      Args a;
      a.Text(IntArray(arrays));
      const std::string select = "SELECT array_job_id, script FROM scripts WHERE array_job_id = ANY($1::bigint[])";
      ASSIGN_OR_RETURN(Result s, ExecParams(impl.rconn, select, a, impl.where + ": read scripts", /*binary=*/1));
      std::map<int64_t, SharedText> scripts;
      for (int i = 0; i < s.rows(); ++i) {
        uint64_t be = 0;
        if (PQgetlength(s.get(), i, 0) != 8) return Internal(impl.where + ": table scripts: array_job_id is not 8 bytes");
        std::memcpy(&be, PQgetvalue(s.get(), i, 0), 8);
        scripts[static_cast<int64_t>(be64toh(be))] = std::string(s.Text(i, 1));
      }
      for (JobRecord& j : jobs) {
        if (j.array_job_id == 0 || !j.script.empty()) continue;
        if (auto it = scripts.find(j.array_job_id); it != scripts.end()) j.script = it->second;
      }
      return jobs;
    };
    StatusOr<std::vector<JobRecord>> jobs = body();
    (void)Exec(impl.rconn, jobs.ok() ? "COMMIT" : "ROLLBACK", impl.where + ": end read");
    return jobs;
  }

  // Runs a read on the read connection (reconnecting it if it broke).
  // The lease's connection (lconn), opened on first use; under lease_mu.
  Status LeaseConnection() REQUIRES(lease_mu) {
    if (lconn == nullptr) {
      ASSIGN_OR_RETURN(lconn, Connect());
      // A takeover waits (FOR SHARE) for the old leader's open write transaction; never longer than
      // this, so that the next try comes soon.
      RETURN_IF_ERROR(Exec(lconn, "SET lock_timeout TO 2000", where + ": lease session").status());
    }
    return Revive(lconn, /*writes=*/false);
  }

  StatusOr<Result> Read(const std::string& sql, const Args& args, int result_format = 0) REQUIRES(read_mu) {
    RETURN_IF_ERROR(Revive(rconn, /*writes=*/false));
    return ExecParams(rconn, sql, args, where + ": " + sql, result_format);
  }
};

PgStore::PgStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

PgStore::~PgStore() { impl_->writer.Close(); }

StatusOr<std::unique_ptr<PgStore>> PgStore::Open(const std::string& url, int64_t first_job_id,
                                                 const std::string& schema) {
  if (url.empty()) return InvalidArgument("PostgreSQL store URL is empty");
  if (schema.empty() || schema.size() > 63) return InvalidArgument("PostgreSQL schema name must be 1 to 63 bytes");
  if (first_job_id < 1) return InvalidArgument("first job id must be at least 1, got " + std::to_string(first_job_id));
  auto impl = std::make_unique<Impl>();
  impl->url = url;
  impl->schema = schema;
  impl->where = "PostgreSQL store '" + RedactedPgUrl(url) + "'" + (schema == "muster" ? "" : " (schema " + schema + ")");
  ASSIGN_OR_RETURN(impl->wconn, impl->Connect());
  RETURN_IF_ERROR(impl->InitSchema(first_job_id));
  RETURN_IF_ERROR(impl->PrepareWrites());
  {
    MutexLock l(impl->read_mu);  // (no other thread has the store yet)
    ASSIGN_OR_RETURN(impl->rconn, impl->Connect());
  }
  return std::unique_ptr<PgStore>(new PgStore(std::move(impl)));
}

Status PgStore::DropSchema(const std::string& url, const std::string& schema) {
  Impl impl;
  impl.url = url;
  impl.schema = schema;
  impl.where = "PostgreSQL store '" + RedactedPgUrl(url) + "'";
  ASSIGN_OR_RETURN(impl.wconn, impl.Connect());
  const std::string sql = "DROP SCHEMA IF EXISTS " + QuoteIdent(schema) + " CASCADE";
  return Exec(impl.wconn, sql.c_str(), impl.where + ": drop schema " + schema).status();
}

Status PgStore::SaveJobs(std::span<const JobRecord> jobs) {
  ASSIGN_OR_RETURN(const std::vector<EncodedJob> rows, EncodeJobs(jobs));
  if (rows.empty()) return Status::Ok();
  Impl& s = *impl_;
  return s.writer.Submit([&rows, &s]() -> Status {
    int64_t script_of = 0;
    for (const EncodedJob& row : rows) {
      const JobRecord& job = *row.job;
      Args a;
      a.Int(job.id).Bytes(JobStateName(job.state)).Bytes(job.user).Int(job.submit_time).Int(job.end_time);
      a.Bytes(row.record).Int(job.uid).Bytes(job.account).Bytes(job.partition).Int(job.array_job_id);
      RETURN_IF_ERROR(ExecPrepared(s.wconn, kUpsertJob, a, s.where + ": save job " + row.key).status());
      if (job.array_job_id != 0 && job.array_job_id != script_of) {
        script_of = job.array_job_id;
        Args sa;
        sa.Int(job.array_job_id).Bytes(job.script.str());
        RETURN_IF_ERROR(ExecPrepared(s.wconn, kInsertScript, sa,
                                     s.where + ": save the script of job array " + std::to_string(job.array_job_id))
                            .status());
      }
    }
    return Status::Ok();
  });
}

Status PgStore::SaveNode(const NodeRecord& node) {
  const std::string& name = node.node.name;
  if (name.empty()) return InvalidArgument("node name is empty");
  ASSIGN_OR_RETURN(std::string record, Encode(node, "node '" + name + "'"));
  Impl& s = *impl_;
  return s.writer.Submit([&]() -> Status {
    Args a;
    a.Bytes(name).Bytes(record);
    return ExecPrepared(s.wconn, kUpsertNode, a, s.where + ": save node '" + name + "'").status();
  });
}

Status PgStore::SaveStep(const StepRecord& step) {
  std::string key = std::to_string(step.job_id) + "." + std::to_string(step.step_id);
  if (step.job_id < 1) return InvalidArgument("step " + key + ": job id must be positive");
  ASSIGN_OR_RETURN(std::string record, Encode(step, "step " + key));
  Impl& s = *impl_;
  return s.writer.Submit([&]() -> Status {
    Args a;
    a.Int(step.job_id).Int(step.step_id).Bytes(record);
    return ExecPrepared(s.wconn, kUpsertStep, a, s.where + ": save step " + key).status();
  });
}

StatusOr<int64_t> PgStore::AllocateJobIds(int count) {
  if (count < 1) return InvalidArgument("job id count must be at least 1, got " + std::to_string(count));
  int64_t first = 0;
  Impl& s = *impl_;
  Status st = s.writer.Submit([&]() -> Status {
    Args name;
    name.Bytes(kNextJobIdCounter);
    // The counter's row lock orders allocations by any process on this database.
    ASSIGN_OR_RETURN(Result c, ExecPrepared(s.wconn, kLockCounter, name, s.where + ": read counter 'next_job_id'"));
    if (c.rows() != 1) return Internal(s.where + ": counter 'next_job_id' is missing");
    int64_t next = c.Int(0, 0);
    ASSIGN_OR_RETURN(Result m, ExecPrepared(s.wconn, kMaxJobId, Args(), s.where + ": read the largest job id"));
    const int64_t max_id = m.Int(0, 0);
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    if (max_id == kMax) return OutOfRange(s.where + ": job ids exhausted");
    next = std::max(next, max_id + 1);
    if (next > kMax - count) return OutOfRange(s.where + ": job ids exhausted (next is " + std::to_string(next) + ")");
    Args set;
    set.Bytes(kNextJobIdCounter).Int(next + count);
    RETURN_IF_ERROR(ExecPrepared(s.wconn, kSetCounter, set, s.where + ": update counter 'next_job_id'").status());
    first = next;
    return Status::Ok();
  });
  if (!st.ok()) return st;
  return first;
}

StatusOr<int64_t> PgStore::RewindJobIds(int64_t floor) {
  if (floor < 1) return InvalidArgument("job id floor must be at least 1, got " + std::to_string(floor));
  int64_t next = 0;
  Impl& s = *impl_;
  Status st = s.writer.Submit([&]() -> Status {
    Args name;
    name.Bytes(kNextJobIdCounter);
    ASSIGN_OR_RETURN(Result c, ExecPrepared(s.wconn, kLockCounter, name, s.where + ": read counter 'next_job_id'"));
    if (c.rows() != 1) return Internal(s.where + ": counter 'next_job_id' is missing");
    ASSIGN_OR_RETURN(Result m, ExecPrepared(s.wconn, kMaxJobId, Args(), s.where + ": read the largest job id"));
    const int64_t max_id = m.Int(0, 0);
    if (max_id == std::numeric_limits<int64_t>::max()) return OutOfRange(s.where + ": job ids exhausted");
    next = std::max(floor, max_id + 1);
    Args set;
    set.Bytes(kNextJobIdCounter).Int(next);
    return ExecPrepared(s.wconn, kSetCounter, set, s.where + ": update counter 'next_job_id'").status();
  });
  if (!st.ok()) return st;
  return next;
}

StatusOr<bool> PgStore::UseNonce(const std::string& nonce, int64_t expires, int64_t now) {
  if (nonce.empty()) return InvalidArgument("nonce is empty");
  bool first = false;
  Impl& s = *impl_;
  Status st = s.writer.Submit([&]() -> Status {
    if (now >= s.next_nonce_purge) {
      Args purge;
      purge.Int(now);
      RETURN_IF_ERROR(
          ExecPrepared(s.wconn, kPurgeNonces, purge, s.where + ": delete the nonces of expired tokens").status());
      s.next_nonce_purge = now + kNoncePurgeEvery;
    }
    Args a;
    a.Bytes(nonce).Int(expires);
    ASSIGN_OR_RETURN(Result r, ExecPrepared(s.wconn, kInsertNonce, a, s.where + ": record a token's nonce"));
    first = std::string_view(PQcmdTuples(r.get())) == "1";  // (set again if the batch runs again)
    return Status::Ok();
  });
  if (!st.ok()) return st;
  return first;
}

Status PgStore::SetMeta(const std::string& key, const std::string& value) {
  if (key.empty()) return InvalidArgument("meta key is empty");
  if (key == kSchemaVersionKey) return InvalidArgument("meta key 'schema_version' is reserved");
  Impl& s = *impl_;
  return s.writer.Submit([&]() -> Status {
    Args a;
    a.Bytes(key).Bytes(value);
    return ExecPrepared(s.wconn, kUpsertMeta, a, s.where + ": set meta '" + key + "'").status();
  });
}

StatusOr<std::string> PgStore::GetMeta(const std::string& key) {
  MutexLock l(impl_->read_mu);
  Args a;
  a.Bytes(key);
  ASSIGN_OR_RETURN(Result r, impl_->Read("SELECT value FROM meta WHERE key=$1::text", a));
  if (r.rows() == 0) return NotFound("meta key '" + key + "' is not set");
  return std::string(r.Text(0, 0));
}

namespace {

Leadership LeadershipOf(const Result& r, bool leading) {
  Leadership l;
  l.leading = leading;
  l.token = r.Int(0, 0);
  l.holder = std::string(r.Text(0, 1));
  l.address = std::string(r.Text(0, 2));
  l.remaining_ms = r.Int(0, 3);
  return l;
}

}  // namespace

// On the lease's own connection, opened on first use: a renewal never queues behind writes.
StatusOr<Leadership> PgStore::TryLead(const std::string& holder, const std::string& address, int64_t lease_ms) {
  if (holder.empty()) return InvalidArgument("a lease holder's name is empty");
  if (lease_ms < 100) return InvalidArgument("a lease of " + std::to_string(lease_ms) + " ms is too short");
  Impl& s = *impl_;
  MutexLock l(s.lease_mu);
  RETURN_IF_ERROR(s.LeaseConnection());
  Args a;
  a.Bytes(holder).Bytes(address).Int(lease_ms);
  ASSIGN_OR_RETURN(Result taken, ExecParams(s.lconn, kTakeLease, a, s.where + ": take the lease"));
  if (taken.rows() == 1) {
    Leadership got = LeadershipOf(taken, /*leading=*/true);
    s.fence.store(got.token);
    return got;
  }
  ASSIGN_OR_RETURN(Result now, ExecParams(s.lconn, kReadLease, Args(), s.where + ": read the lease"));
  if (now.rows() != 1) return Internal(s.where + ": the leader table has no row");
  Leadership other = LeadershipOf(now, /*leading=*/false);
  // Still fencing by our old token, if we held one: a deposed leader's writes stay refused.
  return other;
}

StatusOr<Leadership> PgStore::ReadLeadership() {
  MutexLock l(impl_->read_mu);
  ASSIGN_OR_RETURN(Result r, impl_->Read(kReadLease, Args()));
  if (r.rows() != 1) return Internal(impl_->where + ": the leader table has no row");
  return LeadershipOf(r, /*leading=*/false);
}

Status PgStore::Resign(const std::string& holder) {
  Impl& s = *impl_;
  MutexLock l(s.lease_mu);
  if (s.lconn == nullptr) return Status::Ok();  // never led
  RETURN_IF_ERROR(s.Revive(s.lconn, /*writes=*/false));
  Args a;
  a.Bytes(holder);
  return ExecParams(s.lconn, "UPDATE leader SET expires_at = clock_timestamp() WHERE id = 1 AND holder = $1::text", a,
                    s.where + ": resign the lease")
      .status();
}

Status PgStore::HandOver(const std::string& holder, const std::string& successor, int64_t reserve_ms) {
  Impl& s = *impl_;
  MutexLock l(s.lease_mu);
  if (s.lconn == nullptr) return FailedPrecondition(s.where + ": this controller never held the lease");
  RETURN_IF_ERROR(s.Revive(s.lconn, /*writes=*/false));
  Args a;
  a.Bytes(holder).Bytes(successor).Int(reserve_ms);
  ASSIGN_OR_RETURN(Result r, ExecParams(s.lconn,
                                        "UPDATE leader SET expires_at = clock_timestamp(), successor = $2::text, "
                                        "reserved_until = clock_timestamp() + make_interval(secs => $3::bigint / 1000.0) "
                                        "WHERE id = 1 AND holder = $1::text AND expires_at > clock_timestamp() "
                                        "RETURNING token",
                                        a, s.where + ": hand the lease over"));
  if (r.rows() != 1) return FailedPrecondition(s.where + ": the lease is no longer " + holder + "'s to hand over");
  return Status::Ok();
}

// On the lease's connection (opened here by a standby that never tried the lease yet).
Status PgStore::ReportView(const std::string& address, int64_t agents) {
  Impl& s = *impl_;
  MutexLock l(s.lease_mu);
  RETURN_IF_ERROR(s.LeaseConnection());
  Args a;
  a.Bytes(address).Int(agents);
  return ExecParams(s.lconn,
                    "INSERT INTO controllers VALUES ($1::text, $2::bigint, clock_timestamp()) ON CONFLICT (address) "
                    "DO UPDATE SET agents = EXCLUDED.agents, reported_at = EXCLUDED.reported_at",
                    a, s.where + ": report this controller's view")
      .status();
}

StatusOr<std::vector<ControllerView>> PgStore::ReadViews(int64_t max_age_ms) {
  MutexLock l(impl_->read_mu);
  Args a;
  a.Int(max_age_ms);
  ASSIGN_OR_RETURN(Result r, impl_->Read("SELECT address, agents, "
                                         "(EXTRACT(EPOCH FROM clock_timestamp() - reported_at) * 1000)::bigint "
                                         "FROM controllers WHERE reported_at > clock_timestamp() - "
                                         "make_interval(secs => $1::bigint / 1000.0) ORDER BY address",
                                         a));
  std::vector<ControllerView> views;
  for (int i = 0; i < r.rows(); ++i) views.push_back({std::string(r.Text(i, 0)), r.Int(i, 1), r.Int(i, 2)});
  return views;
}

StatusOr<std::map<std::string, std::string>> PgStore::LoadMeta() {
  MutexLock l(impl_->read_mu);
  ASSIGN_OR_RETURN(Result r, impl_->Read("SELECT key, value FROM meta WHERE key <> 'schema_version'", Args()));
  std::map<std::string, std::string> meta;
  for (int i = 0; i < r.rows(); ++i) meta[std::string(r.Text(i, 0))] = std::string(r.Text(i, 1));
  return meta;
}

StatusOr<std::vector<JobRecord>> PgStore::LoadJobs() {
  MutexLock l(impl_->read_mu);
  return impl_->SelectJobs("", Args());
}

StatusOr<std::vector<JobRecord>> PgStore::LoadLiveJobs(int64_t ended_since) {
  if (ended_since <= 0) return LoadJobs();
  MutexLock l(impl_->read_mu);
  Args a;
  a.Int(ended_since);
  return impl_->SelectJobs(
                      "WHERE state IN ('PENDING', 'RUNNING', 'SUSPENDED', 'COMPLETING') OR end_time >= $1::bigint", a);
}

StatusOr<std::vector<JobRecord>> PgStore::QueryJobs(const JobFilter& given) {
  MutexLock l(impl_->read_mu);
  JobFilter f = given;
  if (!given.ids.empty()) {  // a heterogeneous job's id names its components too
    Args a;
    a.Text(IntArray(given.ids));
    ASSIGN_OR_RETURN(const std::vector<JobRecord> named, impl_->SelectJobs("WHERE id = ANY($1::bigint[])", a));
    for (const JobRecord& j : named) {
      if (j.het_job_id != j.id) continue;
      for (int k = 1; k < j.het_job_size; ++k) f.ids.insert(j.id + k);
    }
  }
  std::string where;
  Args args;
  auto clause = [&](const std::string& c) { where += (where.empty() ? "WHERE " : " AND ") + c; };
  auto param = [&] { return "$" + std::to_string(args.size()); };
  if (!f.ids.empty()) {
    args.Text(IntArray(f.ids));
    clause("(id = ANY(" + param() + "::bigint[]) OR array_job_id = ANY(" + param() + "::bigint[]))");
  } else {
    if (f.start > 0) {
      args.Int(f.start);
      clause("(end_time = 0 OR end_time >= " + param() + "::bigint)");
    }
    if (f.end > 0) {
      args.Int(f.end);
      clause("submit_time <= " + param() + "::bigint");
    }
  }
  if (!f.users.empty()) {
    std::set<int64_t> uids;
    for (const std::string& u : f.users) {
      if (!u.empty() && u.size() <= 10 && u.find_first_not_of("0123456789") == std::string::npos) uids.insert(std::stoll(u));
    }
    args.Text(TextArray(f.users));
    std::string by = "(user_name = ANY(" + param() + "::text[])";
    if (!uids.empty()) {
      args.Text(IntArray(uids));
      by += " OR uid = ANY(" + param() + "::bigint[])";
    }
    clause(by + ")");
  }
  if (!f.accounts.empty()) {
    args.Text(TextArray(f.accounts));
    clause("account = ANY(" + param() + "::text[])");
  }
  if (!f.partitions.empty()) {
    args.Text(TextArray(f.partitions));
    clause("partition_name = ANY(" + param() + "::text[])");
  }
  if (!f.states.empty()) {
    std::set<std::string> names;
    for (JobState s : f.states) names.insert(JobStateName(s));
    args.Text(TextArray(names));
    clause("state = ANY(" + param() + "::text[])");
  }
  return impl_->SelectJobs(where, args);
}

StatusOr<std::vector<NodeRecord>> PgStore::LoadNodes() {
  MutexLock l(impl_->read_mu);
  ASSIGN_OR_RETURN(Result r, impl_->Read("SELECT name, record FROM nodes", Args()));
  std::vector<NodeRecord> nodes;
  for (int i = 0; i < r.rows(); ++i) {
    const std::string name(r.Text(i, 0));
    const std::string at = impl_->where + ": table nodes, name '" + name + "'";
    ASSIGN_OR_RETURN(NodeRecord node, DecodeRow(r.Text(i, 1), &NodeRecordFromJson, at));
    if (node.node.name != name) return Internal(at + ": record has name '" + node.node.name + "'");
    nodes.push_back(std::move(node));
  }
  std::sort(nodes.begin(), nodes.end(),
            [](const NodeRecord& a, const NodeRecord& b) { return NaturalLess(a.node.name, b.node.name); });
  return nodes;
}

StatusOr<std::vector<StepRecord>> PgStore::LoadSteps() {
  MutexLock l(impl_->read_mu);
  ASSIGN_OR_RETURN(Result r, impl_->Read("SELECT job_id, step_id, record FROM steps ORDER BY job_id, step_id", Args()));
  return DecodeSteps(r, impl_->where);
}

StatusOr<std::vector<StepRecord>> PgStore::LoadStepsOf(const std::set<int64_t>& job_ids) {
  if (job_ids.empty()) return std::vector<StepRecord>{};
  MutexLock l(impl_->read_mu);
  Args a;
  a.Text(IntArray(job_ids));
  ASSIGN_OR_RETURN(Result r, impl_->Read("SELECT job_id, step_id, record FROM steps WHERE job_id = ANY($1::bigint[]) "
                                         "ORDER BY job_id, step_id",
                                         a));
  return DecodeSteps(r, impl_->where);
}

void PgStore::SetBetweenReadsForTest(std::function<void()> pause) {
  MutexLock l(impl_->read_mu);
  impl_->between_reads = std::move(pause);
}

PgStoreStats PgStore::stats() const { return impl_->writer.stats(); }

}  // namespace muster
