// Percent-decoding and query-string parsing for the HTTP layer (net-internal helpers).
// Pure functions; thread-safe.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace muster {

// Decodes %XX escapes; with `plus_is_space`, '+' becomes ' ' (form encoding, used in queries).
// A malformed escape ("%zz", a trailing "%") is kept as is rather than rejected.
std::string PercentDecode(std::string_view s, bool plus_is_space = false);

// "a=1&b=x%20y&flag" -> {a: "1", b: "x y", flag: ""}. A repeated key keeps its last value.
std::map<std::string, std::string> ParseQuery(std::string_view query);

}  // namespace muster
