// JSON from outside the process (request bodies, answers of other daemons), parsed with Boost.JSON
// only when its arrays and objects nest at most a bounded depth: copies, comparisons and
// serialization recurse, so a document nested 10^5 deep would overflow the stack of whoever
// touches it after the parse.
#pragma once

#include <string>
#include <string_view>

#include <boost/json/value.hpp>

#include "base/status.h"

namespace muster {

// Deeper than any request Muster takes (a job record nests 4 levels).
inline constexpr int kMaxJsonDepth = 32;

// The deepest nesting of arrays and objects in `text`, counted without parsing (brackets inside
// strings do not count); stops counting once past `limit` and returns limit + 1.
int JsonNestingDepth(std::string_view text, int limit);

// `text` parsed, or InvalidArgument naming what is wrong: "request body is not valid JSON",
// "request body nests deeper than 32 levels". `what` names the text in the message. Bytes that are
// not UTF-8 are kept as they are (names are the users' bytes).
StatusOr<boost::json::value> ParseJson(std::string_view text, std::string_view what = "request body",
                                       int max_depth = kMaxJsonDepth);
// The same, and it must be an object ("request body is not a JSON object").
StatusOr<boost::json::value> ParseJsonObject(std::string_view text, std::string_view what = "request body",
                                             int max_depth = kMaxJsonDepth);
// A request's body (to the controller or an agent): an object whose numbers are all integers
// ("request body holds a number that is not an integer: 4.1e+21"). Every field of every request is
// an integer, a string or a list of them, and a float taken as an integer is undefined behaviour
// when out of range: such a body is refused before any field is read.
StatusOr<boost::json::value> ParseRequestBody(std::string_view text);

// The message of an error answer's {"error": "..."} body, or `fallback` when it has none.
std::string ErrorMessageOf(std::string_view body, std::string fallback);

}  // namespace muster
