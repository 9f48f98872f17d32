#include "cli/ctld_client.h"
#include "base/mutex.h"
#include "net/url.h"
#include "net/json_body.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <thread>

#include "config/muster_config.h"
#include "model/job_list_json.h"
#include "wire/agent.h"
#include "wire/records.h"
#include "net/key_file.h"

namespace muster {


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

std::string Hostname() {
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  return host;
}

bool IsSocket(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
}

// One agent's token, or why not.
StatusOr<std::string> TokenFrom(const std::string& socket, const std::string& audience) {
  ASSIGN_OR_RETURN(std::unique_ptr<HttpClient> agent, HttpClient::Connect("unix:" + socket, "", 5000));
  ASSIGN_OR_RETURN(HttpResponse r, agent->Request("GET", "/v1/token?aud=" + PercentEncode(audience)));
  if (r.status != 200) return Status(CodeFor(r.status), ErrorMessageOf(r.body, "HTTP " + std::to_string(r.status)));
  StatusOr<TokenAnswer> answer = wire::Decode<TokenAnswer>(r.body, "the agent's answer");
  if (!answer.ok() || answer->token.empty()) return Internal("malformed answer to GET /v1/token");
  return answer->token;
}

}  // namespace

std::vector<std::string> LocalAgentSockets(const std::string& socket_dir, const std::string& hostname,
                                           const std::string& job_node) {
  std::vector<std::string> out;
  auto add = [&](const std::string& path) {
    if (IsSocket(path) && std::find(out.begin(), out.end(), path) == out.end()) out.push_back(path);
  };
  auto node_socket = [&](const std::string& node) { return socket_dir + "/musterd-" + node + ".sock"; };
  if (!hostname.empty()) {
    add(node_socket(hostname));
    add(node_socket(hostname.substr(0, hostname.find('.'))));
  }
  if (!job_node.empty()) add(node_socket(job_node));
  std::vector<std::string> others;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(socket_dir, ec)) {
    const std::string f = e.path().filename().string();
    if (f.size() > 13 && f.starts_with("musterd-") && f.ends_with(".sock")) others.push_back(e.path().string());
  }
  std::sort(others.begin(), others.end());
  for (const std::string& p : others) add(p);
  return out;
}

StatusOr<std::string> LocalToken(const MusterConfig& conf, const std::string& audience) {
  const std::string host = Hostname();
  const char* job_node = std::getenv("SLURMD_NODENAME");
  const std::vector<std::string> sockets =
      LocalAgentSockets(conf.agent_socket_dir, host, job_node != nullptr ? job_node : "");
  auto fail = [](const std::string& socket, const Status& why) {
    return Status(why.code() == StatusCode::kOk ? StatusCode::kUnavailable : why.code(),
                  "cannot get a credential from the local musterd at " + socket + ": " + why.message());
  };
  if (sockets.empty()) {
    return fail(conf.AgentSocket(host),
                Status(StatusCode::kUnavailable, "no musterd socket in " + conf.agent_socket_dir +
                                                     " (is musterd running on this host?)"));
  }
  Status first;
  for (const std::string& socket : sockets) {
    StatusOr<std::string> t = TokenFrom(socket, audience);
    if (t.ok()) return t;
    if (first.ok()) first = fail(socket, t.status());  // the best candidate's reason
  }
  return first;
}

StatusOr<std::string> LocalToken(const std::string& audience) {
  const std::string path = DefaultConfigPath();
  StatusOr<MusterConfig> conf = LoadMusterConfig(path, ConfigReader::kCommand);
  if (!conf.ok()) return conf.status();
  return LocalToken(*conf, audience);
}

Status UseClusterTls(const MusterConfig& conf) {
  static constinit Mutex mu("cluster TLS");
  static std::string loaded GUARDED_BY(mu);  // the CA file in use
  if (!conf.tls()) return Status::Ok();
  MutexLock lock(mu);
  if (loaded == conf.tls_ca_file) return Status::Ok();
  RETURN_IF_ERROR(HttpClient::SetProcessTls(HttpClient::Tls{conf.tls_ca_file}));
  loaded = conf.tls_ca_file;
  return Status::Ok();
}

Status UseClusterTls() {
  StatusOr<MusterConfig> conf = LoadMusterConfig(DefaultConfigPath(), ConfigReader::kCommand);
  if (!conf.ok()) return conf.status();
  return UseClusterTls(*conf);
}

