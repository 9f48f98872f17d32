#include "store/pg_util.h"

#include <map>
#include <string>

#include "base/strings.h"
#include "store/pg_store.h"

namespace muster {
namespace pg_internal {

// An array literal for `= ANY($n::bigint[])` / `::text[]`.
std::string IntArray(const std::set<int64_t>& values) {
  std::string s = "{";
  for (int64_t v : values) s += (s.size() > 1 ? "," : "") + std::to_string(v);
  return s + "}";
}
std::string TextArray(const std::set<std::string>& values) {
  std::string s = "{";
  for (const std::string& v : values) {
    if (s.size() > 1) s += ',';
    s += '"';
    for (char c : v) {
      if (c == '"' || c == '\\') s += '\\';
      s += c;
    }
    s += '"';
  }
  return s + "}";
}

std::string QuoteIdent(const std::string& name) {
  std::string q = "\"";
  for (char c : name) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// The status of a failed command: connection trouble, conflicts and resource shortages are
// Unavailable (worth retrying), a value PostgreSQL refused InvalidArgument, rights PermissionDenied.
Status PgError(PGconn* conn, const PGresult* r, const std::string& what) {
  std::string msg = r != nullptr ? PQresultErrorMessage(r) : PQerrorMessage(conn);
  while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
  const char* state = r != nullptr ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
  const std::string code = state != nullptr ? state : "";
  StatusCode c = StatusCode::kInternal;
  if (PQstatus(conn) != CONNECTION_OK || code.rfind("08", 0) == 0 || code.rfind("53", 0) == 0 ||
      code.rfind("57P", 0) == 0 || code == "40001" || code == "40P01" || code == "55P03") {
    c = StatusCode::kUnavailable;
  } else if (code.rfind("22", 0) == 0) {
    c = StatusCode::kInvalidArgument;
  } else if (code == "42501" || code.rfind("28", 0) == 0) {
    c = StatusCode::kPermissionDenied;
  }
  return Status(c, what + ": " + (msg.empty() ? "no answer from the server" : msg));
}

bool Succeeded(const PGresult* r) {
  const ExecStatusType s = PQresultStatus(r);
  return r != nullptr && (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK);
}

StatusOr<Result> Exec(PGconn* conn, const char* sql, const std::string& what) {
  Result r(PQexec(conn, sql));
  if (!Succeeded(r.get())) return PgError(conn, r.get(), what);
  return r;
}

StatusOr<Result> ExecParams(PGconn* conn, const std::string& sql, const Args& args, const std::string& what,
                            int result_format) {
  Result r(PQexecParams(conn, sql.c_str(), args.size(), nullptr, args.values(), args.lengths(), args.formats(),
                        result_format));
  if (!Succeeded(r.get())) return PgError(conn, r.get(), what);
  return r;
}

}  // namespace pg_internal
bool IsPostgresUrl(const std::string& location) {
  return location.rfind("postgresql://", 0) == 0 || location.rfind("postgres://", 0) == 0;
}

std::string RedactedPgUrl(const std::string& url) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(url.c_str(), &err);
  if (opts == nullptr) {
    PQfreemem(err);
    return "(a PostgreSQL URL that does not parse)";
  }
  std::map<std::string, std::string> v;
  for (PQconninfoOption* o = opts; o->keyword != nullptr; ++o) {
    if (o->val != nullptr) v[o->keyword] = o->val;
  }
  PQconninfoFree(opts);
  std::string host = v.count("host") ? v["host"] : v.count("hostaddr") ? v["hostaddr"] : "";
  std::string s = "postgresql://";
  if (v.count("user")) s += v["user"] + "@";
  if (host.find('/') != std::string::npos) {  // a Unix socket directory
    s += "/" + (v.count("dbname") ? v["dbname"] : "") + "?host=" + host;
  } else {
    s += host;
    if (v.count("port")) s += ":" + v["port"];
    s += "/" + (v.count("dbname") ? v["dbname"] : "");
  }
  return s;
}

std::string PgUrlWithPassfile(const std::string& url, const std::string& passfile) {
  if (passfile.empty()) return url;
  // A file path: its slashes kept as they are.
  return url + (url.find('?') == std::string::npos ? "?" : "&") + "passfile=" + PercentEncode(passfile, "/");
}

}  // namespace muster
