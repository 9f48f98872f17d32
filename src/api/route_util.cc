#include "api/route_util.h"

#include <sstream>

#include "config/muster_config.h"
#include "base/pretty_json.h"
#include "model/record_json.h"
#include "net/json_body.h"

namespace muster::api {

namespace bj = wire::bj;

namespace {

int HttpStatusFor(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return 200;
    case StatusCode::kInvalidArgument:
    case StatusCode::kOutOfRange: return 400;
    case StatusCode::kUnauthenticated: return 401;
    case StatusCode::kPermissionDenied: return 403;
    case StatusCode::kNotFound: return 404;
    case StatusCode::kAlreadyExists:
    case StatusCode::kFailedPrecondition: return 409;
    case StatusCode::kUnavailable: return 503;
    case StatusCode::kInternal: return 500;
  }
  return 500;
}

}  // namespace

HttpResponse Ok() { return HttpResponse::Json(200, "{}"); }

HttpResponse ErrorResponse(const Status& status, const std::string& user_msg) {
  HttpResponse r = HttpResponse::Error(HttpStatusFor(status.code()), status.message());
  if (!user_msg.empty()) {
    r.body = PrettyJson(bj::object{{"error", status.message()}, {"user_msg", user_msg}}, -1);
  }
  return r;
}

StatusOr<bj::value> ParseBody(const HttpRequest& req) { return ParseRequestBody(req.body); }

StatusOr<int64_t> ParseId(const std::string& s) {
  int64_t v = 0;
  if (s.empty() || s.size() > 18) return InvalidArgument("Invalid job id specified");
  for (char c : s) {
    if (c < '0' || c > '9') return InvalidArgument("Invalid job id specified");
    v = v * 10 + (c - '0');
  }
  return v;
}

StatusOr<std::set<int64_t>> ParseIds(const std::map<std::string, std::string>& query) {
  std::set<int64_t> ids;
  auto it = query.find("ids");
  if (it == query.end()) return ids;
  std::stringstream in(it->second);
  for (std::string s; std::getline(in, s, ',');) {
    ASSIGN_OR_RETURN(int64_t id, ParseId(s));
    ids.insert(id);
  }
  return ids;
}

Status CheckUserNames(const std::set<std::string>& users) {
  for (const std::string& u : users) {
    if (!ResolveUser(u).ok()) return InvalidArgument("Invalid user: " + u);
  }
  return Status::Ok();
}

JobRecord VisibleJob(JobRecord j, const Caller& caller, const Controller& c) {
  if (j.uid != caller.uid && !c.IsAdmin(caller)) {
    j.script = SharedText();
    j.script_args.clear();
    j.environment.clear();
  }
  return j;
}

}  // namespace muster::api
