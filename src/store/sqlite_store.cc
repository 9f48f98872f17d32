#include "store/sqlite_store.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <variant>
#include <boost/json.hpp>
#include <string_view>
#include <utility>

#include "base/mutex.h"
#include "model/name_order.h"
#include "base/pretty_json.h"
#include "model/record_json.h"
#include "store/record_codec.h"

namespace muster {
namespace {

// 2: the jobs' uid, account, partition and array id as columns (sacct's selection runs in SQL),
// and a job array's script stored once, in `scripts`. 3: the nonces of the tokens used (UseNonce).
constexpr int kSchemaVersion = 3;
constexpr char kSchemaVersionKey[] = "schema_version";
constexpr char kNextJobIdCounter[] = "next_job_id";
// A writer from another process (a second controller by mistake, the sqlite3 shell) holds the lock
// for at most this long before our operations fail with Unavailable.
constexpr int kBusyTimeoutMs = 10000;

constexpr const char* kCreateSchema = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
CREATE TABLE counters(name TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL);
CREATE TABLE jobs(id INTEGER PRIMARY KEY, state TEXT NOT NULL, user TEXT NOT NULL,
                  submit_time INTEGER NOT NULL, end_time INTEGER NOT NULL, record TEXT NOT NULL,
                  uid INTEGER NOT NULL DEFAULT 0, account TEXT NOT NULL DEFAULT '',
                  partition TEXT NOT NULL DEFAULT '', array_job_id INTEGER NOT NULL DEFAULT 0);
CREATE INDEX jobs_by_state ON jobs(state);
CREATE INDEX jobs_by_user ON jobs(user, submit_time);
CREATE INDEX jobs_by_end_time ON jobs(end_time);
CREATE INDEX jobs_by_uid ON jobs(uid, submit_time);
CREATE INDEX jobs_by_account ON jobs(account, submit_time);
CREATE INDEX jobs_by_array ON jobs(array_job_id) WHERE array_job_id != 0;
CREATE TABLE scripts(array_job_id INTEGER PRIMARY KEY, script TEXT NOT NULL);
CREATE TABLE nodes(name TEXT PRIMARY KEY NOT NULL, record TEXT NOT NULL);
CREATE TABLE steps(job_id INTEGER NOT NULL, step_id INTEGER NOT NULL, record TEXT NOT NULL,
                   PRIMARY KEY(job_id, step_id));
)sql";

// Schema 3: the nonces of the tokens that opened a connection, until their tokens expire.
constexpr const char* kCreateNonces = R"sql(
CREATE TABLE nonces(nonce TEXT PRIMARY KEY NOT NULL, expires INTEGER NOT NULL);
CREATE INDEX nonces_by_expiry ON nonces(expires);
)sql";
// How often (seconds of the callers' clock) the nonces of expired tokens are deleted.
constexpr int64_t kNoncePurgeEvery = 60;

// The store holds every user's scripts and environments: only its owner may read it. The file is
// made 0600 (or an older, looser one tightened) before SQLite opens it, and SQLite gives the -wal
// and -shm files it creates the database file's mode; ones left looser by an earlier version are
// tightened too. A path that cannot be opened is left for SQLite to name the error.
void MakeStoreFilesPrivate(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
  if (fd >= 0) {
    struct stat st;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 077) != 0) (void)::fchmod(fd, 0600);
    ::close(fd);
  }
  for (const char* suffix : {"-wal", "-shm", "-journal"}) {
    const std::string side = path + suffix;
    struct stat st;
    if (::lstat(side.c_str(), &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 077) != 0) {
      (void)::chmod(side.c_str(), 0600);
    }
  }
}

StatusCode CodeFor(int rc) {
  switch (rc & 0xff) {  // the primary code of an extended one
    case SQLITE_BUSY: case SQLITE_LOCKED: case SQLITE_IOERR: case SQLITE_FULL: case SQLITE_CANTOPEN:
    case SQLITE_READONLY: return StatusCode::kUnavailable;
    case SQLITE_NOTADB: return StatusCode::kFailedPrecondition;
    case SQLITE_PERM: case SQLITE_AUTH: return StatusCode::kPermissionDenied;
    default: return StatusCode::kInternal;
  }
}

Status SqlError(sqlite3* db, int rc, const std::string& what) {
  return Status(CodeFor(rc), what + ": " + (db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc)));
}

