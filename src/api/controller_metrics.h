// musterctld's GET /metrics (Prometheus text, net/prometheus_text.h) and GET /v1/diag (sdiag):
// the state sampled when asked (jobs, nodes and what jobs hold, fair share and quotas, each
// under its lock briefly) and the figures counted as things happened (ctld/controller_stats.h),
// formatted outside every lock. docs/metrics.md lists the families.
#pragma once

#include <string>

#include "base/status.h"
#include "ctld/controller.h"
#include "net/http.h"

namespace muster::api {

StatusOr<std::string> ControllerMetricsText(Controller& c);

// GET /metrics (open, as musterd's: no job's secrets are in it), GET /v1/diag (any caller) and
// POST /v1/diag/reset (sdiag -r, admins).
void AddMetricsRoutes(Controller& c, Router& r, int server_threads);

}  // namespace muster::api
