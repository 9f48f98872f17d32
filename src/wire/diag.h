// GET /v1/diag (sdiag): the keys of the controller's figures (model/diag.h).
#pragma once

#include <type_traits>

#include "model/diag.h"
#include "wire/codec.h"

namespace muster::json {

template <>
struct External<DiagRpc> : std::true_type {
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("method", s.method);
    v("route", s.route);
    v("count", s.count);
    v("total_us", s.total_us);
  }
};

template <>
struct External<DiagRpcUser> : std::true_type {
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("user", s.user);
    v("uid", s.uid);
    v("count", s.count);
    v("total_us", s.total_us);
  }
};

template <>
struct External<DiagAnswer> : std::true_type {
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("now", s.now);
    v("since", s.since);
    v("server_threads", s.server_threads);
    v("gettimeofday_latency_us", s.gettimeofday_latency_us);
    v("jobs_submitted", s.jobs_submitted);
    v("jobs_started", s.jobs_started);
    v("jobs_completed", s.jobs_completed);
    v("jobs_canceled", s.jobs_canceled);
    v("jobs_failed", s.jobs_failed);
    v("jobs_preempted", s.jobs_preempted);
    v("jobs_pending", s.jobs_pending);
    v("jobs_running", s.jobs_running);
    v("cycles", s.cycles);
    v("cycle_last_us", s.cycle_last_us);
    v("cycle_max_us", s.cycle_max_us);
    v("cycle_total_us", s.cycle_total_us);
    v("cycle_depth_total", s.cycle_depth_total);
    v("last_queue_length", s.last_queue_length);
    v("bf_cycles", s.bf_cycles);
    v("bf_last_us", s.bf_last_us);
    v("bf_max_us", s.bf_max_us);
    v("bf_total_us", s.bf_total_us);
    v("bf_last_when", s.bf_last_when);
    v("bf_last_depth", s.bf_last_depth);
    v("bf_depth_total", s.bf_depth_total);
    v("bf_reservations_total", s.bf_reservations_total);
    v("bf_last_reservations", s.bf_last_reservations);
    v("bf_backfilled_jobs", s.bf_backfilled_jobs);
    v("bf_backfilled_het", s.bf_backfilled_het);
    v("rpcs", s.rpcs);
    v("rpc_users", s.rpc_users);
  }
};

}  // namespace muster::json
