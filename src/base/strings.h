// Small string helpers shared by every layer.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace muster {

// ASCII lower case (Slurm keys, GPU names and the like are ASCII).
std::string Lower(std::string_view s);

// Splits on `sep`, dropping empty pieces ("a,,b" -> {a, b}; "" -> {}).
std::vector<std::string> Split(std::string_view s, char sep);

// Every byte but the unreserved ones of RFC 3986 (A-Z a-z 0-9 - . _ ~) and those in `also_kept` as
// %XX (upper-case hex): a value for a URL's query or path. The one percent-encoder, from every
// layer: a caller that keeps more says which ("," in squeue's format lists, "/" in a file path).
std::string PercentEncode(std::string_view s, std::string_view also_kept = "");

// Decodes %XX escapes; with `plus_is_space`, '+' becomes ' ' (form encoding, used in queries).
// A malformed escape ("%zz", a trailing "%") is kept as is rather than rejected.
std::string PercentDecode(std::string_view s, bool plus_is_space = false);

}  // namespace muster
