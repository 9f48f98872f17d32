// JSON codec for the controller's records (Boost.JSON). Used by the store (persisted form), the
// HTTP API (wire form: node lists, steps, node registration, the agents' launch orders) and the
// agents' saved runs. Writers write every field (defaults too); decoding returns errors naming the
// field ("job.uid: wrong type", "node.gpus[].index: wrong type"), keeps the default for a missing
// or null key, and ignores unknown keys so that newer writers stay readable. The keys and values
// are those the earlier codec wrote (record_json_test.cc decodes rows in that exact form).
#pragma once

#include <string>
#include <string_view>

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include "base/status.h"
#include "model/job_record.h"
#include "model/partition.h"

namespace muster {

boost::json::object ToJson(const JobRequest& r, boost::json::storage_ptr sp = {});
boost::json::object ToJson(const Node& n, boost::json::storage_ptr sp = {});
boost::json::object ToJson(const JobRecord& j, boost::json::storage_ptr sp = {});
boost::json::object ToJson(const NodeRecord& n, boost::json::storage_ptr sp = {});
boost::json::object ToJson(const StepRecord& s, boost::json::storage_ptr sp = {});
boost::json::object ToJson(const Partition& p, boost::json::storage_ptr sp = {});

StatusOr<JobRequest> JobRequestFromJson(const boost::json::value& j);
StatusOr<Node> NodeFromJson(const boost::json::value& j);
StatusOr<JobRecord> JobRecordFromJson(const boost::json::value& j);
StatusOr<NodeRecord> NodeRecordFromJson(const boost::json::value& j);
StatusOr<StepRecord> StepRecordFromJson(const boost::json::value& j);
StatusOr<Partition> PartitionFromJson(const boost::json::value& j);

// A record as one line of JSON text (the stored form).
template <class T>
std::string ToJsonText(const T& record) {
  return boost::json::serialize(ToJson(record));
}

// Text written by ToJsonText (or by the earlier codec), parsed: at most 32 levels
// deep, bytes that are not UTF-8 kept as they are; InvalidArgument "<what>: malformed JSON: ..."
// otherwise.
StatusOr<boost::json::value> ParseRecordText(std::string_view text, std::string_view what = "record");

}  // namespace muster
