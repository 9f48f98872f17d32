// GET /v1/diag (sdiag): the controller's figures as Slurm's sdiag prints them, in Muster's names.
// Times in seconds since the epoch, durations in microseconds. What Slurm counts and Muster does
// not is absent here; sdiag prints it as 0 (docs/slurm-compatibility.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "wire/codec.h"

namespace muster {

// One API route's requests: sdiag's "Remote Procedure Call statistics by message type" row.
struct DiagRpc {
  using WireRecord = void;
  std::string method;
  std::string route;  // the pattern: "/v1/jobs/{id}"
  int64_t count = 0;
  int64_t total_us = 0;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("method", s.method);
    v("route", s.route);
    v("count", s.count);
    v("total_us", s.total_us);
  }
};

// One caller's requests: sdiag's "Remote Procedure Call statistics by user" row.
struct DiagRpcUser {
  using WireRecord = void;
  std::string user;  // the name, or the uid written out when the controller's host has none
  int64_t uid = 0;
  int64_t count = 0;
  int64_t total_us = 0;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("user", s.user);
    v("uid", s.uid);
    v("count", s.count);
    v("total_us", s.total_us);
  }
};

struct DiagAnswer {
  using WireRecord = void;
  int64_t now = 0;
  int64_t since = 0;  // when counting began (the controller's start, or sdiag -r)
  int64_t server_threads = 0;
  int64_t gettimeofday_latency_us = 0;  // 1000 calls, timed on the controller's host
  int64_t jobs_submitted = 0, jobs_started = 0, jobs_completed = 0, jobs_canceled = 0, jobs_failed = 0;
  int64_t jobs_preempted = 0;
  int64_t jobs_pending = 0, jobs_running = 0;
  int64_t cycles = 0, cycle_last_us = 0, cycle_max_us = 0, cycle_total_us = 0;
  int64_t cycle_depth_total = 0, last_queue_length = 0;
  int64_t bf_cycles = 0, bf_last_us = 0, bf_max_us = 0, bf_total_us = 0, bf_last_when = 0;
  int64_t bf_last_depth = 0, bf_depth_total = 0, bf_reservations_total = 0, bf_last_reservations = 0;
  int64_t bf_backfilled_jobs = 0, bf_backfilled_het = 0;
  std::vector<DiagRpc> rpcs;
  std::vector<DiagRpcUser> rpc_users;
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

}  // namespace muster
