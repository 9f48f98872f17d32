// JSON codec for the controller's records (nlohmann::json). Used by the store (persisted form)
// and the HTTP API (wire form). Decoding returns errors naming the field; unknown fields are
// ignored so that newer writers stay readable.
#pragma once

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "model/job_record.h"
#include "model/partition.h"

namespace muster {

nlohmann::json ToJson(const JobRequest& r);
nlohmann::json ToJson(const Node& n);
nlohmann::json ToJson(const JobRecord& j);
nlohmann::json ToJson(const NodeRecord& n);
nlohmann::json ToJson(const StepRecord& s);

StatusOr<JobRequest> JobRequestFromJson(const nlohmann::json& j);
StatusOr<Node> NodeFromJson(const nlohmann::json& j);
StatusOr<JobRecord> JobRecordFromJson(const nlohmann::json& j);
StatusOr<NodeRecord> NodeRecordFromJson(const nlohmann::json& j);
StatusOr<StepRecord> StepRecordFromJson(const nlohmann::json& j);

}  // namespace muster

namespace muster {
nlohmann::json ToJson(const Partition& p);
StatusOr<Partition> PartitionFromJson(const nlohmann::json& j);
}  // namespace muster
