// Tests on the PostgreSQL store: the server is MUSTER_TEST_PG_URL's. tools/test.sh (the suite's
// command, which CI runs) starts a private one with tools/pg-test-server.sh and sets it, and sets
// MUSTER_REQUIRE_PG=1: there a missing URL fails the tests. Run by hand without it (ctest alone),
// they are skipped with a message saying how to get a server. Each test works in schemas of its
// own (named after its temporary directory), dropped at its end: parallel tests do not meet.
#pragma once

#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

namespace muster {

inline std::string PgTestUrl() {
  const char* url = std::getenv("MUSTER_TEST_PG_URL");
  return url != nullptr ? url : "";
}

// tools/test.sh and CI (CI=true) require the server.
inline bool PgTestServerRequired() {
  for (const char* name : {"MUSTER_REQUIRE_PG", "CI"}) {
    const char* v = std::getenv(name);
    if (v != nullptr && *v != '\0' && std::string(v) != "0" && std::string(v) != "false") return true;
  }
  return false;
}

#define MUSTER_PG_TEST_SERVER_OR_SKIP()                                                                        \
  do {                                                                                                         \
    if (::muster::PgTestUrl().empty()) {                                                                       \
      if (::muster::PgTestServerRequired()) {                                                                  \
        FAIL() << "MUSTER_TEST_PG_URL is not set, and this run requires the PostgreSQL tests "                 \
                  "(tools/test.sh starts a server with tools/pg-test-server.sh)";                              \
      }                                                                                                        \
      GTEST_SKIP() << "no PostgreSQL server: run `url=$(tools/pg-test-server.sh start DIR)` and set "          \
                      "MUSTER_TEST_PG_URL=$url (tools/test.sh does both)";                                    \
    }                                                                                                          \
  } while (0)

// The schema of a test directory: its path under the temporary directory, other bytes as '_'.
inline std::string PgTestSchema(const std::string& dir) {
  std::string rel = std::filesystem::path(dir).lexically_relative(std::filesystem::temp_directory_path()).string();
  if (rel.empty() || rel.rfind("..", 0) == 0) rel = dir;
  std::string s = "t_";
  for (char c : rel) s += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return s.size() > 63 ? s.substr(s.size() - 63) : s;
}

// Drops every schema of `dir` and of the directories under it.
inline void DropPgTestSchemas(const std::string& dir) {
  if (PgTestUrl().empty()) return;
  PGconn* conn = PQconnectdb(PgTestUrl().c_str());
  if (PQstatus(conn) == CONNECTION_OK) {
    const std::string prefix = PgTestSchema(dir);
    const char* values[] = {prefix.c_str()};
    PGresult* r = PQexecParams(conn, "SELECT nspname FROM pg_namespace WHERE starts_with(nspname, $1::text)", 1,
                               nullptr, values, nullptr, nullptr, 0);
    for (int i = 0; PQresultStatus(r) == PGRES_TUPLES_OK && i < PQntuples(r); ++i) {
      char* quoted = PQescapeIdentifier(conn, PQgetvalue(r, i, 0), std::strlen(PQgetvalue(r, i, 0)));
      if (quoted == nullptr) continue;
      PQclear(PQexec(conn, ("DROP SCHEMA IF EXISTS " + std::string(quoted) + " CASCADE").c_str()));
      PQfreemem(quoted);
    }
    PQclear(r);
  }
  PQfinish(conn);
}

}  // namespace muster
