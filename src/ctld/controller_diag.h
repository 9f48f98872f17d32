// The figures sdiag (GET /v1/diag) and slurmrestd's /diag print: the counters and pass timings of
// ControllerStats, and the jobs pending and running now, read when asked.
#pragma once

#include <cstdint>

#include "ctld/controller.h"
#include "model/diag.h"

namespace muster {

// Slurm's three end counters from Muster's end states: COMPLETED is completed, CANCELLED
// canceled, and every other end (FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, ...) failed.
DiagAnswer ControllerDiag(const Controller& c, int64_t server_threads);

}  // namespace muster
