// GET /v1/jobs/{id}/why (muster why): why a job waits and when it will start, as the scheduler
// core answers (sched/why.h); the command prints it in plain words (cli/why_command.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "wire/codec.h"

namespace muster {

// What a cycle decides for a job.
struct WhyOutcomeAnswer {
  using WireRecord = void;
  std::string start;       // "now", "preempting", "planned", "unplanned", "never"
  std::string reason;      // squeue's word ("Resources", "Priority", ...); "" when it starts
  std::string message;     // a rejection's message or a reason's detail
  int64_t start_time = 0;  // seconds since the epoch: now, or the planned start
  std::string nodes;       // a host list ("node[03-04]")
  std::vector<std::string> gpus;  // per node: "node03:0-7" (the GPUs it would take there)
  std::vector<int64_t> preempt;   // "preempting": the running jobs to stop
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("start", s.start);
    v("reason", s.reason);
    v("message", s.message);
    v("start_time", s.start_time);
    v("nodes", s.nodes);
    v("gpus", s.gpus);
    v("preempt", s.preempt);
  }
};

struct WhyAheadAnswer {
  using WireRecord = void;
  int64_t job_id = 0;
  int position = 0;  // in the cycle's order, from 1
  std::string user, account, partition;
  int64_t priority = 0;
  double gpus = 0;
  WhyOutcomeAnswer outcome;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("job_id", s.job_id);
    v("position", s.position);
    v("user", s.user);
    v("account", s.account);
    v("partition", s.partition);
    v("priority", s.priority);
    v("gpus", s.gpus);
    v("outcome", s.outcome);
  }
};

struct WhyShareAnswer {
  using WireRecord = void;
  std::string account;
  double held = 0, fair_share = 0, demand = 0;
  double quota = -1;  // -1: none
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("account", s.account);
    v("held", s.held);
    v("fair_share", s.fair_share);
    v("demand", s.demand);
    v("quota", s.quota);
  }
};

struct WhySoonerAnswer {
  using WireRecord = void;
  std::string kind;    // "gpus", "time", "partition", "limit", "quota"
  std::string change;  // plain words
  double gpus = 0;
  int64_t time_limit_s = 0;
  std::string partition;
  std::string account;  // or the QOS, for a QOS's limit
  std::string limit;
  int64_t value = -1;
  int64_t in_use = -1;
  WhyOutcomeAnswer outcome;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("kind", s.kind);
    v("change", s.change);
    v("gpus", s.gpus);
    v("time_limit_s", s.time_limit_s);
    v("partition", s.partition);
    v("account", s.account);
    v("limit", s.limit);
    v("value", s.value);
    v("in_use", s.in_use);
    v("outcome", s.outcome);
  }
};

struct WhyAnswer {
  using WireRecord = void;
  int64_t job_id = 0;
  std::string user, account, partition;
  std::string state;   // the job's ("PENDING", "RUNNING", ...)
  // The job's record as squeue shows it: its reason and squeue --start's figures, from the last pass.
  std::string reason;
  std::string reason_detail;
  int64_t expected_start = 0;
  std::string sched_nodes;
  int64_t now = 0;
  // Whether the core was asked (a pending job in the scheduling queue); else `note` says why not
  // ("it is RUNNING", "it is held", "it waits for its dependency", ...).
  bool explained = false;
  std::string note;
  double gpus = 0;
  int64_t time_limit_s = 0;
  WhyOutcomeAnswer outcome;
  int position = 0;
  int queue_size = 0;
  int ahead_total = 0;
  int ahead_in_partition = 0;
  std::vector<WhyAheadAnswer> ahead;
  bool fair_share_order = false;
  std::vector<WhyShareAnswer> shares;
  std::vector<WhySoonerAnswer> sooner;
  int cycles = 0;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("job_id", s.job_id);
    v("user", s.user);
    v("account", s.account);
    v("partition", s.partition);
    v("state", s.state);
    v("reason", s.reason);
    v("reason_detail", s.reason_detail);
    v("expected_start", s.expected_start);
    v("sched_nodes", s.sched_nodes);
    v("now", s.now);
    v("explained", s.explained);
    v("note", s.note);
    v("gpus", s.gpus);
    v("time_limit_s", s.time_limit_s);
    v("outcome", s.outcome);
    v("position", s.position);
    v("queue_size", s.queue_size);
    v("ahead_total", s.ahead_total);
    v("ahead_in_partition", s.ahead_in_partition);
    v("ahead", s.ahead);
    v("fair_share_order", s.fair_share_order);
    v("shares", s.shares);
    v("sooner", s.sooner);
    v("cycles", s.cycles);
  }
};

}  // namespace muster
