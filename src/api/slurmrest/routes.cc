// The routes of slurmrestd's v0.0.38 API: each authenticates its caller (auth.cc), calls the
// controller as that user (the same checks as the commands' routes) and answers in slurmrestd's
// shapes (shapes.h): {"meta", "errors", ...}; an error is an entry of "errors" with HTTP 500 as
// slurmrestd answers Slurm's errors (400 for a body it cannot read, 401 for no valid caller).
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <functional>
#include <map>
#include <optional>
#include <set>

#include <boost/json.hpp>

#include "api/slurmrest/shapes.h"
#include "ctld/controller_diag.h"
#include "api/slurmrest/slurmrest.h"
#include "api/slurmrest/submit.h"
#include "net/url.h"
#include "report/sacct_format.h"

namespace muster::slurmrest {

namespace bj = boost::json;

namespace {

constexpr char kJobs[] = "/slurm/v0.0.38";
constexpr char kDb[] = "/slurmdb/v0.0.38";

HttpResponse Answer(int status, const bj::object& body) {
  return HttpResponse::Json(status, bj::serialize(body));
}

// 200 with the envelope and `key`: `value`.
HttpResponse Ok(Plugin plugin, const char* key, bj::value value) {
  bj::object o = Envelope(plugin);
  if (key != nullptr) o[key] = std::move(value);
  return Answer(200, o);
}

// A Slurm error, as slurmrestd reports one: HTTP 500, the entry in "errors", and the answer's
// list (`key`) empty.
HttpResponse SlurmError(Plugin plugin, const Status& st, const std::string& source, const std::string& description,
                        const char* key = nullptr) {
  bj::object o = Envelope(plugin);
  o["errors"].as_array().push_back(
      ErrorEntry(description.empty() ? st.message() : description, SlurmErrorNumber(st.message()), st.message(), source));
  if (key != nullptr) o[key] = bj::array();
  return Answer(500, o);
}

// A body slurmrestd could not read: 400, the reason as slurmrestd words it (an unknown key; a
// missing environment; a known key's bad value, `key`), then its "Failure during parsing".
HttpResponse ParseError(const Status& st, const std::string& key = "") {
  bj::object o = Envelope(Plugin::kV0038);
  bj::array& errors = o["errors"].as_array();
  if (st.message().rfind("Unknown key", 0) == 0) {
    errors.push_back(bj::object{{"description", st.message()}, {"source", "hsearch_r"}});
  } else if (st.message() == "environment must be set") {
    errors.push_back(bj::object{{"error", st.message()}, {"error_code", 2127}});
  } else {
    errors.push_back(bj::object{{"error", st.message()}, {"error_code", -1}});
  }
  if (!key.empty()) {
    errors.push_back(ErrorEntry("Unable to process key \"" + key + "\"", -1, "Unspecified error",
                                "slurm_process_option_data"));
  }
  errors.push_back(bj::object{{"error_code", 9001}, {"error", "Failure during parsing"}});
  return Answer(400, o);
}

// A node or partition slurmrestd does not find: {"errno", "error"}, HTTP 500, the list empty.
HttpResponse NotFoundError(const std::string& message, const char* key) {
  bj::object o = Envelope(Plugin::kV0038);
  o["errors"].as_array().push_back(bj::object{{"errno", SlurmErrorNumber(message)}, {"error", message}});
  o[key] = bj::array();
  return Answer(500, o);
}


StatusOr<int64_t> JobId(const HttpRequest& req) {
  const std::string& s = req.params.at("job_id");
  int64_t v = 0;
  if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string::npos) {
    return InvalidArgument("Invalid job id specified");
  }
  for (char ch : s) v = v * 10 + (ch - '0');
  return v;
}

// "SIGUSR1", "USR1", "usr1" or "10".
std::optional<int> SignalByName(std::string name) {
  if (!name.empty() && name.find_first_not_of("0123456789") == std::string::npos) {
    const int n = std::atoi(name.c_str());
    if (n >= 1 && n <= 64) return n;
    return std::nullopt;
  }
  for (char& ch : name) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (name.rfind("SIG", 0) == 0) name = name.substr(3);
  for (int s = 1; s < 32; ++s) {
    const char* abbrev = sigabbrev_np(s);
    if (abbrev != nullptr && name == abbrev) return s;
  }
  return std::nullopt;
}

std::string HostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "localhost";
  return buf;
}

