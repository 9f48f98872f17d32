// salloc: an interactive allocation, and a command run inside it (salloc_command.cc).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/job_record.h"
#include "model/option_engine.h"

namespace muster {

class CtldClient;

// Waits until the allocation `id` runs, printing Slurm's progress lines as `cmd` ("salloc",
// "srun"): "job N queued and waiting for resources" when it waits, then "job N has been
// allocated resources". Ctrl-C or SIGTERM meanwhile cancels it ("Job allocation N has been
// revoked."). With immediate_s >= 0 (-I/--immediate[=secs]) it gives up after that many seconds
// (at least one, for the controller's first scheduling pass), cancels the job and prints Slurm's
// "Unable to allocate resources: Job can not start immediately". Returns the running job's record,
// or an error already printed.
StatusOr<JobRecord> AwaitAllocation(CtldClient& c, int64_t id, const char* cmd, std::ostream& err,
                                    int immediate_s = -1);

// salloc's own options and the Slurm salloc options sbatch lacks; every other option is sbatch's.
OptionTable SallocOptionTable();

int SallocMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace muster