// Owns one prepared statement.
class Stmt {
 public:
  Stmt() = default;
  explicit Stmt(sqlite3_stmt* s) : s_(s) {}
  Stmt(Stmt&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  Stmt& operator=(Stmt&& o) noexcept {
    std::swap(s_, o.s_);
    return *this;
  }
  ~Stmt() { sqlite3_finalize(s_); }
  sqlite3_stmt* get() const { return s_; }

  // Binds a string that must outlive the next Run().
  void Bind(int i, std::string_view v) {
    sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
  }
  void Bind(int i, int64_t v) { sqlite3_bind_int64(s_, i, v); }

  // Steps to the end (statements here return no rows, or rows nobody reads), then resets.
  Status Run(sqlite3* db, const std::string& what) {
    int rc;
    while ((rc = sqlite3_step(s_)) == SQLITE_ROW) {
    }
    Status st = rc == SQLITE_DONE ? Status::Ok() : SqlError(db, rc, what);
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
    return st;
  }

  // The first column of the one row a query returns (0 when it is NULL), then resets.
  StatusOr<int64_t> QueryInt(sqlite3* db, const std::string& what) {
    int rc = sqlite3_step(s_);
    int64_t v = rc == SQLITE_ROW ? sqlite3_column_int64(s_, 0) : 0;
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
    if (rc == SQLITE_ROW) return v;
    if (rc == SQLITE_DONE) return Internal(what + ": no row");
    return SqlError(db, rc, what);
  }

 private:
  sqlite3_stmt* s_ = nullptr;
};

StatusOr<Stmt> Prepare(sqlite3* db, const char* sql) {
  sqlite3_stmt* s = nullptr;
  int rc = sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s, nullptr);
  if (rc != SQLITE_OK) return SqlError(db, rc, std::string("prepare '") + sql + "'");
  return Stmt(s);
}

Status Exec(sqlite3* db, const char* sql) {
  int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
  return rc == SQLITE_OK ? Status::Ok() : SqlError(db, rc, sql);
}

// First column of the first row as text; nullopt when there is no row.
StatusOr<std::optional<std::string>> QueryText(sqlite3* db, const char* sql, std::string_view arg = {}) {
  ASSIGN_OR_RETURN(Stmt s, Prepare(db, sql));
  if (!arg.empty()) s.Bind(1, arg);
  int rc = sqlite3_step(s.get());
  if (rc == SQLITE_DONE) return std::optional<std::string>();
  if (rc != SQLITE_ROW) return SqlError(db, rc, sql);
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(s.get(), 0));
  return std::optional<std::string>(text != nullptr ? text : "");
}

std::string_view ColumnText(sqlite3_stmt* s, int i) {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s, i));
  return p == nullptr ? std::string_view() : std::string_view(p, sqlite3_column_bytes(s, i));
}

using record_codec::DecodeRow;
using record_codec::Encode;
using record_codec::EncodedJob;
using record_codec::EncodeJobs;
using record_codec::ScriptKeptApart;

}  // namespace

struct SqliteStore::Impl final : GroupCommitBackend {
  std::string path;
  sqlite3* wdb = nullptr;  // the current leader only (one at a time: the writer's), and Open
  Mutex read_mu{"SQLite read"};
  sqlite3* rdb GUARDED_BY(read_mu) = nullptr;

  // Write statements (the current leader only).
  Stmt begin, commit, rollback, savepoint, release, rollback_to;
  Stmt upsert_job, insert_script, upsert_node, upsert_step, upsert_meta, get_counter, set_counter, max_job_id;
  Stmt insert_nonce, purge_nonces;
  int64_t next_nonce_purge = 0;  // (the current leader only)
  FaultHook active_hook;  // the hook of the batch being written (the current leader only)
  Mutex hook_mu{"SQLite fault hook"};
  FaultHook fault_hook GUARDED_BY(hook_mu);
  GroupCommitWriter writer{*this, SavepointPolicy::kEveryOperation};

  // close_v2: wdb closes for good once the statements above are finalized, right after this body.
  ~Impl() {
    sqlite3_close_v2(rdb);
    sqlite3_close_v2(wdb);
  }

  std::string Where() const override { return "SQLite store '" + path + "'"; }

  // The batch's transaction (GroupCommitBackend), on the write connection.
  Status Begin() override {
    {
      MutexLock l(hook_mu);
      active_hook = fault_hook;
    }
    return begin.Run(wdb, "begin transaction").WithPrefix(Where());
  }
  Status Savepoint() override { return savepoint.Run(wdb, "savepoint"); }
  Status ReleaseSavepoint() override { return release.Run(wdb, "release savepoint"); }
  Status RollbackToSavepoint() override {
    Status st = rollback_to.Run(wdb, "rollback to savepoint");
    return st.ok() ? release.Run(wdb, "release savepoint") : st;
  }
  // SQLite rolls a transaction back by itself after some errors (an I/O error, a full disk).
  bool InTransaction() override { return !sqlite3_get_autocommit(wdb); }
  Status Rollback() override { return rollback.Run(wdb, "rollback"); }
  Status Commit() override { return commit.Run(wdb, "commit").WithPrefix(Where()); }

