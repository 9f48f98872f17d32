// The controller's records inside wire structs, in their own codec (model/record_json.h: every
// key, defaults too, errors naming the field as "node.cpus: wrong type"): node records (node
// lists, registration), steps, partitions, and a job in its full form. The job list's compact
// form of a job is Custom<JobRecord> (wire/steps.h).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/job_record.h"
#include "model/partition.h"
#include "model/record_json.h"
#include "wire/codec.h"

namespace muster {

// A job with every key of its record, the script, its arguments and environment included (what an
// agent needs to run it).
struct FullJob {
  JobRecord job;
  friend bool operator==(const FullJob&, const FullJob&) = default;
};

namespace json {

// Custom<T> for a record whose codec is model/record_json.h's ToJson and `from_json`.
template <class T, StatusOr<T> (*from_json)(const bj::value&)>
struct RecordCodec : std::true_type {
  static bj::value Write(const T& record, const bj::storage_ptr& sp) { return ToJson(record, sp); }
  static Status Read(const bj::value& v, T& record, const std::string&) {
    StatusOr<T> r = from_json(v);
    if (!r.ok()) return r.status();
    record = std::move(*r);
    return Status::Ok();
  }
};

template <>
struct Custom<NodeRecord> : RecordCodec<NodeRecord, &NodeRecordFromJson> {};
template <>
struct Custom<StepRecord> : RecordCodec<StepRecord, &StepRecordFromJson> {};
template <>
struct Custom<Partition> : RecordCodec<Partition, &PartitionFromJson> {};
template <>
struct Custom<FullJob> : std::true_type {
  static bj::value Write(const FullJob& j, const bj::storage_ptr& sp) { return ToJson(j.job, sp); }
  static Status Read(const bj::value& v, FullJob& j, const std::string&) {
    StatusOr<JobRecord> r = JobRecordFromJson(v);
    if (!r.ok()) return r.status();
    j.job = std::move(*r);
    return Status::Ok();
  }
};

// What a node's running jobs hold there: {"cpus", "gpus", "memory_mb"}.
template <>
struct External<NodeAllocated> : std::true_type {
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("cpus", s.cpus);
    v("gpus", s.gpus);
    v("memory_mb", s.memory_mb);
  }
};

}  // namespace json

// A node as GET /v1/nodes lists it: its record's keys and "allocated" beside them.
struct ListedNode {
  NodeRecord record;
  NodeAllocated allocated;
};

namespace json {

template <>
struct Custom<ListedNode> : std::true_type {
  static bj::value Write(const ListedNode& n, const bj::storage_ptr& sp) {
    bj::object o = ToJson(n.record, sp);
    o.insert_or_assign("allocated", wire::ToObject(n.allocated, sp));
    return o;
  }
  static Status Read(const bj::value& v, ListedNode& n, const std::string& path) {
    ASSIGN_OR_RETURN(n.record, NodeRecordFromJson(v));
    if (const bj::value* a = v.get_object().if_contains("allocated"); a != nullptr && !a->is_null()) {
      StatusOr<NodeAllocated> allocated = wire::FromValue<NodeAllocated>(*a);
      if (!allocated.ok()) return allocated.status().WithPrefix("field '" + path + ".allocated'");
      n.allocated = *allocated;
    }
    return Status::Ok();
  }
};

}  // namespace json

// An error answer of the controller: {"error": message} and, for a refused submission, what Slurm
// tells the submitter first ("user_msg").
struct ErrorAnswer {
  using WireRecord = void;
  std::string error;
  std::string user_msg;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("error", s.error);
    v("user_msg", s.user_msg);
  }
};

// GET /v1/jobs/{id}: the job in full (another user's without its script, arguments and
// environment: api/route_util.h's VisibleJob).
struct JobAnswer {
  using WireRecord = void;
  std::optional<FullJob> job;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("job", s.job);
  }
};

// GET /v1/nodes.
struct NodesAnswer {
  using WireRecord = void;
  std::vector<ListedNode> nodes;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("nodes", s.nodes);
  }
};

// GET /v1/partitions.
struct PartitionsAnswer {
  using WireRecord = void;
  std::vector<Partition> partitions;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("partitions", s.partitions);
  }
};

// GET /v1/steps (the running steps) and GET /v1/accounting/steps (sacct's).
struct StepsAnswer {
  using WireRecord = void;
  std::vector<StepRecord> steps;
  template <class V, class Self>
  static void Fields(V& v, Self& s) {
    v("steps", s.steps);
  }
};

}  // namespace muster
