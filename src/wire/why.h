// GET /v1/jobs/{id}/why (muster why): the keys of the answer (model/why.h).
#pragma once

#include <type_traits>

#include "model/why.h"
#include "wire/codec.h"

namespace muster::json {

template <>
struct External<WhyOutcomeAnswer> : std::true_type {
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

template <>
struct External<WhyAheadAnswer> : std::true_type {
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

template <>
struct External<WhyShareAnswer> : std::true_type {
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("account", s.account);
    v("held", s.held);
    v("fair_share", s.fair_share);
    v("demand", s.demand);
    v("quota", s.quota);
  }
};

template <>
struct External<WhySoonerAnswer> : std::true_type {
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

template <>
struct External<WhyAnswer> : std::true_type {
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

}  // namespace muster::json
