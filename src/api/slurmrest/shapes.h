// The JSON shapes of Slurm 22.05's slurmrestd (openapi/v0.0.38 and openapi/dbv0.0.38), built from
// Muster's records: pure functions (no controller, no I/O), keys in slurmrestd's order. What a
// field holds where Muster has no counterpart is named in docs/slurm-compatibility.md ("REST API").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "model/job_record.h"
#include "model/node.h"
#include "model/partition.h"
#include "report/slurm_format.h"
#include "wire/diag.h"

namespace muster::slurmrest {

enum class Plugin { kV0038, kDbV0038 };

// {"meta": {"plugin": {"type", "name"}, "Slurm": {"version": {"major", "micro", "minor"},
// "release"}}, "errors": []}: what every answer starts with. Muster answers as slurmrestd 22.05.8
// does, since tools check these fields (docs/slurm-compatibility.md).
boost::json::object Envelope(Plugin plugin);

// One entry of "errors": {"description", "error_number", "error", "source"}.
boost::json::object ErrorEntry(const std::string& description, int error_number, const std::string& error,
                               const std::string& source);
// Slurm's error number for one of its messages ("Invalid job id specified" -> 2017); -1 for any other.
int SlurmErrorNumber(const std::string& message);

// GET /slurm/v0.0.38/job(s): one job as slurmrestd's v0.0.38 job_info.
boost::json::object JobJson(const JobRecord& job, const std::string& cluster);

// GET /slurm/v0.0.38/partition(s): one partition; `nodes` gives its totals.
boost::json::object PartitionJson(const Partition& p, const std::vector<NodeRecord>& nodes);

// GET /slurm/v0.0.38/node(s): the nodes of `partitions` (sinfo --json's records, report/
// sinfo_format.h) in slurmrestd's key order, features as comma lists.
boost::json::array NodesJson(const std::vector<Partition>& partitions, const std::vector<NodeRecord>& nodes,
                             const NodeActivityMap& usage, int64_t now);

// GET /slurm/v0.0.38/diag: "statistics" from the figures sdiag prints (GET /v1/diag's,
// ctld/controller_diag.h): the counters and cycle times Muster keeps, its API routes as the RPC
// types ("GET /v1/jobs", type_id 0); what Muster does not count is 0 and the RPCs by user empty.
boost::json::object DiagJson(const DiagAnswer& d);

// Reorders `o`'s keys: `order` first (those present), then the rest as they were.
boost::json::object InOrder(const boost::json::object& o, std::initializer_list<const char*> order);

}  // namespace muster::slurmrest
