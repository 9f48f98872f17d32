// scontrol: show job|node|partition|config|hostnames, update (jobs and nodes), hold, uhold,
// release, requeue, ping; -o one line per record, --json for jobs.
#include <cctype>
#include <cstdlib>

#include <boost/json.hpp>

#include "base/strings.h"
#include "base/clock.h"
#include "cli/command_args.h"
#include "cli/command_help.h"
#include "cli/command_options.h"
#include "cli/commands.h"
#include "cli/ctld_client.h"
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

}  // namespace

int ScontrolMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  StatusOr<ScontrolArgs> parsed = ParseScontrolArgs(args);
  if (!parsed.ok()) return err << parsed.status().message(), 1;
  if (!parsed->meta.empty()) return AnswerMetaOption("scontrol", {"--" + parsed->meta}, out);
  const bool one_liner = parsed->one_liner, json_out = parsed->json;
  const std::vector<std::string>& a = parsed->words;
  if (a.empty() || a[0] == "help") {
    AnswerMetaOption("scontrol", {"--help"}, out);
    return a.empty() ? 1 : 0;
  }
  // show hostnames needs no controller.
  if (a[0] == "show" && a.size() >= 2 && (a[1] == "hostnames" || a[1] == "hostname")) {
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
  StatusOr<std::unique_ptr<CtldClient>> c = CtldClient::Connect();
  if (!c.ok()) return ConnectError("scontrol", c.status(), err);
  const std::string verb = a[0];
  if (verb == "ping") {
    StatusOr<PingAnswer> r = (*c)->Ping();
    out << "Slurmctld(primary) at " << LocalHostname() << " is " << (r.ok() ? "UP" : "DOWN") << "\n";
    return r.ok() ? 0 : 1;
  }
  if (verb == "show" && a.size() >= 2) {
    const std::string what = a[1];
    const std::string id = a.size() >= 3 ? a[2] : "";
    if (what == "config") {
      StatusOr<ConfigAnswer> r = (*c)->Config();
      if (!r.ok()) return ConnectError("scontrol", r.status(), err);
      std::vector<std::pair<std::string, std::string>> config;
      for (const ConfigEntry& kv : r->config) config.emplace_back(kv.key, kv.value);
      out << FormatScontrolConfig(config, SystemClock().NowSeconds());
      return 0;
    }
    if (what == "job" || what == "jobs") {
      const bool numeric = !id.empty() && id.find_first_not_of("0123456789") == std::string::npos;
      if (!id.empty() && !numeric) return EmitOutput(InvalidJobIdError(), out, err);
      if (json_out) {
        StatusOr<std::vector<JobRecord>> jobs = (*c)->Jobs(numeric ? "ids=" + id : "");
        if (!jobs.ok() && jobs.status().code() == StatusCode::kNotFound) return EmitOutput(InvalidJobIdError(), out, err);
        if (!jobs.ok()) return ConnectError("scontrol", jobs.status(), err);
        out << JobRecordsPrettyJson(*jobs) << "\n";
        return 0;
      }
      // The controller renders the records (report/scontrol_format.h) from what it holds.
      StatusOr<std::string> text = (*c)->RenderedJobs(
          "render=scontrol" + (numeric ? "&ids=" + id : "") + (one_liner ? "&oneliner=1" : ""));
      if (!text.ok() && text.status().code() == StatusCode::kNotFound) return EmitOutput(InvalidJobIdError(), out, err);
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
      boost::json::array arr;
      for (const NodeRecord& n : *nodes) {
        if (!id.empty() && n.node.name != id) continue;
        if (json_out) {
          arr.push_back(ToJson(n));  // every GPU's UUID and memory, and the NVLink matrix
        } else {
          out << FormatScontrolNode(n, *ps, usage[n.node.name], Now(), one_liner);
        }
        any = true;
      }
      if (!any && !id.empty()) return EmitOutput(NodeNotFoundError(id), out, err);
      if (json_out) out << PrettyJson(boost::json::object{{"nodes", std::move(arr)}}) << "\n";
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
      if (!any && !id.empty()) return EmitOutput(PartitionNotFoundError(id), out, err);
      return 0;
    }
    err << "scontrol: error: invalid entity: " << what << " for keyword:show\n";
    return 1;
  }
  if ((verb == "hold" || verb == "release" || verb == "uhold" || verb == "requeue") && a.size() >= 2) {
    const std::string op = verb == "uhold" ? "hold" : verb;
    int rc = 0;
    for (const std::string& s : Split(a[1], ',')) {
      if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string::npos) {
        err << "Invalid job id specified\n";
        rc = 1;
        continue;
      }
      Status st = (*c)->JobAction(std::stoll(s), op);
      if (!st.ok()) {
        err << "Job " << s << ": " << st.message() << "\n";
        rc = 1;
      }
    }
    return rc;
  }
  if (verb == "update" && a.size() >= 2 && Lower(a[1].substr(0, a[1].find('='))) == "jobid") {
    // update JobId=N Key=Value ...: the controller checks each field (Controller::UpdateJob).
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
      } else if (k != "timelimit" && k != "jobname" && k != "name" && k != "nice" && k != "dependency") {
        err << "Update of this parameter is not supported: " << a[i] << "\nRequest aborted\n";
        return 1;
      }
      update.fields[key] = value;
    }
    Status st = (*c)->UpdateJob(std::stoll(id), update);
    if (!st.ok()) {
      err << "slurm_update error: " << st.message() << "\n";
      return 1;
    }
    return 0;
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
      Status st = (*c)->UpdateNode(n, NodeUpdate{state, reason});
      if (!st.ok()) {
        err << "slurm_update error: " << st.message() << "\n";
        return 1;
      }
    }
    return 0;
  }
  err << "scontrol: error: Invalid keyword: " << verb << "\n";
  return 1;
}

}  // namespace muster
