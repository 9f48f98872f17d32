// The libpq pieces the PostgreSQL store is built of (store/pg_store.cc): a result that frees
// itself, a statement's parameters, a failed command's error as a Status, array literals.
#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <cstdlib>
#include <deque>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace muster::pg_internal {

// Owns one result.
class Result {
 public:
  explicit Result(PGresult* r = nullptr) : r_(r) {}
  Result(Result&& o) noexcept : r_(std::exchange(o.r_, nullptr)) {}
  Result& operator=(Result&& o) noexcept {
    std::swap(r_, o.r_);
    return *this;
  }
  ~Result() { PQclear(r_); }
  PGresult* get() const { return r_; }
  int rows() const { return PQntuples(r_); }
  std::string_view Text(int row, int col) const {
    return std::string_view(PQgetvalue(r_, row, col), static_cast<size_t>(PQgetlength(r_, row, col)));
  }
  int64_t Int(int row, int col) const { return std::strtoll(PQgetvalue(r_, row, col), nullptr, 10); }

 private:
  PGresult* r_;
};

// A statement's parameters: strings go in binary form (their bytes as they are, no copy, no NUL
// terminator needed; PostgreSQL checks text is valid UTF-8), numbers and array literals as text.
class Args {
 public:
  Args& Bytes(std::string_view v) {  // v must outlive the statement
    values_.push_back(v.data() != nullptr ? v.data() : "");
    lengths_.push_back(static_cast<int>(v.size()));
    formats_.push_back(1);
    return *this;
  }
  Args& Text(std::string v) {
    owned_.push_back(std::move(v));
    values_.push_back(owned_.back().c_str());
    lengths_.push_back(0);
    formats_.push_back(0);
    return *this;
  }
  Args& Int(int64_t v) { return Text(std::to_string(v)); }
  int size() const { return static_cast<int>(values_.size()); }
  const char* const* values() const { return values_.data(); }
  const int* lengths() const { return lengths_.data(); }
  const int* formats() const { return formats_.data(); }

 private:
  std::deque<std::string> owned_;  // a deque: its strings do not move as it grows
  std::vector<const char*> values_;
  std::vector<int> lengths_;
  std::vector<int> formats_;
};

// An array literal for `= ANY($n::bigint[])` / `::text[]`.
std::string IntArray(const std::set<int64_t>& values);
std::string TextArray(const std::set<std::string>& values);
// A quoted identifier (a schema's name).
std::string QuoteIdent(const std::string& name);
// The status of a failed command: connection trouble, conflicts and resource shortages are
// Unavailable (worth retrying), a value PostgreSQL refused InvalidArgument, rights PermissionDenied.
Status PgError(PGconn* conn, const PGresult* r, const std::string& what);
bool Succeeded(const PGresult* r);  // a command or a query that went through
StatusOr<Result> Exec(PGconn* conn, const char* sql, const std::string& what);
// result_format 1: binary results.
StatusOr<Result> ExecParams(PGconn* conn, const std::string& sql, const Args& args, const std::string& what,
                            int result_format = 0);

}  // namespace muster::pg_internal