NodeActivityMap Usage(const Controller& c) { return UsageFromAllocated(c.AllocatedByNode()); }

// GET /slurmdb/v0.0.38/jobs' query: users, accounts, partitions, state (names), job_name,
// start_time, end_time (epoch seconds).
StatusOr<AccountingQuery> DbQuery(const std::map<std::string, std::string>& query) {
  AccountingQuery q;
  q.users = CommaSet(query, "users");
  q.accounts = CommaSet(query, "account");
  q.partitions = CommaSet(query, "partition");
  for (const std::string& name : CommaSet(query, "state")) {
    ASSIGN_OR_RETURN(JobState st, ParseJobState(name));
    q.states.insert(st);
  }
  for (auto [key, out] : {std::pair{"start_time", &q.start}, std::pair{"end_time", &q.end}}) {
    ASSIGN_OR_RETURN(std::optional<int64_t> seconds, QueryEpochSeconds(query, key));
    if (seconds) *out = *seconds;
  }
  return q;
}

bj::object ZeroCpuTime() { return bj::object{{"seconds", 0}, {"microseconds", 0}}; }

// What slurmdbd's step records have beyond sacct --json's (Muster gathers no CPU times, energy
// or frequencies: zeros and nulls, as Slurm writes them without jobacct_gather).
void CompleteStep(bj::object& s, const bj::array& allocated) {
  bj::object& time = s["time"].as_object();
  if (!time.contains("suspended")) time["suspended"] = 0;
  for (const char* k : {"system", "total", "user"}) time[k] = ZeroCpuTime();
  const bj::object none{{"max", bj::array()}, {"min", bj::array()}, {"average", bj::array()}, {"total", bj::array()}};
  s["tres"] = bj::object{{"requested", none}, {"consumed", none}, {"allocated", allocated}};
  s["pid"] = nullptr;
  s["CPU"] = bj::object{{"requested_frequency", bj::object{{"min", 0}, {"max", 0}}}, {"governor", bj::array()}};
  s["kill_request_user"] = nullptr;
  s["statistics"] = bj::object{{"CPU", bj::object{{"actual_frequency", 0}}}, {"energy", bj::object{{"consumed", 0}}}};
  s["step"].as_object()["het"] = bj::object{{"component", nullptr}};
  s["task"] = bj::object{{"distribution", "Unknown"}};
}

