// Status and StatusOr<T>: the error values for everything that comes from the outside world
// (I/O, parsing, user input). Cheap to copy when OK. Not thread-safe to mutate; safe to share const.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "base/check.h"

namespace muster {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // the caller's input is malformed (names the field and what was expected)
  kNotFound,
  kAlreadyExists,
  kFailedPrecondition,
  kOutOfRange,
  kPermissionDenied,
  kUnauthenticated,
  kUnavailable,
  kInternal,
};

const char* StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  std::string ToString() const;

  // Returns a copy whose message is "<prefix>: <message>" (adds context while propagating).
  Status WithPrefix(const std::string& prefix) const;

  friend bool operator==(const Status&, const Status&) = default;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string msg) { return Status(StatusCode::kInvalidArgument, std::move(msg)); }
inline Status NotFound(std::string msg) { return Status(StatusCode::kNotFound, std::move(msg)); }
inline Status FailedPrecondition(std::string msg) { return Status(StatusCode::kFailedPrecondition, std::move(msg)); }
inline Status OutOfRange(std::string msg) { return Status(StatusCode::kOutOfRange, std::move(msg)); }
inline Status Internal(std::string msg) { return Status(StatusCode::kInternal, std::move(msg)); }

template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  StatusOr(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    MUSTER_CHECK(!status_.ok()) << "StatusOr built from an OK status without a value";
  }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  const T& value() const& {
    MUSTER_CHECK(ok()) << "value() on error: " << status_.ToString();
    return *value_;
  }
  T& value() & {
    MUSTER_CHECK(ok()) << "value() on error: " << status_.ToString();
    return *value_;
  }
  T&& value() && {
    MUSTER_CHECK(ok()) << "value() on error: " << status_.ToString();
    return std::move(*value_);
  }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace muster

#define MUSTER_CONCAT_INNER(a, b) a##b
#define MUSTER_CONCAT(a, b) MUSTER_CONCAT_INNER(a, b)

// RETURN_IF_ERROR(expr): propagate a non-OK Status.
#define RETURN_IF_ERROR(expr)                 \
  do {                                        \
    ::muster::Status _st = (expr);            \
    if (!_st.ok()) return _st;                \
  } while (0)

// ASSIGN_OR_RETURN(lhs, expr): unwrap a StatusOr or propagate its error.
#define ASSIGN_OR_RETURN(lhs, expr) ASSIGN_OR_RETURN_IMPL(MUSTER_CONCAT(_so_, __LINE__), lhs, expr)
#define ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                          \
  if (!tmp.ok()) return tmp.status();         \
  lhs = std::move(tmp).value()
