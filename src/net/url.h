// Query-string parsing for the HTTP layer (the HTTP layer's and the routes' helpers).
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "base/status.h"
#include "base/strings.h"  // PercentEncode, PercentDecode: in base, for the layers below net too

namespace muster {

// "a=1&b=x%20y&flag" -> {a: "1", b: "x y", flag: ""}. A repeated key keeps its last value.
std::map<std::string, std::string> ParseQuery(std::string_view query);

// A parsed query's "key=a,b,c" as a set, empty items dropped (empty when absent).
std::set<std::string> CommaSet(const std::map<std::string, std::string>& query, const char* key);

// A parsed query's `key` as seconds since the epoch: nullopt when absent, an error naming the key
// when it is not a non-negative integer.
StatusOr<std::optional<int64_t>> QueryEpochSeconds(const std::map<std::string, std::string>& query,
                                                   const char* key);

}  // namespace muster
