// What the controller's routes share: status codes for Status values, JSON answers, the
// request's body and ids, and the checks of names in queries.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "base/status.h"
#include "ctld/controller.h"
#include "wire/codec.h"
#include "wire/records.h"
#include "net/http.h"
#include "net/url.h"  // CommaSet, QueryEpochSeconds

namespace muster::api {

// The largest request bodies the controller's routes take (Router::Add; a larger one is answered
// 413 unread): a submission (its script, at most ControllerConfig::max_script_bytes, escaped in
// JSON, with its environment) and the agents' reports 16 MiB; other changes 1 MiB; reads
// Router::kDefaultBodyLimit (64 KiB).
constexpr int64_t kLargeBodyLimit = 16 << 20;
constexpr int64_t kChangeBodyLimit = 1 << 20;

// 200 with {}.
HttpResponse Ok();
// A wire answer (wire/codec.h) with status 200.
template <wire::Record T>
HttpResponse Ok(const T& answer) {
  return HttpResponse::Json(200, wire::Encode(answer));
}
// {"error": message} with the HTTP status for the code (400 bad request, with Slurm's message;
// 401 unauthenticated, 403 not allowed, 404 unknown id or name, 409 wrong state, 503
// unavailable); `user_msg` (what Slurm tells a submitter before the error) beside it.
HttpResponse ErrorResponse(const Status& status, const std::string& user_msg = "");
// A request's body read as `T` (net/json_body.h's rules first: integers only, bounded depth).
template <wire::Record T>
StatusOr<T> ReadBody(const HttpRequest& req);
// A job id in a path ("Invalid job id specified" otherwise).
StatusOr<int64_t> ParseId(const std::string& s);
// The query's "ids=1,2,3" (empty set when absent); the first bad id is the error.
StatusOr<std::set<int64_t>> ParseIds(const std::map<std::string, std::string>& query);
// Names in a query (squeue -u), checked against the controller's user database (the commands
// make no user-database lookups of their own): Slurm's "Invalid user: x" for one it does not know.
Status CheckUserNames(const std::set<std::string>& users);
// A job record for `caller`: another user's job (unless the caller is an admin) without what may
// hold secrets (the script, its arguments and environment).
JobRecord VisibleJob(JobRecord j, const Caller& caller, const Controller& c);

// The body parsed by net/json_body.h's ParseRequestBody.
StatusOr<wire::bj::value> ParseBody(const HttpRequest& req);

template <wire::Record T>
StatusOr<T> ReadBody(const HttpRequest& req) {
  ASSIGN_OR_RETURN(const wire::bj::value body, ParseBody(req));
  return wire::FromValue<T>(body);
}

}  // namespace muster::api
