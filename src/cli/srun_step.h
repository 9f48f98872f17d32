// srun's step session: launches a created step's tasks on their nodes' agents, forwards their
// output, stdin (and --pty terminal) and srun's signals, prints Slurm's step messages, and
// reports the step's end.
#pragma once

#include <cstdint>
#include <ostream>

#include "cli/srun_args.h"
#include "wire/steps.h"

namespace muster {

class CtldClient;

// Runs the step `created` describes: the controller's answer to POST /v1/jobs/{id}/steps
// ({"step_id", "ntasks", "warning", "job", "nodes": [{"name", "agent_address", "tasks",
// "gpus"}]}), or srun -Z's own of the same shape (`no_allocate`: the agents hear so). With
// `ctld`, the step's end is reported there. Returns srun's exit status (the highest task exit
// code, 128+signal for a task killed by one).
int RunCreatedStep(const SrunOptions& opt, int64_t job_id, bool no_allocate, const StepAnswer& created,
                   CtldClient* ctld, std::ostream& out, std::ostream& err);

}  // namespace muster