// The slurmdb job records of `jobs`: report/sacct_format.h's sacct --json records, with the
// batch step (Slurm accounts the batch script as step "batch" on the batch host) and the keys
// slurmdbd adds, in its order.
bj::array DbJobs(const Controller& c, const std::vector<JobRecord>& jobs) {
  std::set<int64_t> ids;
  for (const JobRecord& j : jobs) ids.insert(j.id);
  StatusOr<std::vector<StepRecord>> steps = c.AccountingSteps(ids);
  bj::value all = SacctJson(jobs, steps.ok() ? *steps : std::vector<StepRecord>(), c.cluster_name(), c.NowSeconds());
  bj::array& out = all.as_object()["jobs"].as_array();
  for (size_t i = 0; i < out.size() && i < jobs.size(); ++i) {
    const JobRecord& j = jobs[i];
    bj::object& o = out[i].as_object();
    o["array"].as_object()["limits"] =
        bj::object{{"max", bj::object{{"running", bj::object{{"tasks", j.array_max_running}}}}}};
    bj::object& time = o["time"].as_object();
    for (const char* k : {"system", "total", "user"}) time[k] = ZeroCpuTime();
    const bj::array allocated = o["tres"].as_object()["allocated"].as_array();
    bj::array& js = o["steps"].as_array();
    for (bj::value& s : js) CompleteStep(s.as_object(), bj::array());
    if (!j.interactive && j.start_time > 0 && !j.batch_host.empty()) {
      const int64_t end = j.end_time > 0 ? j.end_time : 0;
      bj::object batch{
          {"nodes", bj::object{{"list", bj::array{bj::value(j.batch_host)}}, {"count", 1}, {"range", j.batch_host}}},
          {"time", bj::object{{"elapsed", (end ? end : c.NowSeconds()) - j.start_time}, {"end", end},
                              {"start", j.start_time}}},
          {"exit_code", o["exit_code"]},
          {"tasks", bj::object{{"count", 1}}},
          {"state", JobStateName(j.state)},
          {"step", bj::object{{"job_id", j.id}, {"id", "batch"}, {"name", "batch"}}},
      };
      CompleteStep(batch, allocated);
      js.insert(js.begin(), InOrder(batch, {"nodes", "tres", "time", "exit_code", "tasks", "pid", "CPU",
                                            "kill_request_user", "state", "statistics", "step", "task"}));
    }
  }
  return std::move(out);
}

bj::object LimitsNull() {
  return bj::object{
      {"jobs", bj::object{{"per", bj::object{{"count", nullptr}, {"accruing", nullptr}, {"submitted", nullptr},
                                              {"wall_clock", nullptr}}},
                          {"active", nullptr},
                          {"accruing", nullptr},
                          {"total", nullptr}}},
      {"tres", bj::object{{"total", bj::array()},
                          {"minutes", bj::object{{"per", bj::object{{"job", bj::array()}}}, {"total", bj::array()}}},
                          {"group", bj::object{{"minutes", bj::array()}, {"active", bj::array()}}},
                          {"per", bj::object{{"job", bj::array()}, {"node", bj::array()}}}}},
      {"per", bj::object{{"account", bj::object{{"wall_clock", nullptr}}}}}};
}

// The associations of the accounts in force (muster.yaml's accounts with sacctmgr's changes):
// the root account, each account under its parent, each user's association.
bj::array Associations(const Controller& c) {
  const SchedPolicy policy = c.Policy();
  const std::string cluster = c.cluster_name();
  bj::array out;
  auto assoc = [&](const std::string& account, const bj::value& parent, const bj::value& user, int64_t shares,
                   const Account* a, bool is_default) {
    bj::object max = LimitsNull();
    bj::array qos;
    if (a != nullptr) {
      if (a->max_jobs != kUnlimited) max["jobs"].as_object()["per"].as_object()["count"] = a->max_jobs;
      if (a->grp_jobs != kUnlimited) max["jobs"].as_object()["active"] = a->grp_jobs;
      if (a->max_wall_s != kUnlimited) {
        max["per"].as_object()["account"].as_object()["wall_clock"] = a->max_wall_s / 60;
      }
      for (const std::string& q : a->qos) qos.emplace_back(q);
    }
    if (qos.empty()) qos.emplace_back("normal");
    out.push_back(bj::object{{"account", account},
                             {"cluster", cluster},
                             {"default", bj::object{{"qos", nullptr}}},
                             {"flags", is_default ? bj::array{"DEFAULT"} : bj::array()},
                             {"max", std::move(max)},
                             {"is_default", is_default ? 1 : 0},
                             {"min", bj::object{{"priority_threshold", nullptr}}},
                             {"parent_account", parent},
                             {"partition", nullptr},
                             {"priority", nullptr},
                             {"qos", std::move(qos)},
                             {"shares_raw", shares},
                             {"usage", nullptr},
                             {"user", user}});
  };
  assoc("root", nullptr, nullptr, 1, nullptr, false);
  std::map<std::string, const Account*> by_name;
  for (const Account& a : policy.accounts.accounts) by_name[a.name] = &a;
  for (const Account& a : policy.accounts.accounts) {
    assoc(a.name, bj::value(a.parent.empty() ? "root" : a.parent), nullptr, a.shares, &a, false);
  }
  std::set<std::string> seen_users;
  for (const UserAssociation& u : policy.accounts.users) {
    const std::string account = u.account.empty() ? "root" : u.account;
    auto it = by_name.find(u.account);
    const bool first = seen_users.insert(u.user).second;
    assoc(account, nullptr, bj::value(u.user), u.shares, it == by_name.end() ? nullptr : it->second, first);
  }
  return out;
}

