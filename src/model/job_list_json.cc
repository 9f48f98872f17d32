#include "model/job_list_json.h"

#include <algorithm>
#include <type_traits>

#include <boost/json.hpp>

#include "base/json_codec.h"
#include "base/pretty_json.h"
#include "model/job_record_fields.h"

namespace muster {

namespace bj = boost::json;

namespace {

// What only the job's own processes need: GET /v1/jobs/{id} has it, the list does not.
constexpr std::string_view kPayloadKeys[] = {"script", "script_args", "environment"};
// The list's form: the fields that differ from their defaults, without the payload.
constexpr json::WriteOptions kListed{.omit_defaults = true, .skip_keys = kPayloadKeys};

bool IsPayload(std::string_view key) { return std::ranges::find(kPayloadKeys, key) != std::end(kPayloadKeys); }

// Copies every field of `from` but the payload (visited with `from` as the "default").
struct ListedCopy {
  template <typename T>
  void operator()(const char* key, T& to, const T& from) {
    if (!IsPayload(key)) to = from;
  }
  template <typename T, typename Fn>
  void operator()(const char*, T& to, const T& from, Fn) {
    to = from;
  }
};

bj::object JobObject(const JobRecord& job, bool listed, bj::storage_ptr sp) {
  static const JobRecord kDefault;
  bj::object o(std::move(sp));
  json::Writer w(o, listed ? kListed : json::WriteOptions{});
  record_fields::JobRecordFields(w, job, kDefault);
  return o;
}

// {"jobs": [job, ...]}.
bj::object JobsObject(const std::vector<JobRecord>& jobs, bool listed, const bj::storage_ptr& sp) {
  bj::array arr(sp);
  arr.reserve(jobs.size());
  for (const JobRecord& j : jobs) arr.emplace_back(JobObject(j, listed, sp));
  bj::object root(sp);
  root.emplace("jobs", std::move(arr));
  return root;
}

}  // namespace

std::string JobRecordsPrettyJson(const std::vector<JobRecord>& jobs) {
  bj::monotonic_resource mr;
  std::string out;
  out.reserve(jobs.size() * 2048);
  AppendPrettyJson(JobsObject(jobs, /*listed=*/false, bj::storage_ptr(&mr)), 2, out);
  return out;
}

JobRecord ListedJob(const JobRecord& job) {
  JobRecord out;
  ListedCopy copy;
  record_fields::JobRecordFields(copy, out, job);
  return out;
}

boost::json::object ListedJobObject(const JobRecord& job, boost::json::storage_ptr sp) {
  return JobObject(job, /*listed=*/true, std::move(sp));
}

StatusOr<JobRecord> ListedJobFromObject(const boost::json::object& o, const std::string& what) {
  static const JobRecord kDefault;
  Status status;
  JobRecord r;
  json::Reader reader(o, what + ".", &status, json::ErrorStyle::kRecord);
  record_fields::JobRecordFields(reader, r, kDefault);
  if (!status.ok()) return status;
  return r;
}

std::string JobListJson(const std::vector<JobRecord>& jobs) {
  bj::monotonic_resource mr;
  return bj::serialize(JobsObject(jobs, /*listed=*/true, bj::storage_ptr(&mr)));
}

StatusOr<std::vector<JobRecord>> ParseJobListJson(std::string_view text) {
  bj::monotonic_resource mr;
  bj::error_code ec;
  bj::parse_options opt;
  opt.allow_invalid_utf8 = true;  // names are the users' bytes; the writer does not check them either
  bj::value root = bj::parse(bj::string_view(text.data(), text.size()), ec, bj::storage_ptr(&mr), opt);
  if (ec) return InvalidArgument("job list: malformed JSON: " + ec.message());
  const bj::value* jobs = root.is_object() ? root.get_object().if_contains("jobs") : nullptr;
  if (jobs == nullptr || !jobs->is_array()) return InvalidArgument("job list: expected {\"jobs\": [...]}");
  std::vector<JobRecord> out;
  out.reserve(jobs->get_array().size());
  size_t i = 0;
  for (const bj::value& v : jobs->get_array()) {
    const std::string what = "jobs[" + std::to_string(i++) + "]";
    if (!v.is_object()) return InvalidArgument(what + ": expected a JSON object");
    ASSIGN_OR_RETURN(JobRecord r, ListedJobFromObject(v.get_object(), what));
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace muster