StatusOr<FoundLeader> FindLeader(const std::vector<std::string>& candidates,
                                 const std::function<StatusOr<std::string>()>& tcp_token, int ping_timeout_ms,
                                 int timeout_ms) {
  std::optional<StatusOr<std::string>> token;  // asked at the first TCP candidate
  std::string said;
  std::vector<std::string> no_token;  // the TCP candidates not asked: no token
  for (const std::string& address : candidates) {
    auto why = [&](std::string what) {
      // The transport's errors name the address already: "cannot connect to A: Connection refused".
      const std::string prefix = "cannot connect to " + address + ": ";
      if (what.rfind(prefix, 0) == 0) what = what.substr(prefix.size());
      said += (said.empty() ? "" : ", ") + address + ": " + what;
    };
    const bool tcp = address.rfind("unix:", 0) != 0;
    if (tcp) {
      // (Asked before the ping, which needs none: a controller we could not talk to is no use.)
      if (!token) token = tcp_token();
      if (!token->ok()) {
        no_token.push_back(address);  // said once for them all, at the end
        continue;
      }
    }
    StatusOr<std::unique_ptr<HttpClient>> http = HttpClient::Connect(address, "", ping_timeout_ms);
    if (!http.ok()) {
      why(http.status().message());
      continue;
    }
    StatusOr<HttpResponse> r = (*http)->Request("GET", "/v1/ping");
    if (!r.ok()) {
      why(r.status().message());
      continue;
    }
    if (r->status != 200) {
      why("HTTP " + std::to_string(r->status) + ": " + ErrorMessageOf(r->body, r->body));
      continue;
    }
    StatusOr<PingAnswer> ping = wire::Decode<PingAnswer>(r->body, "the controller's answer to GET /v1/ping");
    if (!ping.ok()) {
      why(ping.status().message());
      continue;
    }
    if (ping->role == "leader") {
      // Its connection for the requests to come, with their longer bound.
      // Over TCP, a token for each connection it opens (a token opens one): the one asked first,
      // then new ones.
      StatusOr<std::unique_ptr<HttpClient>> leader = Status(StatusCode::kInternal, "");
      if (tcp) {
        std::string first = std::move(**token);
        token = std::nullopt;  // taken: a later candidate asks anew
        leader = HttpClient::Connect(address, HttpClient::TokenSource::FirstThen(std::move(first), tcp_token),
                                     timeout_ms);
      } else {
        leader = HttpClient::Connect(address, "", timeout_ms);
      }
      if (leader.ok()) return FoundLeader{std::move(*leader), address};
      why(leader.status().message());
      continue;
    }
    why(ping->role + " (leader: " + (ping->leader.empty() ? "none" : ping->leader) + ")");
  }
  if (!no_token.empty()) {
    std::string list;
    for (const std::string& a : no_token) list += (list.empty() ? "" : ", ") + a;
    said += (said.empty() ? "" : ", ") + list + ": " + token->status().message();
  }
  return Status(StatusCode::kUnavailable, "no controller leads: " + said);
}

StatusOr<std::unique_ptr<CtldClient>> CtldClient::Connect() {
  auto c = std::make_unique<CtldClient>();
  std::string address;
  std::string token;
  if (const char* s = std::getenv("MUSTER_SERVER"); s != nullptr && *s) address = s;
  if (address.empty() || address.rfind("unix:", 0) != 0) {
    const std::string path = DefaultConfigPath();
    StatusOr<MusterConfig> conf = LoadMusterConfig(path, ConfigReader::kCommand);
    if (!conf.ok()) {
      if (access(path.c_str(), F_OK) != 0) {
        return Status(StatusCode::kUnavailable, "no cluster configuration at " + path +
                                                    " (start one with 'muster up', or set MUSTER_CONF)");
      }
      return conf.status();
    }
    c->cluster_name_ = conf->cluster_name;
    if (address.rfind("unix:", 0) != 0) RETURN_IF_ERROR(UseClusterTls(*conf));  // TCP may come
    if (address.empty() && conf->ctld_hosts.size() > 1) {
      // Several controllers: the one that leads (this host's socket first, when it has one).
      if (access(conf->ctld_socket.c_str(), W_OK) == 0) c->candidates_.push_back("unix:" + conf->ctld_socket);
      for (const std::string& h : conf->ctld_hosts) c->candidates_.push_back(h);
      // A token of the local agent for each TCP connection (a token opens one connection).
      auto shared = std::make_shared<const MusterConfig>(std::move(*conf));
      c->tcp_token_ = [shared]() -> StatusOr<std::string> { return LocalToken(*shared); };
      RETURN_IF_ERROR(c->FindLeaderAgain());
      return c;
    }
    if (address.empty()) {
      // One controller: its socket when we can reach it, else its TCP address.
      const std::string tcp = ControllerAddresses(*conf).front();
      if (access(conf->ctld_socket.c_str(), W_OK) == 0 || tcp.empty()) {
        address = "unix:" + conf->ctld_socket;
      } else {
        address = tcp;
      }
    }
    if (address.rfind("unix:", 0) != 0) {
      // TCP: ask a local agent (over its Unix socket) for a token bound to our uid, now (to fail
      // early), and again for each further connection (a token opens one connection).
      StatusOr<std::string> t = LocalToken(*conf);
      if (!t.ok()) return t.status();
      auto shared = std::make_shared<const MusterConfig>(std::move(*conf));
      StatusOr<std::unique_ptr<HttpClient>> http = HttpClient::Connect(
          address,
          HttpClient::TokenSource::FirstThen(std::move(*t), [shared] { return LocalToken(*shared); }),
          30000);
      if (!http.ok()) return http.status();
      c->http_ = std::move(*http);
      return c;
    }
  }
  StatusOr<std::unique_ptr<HttpClient>> http = HttpClient::Connect(address, token, 30000);
  if (!http.ok()) return http.status();
  c->http_ = std::move(*http);
  return c;
}

