// Percent-decoding and query-string parsing for the HTTP layer (the HTTP layer's and the routes' helpers).
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "base/status.h"

namespace muster {

// Decodes %XX escapes; with `plus_is_space`, '+' becomes ' ' (form encoding, used in queries).
// A malformed escape ("%zz", a trailing "%") is kept as is rather than rejected.
std::string PercentDecode(std::string_view s, bool plus_is_space = false);

// Every byte but the unreserved ones (A-Z a-z 0-9 - . _ ~) as %XX: a value for a query or a path.
std::string PercentEncode(std::string_view s);

// "a=1&b=x%20y&flag" -> {a: "1", b: "x y", flag: ""}. A repeated key keeps its last value.
std::map<std::string, std::string> ParseQuery(std::string_view query);

// A parsed query's "key=a,b,c" as a set, empty items dropped (empty when absent).
std::set<std::string> CommaSet(const std::map<std::string, std::string>& query, const char* key);

// A parsed query's `key` as seconds since the epoch: nullopt when absent, an error naming the key
// when it is not a non-negative integer.
StatusOr<std::optional<int64_t>> QueryEpochSeconds(const std::map<std::string, std::string>& query,
                                                   const char* key);

}  // namespace muster
