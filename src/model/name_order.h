// Natural order of names, as Slurm's strnatcmp sorts host names: digit runs compare by value
// ("gpu2" < "gpu10"); runs with a leading zero compare digit by digit ("n01" < "n1"); remaining ties
// fall back to bytes, so the order is total.
#pragma once

#include <string_view>

namespace muster {

// <0, 0, >0 like strcmp.
int NaturalCompare(std::string_view a, std::string_view b);
inline bool NaturalLess(std::string_view a, std::string_view b) { return NaturalCompare(a, b) < 0; }

}  // namespace muster
