// sacctmgr's changes on the wire (POST /v1/policy): PolicyOp (model/policy_ops.h) under its keys.
#pragma once

#include "api/wire/codec.h"
#include "model/policy_ops.h"

namespace muster::wire {

// {"verb", "entity", "name", "fields": [[key, value], ...]}
template <>
struct External<PolicyOp> : std::true_type {
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("verb", s.verb);
    v("entity", s.entity);
    v("name", s.name);
    v("fields", s.fields);
  }
};

}  // namespace muster::wire