  Status OpenConnection(sqlite3** db, bool create) {
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
    int rc = sqlite3_open_v2(path.c_str(), db, flags, nullptr);
    if (rc != SQLITE_OK) {
      int sys = *db != nullptr ? sqlite3_system_errno(*db) : 0;
      std::string msg = "cannot open " + Where() + ": " + (*db != nullptr ? sqlite3_errmsg(*db) : sqlite3_errstr(rc));
      if (sys != 0) msg += std::string(" (") + std::strerror(sys) + ")";
      StatusCode code = sys == ENOENT   ? StatusCode::kNotFound
                        : sys == EACCES ? StatusCode::kPermissionDenied
                        : sys == EISDIR ? StatusCode::kFailedPrecondition
                                        : CodeFor(rc);
      sqlite3_close_v2(*db);
      *db = nullptr;
      return Status(code, msg);
    }
    sqlite3_extended_result_codes(*db, 1);
    sqlite3_busy_timeout(*db, kBusyTimeoutMs);
    return Status::Ok();
  }

  // Switches to WAL (the first read of the file: a non-SQLite file fails here) and creates or
  // checks the schema in one transaction, so a crash while creating leaves nothing half made.
  Status InitSchema(int64_t first_job_id) {
    StatusOr<std::optional<std::string>> mode = QueryText(wdb, "PRAGMA journal_mode=WAL");
    if (!mode.ok()) {
      if (mode.status().code() == StatusCode::kFailedPrecondition) {
        return FailedPrecondition(Where() + " is not a SQLite database (" + sqlite3_errmsg(wdb) + ")");
      }
      return mode.status().WithPrefix("open " + Where());
    }
    if (!mode->has_value() || **mode != "wal") {
      return FailedPrecondition(Where() + ": cannot use WAL journaling (journal mode is '" + mode->value_or("") + "')");
    }
    RETURN_IF_ERROR(Exec(wdb, "PRAGMA synchronous=FULL"));
    RETURN_IF_ERROR(Exec(wdb, "BEGIN IMMEDIATE").WithPrefix("open " + Where()));
    Status st = CreateOrCheckSchema(first_job_id);
    if (st.ok()) st = Exec(wdb, "COMMIT").WithPrefix("open " + Where());
    if (!st.ok() && !sqlite3_get_autocommit(wdb)) (void)Exec(wdb, "ROLLBACK");
    return st;
  }

  Status CreateOrCheckSchema(int64_t first_job_id) {
    ASSIGN_OR_RETURN(std::optional<std::string> has_meta,
                     QueryText(wdb, "SELECT name FROM sqlite_master WHERE type='table' AND name='meta'"));
    if (has_meta) {
      ASSIGN_OR_RETURN(std::optional<std::string> version,
                       QueryText(wdb, "SELECT value FROM meta WHERE key=?1", kSchemaVersionKey));
      if (!version) return FailedPrecondition(Where() + " is not a Muster store (meta has no schema_version)");
      int v = std::atoi(version->c_str());
      if (v < 1 || std::to_string(v) != *version) {
        return FailedPrecondition(Where() + ": invalid schema_version '" + *version + "'");
      }
      if (v > kSchemaVersion) {
        return FailedPrecondition(Where() + " has schema version " + *version + ", newer than this Muster supports (" +
                                  std::to_string(kSchemaVersion) + ")");
      }
      if (v == 1) RETURN_IF_ERROR(MigrateFrom1().WithPrefix(Where() + ": upgrading the schema from version 1"));
      if (v <= 2) RETURN_IF_ERROR(MigrateFrom2().WithPrefix(Where() + ": upgrading the schema from version 2"));
      return Status::Ok();
    }
    ASSIGN_OR_RETURN(std::optional<std::string> other,
                     QueryText(wdb, "SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"));
    if (other) {
      return FailedPrecondition(Where() + " is not a Muster store (it has table '" + *other + "' but no meta)");
    }
    RETURN_IF_ERROR(Exec(wdb, kCreateSchema));
    RETURN_IF_ERROR(Exec(wdb, kCreateNonces));
    ASSIGN_OR_RETURN(Stmt meta, Prepare(wdb, "INSERT INTO meta(key, value) VALUES(?1, ?2)"));
    std::string version = std::to_string(kSchemaVersion);
    meta.Bind(1, kSchemaVersionKey);
    meta.Bind(2, version);
    RETURN_IF_ERROR(meta.Run(wdb, "write schema_version"));
    ASSIGN_OR_RETURN(Stmt counter, Prepare(wdb, "INSERT INTO counters(name, value) VALUES(?1, ?2)"));
    counter.Bind(1, kNextJobIdCounter);
    counter.Bind(2, first_job_id);
    return counter.Run(wdb, "seed job id counter");
  }

