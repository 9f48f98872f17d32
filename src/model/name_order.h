// Natural order of names: digit runs compare as numbers ("gpu2" < "gpu10"), the rest byte-wise;
// names equal as numbers but differing in zero padding are ordered by length ("n1" < "n01").
#pragma once

#include <string_view>

namespace muster {

// <0, 0, >0 like strcmp.
int NaturalCompare(std::string_view a, std::string_view b);
inline bool NaturalLess(std::string_view a, std::string_view b) { return NaturalCompare(a, b) < 0; }

}  // namespace muster
