// Slurm hostlist expressions: "gpu[001-016,020],login1" <-> a list of host names.
// Expansion and compression follow Slurm's rules (zero padding kept: "gpu[001-003]" gives
// gpu001 gpu002 gpu003; compression groups names by prefix and width and sorts numerically).
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace muster {

// Expands a hostlist expression. Errors name the offending piece ("unterminated '[' in 'gpu[1-3'").
StatusOr<std::vector<std::string>> ExpandHostlist(const std::string& expr);

// Compresses host names into the shortest Slurm expression, as Slurm's hostlist_ranged_string
// prints it (duplicates removed, numeric order within a prefix, ranges merged).
std::string CompressHostlist(const std::vector<std::string>& hosts);

}  // namespace muster