// Adds a route: see AddSlurmRestRoutes.
using AddRoute = std::function<void(const char* method, const std::string& path,
                                    std::function<HttpResponse(const HttpRequest&, const Caller&)> fn)>;

// The server's: /ping, /diag.
void AddServerRoutes(const AddRoute& route, Controller& c, const RestOptions& options) {
  const std::string v = kJobs;
  route("GET", v + "/ping", [](const HttpRequest&, const Caller&) {
    return Ok(Plugin::kV0038, "pings",
              bj::array{bj::object{{"hostname", HostName()}, {"ping", "UP"}, {"status", 0}, {"mode", "primary"}}});
  });

  route("GET", v + "/diag", [&c, options](const HttpRequest&, const Caller&) {
    return Ok(Plugin::kV0038, "statistics", DiagJson(ControllerDiag(c, options.server_threads)));
  });
}

// The jobs': list, get, submit, update, signal or cancel.
void AddJobsRoutes(const AddRoute& route, Controller& c) {
  const std::string v = kJobs;
  // ?update_time= is taken and not used: the list is always whole (docs/slurm-compatibility.md).
  route("GET", v + "/jobs", [&c](const HttpRequest&, const Caller&) {
    bj::array jobs;
    for (const JobRecord& j : c.ListJobs(JobQuery())) jobs.push_back(JobJson(j, c.cluster_name()));
    return Ok(Plugin::kV0038, "jobs", std::move(jobs));
  });

  route("GET", v + "/job/{job_id}", [&c](const HttpRequest& req, const Caller&) {
    StatusOr<int64_t> id = JobId(req);
    StatusOr<JobRecord> j = id.ok() ? c.GetJob(*id) : StatusOr<JobRecord>(id.status());
    if (!j.ok()) {
      return SlurmError(Plugin::kV0038, j.status(), "slurm_load_job",
                        "Unable to find JobId=" + req.params.at("job_id"), "jobs");
    }
    return Ok(Plugin::kV0038, "jobs", bj::array{JobJson(*j, c.cluster_name())});
  });

  route("POST", v + "/job/submit", [&c](const HttpRequest& req, const Caller& caller) {
    std::string bad_key;
    StatusOr<JobSpec> s = ReadSubmission(req.body, &bad_key);
    bj::object o = Envelope(Plugin::kV0038);
    auto refused = [&o](const Status& st, const std::string& user_msg) {
      o["errors"].as_array().push_back(
          bj::object{{"error_code", SlurmErrorNumber(st.message())}, {"error", st.message()}});
      if (!user_msg.empty()) o["job_submit_user_msg"] = user_msg;
      return Answer(500, o);
    };
    if (!s.ok() && (s.status().message() == kDependencyProblem || s.status().message() == kArrayProblem)) {
      return refused(s.status(), "");
    }
    if (!s.ok()) return ParseError(s.status(), bad_key);
    if (s->script.empty()) {
      o["errors"].as_array().push_back(bj::object{{"error_code", 2009}, {"error", "Job script not specified"}});
      return Answer(500, o);
    }
    std::string user_msg;
    // Slurm's properties became sbatch's options: read once, here, as the controller takes a job typed.
    Status options = SetResourceOptions(*s, s->submit_args);
    StatusOr<int64_t> id = options.ok() ? c.Submit(*s, caller, &user_msg) : StatusOr<int64_t>(options);
    if (!id.ok()) return refused(id.status(), user_msg);
    o["job_id"] = *id;
    o["step_id"] = "BATCH";
    o["job_submit_user_msg"] = user_msg;
    return Answer(200, o);
  });

  route("POST", v + "/job/{job_id}", [&c](const HttpRequest& req, const Caller& caller) {
    StatusOr<RestUpdate> u = ReadUpdate(req.body);
    if (!u.ok()) return ParseError(u.status());
    StatusOr<int64_t> id = JobId(req);
    Status st = id.status();
    if (st.ok() && u->fields.empty() && u->hold == 0) st = c.GetJob(*id).status();  // nothing to change: it must exist
    if (st.ok() && !u->fields.empty()) st = c.UpdateJob(*id, u->fields, caller);
    if (st.ok() && u->hold != 0) st = c.Hold(*id, u->hold > 0, caller);
    if (!st.ok()) return SlurmError(Plugin::kV0038, st, "_parse_job_list", "job update failed");
    return Ok(Plugin::kV0038, nullptr, nullptr);
  });

  // ?signal=NAME: that signal to the job; without one, cancel it (slurmrestd sends SIGKILL, which
  // is scancel's cancel).
  route("DELETE", v + "/job/{job_id}", [&c](const HttpRequest& req, const Caller& caller) {
    StatusOr<int64_t> id = JobId(req);
    int signal = 0;
    if (auto it = req.query.find("signal"); it != req.query.end()) {
      std::optional<int> s = SignalByName(it->second);
      if (!s) return ParseError(InvalidArgument("Unknown signal " + it->second));
      if (*s != SIGKILL) signal = *s;
    }
    // A signal goes to the job's steps, not its batch shell, as slurmrestd's (scancel -s's default).
    Status st = id.ok() ? c.Cancel(*id, signal, caller, signal == 0 ? "full" : "steps") : id.status();
    if (!st.ok()) {
      return SlurmError(Plugin::kV0038, st, "slurm_kill_job",
                        "unable to kill JobId=" + req.params.at("job_id") + " with signal " +
                            std::to_string(signal == 0 ? SIGKILL : signal) + ": " + st.message());
    }
    return Ok(Plugin::kV0038, nullptr, nullptr);
  });
}

