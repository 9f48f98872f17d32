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

}  // namespace muster