  // Version 1 had the jobs' query columns state, user and the times only; the new ones are filled
  // from the records (SQLite's JSON functions), in the transaction that opens the store.
  Status MigrateFrom1() {
    RETURN_IF_ERROR(Exec(wdb, R"sql(
ALTER TABLE jobs ADD COLUMN uid INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN account TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN partition TEXT NOT NULL DEFAULT '';
ALTER TABLE jobs ADD COLUMN array_job_id INTEGER NOT NULL DEFAULT 0;
UPDATE jobs SET uid = coalesce(json_extract(record, '$.uid'), 0),
                account = coalesce(json_extract(record, '$.account'), ''),
                partition = coalesce(json_extract(record, '$.partition'), ''),
                array_job_id = coalesce(json_extract(record, '$.array_job_id'), 0);
CREATE INDEX jobs_by_uid ON jobs(uid, submit_time);
CREATE INDEX jobs_by_account ON jobs(account, submit_time);
CREATE INDEX jobs_by_array ON jobs(array_job_id) WHERE array_job_id != 0;
CREATE TABLE scripts(array_job_id INTEGER PRIMARY KEY, script TEXT NOT NULL);
UPDATE meta SET value = '2' WHERE key = 'schema_version';
)sql"));
    return Status::Ok();
  }

  // Version 2 had no nonces.
  Status MigrateFrom2() {
    RETURN_IF_ERROR(Exec(wdb, kCreateNonces));
    return Exec(wdb, "UPDATE meta SET value = '3' WHERE key = 'schema_version'");
  }

  Status PrepareWriteStatements() {
    struct { Stmt* stmt; const char* sql; } all[] = {  // NOLINT: a table, not a type
        {&begin, "BEGIN IMMEDIATE"},
        {&commit, "COMMIT"},
        {&rollback, "ROLLBACK"},
        {&savepoint, "SAVEPOINT op"},
        {&release, "RELEASE op"},
        {&rollback_to, "ROLLBACK TO op"},
        {&upsert_job,
         "INSERT INTO jobs(id, state, user, submit_time, end_time, record, uid, account, partition, array_job_id) "
         "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) "
         "ON CONFLICT(id) DO UPDATE SET state=excluded.state, user=excluded.user, submit_time=excluded.submit_time, "
         "end_time=excluded.end_time, record=excluded.record, uid=excluded.uid, account=excluded.account, "
         "partition=excluded.partition, array_job_id=excluded.array_job_id"},
        {&insert_script, "INSERT INTO scripts(array_job_id, script) VALUES(?1, ?2) ON CONFLICT DO NOTHING"},
        {&upsert_node,
         "INSERT INTO nodes(name, record) VALUES(?1, ?2) ON CONFLICT(name) DO UPDATE SET record=excluded.record"},
        {&upsert_step,
         "INSERT INTO steps(job_id, step_id, record) VALUES(?1, ?2, ?3) "
         "ON CONFLICT(job_id, step_id) DO UPDATE SET record=excluded.record"},
        {&upsert_meta,
         "INSERT INTO meta(key, value) VALUES(?1, ?2) ON CONFLICT(key) DO UPDATE SET value=excluded.value"},
        {&get_counter, "SELECT value FROM counters WHERE name=?1"},
        {&set_counter, "UPDATE counters SET value=?2 WHERE name=?1"},
        {&max_job_id, "SELECT MAX(id) FROM jobs"},
        {&insert_nonce, "INSERT INTO nonces(nonce, expires) VALUES(?1, ?2) ON CONFLICT(nonce) DO NOTHING"},
        {&purge_nonces, "DELETE FROM nonces WHERE expires <= ?1"},
    };
    for (auto& [stmt, sql] : all) {
      ASSIGN_OR_RETURN(*stmt, Prepare(wdb, sql));
    }
    return Status::Ok();
  }

  Status Fault(const char* table, const std::string& key) {
    return active_hook ? active_hook(table, key) : Status::Ok();
  }

  // Runs `sql` on the read connection and calls `row` for each result row.
  Status ReadRows(const char* sql, const std::function<Status(sqlite3_stmt*)>& row) { return ReadRows(sql, {}, row); }
  Status ReadRows(const char* sql, const std::vector<SqlArg>& args, const std::function<Status(sqlite3_stmt*)>& row) {
    MutexLock l(read_mu);
    ASSIGN_OR_RETURN(Stmt s, Prepare(rdb, sql));
    for (size_t i = 0; i < args.size(); ++i) {
      const int at = static_cast<int>(i + 1);
      if (const int64_t* n = std::get_if<int64_t>(&args[i].value)) {
        s.Bind(at, *n);
      } else {
        s.Bind(at, std::get<std::string>(args[i].value));
      }
    }
    int rc;
    while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) {
      RETURN_IF_ERROR(row(s.get()));
    }
    if (rc != SQLITE_DONE) return SqlError(rdb, rc, Where() + ": " + sql);
    return Status::Ok();
  }
};

