// The PostgreSQL store's schema (store/pg_store.cc), version by version: a new database gets
// them all, an older one the steps after its version.
#pragma once

namespace muster::pg_internal {

inline constexpr int kSchemaVersion = 4;  // 2: the leader table; 3: its handover, the controllers' views; 4: nonces

inline constexpr const char* kCreateSchema = R"sql(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE counters(name TEXT PRIMARY KEY, value BIGINT NOT NULL);
CREATE TABLE jobs(id BIGINT PRIMARY KEY, state TEXT NOT NULL, user_name TEXT NOT NULL,
                  submit_time BIGINT NOT NULL, end_time BIGINT NOT NULL, record TEXT NOT NULL,
                  uid BIGINT NOT NULL, account TEXT NOT NULL, partition_name TEXT NOT NULL,
                  array_job_id BIGINT NOT NULL);
CREATE INDEX jobs_by_state ON jobs(state);
CREATE INDEX jobs_by_user ON jobs(user_name, submit_time);
CREATE INDEX jobs_by_end_time ON jobs(end_time);
CREATE INDEX jobs_by_uid ON jobs(uid, submit_time);
CREATE INDEX jobs_by_account ON jobs(account, submit_time);
CREATE INDEX jobs_by_array ON jobs(array_job_id) WHERE array_job_id <> 0;
CREATE TABLE scripts(array_job_id BIGINT PRIMARY KEY, script BYTEA NOT NULL);
CREATE TABLE nodes(name TEXT PRIMARY KEY, record TEXT NOT NULL);
CREATE TABLE steps(job_id BIGINT NOT NULL, step_id BIGINT NOT NULL, record TEXT NOT NULL,
                   PRIMARY KEY(job_id, step_id));
)sql";

// Schema 2: the controllers' lease (one row), with its fencing token. Its time is the server's.
inline constexpr const char* kCreateLeader = R"sql(
CREATE TABLE leader(id SMALLINT PRIMARY KEY CHECK (id = 1), token BIGINT NOT NULL, holder TEXT NOT NULL,
                    address TEXT NOT NULL, expires_at TIMESTAMPTZ NOT NULL);
INSERT INTO leader VALUES (1, 0, '', '', 'epoch');
)sql";

// Schema 3: a lease handed over to a successor (reserved for it a while), and what each controller
// sees of the agents (store.h's ControllerView).
inline constexpr const char* kAddHandover = R"sql(
ALTER TABLE leader ADD COLUMN successor TEXT NOT NULL DEFAULT '',
                   ADD COLUMN reserved_until TIMESTAMPTZ NOT NULL DEFAULT 'epoch';
CREATE TABLE controllers(address TEXT PRIMARY KEY, agents BIGINT NOT NULL, reported_at TIMESTAMPTZ NOT NULL);
)sql";

// Schema 4: the nonces of the tokens that opened a connection (Store::UseNonce), until their
// tokens expire.
inline constexpr const char* kAddNonces = R"sql(
CREATE TABLE nonces(nonce TEXT PRIMARY KEY, expires BIGINT NOT NULL);
CREATE INDEX nonces_by_expiry ON nonces(expires);
)sql";

}  // namespace muster::pg_internal