Status CtldClient::FindLeaderAgain() {
  StatusOr<FoundLeader> found = FindLeader(candidates_, tcp_token_);
  if (!found.ok()) return found.status();
  http_ = std::move(found->http);
  return Status::Ok();
}

StatusOr<std::string> CtldClient::Send(const std::string& method, const std::string& target, const std::string& body) {
  StatusOr<HttpResponse> r = http_->Request(method, target, body);
  user_msg_.clear();
  if (!r.ok()) return r.status();
  if (r->status != 200) {
    StatusOr<ErrorAnswer> error = wire::Decode<ErrorAnswer>(r->body, "the controller's answer");
    if (error.ok()) user_msg_ = error->user_msg;
    return Status(CodeFor(r->status), ErrorMessageOf(r->body, r->body));
  }
  return std::move(r->body);
}

template <wire::Record Answer>
StatusOr<Answer> CtldClient::Read(const StatusOr<std::string>& text) {
  if (!text.ok()) return text.status();
  StatusOr<Answer> answer = wire::Decode<Answer>(*text, "the controller's answer");
  if (!answer.ok()) return Internal("the controller sent a malformed answer: " + answer.status().message());
  return answer;
}

template <wire::Record Answer, wire::Record Request>
StatusOr<Answer> CtldClient::Exchange(const std::string& method, const std::string& target, const Request& request) {
  return Read<Answer>(Send(method, target, wire::Encode(request)));
}

