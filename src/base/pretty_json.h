// JSON text as the commands print it (squeue/sacct/sinfo/scontrol --json, the simulator's figures):
// keys sorted, indented by two spaces, strings escaped as JSON requires and bytes that are not
// UTF-8 replaced by U+FFFD, floating-point numbers in their shortest form ("0.5", "1e+100",
// "2.0"). Byte for byte what nlohmann's dump(2) (with error_handler replace) wrote before the
// project moved to Boost.JSON alone, so scripts reading these outputs see no change.
#pragma once

#include <string>
#include <string_view>

#include <boost/json/value.hpp>

namespace muster {

// `v` with `indent` spaces per level (2 for the commands' --json); -1 for one line without spaces
// (nlohmann's dump()). Ends without a newline.
std::string PrettyJson(const boost::json::value& v, int indent = 2);
void AppendPrettyJson(const boost::json::value& v, int indent, std::string& out);

// Whether `text` is valid UTF-8 (JSON text is when all its strings are).
bool IsUtf8(std::string_view text);

// A double as nlohmann printed it: shortest round-trip digits, "1.0" for whole numbers, an
// exponent ("1e+16", "1.5e-05") outside [1e-5, 1e15], "null" for NaN and infinities.
std::string JsonDoubleText(double x);

}  // namespace muster
