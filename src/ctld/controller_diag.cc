#include "ctld/controller_diag.h"

#include "base/clock.h"  // GettimeofdayLatencyUs

namespace muster {

DiagAnswer ControllerDiag(const Controller& c, int64_t server_threads) {
  const StatsSnapshot s = c.stats().Snapshot();
  DiagAnswer d;
  d.now = c.NowSeconds();
  d.since = s.since;
  d.server_threads = server_threads;
  d.gettimeofday_latency_us = GettimeofdayLatencyUs();
  d.jobs_submitted = static_cast<int64_t>(s.submitted);
  d.jobs_started = static_cast<int64_t>(s.started);
  d.jobs_preempted = static_cast<int64_t>(s.preempted);
  for (const auto& [state, n] : s.ended) {
    const auto v = static_cast<int64_t>(n);
    if (state == "COMPLETED") {
      d.jobs_completed += v;
    } else if (state == "CANCELLED") {
      d.jobs_canceled += v;
    } else {
      d.jobs_failed += v;
    }
  }
  c.VisitJobs(JobQuery{.active_only = true}, [&](const std::vector<const JobRecord*>& jobs) {
    for (const JobRecord* j : jobs) {
      d.jobs_pending += j->state == JobState::kPending;
      d.jobs_running += j->state == JobState::kRunning;
    }
  });
  d.cycles = static_cast<int64_t>(s.passes);
  d.cycle_last_us = static_cast<int64_t>(s.pass_last_us);
  d.cycle_max_us = static_cast<int64_t>(s.pass_max_us);
  d.cycle_total_us = static_cast<int64_t>(s.pass_total_us);
  d.cycle_depth_total = static_cast<int64_t>(s.depth_total);
  d.last_queue_length = static_cast<int64_t>(s.last_queue_length);
  d.bf_cycles = static_cast<int64_t>(s.backfill_passes);
  d.bf_last_us = static_cast<int64_t>(s.backfill_last_us);
  d.bf_max_us = static_cast<int64_t>(s.backfill_max_us);
  d.bf_total_us = static_cast<int64_t>(s.backfill_total_us);
  d.bf_last_when = s.backfill_last_when;
  d.bf_last_depth = static_cast<int64_t>(s.backfill_last_depth);
  d.bf_depth_total = static_cast<int64_t>(s.backfill_depth_total);
  d.bf_reservations_total = static_cast<int64_t>(s.backfill_reservations_total);
  d.bf_last_reservations = static_cast<int64_t>(s.backfill_last_reservations);
  d.bf_backfilled_jobs = static_cast<int64_t>(s.backfilled_jobs);
  d.bf_backfilled_het = static_cast<int64_t>(s.backfilled_het_components);
  for (const auto& [key, r] : s.api) {
    d.rpcs.push_back(DiagRpc{key.second, key.first, static_cast<int64_t>(r.count),
                             static_cast<int64_t>(r.total_s * 1e6)});
  }
  for (const auto& [uid, u] : s.api_users) {
    d.rpc_users.push_back(DiagRpcUser{Controller::UserNameOf(uid), static_cast<int64_t>(uid),
                                      static_cast<int64_t>(u.count), static_cast<int64_t>(u.total_s * 1e6)});
  }
  return d;
}

}  // namespace muster