SqliteStore::SqliteStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

SqliteStore::~SqliteStore() { impl_->writer.Close(); }

StatusOr<std::unique_ptr<SqliteStore>> SqliteStore::Open(const std::string& path, int64_t first_job_id) {
  if (path.empty()) return InvalidArgument("SQLite store path is empty");
  if (first_job_id < 1) return InvalidArgument("first job id must be at least 1, got " + std::to_string(first_job_id));
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  MakeStoreFilesPrivate(path);
  RETURN_IF_ERROR(impl->OpenConnection(&impl->wdb, /*create=*/true));
  RETURN_IF_ERROR(impl->InitSchema(first_job_id));
  RETURN_IF_ERROR(impl->PrepareWriteStatements().WithPrefix("open " + impl->Where()));
  {
    MutexLock l(impl->read_mu);  // (no other thread has the store yet)
    RETURN_IF_ERROR(impl->OpenConnection(&impl->rdb, /*create=*/false));
    RETURN_IF_ERROR(Exec(impl->rdb, "PRAGMA query_only=1").WithPrefix("open " + impl->Where()));
  }
  return std::unique_ptr<SqliteStore>(new SqliteStore(std::move(impl)));
}

StatusOr<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path, int64_t first_job_id) {
  StatusOr<std::unique_ptr<SqliteStore>> s = SqliteStore::Open(path, first_job_id);
  if (!s.ok()) return s.status();
  return std::unique_ptr<Store>(std::move(s).value());
}

Status SqliteStore::SaveJobs(std::span<const JobRecord> jobs) {
  ASSIGN_OR_RETURN(const std::vector<EncodedJob> rows, EncodeJobs(jobs));
  if (rows.empty()) return Status::Ok();
  Impl& s = *impl_;
  return s.writer.Submit([&rows, &s]() -> Status {
    int64_t script_of = 0;  // the array whose script this operation stored last
    for (const EncodedJob& row : rows) {
      RETURN_IF_ERROR(s.Fault("jobs", row.key));
      const JobRecord& job = *row.job;
      Stmt& st = s.upsert_job;
      st.Bind(1, job.id);
      st.Bind(2, std::string_view(JobStateName(job.state)));
      st.Bind(3, job.user);
      st.Bind(4, job.submit_time);
      st.Bind(5, job.end_time);
      st.Bind(6, row.record);
      st.Bind(7, static_cast<int64_t>(job.uid));
      st.Bind(8, job.account);
      st.Bind(9, job.partition);
      st.Bind(10, job.array_job_id);
      RETURN_IF_ERROR(st.Run(s.wdb, s.Where() + ": save job " + row.key));
      if (job.array_job_id != 0 && job.array_job_id != script_of) {
        script_of = job.array_job_id;
        s.insert_script.Bind(1, job.array_job_id);
        s.insert_script.Bind(2, job.script.str());
        RETURN_IF_ERROR(s.insert_script.Run(s.wdb, s.Where() + ": save the script of job array " +
                                                         std::to_string(job.array_job_id)));
      }
    }
    return Status::Ok();
  });
}

Status SqliteStore::SaveNode(const NodeRecord& node) {
  const std::string& name = node.node.name;
  if (name.empty()) return InvalidArgument("node name is empty");
  ASSIGN_OR_RETURN(std::string record, Encode(node, "node '" + name + "'"));
  Impl& s = *impl_;
  return s.writer.Submit([&]() -> Status {
    RETURN_IF_ERROR(s.Fault("nodes", name));
    s.upsert_node.Bind(1, name);
    s.upsert_node.Bind(2, record);
    return s.upsert_node.Run(s.wdb, s.Where() + ": save node '" + name + "'");
  });
}

