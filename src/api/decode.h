// The controller API's requests that need more than their wire type's codec (wire) before the
// Controller takes them. Pure: no controller, no I/O. Kept apart from the routes so that they can
// be fuzzed alone (fuzz/fuzz_api_decode.cc).
#pragma once

#include "base/status.h"
#include "wire/steps.h"
#include "ctld/controller.h"

namespace muster {

// POST /v1/jobs/{id}/steps: srun's request as the controller takes it (srun -w/-x hostlists
// expanded, GPU counts checked).
StatusOr<StepRequest> ToStepRequest(const StepCreate& request);

}  // namespace muster
