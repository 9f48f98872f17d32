#include "api/slurmrest/submit.h"

#include <set>

#include <boost/json.hpp>

#include "model/job_option_table.h"
#include "net/json_body.h"

namespace muster::slurmrest {

namespace bj = boost::json;

namespace {

// slurmrestd 22.05's job_properties that Muster has no counterpart for: refused by name rather
// than ignored, so that a tool learns its request was not carried out as asked.
const std::set<std::string>& UntakenKeys() {
  static const std::set<std::string> keys = {
      "account_gather_frequency", "batch_features", "burst_buffer", "cluster_constraint", "core_specification",
      "cores_per_socket", "cpu_binding", "cpu_binding_hint", "cpu_frequency", "deadline", "delay_boot",
      "distribution", "get_user_environment", "gres_flags", "gpu_binding", "gpu_frequency", "gpus_per_socket",
      "kill_on_invalid_dependency", "licenses", "mcs_label", "memory_binding",
      "minimum_cpus_per_node", "minimum_nodes", "no_kill", "open_mode", "priority", "reservation", "signal",
      "sockets_per_node", "spread_job", "tasks_per_core", "tasks_per_socket", "thread_specification",
      "threads_per_core", "time_minimum", "wait_all_nodes", "wckeys", "container", "prefer",
      "exclude_nodes", "required_nodes", "kill_on_node_fail", "x11", "reboot",
  };
  return keys;
}

Status Bad(const std::string& key, const std::string& what) {
  return InvalidArgument("\"" + key + "\" " + what);
}

// A string, or an integer written as one.
StatusOr<std::string> Text(const std::string& key, const bj::value& v) {
  if (v.is_string()) return std::string(v.as_string());
  if (v.is_int64()) return std::to_string(v.as_int64());
  if (v.is_uint64()) return std::to_string(v.as_uint64());
  return Bad(key, "must be a string");
}

StatusOr<int64_t> Int(const std::string& key, const bj::value& v) {
  if (v.is_int64()) return v.as_int64();
  if (v.is_uint64() && v.as_uint64() <= uint64_t(INT64_MAX)) return static_cast<int64_t>(v.as_uint64());
  if (v.is_string()) {
    const std::string s(v.as_string());
    char* end = nullptr;
    const long long n = std::strtoll(s.c_str(), &end, 10);
    if (!s.empty() && *end == '\0') return n;
  }
  return Bad(key, "must be an integer");
}

StatusOr<bool> Bool(const std::string& key, const bj::value& v) {
  if (v.is_bool()) return v.as_bool();
  if (v.is_int64()) return v.as_int64() != 0;
  if (v.is_string()) {
    const std::string s(v.as_string());
    if (s == "true" || s == "yes" || s == "1") return true;
    if (s == "false" || s == "no" || s == "0") return false;
  }
  return Bad(key, "must be true or false");
}

// "option=value" for the resource options the controller parses (model/job_request.h).
Status Option(std::vector<std::string>& args, const char* option, const std::string& key, const bj::value& v) {
  ASSIGN_OR_RETURN(std::string text, Text(key, v));
  if (text.empty()) return Status::Ok();
  args.push_back(std::string(option) + "=" + text);
  return Status::Ok();
}

Status ReadProperty(const std::string& key, const bj::value& v, JobSpec& s) {
  std::vector<std::string>& a = s.submit_args;  // the options; the route parses them (SetResourceOptions)
  if (key == "name") {
    ASSIGN_OR_RETURN(s.name, Text(key, v));
  } else if (key == "partition") return Option(a, "--partition", key, v);
  else if (key == "time_limit") return Option(a, "--time", key, v);
  else if (key == "nodes") return Option(a, "--nodes", key, v);
  else if (key == "tasks" || key == "ntasks") return Option(a, "--ntasks", key, v);
  else if (key == "tasks_per_node") return Option(a, "--ntasks-per-node", key, v);
  else if (key == "cpus_per_task") return Option(a, "--cpus-per-task", key, v);
  else if (key == "memory_per_node") return Option(a, "--mem", key, v);
  else if (key == "memory_per_cpu") return Option(a, "--mem-per-cpu", key, v);
  else if (key == "memory_per_gpu") return Option(a, "--mem-per-gpu", key, v);
  else if (key == "gres") return Option(a, "--gres", key, v);
  else if (key == "gpus") return Option(a, "--gpus", key, v);
  else if (key == "gpus_per_node") return Option(a, "--gpus-per-node", key, v);
  else if (key == "gpus_per_task") return Option(a, "--gpus-per-task", key, v);
  else if (key == "cpus_per_gpu") return Option(a, "--cpus-per-gpu", key, v);
  else if (key == "constraints") return Option(a, "--constraint", key, v);
  else if (key == "exclusive") {
    // true, or slurmrestd's words: "exclusive" (whole nodes); "user"/"mcs" Muster does not have.
    if (v.is_string()) {
      if (v.as_string() != "exclusive") return Bad(key, "must be true or \"exclusive\" in Muster");
      a.push_back("--exclusive");
    } else {
      ASSIGN_OR_RETURN(bool on, Bool(key, v));
      if (on) a.push_back("--exclusive");
    }
  } else if (key == "account") {
    ASSIGN_OR_RETURN(s.account, Text(key, v));
  } else if (key == "qos") {
    ASSIGN_OR_RETURN(s.qos, Text(key, v));
  } else if (const OptionSpec* row = JobOptionByRestKey(key)) {
    // The options a job carries (comment, wckey, ...: model/job_options.h), by their names.
    ASSIGN_OR_RETURN(std::string text, Text(key, v));
    return ApplyJobOption(s.options, OptionOccurrence{row, std::move(text)});
  } else if (key == "nice") {
    ASSIGN_OR_RETURN(s.nice, Int(key, v));
  } else if (key == "hold") {
    ASSIGN_OR_RETURN(s.hold, Bool(key, v));
  } else if (key == "requeue") {
    ASSIGN_OR_RETURN(s.requeue, Bool(key, v));
  } else if (key == "dependency") {
    ASSIGN_OR_RETURN(std::string text, Text(key, v));
    RETURN_IF_ERROR(SetDependency(s, text));
  } else if (key == "begin_time") {
    ASSIGN_OR_RETURN(s.begin_time, Int(key, v));
  } else if (key == "array") {
    ASSIGN_OR_RETURN(std::string text, Text(key, v));
    RETURN_IF_ERROR(SetArray(s, text));
  } else if (key == "current_working_directory") {
    ASSIGN_OR_RETURN(s.workdir, Text(key, v));
  } else if (key == "standard_output") {
    ASSIGN_OR_RETURN(s.stdout_pattern, Text(key, v));
  } else if (key == "standard_error") {
    ASSIGN_OR_RETURN(s.stderr_pattern, Text(key, v));
  } else if (key == "standard_input") {
    ASSIGN_OR_RETURN(s.stdin_path, Text(key, v));
  } else if (key == "argv") {
    if (!v.is_array()) return Bad(key, "must be an array of strings");
    for (const bj::value& x : v.as_array()) {
      if (!x.is_string()) return Bad(key, "must be an array of strings");
      s.script_args.emplace_back(x.as_string());
    }
  } else if (key == "environment") {
    if (!v.is_object()) return InvalidArgument("environment must be a dictionary");
    for (const auto& kv : v.as_object()) {
      ASSIGN_OR_RETURN(std::string value, Text("environment." + std::string(kv.key()), kv.value()));
      s.environment.push_back(std::string(kv.key()) + "=" + value);
    }
  } else if (UntakenKeys().count(key)) {
    return InvalidArgument("Muster does not take key \"" + key + "\"");
  } else {
    return InvalidArgument("Unknown key \"" + key + "\"");
  }
  return Status::Ok();
}

}  // namespace

StatusOr<JobSpec> ReadSubmission(std::string_view body, std::string* bad_key) {
  ASSIGN_OR_RETURN(const bj::value doc, ParseJsonObject(body));
  const bj::object& o = doc.as_object();
  JobSpec s;
  for (const auto& kv : o) {
    if (kv.key() != "script" && kv.key() != "job" && kv.key() != "jobs") {
      return InvalidArgument("Unknown key \"" + std::string(kv.key()) + "\"");
    }
  }
  if (o.contains("jobs")) return InvalidArgument("Muster does not take \"jobs\" (heterogeneous jobs)");
  if (const bj::value* script = o.if_contains("script")) {
    if (!script->is_string()) return Bad("script", "must be a string");
    s.script = std::string(script->as_string());
  }
  const bj::value* job = o.if_contains("job");
  if (job == nullptr || !job->is_object()) return InvalidArgument("\"job\" must be an object of job properties");
  bool environment = false;
  for (const auto& kv : job->as_object()) {
    const std::string key(kv.key());
    environment = environment || key == "environment";
    if (Status st = ReadProperty(key, kv.value(), s); !st.ok()) {
      const bool known = st.message().rfind("Unknown key", 0) != 0 && st.message().rfind("Muster does not", 0) != 0;
      if (bad_key != nullptr && known) *bad_key = key;
      return st;
    }
  }
  if (!environment) return InvalidArgument("environment must be set");
  return s;
}

StatusOr<RestUpdate> ReadUpdate(std::string_view body) {
  ASSIGN_OR_RETURN(const bj::value doc, ParseJsonObject(body));
  RestUpdate u;
  for (const auto& kv : doc.as_object()) {
    const std::string key(kv.key());
    const bj::value& v = kv.value();
    if (key == "time_limit") {
      ASSIGN_OR_RETURN(u.fields["TimeLimit"], Text(key, v));
    } else if (key == "name") {
      ASSIGN_OR_RETURN(u.fields["JobName"], Text(key, v));
    } else if (key == "comment") {
      ASSIGN_OR_RETURN(u.fields["Comment"], Text(key, v));
    } else if (key == "nice") {
      ASSIGN_OR_RETURN(u.fields["Nice"], Text(key, v));
    } else if (key == "dependency") {
      ASSIGN_OR_RETURN(u.fields["Dependency"], Text(key, v));
    } else if (key == "begin_time") {
      ASSIGN_OR_RETURN(u.fields["StartTime"], Text(key, v));
    } else if (key == "hold") {
      ASSIGN_OR_RETURN(bool hold, Bool(key, v));
      u.hold = hold ? 1 : -1;
    } else {
      return InvalidArgument("Update of this parameter is not supported: " + key);
    }
  }
  return u;
}

}  // namespace muster::slurmrest