Status SqliteStore::SaveStep(const StepRecord& step) {
  std::string key = std::to_string(step.job_id) + "." + std::to_string(step.step_id);
  if (step.job_id < 1) return InvalidArgument("step " + key + ": job id must be positive");
  ASSIGN_OR_RETURN(std::string record, Encode(step, "step " + key));
  Impl& s = *impl_;
  return s.writer.Submit([&]() -> Status {
    RETURN_IF_ERROR(s.Fault("steps", key));
    s.upsert_step.Bind(1, step.job_id);
    s.upsert_step.Bind(2, static_cast<int64_t>(step.step_id));
    s.upsert_step.Bind(3, record);
    return s.upsert_step.Run(s.wdb, s.Where() + ": save step " + key);
  });
}

StatusOr<int64_t> SqliteStore::AllocateJobIds(int count) {
  if (count < 1) return InvalidArgument("job id count must be at least 1, got " + std::to_string(count));
  int64_t first = 0;
  Impl& s = *impl_;
  Status st = s.writer.Submit([&]() -> Status {
    s.get_counter.Bind(1, std::string_view(kNextJobIdCounter));
    ASSIGN_OR_RETURN(int64_t next, s.get_counter.QueryInt(s.wdb, s.Where() + ": read counter 'next_job_id'"));
    // Ids saved without being allocated here (imports) must not be handed out again either.
    ASSIGN_OR_RETURN(int64_t max_id, s.max_job_id.QueryInt(s.wdb, s.Where() + ": read the largest job id"));
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    if (max_id == kMax) return OutOfRange(s.Where() + ": job ids exhausted");
    next = std::max(next, max_id + 1);
    if (next > kMax - count) {
      return OutOfRange(s.Where() + ": job ids exhausted (next is " + std::to_string(next) + ")");
    }
    RETURN_IF_ERROR(s.Fault("counters", kNextJobIdCounter));
    s.set_counter.Bind(1, std::string_view(kNextJobIdCounter));
    s.set_counter.Bind(2, next + count);
    RETURN_IF_ERROR(s.set_counter.Run(s.wdb, s.Where() + ": update counter 'next_job_id'"));
    first = next;
    return Status::Ok();
  });
  if (!st.ok()) return st;
  return first;
}

StatusOr<int64_t> SqliteStore::RewindJobIds(int64_t floor) {
  if (floor < 1) return InvalidArgument("job id floor must be at least 1, got " + std::to_string(floor));
  int64_t next = 0;
  Impl& s = *impl_;
  Status st = s.writer.Submit([&]() -> Status {
    ASSIGN_OR_RETURN(int64_t max_id, s.max_job_id.QueryInt(s.wdb, s.Where() + ": read the largest job id"));
    if (max_id == std::numeric_limits<int64_t>::max()) return OutOfRange(s.Where() + ": job ids exhausted");
    next = std::max(floor, max_id + 1);
    RETURN_IF_ERROR(s.Fault("counters", kNextJobIdCounter));
    s.set_counter.Bind(1, std::string_view(kNextJobIdCounter));
    s.set_counter.Bind(2, next);
    return s.set_counter.Run(s.wdb, s.Where() + ": update counter 'next_job_id'");
  });
  if (!st.ok()) return st;
  return next;
}

StatusOr<bool> SqliteStore::UseNonce(const std::string& nonce, int64_t expires, int64_t now) {
  if (nonce.empty()) return InvalidArgument("nonce is empty");
  bool first = false;
  Impl& s = *impl_;
  Status st = s.writer.Submit([&]() -> Status {
    RETURN_IF_ERROR(s.Fault("nonces", nonce));
    if (now >= s.next_nonce_purge) {
      s.purge_nonces.Bind(1, now);
      RETURN_IF_ERROR(s.purge_nonces.Run(s.wdb, s.Where() + ": delete the nonces of expired tokens"));
      s.next_nonce_purge = now + kNoncePurgeEvery;
    }
    s.insert_nonce.Bind(1, nonce);
    s.insert_nonce.Bind(2, expires);
    RETURN_IF_ERROR(s.insert_nonce.Run(s.wdb, s.Where() + ": record a token's nonce"));
    first = sqlite3_changes(s.wdb) == 1;
    return Status::Ok();
  });
  if (!st.ok()) return st;
  return first;
}

