// The controller's figures as sdiag (GET /v1/diag) prints them, in Muster's names: a domain record
// that ctld fills (ctld/controller_diag.h) and wire/diag.h carries. Times in seconds since the
// epoch, durations in microseconds. What Slurm counts and Muster does not is absent here; sdiag
// prints it as 0 (docs/slurm-compatibility.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace muster {

// One API route's requests: sdiag's "Remote Procedure Call statistics by message type" row.
struct DiagRpc {
  std::string method;
  std::string route;  // the pattern: "/v1/jobs/{id}"
  int64_t count = 0;
  int64_t total_us = 0;
};

// One caller's requests: sdiag's "Remote Procedure Call statistics by user" row.
struct DiagRpcUser {
  std::string user;  // the name, or the uid written out when the controller's host has none
  int64_t uid = 0;
  int64_t count = 0;
  int64_t total_us = 0;
};

struct DiagAnswer {
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
};

}  // namespace muster
