// How the stores (SQLite, PostgreSQL) write a record into a row and read it back: the record's
// JSON (model/record_json.h), a job array's script kept apart (stored once for all its tasks).
#pragma once

#include <boost/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/pretty_json.h"  // IsUtf8
#include "base/status.h"
#include "model/record_json.h"

namespace muster::record_codec {

// A job array's tasks share one script: it is stored once, in `scripts`, and their rows leave it out.
inline bool ScriptKeptApart(const JobRecord& job) { return job.array_job_id != 0; }
inline bool ScriptKeptApart(const NodeRecord&) { return false; }
inline bool ScriptKeptApart(const StepRecord&) { return false; }

// Encodes a record; strings that are not UTF-8 (JSON cannot hold them) are the caller's error.
template <typename T>
StatusOr<std::string> Encode(const T& record, const std::string& what) {
  boost::json::object j = ToJson(record);
  if (ScriptKeptApart(record)) j.erase("script");
  std::string text = boost::json::serialize(j);
  if (!IsUtf8(text)) return InvalidArgument(what + ": cannot be stored: a string in it is not valid UTF-8");
  return text;
}

// A job's row, checked and encoded on the caller's thread: a batch's writer only writes.
struct EncodedJob {
  const JobRecord* job;
  std::string key;     // its id, for errors
  std::string record;  // Encode's
};
inline StatusOr<std::vector<EncodedJob>> EncodeJobs(std::span<const JobRecord> jobs) {
  std::vector<EncodedJob> rows;
  rows.reserve(jobs.size());
  for (const JobRecord& job : jobs) {
    std::string key = std::to_string(job.id);
    if (job.id < 1) return InvalidArgument("job id must be positive, got " + key);
    ASSIGN_OR_RETURN(std::string record, Encode(job, "job " + key));
    rows.push_back({&job, std::move(key), std::move(record)});
  }
  return rows;
}

// Decodes one stored row; errors name the table and the key (a damaged row never aborts).
template <typename T>
StatusOr<T> DecodeRow(std::string_view text, StatusOr<T> (*from_json)(const boost::json::value&),
                      const std::string& where) {
  boost::json::error_code ec;
  const boost::json::value j = boost::json::parse(boost::json::string_view(text.data(), text.size()), ec);
  if (ec) return Internal(where + ": record is not valid JSON: " + ec.message());
  StatusOr<T> r = from_json(j);
  if (!r.ok()) return Internal(where + ": record does not decode: " + r.status().message());
  return r;
}

}  // namespace muster::record_codec
