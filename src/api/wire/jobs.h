// The jobs' requests and answers that have no richer type: a run's or a step's exit code.
#pragma once

#include "api/wire/codec.h"

namespace muster {

// POST /v1/jobs/{id}/complete (salloc, srun ending their allocation) and
// POST /v1/jobs/{id}/steps/{step}/done: {"exit_code": N}.
struct ExitCode {
  using WireRecord = void;
  int exit_code = 0;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("exit_code", s.exit_code);
  }
};

}  // namespace muster