Status SqliteStore::SetMeta(const std::string& key, const std::string& value) {
  if (key.empty()) return InvalidArgument("meta key is empty");
  if (key == kSchemaVersionKey) return InvalidArgument("meta key 'schema_version' is reserved");
  Impl& s = *impl_;
  return s.writer.Submit([&]() -> Status {
    RETURN_IF_ERROR(s.Fault("meta", key));
    s.upsert_meta.Bind(1, key);
    s.upsert_meta.Bind(2, value);
    return s.upsert_meta.Run(s.wdb, s.Where() + ": set meta '" + key + "'");
  });
}

StatusOr<std::string> SqliteStore::GetMeta(const std::string& key) {
  std::optional<std::string> value;
  {
    MutexLock l(impl_->read_mu);
    ASSIGN_OR_RETURN(value, QueryText(impl_->rdb, "SELECT value FROM meta WHERE key=?1", key));
  }
  if (!value) return NotFound("meta key '" + key + "' is not set");
  return *value;
}

StatusOr<std::map<std::string, std::string>> SqliteStore::LoadMeta() {
  std::map<std::string, std::string> meta;
  RETURN_IF_ERROR(impl_->ReadRows("SELECT key, value FROM meta WHERE key != 'schema_version'",
                                  [&](sqlite3_stmt* row) -> Status {
                                    meta[std::string(ColumnText(row, 0))] = std::string(ColumnText(row, 1));
                                    return Status::Ok();
                                  }));
  return meta;
}

StatusOr<std::vector<JobRecord>> SqliteStore::LoadJobs() { return SelectJobs("", {}); }

StatusOr<std::vector<JobRecord>> SqliteStore::LoadLiveJobs(int64_t ended_since) {
  if (ended_since <= 0) return LoadJobs();
  return SelectJobs("WHERE state IN ('PENDING', 'RUNNING', 'SUSPENDED', 'COMPLETING') OR end_time >= ?",
                    {SqlArg{ended_since}});
}

StatusOr<std::vector<JobRecord>> SqliteStore::QueryJobs(const JobFilter& given) {
  // A heterogeneous job's id names all its components (their ids follow the leader's).
  JobFilter f = given;
  if (!given.ids.empty()) {
    std::string list;
    std::vector<SqlArg> ids;
    for (int64_t id : given.ids) {
      list += list.empty() ? "?" : ", ?";
      ids.push_back(SqlArg{id});
    }
    ASSIGN_OR_RETURN(const std::vector<JobRecord> named, SelectJobs("WHERE id IN (" + list + ")", ids));
    for (const JobRecord& j : named) {
      if (j.het_job_id != j.id) continue;
      for (int k = 1; k < j.het_job_size; ++k) f.ids.insert(j.id + k);
    }
  }
  std::string where;
  std::vector<SqlArg> args;
  auto clause = [&](const std::string& c) { where += (where.empty() ? "WHERE " : " AND ") + c; };
  auto in_list = [&](const std::string& column, const auto& values) {
    std::string list;
    for (const auto& v : values) {
      list += list.empty() ? "?" : ", ?";
      args.push_back(SqlArg{v});
    }
    return column + " IN (" + list + ")";
  };
  if (!f.ids.empty()) {
    std::string by = "(" + in_list("id", f.ids);
    by += " OR " + in_list("array_job_id", f.ids) + ")";
    clause(by);
  } else {
    if (f.start > 0) {
      clause("(end_time = 0 OR end_time >= ?)");
      args.push_back(SqlArg{f.start});
    }
    if (f.end > 0) {
      clause("submit_time <= ?");
      args.push_back(SqlArg{f.end});
    }
  }
  if (!f.users.empty()) {
    std::set<int64_t> uids;
    for (const std::string& u : f.users) {
      if (!u.empty() && u.size() <= 10 && u.find_first_not_of("0123456789") == std::string::npos) uids.insert(std::stoll(u));
    }
    std::string by = "(" + in_list("user", f.users);  // (one after the other: they push their arguments)
    if (!uids.empty()) by += " OR " + in_list("uid", uids);
    clause(by + ")");
  }
  if (!f.accounts.empty()) clause(in_list("account", f.accounts));
  if (!f.partitions.empty()) clause(in_list("partition", f.partitions));
  if (!f.states.empty()) {
    std::set<std::string> names;
    for (JobState s : f.states) names.insert(JobStateName(s));
    clause(in_list("state", names));
  }
  return SelectJobs(where, args);
}

