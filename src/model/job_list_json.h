// The job list's wire form (GET /v1/jobs): {"jobs": [job, ...]} where each job has the keys of the
// full record (model/record_json.h) except what only the job's own processes need (script,
// script_args, environment: GET /v1/jobs/{id} has them), and leaves out every field still at its
// default value (a missing key reads back as that default).
//
// Written and read with Boost.JSON through the fields' visitor: squeue with a thousand pending jobs
// spends about a millisecond here, on either side (bench/e2e.sh, bench/json.sh).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include "base/status.h"
#include "model/job_record.h"

namespace muster {

// The job as lists carry it: without script, script_args and environment (copied field by field,
// so a long environment is never copied just to be dropped).
JobRecord ListedJob(const JobRecord& job);

std::string JobListJson(const std::vector<JobRecord>& jobs);

// One job of the list as a JSON object (what JobListJson writes for it), and back; for answers that
// carry a job beside other keys (wire). Errors name the field under `what` ("job.uid: wrong type").
boost::json::object ListedJobObject(const JobRecord& job, boost::json::storage_ptr sp = {});
StatusOr<JobRecord> ListedJobFromObject(const boost::json::object& o, const std::string& what = "job");

// squeue --json's output: {"jobs": [job, ...]} with every key of the full record (defaults too,
// as model/record_json.h writes them), keys sorted, indented by two spaces; strings escaped as JSON
// requires, and bytes that are not UTF-8 replaced by U+FFFD. Ends without a newline.
std::string JobRecordsPrettyJson(const std::vector<JobRecord>& jobs);

// Errors name the job's index and the field ("jobs[3].uid: wrong type"); unknown keys are ignored.
StatusOr<std::vector<JobRecord>> ParseJobListJson(std::string_view text);

}  // namespace muster