StatusOr<int64_t> CtldClient::Submit(JobSpec request, int retry_s) {
  if (request.submit_key.empty()) {
    static constexpr char kHex[] = "0123456789abcdef";
    for (unsigned char b : RandomBytes(16)) {
      request.submit_key += kHex[b >> 4];
      request.submit_key += kHex[b & 15];
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(retry_s);
  std::chrono::milliseconds pause(100);
  while (true) {
    StatusOr<SubmitAnswer> r = Exchange<SubmitAnswer>("POST", "/v1/jobs", request);
    if (r.ok()) return r->job_id;
    Status why = r.status();
    while (true) {
      if (why.code() != StatusCode::kUnavailable || std::chrono::steady_clock::now() + pause > deadline) return why;
      std::this_thread::sleep_for(pause);  // the controller restarts, or its store is busy
      pause = std::min(pause * 2, std::chrono::milliseconds(2000));
      if (candidates_.empty()) break;
      // Several controllers: a takeover moves the leader; ask again which one leads.
      why = FindLeaderAgain();
      if (why.ok()) break;
    }
  }
}

StatusOr<WillRun> CtldClient::TestOnly(const JobSpec& request) {
  return Exchange<WillRun>("POST", "/v1/jobs?test_only=1", request);
}

namespace {

StatusOr<std::vector<JobRecord>> ReadJobList(const std::string& text) {
  StatusOr<std::vector<JobRecord>> jobs = ParseJobListJson(text);
  if (!jobs.ok()) return Internal("the controller sent a malformed job list: " + jobs.status().message());
  return jobs;
}

}  // namespace

StatusOr<std::vector<JobRecord>> CtldClient::Jobs(const std::string& query) {
  ASSIGN_OR_RETURN(std::string body, Send("GET", query.empty() ? "/v1/jobs" : "/v1/jobs?" + query));
  return ReadJobList(body);
}

StatusOr<std::string> CtldClient::RenderedJobs(const std::string& query) { return Send("GET", "/v1/jobs?" + query); }

StatusOr<JobRecord> CtldClient::Job(int64_t id) {
  ASSIGN_OR_RETURN(JobAnswer answer, Read<JobAnswer>(Send("GET", "/v1/jobs/" + std::to_string(id))));
  if (!answer.job) return Internal("the controller sent a malformed answer: no job");
  return std::move(answer.job->job);
}

StatusOr<WhyAnswer> CtldClient::Why(int64_t id) {
  return Read<WhyAnswer>(Send("GET", "/v1/jobs/" + std::to_string(id) + "/why"));
}

Status CtldClient::Cancel(int64_t id, int signal, const std::string& target) {
  std::string query;
  if (signal != 0) query = "?signal=" + std::to_string(signal) + (target.empty() ? "" : "&target=" + target);
  return Send("DELETE", "/v1/jobs/" + std::to_string(id) + query).status();
}

Status CtldClient::JobAction(int64_t id, const std::string& verb) {
  return Exchange<Empty>("POST", "/v1/jobs/" + std::to_string(id) + "/" + verb, Empty{}).status();
}

Status CtldClient::UpdateJob(int64_t id, const JobUpdate& update) {
  return Exchange<Empty>("POST", "/v1/jobs/" + std::to_string(id) + "/update", update).status();
}

Status CtldClient::Complete(int64_t id, int exit_code) {
  return Exchange<Empty>("POST", "/v1/jobs/" + std::to_string(id) + "/complete", ExitCode{exit_code}).status();
}

Status CtldClient::StepDone(int64_t job_id, int step_id, int exit_code) {
  return Exchange<Empty>("POST", "/v1/jobs/" + std::to_string(job_id) + "/steps/" + std::to_string(step_id) + "/done",
                         ExitCode{exit_code})
      .status();
}

StatusOr<StepAnswer> CtldClient::CreateStep(int64_t job_id, const StepCreate& request) {
  return Exchange<StepAnswer>("POST", "/v1/jobs/" + std::to_string(job_id) + "/steps", request);
}

StatusOr<std::vector<StepRecord>> CtldClient::Steps() {
  ASSIGN_OR_RETURN(StepsAnswer answer, Read<StepsAnswer>(Send("GET", "/v1/steps")));
  return std::move(answer.steps);
}

StatusOr<std::vector<NodeRecord>> CtldClient::Nodes(std::map<std::string, NodeAllocated>* allocated) {
  ASSIGN_OR_RETURN(NodesAnswer answer, Read<NodesAnswer>(Send("GET", "/v1/nodes")));
  std::vector<NodeRecord> out;
  out.reserve(answer.nodes.size());
  for (ListedNode& n : answer.nodes) {
    if (allocated != nullptr) (*allocated)[n.record.node.name] = n.allocated;
    out.push_back(std::move(n.record));
  }
  return out;
}

Status CtldClient::UpdateNode(const std::string& name, const NodeUpdate& update) {
  return Exchange<Empty>("POST", "/v1/nodes/" + name, update).status();
}

StatusOr<std::vector<Partition>> CtldClient::Partitions() {
  ASSIGN_OR_RETURN(PartitionsAnswer answer, Read<PartitionsAnswer>(Send("GET", "/v1/partitions")));
  return std::move(answer.partitions);
}

StatusOr<PingAnswer> CtldClient::Ping() { return Read<PingAnswer>(Send("GET", "/v1/ping")); }
StatusOr<UsageAnswer> CtldClient::Usage(int64_t start, int64_t end) {
  return Read<UsageAnswer>(
      Send("GET", "/v1/reports/usage?start=" + std::to_string(start) + "&end=" + std::to_string(end)));
}
StatusOr<DiagAnswer> CtldClient::Diag() { return Read<DiagAnswer>(Send("GET", "/v1/diag")); }
Status CtldClient::ResetDiag() { return Exchange<Empty>("POST", "/v1/diag/reset", Empty{}).status(); }
StatusOr<ConfigAnswer> CtldClient::Config() { return Read<ConfigAnswer>(Send("GET", "/v1/config")); }
Status CtldClient::Reconfigure() { return Exchange<Empty>("POST", "/v1/reconfigure", Empty{}).status(); }
StatusOr<JwtAnswer> CtldClient::MintJwt(const JwtRequest& request) {
  return Exchange<JwtAnswer>("POST", "/v1/jwt", request);
}

StatusOr<std::vector<JobRecord>> CtldClient::AccountingJobs(const std::string& query) {
  ASSIGN_OR_RETURN(std::string body, Send("GET", "/v1/accounting/jobs?" + query));
  return ReadJobList(body);
}

StatusOr<std::vector<StepRecord>> CtldClient::AccountingSteps(const std::string& ids) {
  ASSIGN_OR_RETURN(StepsAnswer answer, Read<StepsAnswer>(Send("GET", "/v1/accounting/steps?ids=" + ids)));
  return std::move(answer.steps);
}

StatusOr<PriorityAnswer> CtldClient::Priority() { return Read<PriorityAnswer>(Send("GET", "/v1/priority")); }
StatusOr<SharesAnswer> CtldClient::Shares() { return Read<SharesAnswer>(Send("GET", "/v1/shares")); }
StatusOr<PolicyAnswer> CtldClient::Policy() { return Read<PolicyAnswer>(Send("GET", "/v1/policy")); }

Status CtldClient::ChangePolicy(const PolicyOp& op) { return Exchange<Empty>("POST", "/v1/policy", op).status(); }

}  // namespace muster