StatusOr<std::vector<JobRecord>> SqliteStore::SelectJobs(const std::string& where, const std::vector<SqlArg>& args) {
  std::vector<JobRecord> jobs;
  std::set<int64_t> arrays;
  const std::string sql = "SELECT id, record FROM jobs " + where + " ORDER BY id";
  RETURN_IF_ERROR(impl_->ReadRows(sql.c_str(), args, [&](sqlite3_stmt* row) -> Status {
    int64_t id = sqlite3_column_int64(row, 0);
    std::string where = impl_->Where() + ": table jobs, id " + std::to_string(id);
    ASSIGN_OR_RETURN(JobRecord job, DecodeRow(ColumnText(row, 1), &JobRecordFromJson, where));
    if (job.id != id) return Internal(where + ": record has id " + std::to_string(job.id));
    if (job.array_job_id != 0 && job.script.empty()) arrays.insert(job.array_job_id);
    jobs.push_back(std::move(job));
    return Status::Ok();
  }));
  if (arrays.empty()) return jobs;
  // The arrays' scripts, once each, shared by their tasks.
  std::map<int64_t, SharedText> scripts;
  std::vector<SqlArg> ids;
  std::string list;
  for (int64_t a : arrays) {
    list += list.empty() ? "?" : ", ?";
    ids.push_back(SqlArg{a});
  }
  const std::string select = "SELECT array_job_id, script FROM scripts WHERE array_job_id IN (" + list + ")";
  RETURN_IF_ERROR(impl_->ReadRows(select.c_str(), ids, [&](sqlite3_stmt* row) -> Status {
    scripts[sqlite3_column_int64(row, 0)] = std::string(ColumnText(row, 1));
    return Status::Ok();
  }));
  for (JobRecord& j : jobs) {
    if (j.array_job_id == 0 || !j.script.empty()) continue;
    if (auto it = scripts.find(j.array_job_id); it != scripts.end()) j.script = it->second;
  }
  return jobs;
}

StatusOr<std::vector<NodeRecord>> SqliteStore::LoadNodes() {
  std::vector<NodeRecord> nodes;
  RETURN_IF_ERROR(impl_->ReadRows("SELECT name, record FROM nodes", [&](sqlite3_stmt* row) -> Status {
    std::string name(ColumnText(row, 0));
    std::string where = impl_->Where() + ": table nodes, name '" + name + "'";
    ASSIGN_OR_RETURN(NodeRecord node, DecodeRow(ColumnText(row, 1), &NodeRecordFromJson, where));
    if (node.node.name != name) return Internal(where + ": record has name '" + node.node.name + "'");
    nodes.push_back(std::move(node));
    return Status::Ok();
  }));
  std::sort(nodes.begin(), nodes.end(),
            [](const NodeRecord& a, const NodeRecord& b) { return NaturalLess(a.node.name, b.node.name); });
  return nodes;
}

StatusOr<std::vector<StepRecord>> SqliteStore::LoadSteps() { return SelectSteps("", {}); }

StatusOr<std::vector<StepRecord>> SqliteStore::LoadStepsOf(const std::set<int64_t>& job_ids) {
  if (job_ids.empty()) return std::vector<StepRecord>{};
  std::vector<SqlArg> args;
  std::string list;
  for (int64_t id : job_ids) {
    list += list.empty() ? "?" : ", ?";
    args.push_back(SqlArg{id});
  }
  return SelectSteps("WHERE job_id IN (" + list + ")", args);
}

StatusOr<std::vector<StepRecord>> SqliteStore::SelectSteps(const std::string& where, const std::vector<SqlArg>& args) {
  std::vector<StepRecord> steps;
  const std::string sql = "SELECT job_id, step_id, record FROM steps " + where + " ORDER BY job_id, step_id";
  RETURN_IF_ERROR(impl_->ReadRows(
      sql.c_str(), args, [&](sqlite3_stmt* row) -> Status {
        int64_t job_id = sqlite3_column_int64(row, 0);
        int64_t step_id = sqlite3_column_int64(row, 1);
        std::string where =
            impl_->Where() + ": table steps, key " + std::to_string(job_id) + "." + std::to_string(step_id);
        ASSIGN_OR_RETURN(StepRecord step, DecodeRow(ColumnText(row, 2), &StepRecordFromJson, where));
        if (step.job_id != job_id || step.step_id != step_id) return Internal(where + ": record has another key");
        steps.push_back(std::move(step));
        return Status::Ok();
      }));
  return steps;
}

SqliteStoreStats SqliteStore::stats() const { return impl_->writer.stats(); }

void SqliteStore::SetWriterPausedForTest(bool paused) { impl_->writer.SetPausedForTest(paused); }

void SqliteStore::WaitForQueuedForTest(size_t n) { impl_->writer.WaitForQueuedForTest(n); }

void SqliteStore::SetFaultHookForTest(FaultHook hook) {
  MutexLock l(impl_->hook_mu);
  impl_->fault_hook = std::move(hook);
}

}  // namespace muster
