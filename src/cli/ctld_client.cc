#include "cli/ctld_client.h"

#include <unistd.h>

#include <cstdlib>

#include "config/muster_config.h"
#include "model/record_json.h"

namespace muster {

using nlohmann::json;

namespace {

StatusCode CodeFor(int http) {
  switch (http) {
    case 400: return StatusCode::kInvalidArgument;
    case 401: return StatusCode::kUnauthenticated;
    case 403: return StatusCode::kPermissionDenied;
    case 404: return StatusCode::kNotFound;
    case 409: return StatusCode::kFailedPrecondition;
    case 503: return StatusCode::kUnavailable;
    default: return StatusCode::kInternal;
  }
}

}  // namespace

StatusOr<std::unique_ptr<CtldClient>> CtldClient::Connect() {
  auto c = std::make_unique<CtldClient>();
  std::string address;
  std::string token;
  if (const char* s = std::getenv("MUSTER_SERVER"); s != nullptr && *s) address = s;
  if (address.empty() || address.rfind("unix:", 0) != 0) {
    const std::string path = DefaultConfigPath();
    StatusOr<MusterConfig> conf = LoadMusterConfig(path);
    if (!conf.ok()) {
      if (access(path.c_str(), F_OK) != 0) {
        return Status(StatusCode::kUnavailable, "no cluster configuration at " + path +
                                                    " (start one with 'muster up', or set MUSTER_CONF)");
      }
      return conf.status();
    }
    c->cluster_name_ = conf->cluster_name;
    if (address.empty()) {
      if (access(conf->ctld_socket.c_str(), W_OK) == 0 || conf->ctld_listen.empty()) {
        address = "unix:" + conf->ctld_socket;
      } else {
        address = conf->ctld_listen;
      }
    }
    if (address.rfind("unix:", 0) != 0) {
      // TCP: ask this node's agent (over its Unix socket) for a token bound to our uid.
      char host[256] = {0};
      gethostname(host, sizeof host - 1);
      StatusOr<std::unique_ptr<HttpClient>> agent = HttpClient::Connect("unix:" + conf->AgentSocket(host), "", 5000);
      if (agent.ok()) {
        StatusOr<HttpResponse> r = (*agent)->Request("GET", "/v1/token");
        if (r.ok() && r->status == 200) {
          json j = json::parse(r->body, nullptr, false);
          if (j.is_object() && j.contains("token")) token = j["token"].get<std::string>();
        }
      }
    }
  }
  StatusOr<std::unique_ptr<HttpClient>> http = HttpClient::Connect(address, token, 30000);
  if (!http.ok()) return http.status();
  c->http_ = std::move(*http);
  return c;
}

StatusOr<json> CtldClient::Call(const std::string& method, const std::string& target, const json& body) {
  StatusOr<HttpResponse> r = http_->Request(method, target, body.is_null() ? "" : body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  if (!r.ok()) return r.status();
  json j = json::parse(r->body, nullptr, false);
  if (r->status != 200) {
    std::string msg = j.is_object() && j.contains("error") && j["error"].is_string() ? j["error"].get<std::string>()
                                                                                     : r->body;
    return Status(CodeFor(r->status), msg);
  }
  if (j.is_discarded()) return Internal("the controller sent a malformed answer");
  return j;
}

StatusOr<std::vector<JobRecord>> CtldClient::Jobs(const std::string& query) {
  ASSIGN_OR_RETURN(json j, Call("GET", query.empty() ? "/v1/jobs" : "/v1/jobs?" + query));
  std::vector<JobRecord> out;
  if (!j.contains("jobs") || !j["jobs"].is_array()) return Internal("malformed job list");
  for (const json& x : j["jobs"]) {
    ASSIGN_OR_RETURN(JobRecord r, JobRecordFromJson(x));
    out.push_back(std::move(r));
  }
  return out;
}

StatusOr<std::vector<NodeRecord>> CtldClient::Nodes() {
  ASSIGN_OR_RETURN(json j, Call("GET", "/v1/nodes"));
  std::vector<NodeRecord> out;
  if (!j.contains("nodes") || !j["nodes"].is_array()) return Internal("malformed node list");
  for (const json& x : j["nodes"]) {
    ASSIGN_OR_RETURN(NodeRecord r, NodeRecordFromJson(x));
    out.push_back(std::move(r));
  }
  return out;
}

StatusOr<std::vector<Partition>> CtldClient::Partitions() {
  ASSIGN_OR_RETURN(json j, Call("GET", "/v1/partitions"));
  std::vector<Partition> out;
  if (!j.contains("partitions") || !j["partitions"].is_array()) return Internal("malformed partition list");
  for (const json& x : j["partitions"]) {
    ASSIGN_OR_RETURN(Partition p, PartitionFromJson(x));
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace muster
