// srun inside an allocation: creates a step of the job at the controller (POST
// /v1/jobs/{id}/steps), opens its task I/O listener (net/step_io.h: a Unix socket when every node
// of the step is on this host, else TCP; MUSTER_SRUN_IO=tcp forces TCP), asks each node's agent
// to start its tasks (POST /v1/step), prints their output as it arrives (stdout to `out`, stderr
// to `err`), forwards signals (SIGINT: Slurm's interrupt / Ctrl-C twice; SIGTERM, SIGHUP,
// SIGQUIT, SIGUSR1, SIGUSR2: as they are; POST /v1/signal-step), reports the step's end, and
// returns the highest task exit status (128 + signal for a killed task). Outside an allocation
// (no SLURM_JOB_ID) it first allocates one with its resource options (an interactive job, as
// salloc makes), runs the step there and releases the allocation with the step's status.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace muster {

int SrunMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace muster
