// The daemons' command lines, read by one table (musterctld and musterd share every option but
// the agent's own):
//   musterctld [--conf PATH] [--listen HOST:PORT] [--socket PATH] [--log-file PATH] [--log-level LEVEL] [--syslog]
//   musterd --node NAME [--conf PATH] [--listen HOST:PORT] [--end-jobs-on-stop] [--log-file PATH] [--log-level LEVEL] [--syslog]
//   musterd --node NAME --conf-server HOST:PORT[,HOST:PORT...] [--key-file PATH] [--conf-cache DIR] ...
// Each option with a value takes it as the next argument or after '='.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/log.h"
#include "base/status.h"

namespace muster {

enum class Daemon { kController, kAgent };

struct DaemonArgs {
  std::string conf_path;  // defaults to DefaultConfigPath()
  std::string node;       // musterd: the node it serves (default: the host name)
  bool end_jobs_on_stop = false;
  // musterd --conf-server (configless, docs/configuration.md): the controllers it fetches the
  // configuration from, in order (empty: a local muster.yaml, --conf); the cluster key it signs
  // its requests with; where it caches what it fetched.
  std::vector<std::string> conf_servers;
  std::string key_file = "/etc/muster/cluster.key";
  std::string conf_cache = "/var/spool/muster/conf-cache";
  std::string ca_file;  // --ca-file: with --conf-server, the controllers speak TLS, verified with this CA
  bool conf_given = false;  // --conf was given (it excludes --conf-server)
  std::string listen;     // its TCP address, instead of controller.listen (musterctld) or agent.listen
                          // (musterd) ("" = that)
  std::string socket;     // musterctld: its Unix socket, instead of controller.socket ("" = that)
  bool help = false;
  LogOptions log;         // process set to the daemon's name; node left to the caller
};

// Errors are the message the daemon prints ("unknown argument '--x' (see --help)",
// "--log-level needs a value", "invalid log level 'loud' (debug, info, warning or error)").
StatusOr<DaemonArgs> ParseDaemonArgs(Daemon daemon, const std::vector<std::string>& args);
std::string DaemonUsage(Daemon daemon);

// The start of a daemon's main: its log on stderr under its name, its command line read, --help
// answered. The exit code when the daemon stops here (0 after --help, 1 after an error it
// logged), else nullopt with `*args` filled (the caller then points the log where they say).
std::optional<int> StartDaemon(Daemon daemon, int argc, char** argv, DaemonArgs* args);

}  // namespace muster
