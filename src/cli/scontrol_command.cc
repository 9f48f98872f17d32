// scontrol: show job|node|partition|config|hostnames|hostlist|hostlistsorted, update (jobs and
// nodes), hold, uhold, release, requeue, ping, version; -o one line per record, --json for jobs.
// Every other command of Slurm's scontrol is refused with the reason its row gives
// (ScontrolCommandTable, cli/admin_options.cc).
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <optional>

#include <boost/json.hpp>

#include "base/strings.h"
#include "base/clock.h"
#include "cli/command_args.h"
#include "cli/command_help.h"
#include "cli/command_options.h"
#include "cli/commands.h"
#include "cli/ctld_client.h"
#include "cli/scontrol_ping.h"
#include "config/muster_config.h"
#include "model/hostlist.h"
#include "model/job_list_json.h"
#include "base/pretty_json.h"
#include "model/record_json.h"
#include "model/slurm_time.h"
#include "report/scontrol_format.h"
#include "report/slurm_format.h"

namespace muster {


namespace {

int64_t Now() { return SystemClock().NowSeconds(); }

// Slurm's hostlist_ranged_string of names in their order: consecutive names of one prefix (and
// digit width) share brackets, and a number one above the last extends its range ("n[3,1-2]").
std::string OrderedHostlist(const std::vector<std::string>& names) {
  struct Range {
    long lo, hi;
  };
  std::string out, prefix;
  size_t width = 0;
  std::vector<Range> ranges;
  const auto flush = [&] {
    if (ranges.empty()) return;
    if (!out.empty()) out += ',';
    const auto num = [&](long v) {
      std::string d = std::to_string(v);
      return std::string(d.size() < width ? width - d.size() : 0, '0') + d;
    };
    std::string body;
    for (const Range& r : ranges) {
      if (!body.empty()) body += ',';
      body += num(r.lo) + (r.hi > r.lo ? "-" + num(r.hi) : "");
    }
    out += ranges.size() == 1 && ranges[0].lo == ranges[0].hi ? prefix + body : prefix + "[" + body + "]";
    ranges.clear();
  };
  for (const std::string& n : names) {
    size_t d = n.size();
    while (d > 0 && std::isdigit(static_cast<unsigned char>(n[d - 1]))) --d;
    if (d == n.size() || n.size() - d > 9) {  // no number: a name of its own
      flush();
      out += (out.empty() ? "" : ",") + n;
      continue;
    }
    const std::string p = n.substr(0, d);
    const size_t w = n[d] == '0' && n.size() - d > 1 ? n.size() - d : 0;
    const long v = std::stol(n.substr(d));
    if (ranges.empty() || p != prefix || w != width) {
      flush();
      prefix = p;
      width = w;
    }
    if (!ranges.empty() && ranges.back().hi + 1 == v) {
      ranges.back().hi = v;
    } else {
      ranges.push_back({v, v});
    }
  }
  flush();
  return out;
}

// scontrol show hostlist|hostlistsorted NAMES: Slurm's one expression of the names (a list or a
// hostlist expression); "hostlist" keeps their order, "hostlistsorted" sorts them.
int ShowHostlist(std::string_view name, const std::vector<std::string>& a, std::ostream& out, std::ostream& err) {
  if (a.size() < 3) {
    err << "scontrol: error: host list is empty\n";
    return 1;
  }
  StatusOr<std::vector<std::string>> names = ExpandHostlist(a[2]);
  if (!names.ok()) {
    err << "scontrol: error: " << names.status().message() << "\n";
    return 1;
  }
  out << (name == "show hostlist" ? OrderedHostlist(*names) : CompressHostlist(*names)) << "\n";
  return 0;
}

// scontrol show hostnames [NAMES]: one name a line (the job's SLURM_JOB_NODELIST by default).
int ShowHostnames(const std::vector<std::string>& a, std::ostream& out, std::ostream& err) {
  std::string list = a.size() >= 3 ? a[2] : "";
  if (list.empty()) {
    const char* env = std::getenv("SLURM_JOB_NODELIST");
    if (env == nullptr || *env == '\0') {
      err << "scontrol: error: host list is empty\n";
      return 1;
    }
    list = env;
  }
  StatusOr<std::vector<std::string>> names = ExpandHostlist(list);
  if (!names.ok()) {
    err << "scontrol: error: " << names.status().message() << "\n";
    return 1;
  }
  for (const std::string& n : *names) out << n << "\n";
  return 0;
}

// scontrol ping with several controllers (controller.hosts) and no MUSTER_SERVER: each is pinged
// directly, one line each. nullopt when that is not the case (the one controller is asked).
std::optional<int> PingEachController(std::ostream& out, std::ostream& err) {
  if (const char* server = std::getenv("MUSTER_SERVER"); server != nullptr && *server != 0) return std::nullopt;
  StatusOr<MusterConfig> conf = LoadMusterConfig(DefaultConfigPath(), ConfigReader::kCommand);
  if (!conf.ok() || conf->ctld_hosts.empty()) return std::nullopt;
  if (Status tls = UseClusterTls(*conf); !tls.ok()) return ConnectError("scontrol", tls, err);
  const std::vector<ControllerPing> pings = PingControllers(conf->ctld_hosts);
  out << SlurmPingText(pings, getuid() == 0);
  return SlurmPingExitCode(pings);
}

// scontrol token [lifespan=SECONDS] [username=NAME]: SLURM_JWT=... for slurmrestd's REST API.
int MintToken(CtldClient& c, const std::vector<std::string>& a, std::ostream& out, std::ostream& err) {
  JwtRequest ask;
  for (size_t i = 1; i < a.size(); ++i) {
    const std::string lower = Lower(a[i]);
    if (lower.rfind("lifespan=", 0) == 0) {
      const std::string v = a[i].substr(9);
      char* end = nullptr;
      // "infinite" and "unlimited": Slurm's INT_MAX - 1 seconds (root's and admins' alone
      // beyond controller.jwt_max_lifespan).
      const bool forever = Lower(v) == "infinite" || Lower(v) == "unlimited";
      ask.lifespan_s = forever ? 2147483646 : std::strtoll(v.c_str(), &end, 10);
      if (!forever && (v.empty() || *end != '\0' || ask.lifespan_s < 1)) {
        err << "Invalid lifespan: `" << v << "`\n";
        return 1;
      }
    } else if (lower.rfind("username=", 0) == 0) {
      ask.username = a[i].substr(9);
    } else {
      err << "Invalid option: `" << a[i] << "`\n";
      return 1;
    }
  }
  StatusOr<JwtAnswer> r = c.MintJwt(ask);
  if (!r.ok()) {
    err << "scontrol: error: slurm_fetch_token: error with request: " << r.status().message() << "\n"
        << "Error fetching token\n";
    return 1;
  }
  out << "SLURM_JWT=" << r->token << "\n";
  return 0;
}

// scontrol show job|jobs [ID]: the controller's rendering, or --json records.
int ShowJobs(CtldClient& c, std::string id, const ScontrolArgs& p, std::ostream& out, std::ostream& err) {
  if (id.find('+') != std::string::npos) {  // "12+1": a heterogeneous job's component, by its own id
    if (StatusOr<JobToken> t = ParseJobToken(id); t.ok()) id = std::to_string(t->id);
  }
  const bool numeric = !id.empty() && id.find_first_not_of("0123456789") == std::string::npos;
  if (!id.empty() && !numeric) return EmitOutput(InvalidJobIdError(), out, err);
  if (p.json) {
    StatusOr<std::vector<JobRecord>> jobs = c.Jobs(numeric ? "ids=" + id : "");
    if (!jobs.ok() && jobs.status().code() == StatusCode::kNotFound) return EmitOutput(InvalidJobIdError(), out, err);
    if (!jobs.ok()) return ConnectError("scontrol", jobs.status(), err);
    out << JobRecordsPrettyJson(*jobs) << "\n";
    return 0;
  }
  // The controller renders the records (report/scontrol_format.h) from what it holds.
  StatusOr<std::string> text = c.RenderedJobs(
      "render=scontrol" + (numeric ? "&ids=" + id : "") + (p.one_liner ? "&oneliner=1" : "") +
      (p.details ? "&details=1" : ""));
  if (!text.ok() && text.status().code() == StatusCode::kNotFound) return EmitOutput(InvalidJobIdError(), out, err);
  if (!text.ok()) return ConnectError("scontrol", text.status(), err);
  out << (text->empty() ? "No jobs in the system\n" : *text);
  return 0;
}

// scontrol show node|nodes [NAME], as text or --json.
int ShowNodes(CtldClient& c, const std::string& id, const ScontrolArgs& p, std::ostream& out, std::ostream& err) {
  std::map<std::string, NodeAllocated> allocated;
  StatusOr<std::vector<NodeRecord>> nodes = c.Nodes(&allocated);
  StatusOr<std::vector<Partition>> ps = c.Partitions();
  if (!nodes.ok() || !ps.ok()) return ConnectError("scontrol", Internal("cannot read nodes"), err);
  NodeActivityMap usage = UsageFromAllocated(allocated);
  bool any = false;
  boost::json::array arr;
  for (const NodeRecord& n : *nodes) {
    if (!id.empty() && n.node.name != id) continue;
    if (p.json) {
      arr.push_back(ToJson(n));  // every GPU's UUID and memory, and the NVLink matrix
    } else {
      out << FormatScontrolNode(n, *ps, usage[n.node.name], Now(), p.one_liner, kDefaultSlurmdTimeoutSeconds,
                                p.details);
    }
    any = true;
  }
  if (!any && !id.empty()) return EmitOutput(NodeNotFoundError(id), out, err);
  if (p.json) out << PrettyJson(boost::json::object{{"nodes", std::move(arr)}}) << "\n";
  return 0;
}

// scontrol show config|job|node|partition [ID].
int ShowEntity(CtldClient& c, const std::vector<std::string>& a, const ScontrolArgs& p, std::ostream& out,
              std::ostream& err) {
  const std::string what = a[1];
  std::string id = a.size() >= 3 ? a[2] : "";
  if (what == "config") {
    StatusOr<ConfigAnswer> r = c.Config();
    if (!r.ok()) return ConnectError("scontrol", r.status(), err);
    std::vector<std::pair<std::string, std::string>> config;
    for (const ConfigEntry& kv : r->config) config.emplace_back(kv.key, kv.value);
    out << FormatScontrolConfig(config, SystemClock().NowSeconds());
    return 0;
  }
  if (what == "job" || what == "jobs") return ShowJobs(c, id, p, out, err);
  if (what == "node" || what == "nodes") return ShowNodes(c, id, p, out, err);
  if (what == "partition" || what == "partitions") {
    StatusOr<std::vector<NodeRecord>> nodes = c.Nodes();
    StatusOr<std::vector<Partition>> ps = c.Partitions();
    if (!nodes.ok() || !ps.ok()) return ConnectError("scontrol", Internal("cannot read partitions"), err);
    bool any = false;
    for (const Partition& part : *ps) {
      if (!id.empty() && part.name != id) continue;
      out << FormatScontrolPartition(part, *nodes, p.one_liner);
      any = true;
    }
    if (!any && !id.empty()) return EmitOutput(PartitionNotFoundError(id), out, err);
    return 0;
  }
  err << "scontrol: error: invalid entity: " << what << " for keyword:show\n";
  return 1;
}

// scontrol hold|release|uhold|holdu|requeue ID[,ID...]: each job in turn.
int JobActions(CtldClient& c, std::string_view name, const std::vector<std::string>& a, std::ostream& err) {
  const std::string op = name == "uhold" || name == "holdu" ? "hold" : std::string(name);
  int rc = 0;
  for (const std::string& s : Split(a[1], ',')) {
    if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string::npos) {
      err << "Invalid job id specified\n";
      rc = 1;
      continue;
    }
    Status st = c.JobAction(std::stoll(s), op);
    if (!st.ok()) {
      err << "Job " << s << ": " << st.message() << "\n";
      rc = 1;
    }
  }
  return rc;
}

// update JobId=N Key=Value ...: the controller checks each field (Controller::UpdateJob).
int UpdateJobFields(CtldClient& c, const std::vector<std::string>& a, std::ostream& err) {
  const std::string id = a[1].substr(a[1].find('=') + 1);
  if (id.empty() || id.size() > 18 || id.find_first_not_of("0123456789") != std::string::npos) {
    err << "Invalid job id specified\n";
    return 1;
  }
  JobUpdate update;
  for (size_t i = 2; i < a.size(); ++i) {
    const size_t eq = a[i].find('=');
    if (eq == std::string::npos) {
      err << "scontrol: error: Invalid input: " << a[i] << "\nRequest aborted\n";
      return 1;
    }
    std::string key = a[i].substr(0, eq), value = a[i].substr(eq + 1);
    const std::string k = Lower(key);
    if (k == "starttime" || k == "begintime") {
      StatusOr<int64_t> t = ParseSlurmTime(value, SystemClock().NowSeconds(), TimeDirection::kFuture);
      if (!t.ok()) {
        err << "Invalid StartTime value: " << value << "\nRequest aborted\n";
        return 1;
      }
      value = std::to_string(*t);
    } else if (k != "timelimit" && k != "jobname" && k != "name" && k != "nice" && k != "dependency" &&
               k != "comment") {
      err << "Update of this parameter is not supported: " << a[i] << "\nRequest aborted\n";
      return 1;
    }
    update.fields[key] = value;
  }
  Status st = c.UpdateJob(std::stoll(id), update);
  if (!st.ok()) {
    err << "slurm_update error: " << st.message() << "\n";
    return 1;
  }
  return 0;
}

// update NodeName=NAMES State=STATE [Reason=...].
int UpdateNodes(CtldClient& c, const std::vector<std::string>& a, std::ostream& err) {
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
    Status st = c.UpdateNode(n, NodeUpdate{state, reason});
    if (!st.ok()) {
      err << "slurm_update error: " << st.message() << "\n";
      return 1;
    }
  }
  return 0;
}

}  // namespace

int ScontrolMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  StatusOr<ScontrolArgs> parsed = ParseScontrolArgs(args);
  if (!parsed.ok()) return err << parsed.status().message(), 1;
  if (!parsed->meta.empty()) return AnswerMetaOption("scontrol", {"--" + parsed->meta}, out);
  const std::vector<std::string>& a = parsed->words;
  if (a.empty() || a[0] == "help") {
    AnswerMetaOption("scontrol", {"--help"}, out);
    return a.empty() ? 1 : 0;
  }
  // Every command of Slurm's scontrol has a row (ScontrolCommandTable): refused ones say why.
  const ScontrolCommandSpec* command = FindScontrolCommand(a);
  if (command == nullptr) {
    err << "scontrol: error: Invalid keyword: " << a[0] << "\n";
    return 1;
  }
  const std::string_view name = command->name;
  if (command->use == OptionUse::kUnsupported) {
    err << "scontrol: error: " << name << " is not supported by Muster: " << command->note << "\n";
    return 1;
  }
  if (command->use == OptionUse::kIgnored) return 0;
  if (name == "version") return AnswerMetaOption("scontrol", {"--version"}, out);
  if (name == "show hostlist" || name == "show hostlistsorted") return ShowHostlist(name, a, out, err);
  // show hostnames needs no controller.
  if (name == "show hostnames") return ShowHostnames(a, out, err);
  const std::string verb = Lower(a[0]);
  if (verb == "ping") {
    if (std::optional<int> rc = PingEachController(out, err)) return *rc;
  }
  StatusOr<std::unique_ptr<CtldClient>> c = CtldClient::Connect();
  if (!c.ok()) return ConnectError("scontrol", c.status(), err);
  if (verb == "ping") {
    StatusOr<PingAnswer> r = (*c)->Ping();
    out << "Slurmctld(primary) at " << LocalHostname() << " is " << (r.ok() ? "UP" : "DOWN") << "\n";
    return r.ok() ? 0 : 1;
  }
  // Slurm: "slurm_reconfigure error: Invalid user id" for a user; Muster also prints the reason
  // a configuration is refused.
  if (verb == "reconfigure") {
    if (Status st = (*c)->Reconfigure(); !st.ok()) {
      err << "slurm_reconfigure error: " << st.message() << "\n";
      return 1;
    }
    return 0;
  }
  if (verb == "token") return MintToken(**c, a, out, err);
  if (verb == "show" && a.size() >= 2) return ShowEntity(**c, a, *parsed, out, err);
  if ((name == "hold" || name == "release" || name == "uhold" || name == "holdu" || name == "requeue") &&
      a.size() >= 2) {
    return JobActions(**c, name, a, err);
  }
  if (verb == "update" && a.size() >= 2 && Lower(a[1].substr(0, a[1].find('='))) == "jobid") {
    return UpdateJobFields(**c, a, err);
  }
  if (verb == "update") return UpdateNodes(**c, a, err);
  err << "scontrol: error: Invalid keyword: " << verb << "\n";
  return 1;
}

}  // namespace muster
