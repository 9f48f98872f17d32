// `muster sim`: the scheduling-quality benchmarks on real GPU cluster traces.
//   muster sim openb   the FGD paper's placement protocol on the openb trace, per policy, averaged
//                      over seeds, with the published figures beside ours (docs/simulator.md).
//   muster sim philly  the Philly trace replayed through the real controller in virtual time, per
//                      queueing policy (sim_philly.cc).
//   muster sim swf     the same for a Standard Workload Format log of CPU jobs.
#pragma once

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace muster {

std::string SimUsage();
// Writes each (path, text) whose path is not empty; returns the first path it could not write,
// or "".
std::string WriteSimOutputs(const std::vector<std::pair<std::string, std::string>>& files);
// The first of `paths` (empty ones skipped) that cannot be opened for writing, or "": checked
// before a long run rather than after it.
std::string UnwritableSimOutput(const std::vector<std::string>& paths);
// The whole command: 0 ok, 1 a trace could not be read, 2 usage.
std::string SimPhillyUsage();
int SimPhilly(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
std::string SimSwfUsage();
int SimSwf(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int SimMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace muster
