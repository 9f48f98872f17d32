#include "config/daemon_args.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string_view>

#include "config/muster_config.h"

namespace muster {
namespace {

struct Option {
  const char* name;
  char only;  // 'a': musterd's alone, 'c': musterctld's alone, 0: both
  bool takes_value;
  const char* help;  // "METAVAR: text" for options with a value
  std::function<Status(DaemonArgs&, const std::string&)> apply;
};

const std::vector<Option>& Options() {
  static const std::vector<Option> options = {
      {"--conf", 0, true, "PATH: the configuration (default $MUSTER_CONF, ~/.muster/muster.yaml, /etc/muster/muster.yaml)",
       [](DaemonArgs& a, const std::string& v) { a.conf_path = v; a.conf_given = true; return Status::Ok(); }},
      {"--node", 'a', true, "NAME: the node this agent serves (default: the host name)",
       [](DaemonArgs& a, const std::string& v) { a.node = v; return Status::Ok(); }},
      {"--conf-server", 'a', true,
       "HOST:PORT[,...]: configless: fetch the configuration from these controllers (the first that serves it) "
       "instead of reading --conf",
       [](DaemonArgs& a, const std::string& v) {
         a.conf_servers.clear();
         size_t start = 0;
         while (start <= v.size()) {
           const size_t comma = v.find(',', start);
           const std::string one = v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
           StatusOr<HostPort> hp = ParseHostPort(one, "--conf-server");
           if (!hp.ok()) return hp.status();
           a.conf_servers.push_back(one);
           if (comma == std::string::npos) break;
           start = comma + 1;
         }
         return Status::Ok();
       }},
      {"--key-file", 'a', true, "PATH: with --conf-server, the cluster key (default /etc/muster/cluster.key)",
       [](DaemonArgs& a, const std::string& v) { a.key_file = v; return Status::Ok(); }},
      {"--ca-file", 'a', true,
       "PATH: with --conf-server, the cluster CA (PEM): the controllers' TCP ports speak TLS (muster.yaml's tls)",
       [](DaemonArgs& a, const std::string& v) { a.ca_file = v; return Status::Ok(); }},
      {"--conf-cache", 'a', true,
       "DIR: with --conf-server, where the fetched configuration is kept (default /var/spool/muster/conf-cache)",
       [](DaemonArgs& a, const std::string& v) { a.conf_cache = v; return Status::Ok(); }},
      {"--end-jobs-on-stop", 'a', false, "end the node's jobs when the agent stops (local clusters)",
       [](DaemonArgs& a, const std::string&) { a.end_jobs_on_stop = true; return Status::Ok(); }},
      {"--log-file", 0, true, "PATH: append the log there (default: stderr, which systemd sends to the journal)",
       [](DaemonArgs& a, const std::string& v) { a.log.file = v; return Status::Ok(); }},
      {"--log-level", 0, true, "LEVEL: debug, info (default), warning or error",
       [](DaemonArgs& a, const std::string& v) {
         StatusOr<LogLevel> level = ParseLogLevel(v);
         if (!level.ok()) return level.status();
         a.log.level = *level;
         return Status::Ok();
       }},
      {"--syslog", 0, false, "log to syslog (the journal) instead",
       [](DaemonArgs& a, const std::string&) { a.log.syslog = true; return Status::Ok(); }},
      {"--listen", 'c', true,
       "HOST:PORT: listen there instead of at controller.listen (its controller.hosts entry: several controllers on one host)",
       [](DaemonArgs& a, const std::string& v) {
         StatusOr<HostPort> hp = ParseHostPort(v, "--listen");
         if (!hp.ok()) return hp.status();
         a.listen = v;
         return Status::Ok();
       }},
      {"--listen", 'a', true,
       "HOST:PORT: listen on TCP there instead of at agent.listen, and tell the controller that host (one agent of several on a host, or in a network namespace)",
       [](DaemonArgs& a, const std::string& v) {
         StatusOr<HostPort> hp = ParseHostPort(v, "--listen");
         if (!hp.ok()) return hp.status();
         a.listen = v;
         return Status::Ok();
       }},
      {"--socket", 'c', true, "PATH: its Unix socket instead of controller.socket",
       [](DaemonArgs& a, const std::string& v) { a.socket = v; return Status::Ok(); }},
      {"--help", 0, false, "print this and exit",
       [](DaemonArgs& a, const std::string&) { a.help = true; return Status::Ok(); }},
  };
  return options;
}

const char* Name(Daemon d) { return d == Daemon::kAgent ? "musterd" : "musterctld"; }

}  // namespace

StatusOr<DaemonArgs> ParseDaemonArgs(Daemon daemon, const std::vector<std::string>& args) {
  DaemonArgs out;
  out.conf_path = DefaultConfigPath();
  out.log.process = Name(daemon);
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i] == "-h" ? "--help" : args[i];
    std::string value;
    bool inline_value = false;
    if (const size_t eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg.resize(eq);
      inline_value = true;
    }
    const Option* found = nullptr;
    for (const Option& o : Options()) {
      if (arg == o.name && (o.only == 0 || o.only == (daemon == Daemon::kAgent ? 'a' : 'c'))) found = &o;
    }
    if (found == nullptr) return InvalidArgument("unknown argument '" + args[i] + "' (see --help)");
    if (found->takes_value && !inline_value) {
      if (i + 1 >= args.size()) return InvalidArgument(arg + " needs a value");
      value = args[++i];
    } else if (!found->takes_value && inline_value) {
      return InvalidArgument(arg + " takes no value");
    }
    if (Status st = found->apply(out, value); !st.ok()) return st;
  }
  if (out.conf_given && !out.conf_servers.empty()) {
    return InvalidArgument("--conf and --conf-server exclude each other (a configless agent has no local muster.yaml)");
  }
  return out;
}

std::string DaemonUsage(Daemon daemon) {
  std::string out = std::string("usage: ") + Name(daemon) + (daemon == Daemon::kAgent ? " --node NAME" : "") + " [options]\n";
  for (const Option& o : Options()) {
    if (o.only != 0 && o.only != (daemon == Daemon::kAgent ? 'a' : 'c')) continue;
    std::string flag = o.name;
    std::string_view help = o.help;
    if (o.takes_value) {
      const size_t colon = help.find(": ");
      flag.append(" ").append(help.substr(0, colon));
      help.remove_prefix(colon + 2);
    }
    flag.resize(std::max<size_t>(flag.size(), 20), ' ');
    out.append("  ").append(flag).append("  ").append(help).append("\n");
  }
  return out;
}

std::optional<int> StartDaemon(Daemon daemon, int argc, char** argv, DaemonArgs* args) {
  (void)InitLogging({.process = Name(daemon)});
  StatusOr<DaemonArgs> parsed = ParseDaemonArgs(daemon, std::vector<std::string>(argv + 1, argv + argc));
  if (!parsed.ok()) {
    LogError(parsed.status().message());
    return 1;
  }
  if (parsed->help) {
    std::printf("%s", DaemonUsage(daemon).c_str());
    return 0;
  }
  *args = std::move(*parsed);
  return std::nullopt;
}

}  // namespace muster
