// muster why JOBID [--json]: why a pending job waits and when it will start, in plain words, as the
// controller's scheduler core answers (GET /v1/jobs/{id}/why, sched/why.h): the reason, the jobs
// ahead of it in the scheduling order, the planned start and where, and what would start it
// sooner. scontrol show job and squeue --start are left as Slurm prints them.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "wire/why.h"

namespace muster {

// The answer in plain words, times in the local zone (Slurm's date form); ends with a newline.
std::string FormatWhy(const WhyAnswer& a);

// Exit status: 0 with an answer (a job not pending is said so), 1 for an unknown job or an
// error from the controller, 2 for a bad command line.
int WhyMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace muster
