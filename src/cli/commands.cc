#include "cli/commands.h"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include "base/clock.h"
#include "cli/command_args.h"
#include "cli/ctld_client.h"
#include "cli/sbatch_args.h"
#include "report/scontrol_format.h"
#include "report/sinfo_format.h"
#include "report/slurm_format.h"
#include "report/squeue_format.h"
#include "model/hostlist.h"
#include "model/record_json.h"

extern char** environ;

namespace muster {

using nlohmann::json;

namespace {

int64_t Now() { return SystemClock().NowSeconds(); }

std::string Hostname() {
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  return host;
}

int Emit(const SlurmOutput& o, std::ostream& out, std::ostream& err) {
  out << o.out;
  err << o.err;
  return o.exit_code;
}

}  // namespace

int SbatchMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  char cwd[4096] = {0};
  if (getcwd(cwd, sizeof cwd) == nullptr) std::strcpy(cwd, "/");
  auto reader = [](const std::string& path) -> StatusOr<std::string> {
    std::ifstream in(path.empty() ? "/dev/stdin" : path, std::ios::binary);
    if (!in) return NotFound("Unable to open file " + path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  StatusOr<SbatchRequest> req = ParseSbatchArgs(args, cwd, reader);
  if (!req.ok()) {
    CommandError e = SbatchError(req.status());
    err << e.stderr_text;
    return e.exit_code;
  }
  if (req->help) return out << SbatchHelp(), 0;
  if (req->usage) return out << SbatchUsage(), 0;
  if (req->version) return out << "muster 0.1.0 (sbatch)\n", 0;
  json env = json::array();
  if (req->export_mode != "NONE") {
    for (char** e = environ; *e != nullptr; ++e) env.push_back(*e);
  }
  json body{{"resource_args", req->resource_args},
            {"name", req->name},
            {"script", req->script},
            {"script_args", req->script_args},
            {"workdir", req->workdir},
            {"environment", env},
            {"stdout", req->output},
            {"stderr", req->error},
            {"stdin", req->input},
            {"account", req->account},
            {"qos", req->qos},
            {"nice", req->nice},
            {"hold", req->hold},
            {"requeue", req->requeue},
            {"submit_host", Hostname()}};
  StatusOr<std::unique_ptr<CtldClient>> c = CtldClient::Connect();
  if (!c.ok()) {
    err << "sbatch: error: Batch job submission failed: " << c.status().message() << "\n";
    return 1;
  }
  StatusOr<json> r = (*c)->Call("POST", "/v1/jobs", body);
  if (!r.ok()) {
    if (r.status().message() == "Invalid partition name specified") {
      err << "sbatch: error: invalid partition specified: " << req->request.partition << "\n";
    }
    err << "sbatch: error: Batch job submission failed: " << r.status().message() << "\n";
    return 1;
  }
  const int64_t id = (*r)["job_id"].get<int64_t>();
  if (req->parsable) {
    out << id << "\n";
  } else {
    out << "Submitted batch job " << id << "\n";
  }
  return 0;
}

int SqueueMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  SqueueOptions opt;
  std::set<std::string> users, parts, states;
  std::set<int64_t> ids;
  bool json_out = false, long_fmt = false, start = false;
  std::string format;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string v;
    if (a == "-l" || a == "--long") {
      long_fmt = true;
    } else if (a == "-h" || a == "--noheader") {
      opt.no_header = true;
    } else if (a == "--me") {
      users.insert(std::to_string(getuid()));  // the selection takes names and numeric uids alike
    } else if (a == "--json") {
      json_out = true;
    } else if (a == "--start") {
      start = true;
    } else if (a == "--help") {
      out << "Usage: squeue [-l] [-h] [-u users] [-j jobs] [-t states] [-p partitions] [--me] [-o format] [--start] "
             "[--json]\n";
      return 0;
    } else if (TakeValue(args, i, "-u", "--user", &v)) {
      // The controller checks the names against its user database ("Invalid user: x").
      for (auto& u : Split(v, ',')) users.insert(u);
    } else if (TakeValue(args, i, "-j", "--jobs", &v)) {
      for (auto& s : Split(v, ',')) {
        if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) {
          err << "squeue: error: Invalid job id: " << s << "\n";
          return 1;
        }
        ids.insert(std::stoll(s));
      }
    } else if (TakeValue(args, i, "-t", "--states", &v)) {
      for (auto& s : Split(v, ',')) {
        std::string up = s;
        for (char& ch : up) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        if (up == "ALL") {
          states.insert("ALL");
          continue;
        }
        StatusOr<JobState> st = ParseJobState(up);
        if (!st.ok()) {
          err << "squeue: error: Invalid job state specified: " << s << "\n";
          return 1;
        }
        states.insert(JobStateName(*st));
      }
    } else if (TakeValue(args, i, "-p", "--partition", &v)) {
      for (auto& s : Split(v, ',')) parts.insert(s);
    } else if (TakeValue(args, i, "-o", "--format", &v)) {
      format = v;
    } else {
      err << "squeue: unrecognized option '" << a << "'\nTry \"squeue --help\" for more information\n";
      return 1;
    }
  }
  // --start: pending jobs with their expected start (backfill's reservation), as Slurm lists them.
  if (start && states.empty()) states.insert(JobStateName(JobState::kPending));
  SqueueSelection selection{ids, users, parts, states};
  if (start) opt.format = "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R";
  if (long_fmt) {
    SqueueOptions l = SqueueLongOptions();
    l.no_header = opt.no_header;
    opt = l;
  }
  if (!format.empty()) opt.format = format;
  StatusOr<std::unique_ptr<CtldClient>> c = CtldClient::Connect();
  if (!c.ok()) return ConnectError("squeue", c.status(), err);
  if (!json_out) {
    // The controller selects and renders the table (report/squeue_format.h).
    StatusOr<std::string> text = (*c)->CallRaw("GET", "/v1/jobs?" + SqueueQuery(selection, opt));
    if (!text.ok() && text.status().code() == StatusCode::kNotFound) return Emit(InvalidJobIdError(), out, err);
    if (!text.ok() && text.status().code() == StatusCode::kInvalidArgument) {
      err << "squeue: error: " << text.status().message() << "\n";
      return 1;
    }
    if (!text.ok()) return ConnectError("squeue", text.status(), err);
    out << *text;
    return 0;
  }
  StatusOr<std::vector<JobRecord>> jobs = (*c)->Jobs(SqueueSelectionQuery(selection));
  if (!jobs.ok() && jobs.status().code() == StatusCode::kInvalidArgument) {
    err << "squeue: error: " << jobs.status().message() << "\n";
    return 1;
  }
  if (!jobs.ok()) return ConnectError("squeue", jobs.status(), err);
  std::erase_if(*jobs, [&](const JobRecord& j) { return !selection.Matches(j); });
  if (!ids.empty() && jobs->empty() && states.empty()) return Emit(InvalidJobIdError(), out, err);
  json arr = json::array();
  for (const JobRecord& j : *jobs) arr.push_back(ToJson(j));
  out << json{{"jobs", arr}}.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
  return 0;
}

int SinfoMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  SinfoOptions opt;
  std::set<std::string> parts;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string v;
    if (a == "-N" || a == "--Node") {
      opt.node_oriented = true;
    } else if (a == "-l" || a == "--long") {
      opt.long_output = true;
    } else if (a == "-Nl" || a == "-lN") {
      opt.node_oriented = opt.long_output = true;
    } else if (a == "-h" || a == "--noheader") {
      opt.no_header = true;
    } else if (a == "--help") {
      out << "Usage: sinfo [-N] [-l] [-h] [-p partitions] [-o format]\n";
      return 0;
    } else if (TakeValue(args, i, "-o", "--format", &v)) {
      opt.format = v;
    } else if (TakeValue(args, i, "-p", "--partition", &v)) {
      for (auto& s : Split(v, ',')) parts.insert(s);
    } else {
      err << "sinfo: unrecognized option '" << a << "'\nTry \"sinfo --help\" for more information\n";
      return 1;
    }
  }
  StatusOr<std::unique_ptr<CtldClient>> c = CtldClient::Connect();
  if (!c.ok()) return ConnectError("sinfo", c.status(), err);
  StatusOr<std::vector<Partition>> ps = (*c)->Partitions();
  if (!ps.ok()) return ConnectError("sinfo", ps.status(), err);
  std::map<std::string, NodeAllocated> allocated;
  StatusOr<std::vector<NodeRecord>> nodes = (*c)->Nodes(&allocated);
  if (!nodes.ok()) return ConnectError("sinfo", nodes.status(), err);
  std::vector<Partition> shown;
  for (const Partition& p : *ps) {
    if (parts.empty() || parts.count(p.name)) shown.push_back(p);
  }
  StatusOr<std::string> text = FormatSinfo(shown, *nodes, UsageFromAllocated(allocated), opt, Now());
  if (!text.ok()) {
    err << "sinfo: error: " << text.status().message() << "\n";
    return 1;
  }
  out << *text;
  return 0;
}

int ScancelMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::vector<int64_t> ids;
  std::string user, name, signal_name;
  bool verbose = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string v;
    if (a == "-v" || a == "--verbose") {
      verbose = true;
    } else if (a == "--help") {
      out << "Usage: scancel [-u user] [-n name] [-s signal] [job_id[,job_id...]]\n";
      return 0;
    } else if (TakeValue(args, i, "-u", "--user", &v)) {
      user = v;
    } else if (TakeValue(args, i, "-n", "--name", &v) || TakeValue(args, i, "", "--jobname", &v)) {
      name = v;
    } else if (TakeValue(args, i, "-s", "--signal", &v)) {
      signal_name = v;
    } else if (!a.empty() && a[0] != '-') {
      for (auto& s : Split(a, ',')) {
        if (s.find_first_not_of("0123456789") != std::string::npos) {
          err << "scancel: error: Invalid job id " << s << "\n";
          return 1;
        }
        ids.push_back(std::stoll(s));
      }
    } else {
      err << "scancel: unrecognized option '" << a << "'\nTry \"scancel --help\" for more information\n";
      return 1;
    }
  }
  int sig = 0;
  if (!signal_name.empty()) {
    std::string s = signal_name;
    if (s.rfind("SIG", 0) == 0) s = s.substr(3);
    if (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos) {
      sig = std::stoi(s);
    } else {
      for (int k = 1; k < NSIG; ++k) {
        const char* abbrev = sigabbrev_np(k);
        if (abbrev != nullptr && s == abbrev) sig = k;
      }
    }
    if (sig <= 0 || sig >= NSIG) {
      err << "scancel: error: Invalid job signal: " << signal_name << "\n";
      return 1;
    }
  }
  if (ids.empty() && user.empty() && name.empty()) {
    err << "scancel: error: No job identification provided\n";
    return 1;
  }
  StatusOr<std::unique_ptr<CtldClient>> c = CtldClient::Connect();
  if (!c.ok()) return ConnectError("scancel", c.status(), err);
  const bool filtered = !user.empty() || !name.empty();
  if (filtered) {
    StatusOr<std::vector<JobRecord>> jobs = (*c)->Jobs("active=1");  // finished jobs cannot be cancelled
    if (!jobs.ok()) return ConnectError("scancel", jobs.status(), err);
    // Ids given with -u/-n narrow the filter (Slurm: the job must match all of them).
    const std::vector<int64_t> given = std::move(ids);
    ids.clear();
    for (const JobRecord& j : *jobs) {
      if (IsFinished(j.state)) continue;
      if (!user.empty() && j.user != user && std::to_string(j.uid) != user) continue;
      if (!name.empty() && j.name != name) continue;
      if (!given.empty() && std::find(given.begin(), given.end(), j.id) == given.end()) continue;
      ids.push_back(j.id);
    }
    std::sort(ids.begin(), ids.end());
  }
  int rc = 0;
  for (int64_t id : ids) {
    StatusOr<json> r = (*c)->Call("DELETE", "/v1/jobs/" + std::to_string(id) + (sig ? "?signal=" + std::to_string(sig) : ""));
    if (r.ok()) continue;
    // A job a filter chose that ended (or left the controller) since the listing: what was asked
    // holds, so it is not an error (Slurm reports these only with -v).
    const bool gone = r.status().code() == StatusCode::kFailedPrecondition || r.status().code() == StatusCode::kNotFound;
    if (filtered && gone && !verbose) continue;
    if (r.status().code() == StatusCode::kNotFound) {
      rc = std::max(rc, Emit(ScancelInvalidJob(id, verbose), out, err));
    } else {
      err << "scancel: error: Kill job error on job id " << id << ": " << r.status().message() << "\n";
      rc = 1;
    }
  }
  return rc;
}

int ScontrolMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  bool one_liner = false;
  std::vector<std::string> a;
  for (const std::string& s : args) {
    if (s == "-o" || s == "--oneliner") {
      one_liner = true;
    } else {
      a.push_back(s);
    }
  }
  if (a.empty() || a[0] == "--help" || a[0] == "help") {
    out << "Usage: scontrol [-o] show job|node|partition [ID] | update NodeName=N State=DRAIN|RESUME|DOWN Reason=R"
           " | hold ID | release ID | ping\n";
    return a.empty() ? 1 : 0;
  }
  StatusOr<std::unique_ptr<CtldClient>> c = CtldClient::Connect();
  if (!c.ok()) return ConnectError("scontrol", c.status(), err);
  const std::string verb = a[0];
  if (verb == "ping") {
    StatusOr<json> r = (*c)->Call("GET", "/v1/ping");
    out << "Slurmctld(primary) at " << Hostname() << " is " << (r.ok() ? "UP" : "DOWN") << "\n";
    return r.ok() ? 0 : 1;
  }
  if (verb == "show" && a.size() >= 2) {
    const std::string what = a[1];
    const std::string id = a.size() >= 3 ? a[2] : "";
    if (what == "job" || what == "jobs") {
      const bool numeric = !id.empty() && id.find_first_not_of("0123456789") == std::string::npos;
      if (!id.empty() && !numeric) return Emit(InvalidJobIdError(), out, err);
      // The controller renders the records (report/scontrol_format.h) from what it holds.
      StatusOr<std::string> text = (*c)->CallRaw(
          "GET", "/v1/jobs?render=scontrol" + (numeric ? "&ids=" + id : "") + (one_liner ? "&oneliner=1" : ""));
      if (!text.ok() && text.status().code() == StatusCode::kNotFound) return Emit(InvalidJobIdError(), out, err);
      if (!text.ok()) return ConnectError("scontrol", text.status(), err);
      out << (text->empty() ? "No jobs in the system\n" : *text);
      return 0;
    }
    if (what == "node" || what == "nodes") {
      std::map<std::string, NodeAllocated> allocated;
      StatusOr<std::vector<NodeRecord>> nodes = (*c)->Nodes(&allocated);
      StatusOr<std::vector<Partition>> ps = (*c)->Partitions();
      if (!nodes.ok() || !ps.ok()) return ConnectError("scontrol", Internal("cannot read nodes"), err);
      NodeActivityMap usage = UsageFromAllocated(allocated);
      bool any = false;
      for (const NodeRecord& n : *nodes) {
        if (!id.empty() && n.node.name != id) continue;
        out << FormatScontrolNode(n, *ps, usage[n.node.name], Now(), one_liner);
        any = true;
      }
      if (!any && !id.empty()) return Emit(NodeNotFoundError(id), out, err);
      return 0;
    }
    if (what == "partition" || what == "partitions") {
      StatusOr<std::vector<NodeRecord>> nodes = (*c)->Nodes();
      StatusOr<std::vector<Partition>> ps = (*c)->Partitions();
      if (!nodes.ok() || !ps.ok()) return ConnectError("scontrol", Internal("cannot read partitions"), err);
      bool any = false;
      for (const Partition& p : *ps) {
        if (!id.empty() && p.name != id) continue;
        out << FormatScontrolPartition(p, *nodes, one_liner);
        any = true;
      }
      if (!any && !id.empty()) return Emit(PartitionNotFoundError(id), out, err);
      return 0;
    }
    err << "scontrol: error: invalid entity: " << what << " for keyword:show\n";
    return 1;
  }
  if ((verb == "hold" || verb == "release") && a.size() >= 2) {
    int rc = 0;
    for (const std::string& s : Split(a[1], ',')) {
      StatusOr<json> r = (*c)->Call("POST", "/v1/jobs/" + s + "/" + verb);
      if (!r.ok()) {
        err << "Job " << s << ": " << r.status().message() << "\n";
        rc = 1;
      }
    }
    return rc;
  }
  if (verb == "update") {
    std::string node, state, reason;
    for (size_t i = 1; i < a.size(); ++i) {
      auto eq = a[i].find('=');
      if (eq == std::string::npos) {
        err << "scontrol: error: Invalid input: " << a[i] << "\n";
        return 1;
      }
      std::string k = a[i].substr(0, eq), v = a[i].substr(eq + 1);
      std::string lk = k;
      for (char& ch : lk) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      if (lk == "nodename" || lk == "node") {
        node = v;
      } else if (lk == "state") {
        state = v;
      } else if (lk == "reason") {
        reason = v;
      } else {
        err << "scontrol: error: Update of this parameter is not supported: " << a[i] << "\n";
        return 1;
      }
    }
    if (node.empty() || state.empty()) {
      err << "scontrol: error: update needs NodeName= and State=\n";
      return 1;
    }
    StatusOr<std::vector<std::string>> names = ExpandHostlist(node);
    if (!names.ok()) {
      err << "scontrol: error: " << names.status().message() << "\n";
      return 1;
    }
    for (const std::string& n : *names) {
      StatusOr<json> r = (*c)->Call("POST", "/v1/nodes/" + n, json{{"state", state}, {"reason", reason}});
      if (!r.ok()) {
        err << "slurm_update error: " << r.status().message() << "\n";
        return 1;
      }
    }
    return 0;
  }
  err << "scontrol: error: Invalid keyword: " << verb << "\n";
  return 1;
}

}  // namespace muster
