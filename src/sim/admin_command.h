// `muster admin`: offline maintenance of a controller's state, run by muster-sim (the commands'
// binary links no store). One verb so far:
//   muster admin migrate --from LOCATION --to LOCATION
// copies every job, step, node, script and meta record (usage, sacctmgr policy) and the job id
// counter from one store to another, then reads them back from the destination and compares.
// Locations: sqlite:FILE (or a path) and postgresql://USER@HOST:PORT/DB (docs/configuration.md,
// "The state store"). The controller must be stopped while it runs.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace muster {

std::string AdminUsage();
// The arguments after "admin". Exit status: 0 done, 1 the migration failed, 2 a usage error.
int AdminMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace muster