// The nodes' and the partitions'.
void AddNodeRoutes(const AddRoute& route, Controller& c) {
  const std::string v = kJobs;
  route("GET", v + "/nodes", [&c](const HttpRequest&, const Caller&) {
    return Ok(Plugin::kV0038, "nodes", NodesJson(c.ListPartitions(), c.ListNodes(), Usage(c), c.NowSeconds()));
  });

  route("GET", v + "/node/{name}", [&c](const HttpRequest& req, const Caller&) {
    const std::string& name = req.params.at("name");
    bj::array all = NodesJson(c.ListPartitions(), c.ListNodes(), Usage(c), c.NowSeconds());
    bj::array one;
    for (bj::value& n : all) {
      if (n.as_object().at("name").as_string() == name) one.push_back(std::move(n));
    }
    if (one.empty()) return NotFoundError("Invalid node name specified", "nodes");
    return Ok(Plugin::kV0038, "nodes", std::move(one));
  });

  route("GET", v + "/partitions", [&c](const HttpRequest&, const Caller&) {
    const std::vector<NodeRecord> nodes = c.ListNodes();
    bj::array out;
    for (const Partition& p : c.ListPartitions()) out.push_back(PartitionJson(p, nodes));
    return Ok(Plugin::kV0038, "partitions", std::move(out));
  });

  route("GET", v + "/partition/{name}", [&c](const HttpRequest& req, const Caller&) {
    const std::string& name = req.params.at("name");
    const std::vector<NodeRecord> nodes = c.ListNodes();
    for (const Partition& p : c.ListPartitions()) {
      if (p.name == name) return Ok(Plugin::kV0038, "partitions", bj::array{PartitionJson(p, nodes)});
    }
    return NotFoundError("Invalid partition name specified", "partitions");
  });
}

// slurmdbd's: the accounting of jobs, the associations.
void AddDbRoutes(const AddRoute& route, Controller& c) {
  const std::string db = kDb;
  route("GET", db + "/jobs", [&c](const HttpRequest& req, const Caller&) {
    StatusOr<AccountingQuery> q = DbQuery(req.query);
    if (!q.ok()) return SlurmError(Plugin::kDbV0038, q.status(), "_parse_query", "", "jobs");
    StatusOr<std::vector<JobRecord>> jobs = c.Accounting(*q);
    if (!jobs.ok()) return SlurmError(Plugin::kDbV0038, jobs.status(), "slurmdb_jobs_get", "", "jobs");
    return Ok(Plugin::kDbV0038, "jobs", DbJobs(c, *jobs));
  });

  route("GET", db + "/job/{job_id}", [&c](const HttpRequest& req, const Caller&) {
    StatusOr<int64_t> id = JobId(req);
    if (!id.ok()) return SlurmError(Plugin::kDbV0038, id.status(), "_parse_query", "", "jobs");
    AccountingQuery q;
    q.ids = {*id};
    StatusOr<std::vector<JobRecord>> jobs = c.Accounting(q);
    if (jobs.ok() && jobs->empty()) jobs = Status(StatusCode::kNotFound, "Nothing found with query");
    if (!jobs.ok()) {
      bj::object o = Envelope(Plugin::kDbV0038);
      o["errors"].as_array().push_back(ErrorEntry("Nothing found", 9003, jobs.status().message(), "slurmdb_jobs_get"));
      o["jobs"] = bj::array();
      return Answer(200, o);  // (slurmrestd answers 200 here)
    }
    return Ok(Plugin::kDbV0038, "jobs", DbJobs(c, *jobs));
  });

  route("GET", db + "/associations", [&c](const HttpRequest&, const Caller&) {
    return Ok(Plugin::kDbV0038, "associations", Associations(c));
  });
}

}  // namespace

HttpResponse AuthenticationFailure() { return HttpResponse{401, "text/plain", "Authentication failure"}; }

bool IsSlurmRestPath(std::string_view path) {
  return path.rfind("/slurm/", 0) == 0 || path.rfind("/slurmdb/", 0) == 0;
}

int64_t SlurmRestBodyLimit(std::string_view method, std::string_view path) {
  if (method == "GET" || method == "HEAD" || method == "DELETE") return 64 << 10;
  if (method == "POST" && path.ends_with("/job/submit")) return 16 << 20;
  return 1 << 20;
}

void AddSlurmRestRoutes(Controller& c, Router& r, const RestOptions& options) {
  // Each handler runs as the authenticated user, or answers 401; its body limit is the REST API's
  // for its method and pattern.
  auto route = [&c, &r, options](const char* method, const std::string& path,
                                 std::function<HttpResponse(const HttpRequest&, const Caller&)> fn) {
    r.Add(method, path, SlurmRestBodyLimit(method, path), [&c, options, fn](const HttpRequest& req) {
      StatusOr<Caller> who = Authenticate(req, options.jwt_key, c.NowSeconds(),
                                          [&c](uint32_t uid) { return c.IsAdmin(Caller{true, uid, 0, "jwt", ""}); });
      if (!who.ok()) return AuthenticationFailure();
      return fn(req, *who);
    });
  };
  AddServerRoutes(route, c, options);
  AddJobsRoutes(route, c);
  AddNodeRoutes(route, c);
  AddDbRoutes(route, c);
}

}  // namespace muster::slurmrest
