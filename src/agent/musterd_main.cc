// musterd: the node agent. Registers its node (GPUs from NVML, or the cluster file's fake GPUs),
// heartbeats, launches and signals jobs, and mints tokens for local users. Listens on its Unix
// socket and, with agent.listen, on TCP (tokens required); with agent.listen and
// controller.listen both set it also talks to the controller over TCP, with a token of its own;
// with controller.hosts, over TCP to those controllers, following the one that leads.
//   musterd --node NAME [--conf PATH] [--listen HOST:PORT] [--end-jobs-on-stop] [--log-file PATH] [--log-level LEVEL] [--syslog]
//   musterd --node NAME --conf-server HOST:PORT[,...] [--key-file PATH] [--conf-cache DIR] ...
// Configless (--conf-server, docs/configuration.md): no local muster.yaml; it fetches the
// controller's (GET /v1/config/files) into its cache and loads that, or the cache of its last
// fetch when no controller answers. When the controller's answers carry another hash
// (scontrol reconfigure, or a controller started with other files), or on SIGHUP, it fetches
// again and, if the files changed, starts again in its own process (its runs are adopted).
#include <algorithm>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <cstdio>
#include <string>

#include "base/exec_again.h"
#include "agent/agent.h"
#include "agent/cgroup.h"
#include "agent/cgroup_internal.h"
#include "agent/config_fetch.h"
#include "agent/gpu_inventory.h"
#include "agent/mps.h"
#include "agent/shepherd_spawner.h"
#include "base/clock.h"
#include "base/log.h"
#include "base/stop_with.h"
#include "config/config_cache.h"
#include "config/daemon_args.h"
#include "config/muster_config.h"
#include "net/http.h"
#include "net/key_file.h"
#include "net/token.h"

namespace muster {
namespace {

int Fail(const std::string& msg) {
  LogError(msg);
  return 1;
}

// Fetches the configuration from `args.conf_servers` into the cache. The cached hash (written last).
StatusOr<std::string> FetchIntoCache(const DaemonArgs& args, const TokenAuthority& tokens) {
  std::string from;
  ASSIGN_OR_RETURN(ServedConfig served, FetchServedConfig(args.conf_servers, &tokens, 10000, &from));
  CachedConfig cache{served.hash, served.muster_yaml, {}};
  for (ConfigFile& f : served.files) cache.files.push_back({std::move(f.name), std::move(f.text)});
  if (Status st = WriteConfigCache(args.conf_cache, cache); !st.ok()) {
    return Status(st.code(), "the configuration from " + from + " cannot be cached: " + st.message());
  }
  LogInfo("configless: fetched the configuration from " + from + " (hash " + served.hash + ") into " + args.conf_cache);
  return served.hash;
}

// A configless agent's start: the configuration fetched into the cache, or the cache as it is
// when no controller serves it. The hash it runs with.
StatusOr<std::string> ConfiglessStart(const DaemonArgs& args, const TokenAuthority& tokens) {
  StatusOr<std::string> fetched = FetchIntoCache(args, tokens);
  if (fetched.ok()) return fetched;
  StatusOr<std::string> cached = ReadCachedConfigHash(args.conf_cache);
  if (!cached.ok()) {
    return Status(StatusCode::kUnavailable, "configless: " + fetched.status().message() + ", and " +
                                                cached.status().message() + ": nothing to start with");
  }
  LogWarning("configless: " + fetched.status().message() + "; starting from the cache of the last fetch in " +
             args.conf_cache + " (hash " + *cached + ")");
  return cached;
}


// muster.yaml (configless: the cached one, with the cluster key given and its socket's directory
// made); its tls section's CA verifies every TCP connection this daemon opens.
StatusOr<MusterConfig> LoadAgentConfig(const DaemonArgs& args, bool configless) {
  StatusOr<MusterConfig> conf = LoadMusterConfig(configless ? CachedMusterYamlPath(args.conf_cache) : args.conf_path);
  if (!conf.ok()) return conf.status();
  if (conf->tls()) {  // every TCP connection this daemon opens verifies its server with the cluster CA
    if (Status st = HttpClient::SetProcessTls(HttpClient::Tls{conf->tls_ca_file}); !st.ok()) return st;
  }
  if (configless) {
    conf->key_file = args.key_file;  // the one file a configless node holds
    // Nothing else is there before it: its socket's directory (relative paths: in the cache).
    std::error_code ec;
    std::filesystem::create_directories(conf->agent_socket_dir, ec);
    if (ec) return FailedPrecondition("cannot make agent.socket_dir " + conf->agent_socket_dir + ": " + ec.message());
  }
  return conf;
}

// The node's GPUs: NVML's (unless agent.gpus is fake), and fake GPUs standing on agent.gpu_devices.
Status SetNodeGpus(const MusterConfig& conf, const std::string& node_name, AgentOptions* opt) {
  if (conf.gpus != "fake") {
    StatusOr<GpuInventory> nvml = DiscoverNvmlGpus(conf.nvml_library);
    if (nvml.ok()) {
      opt->node.gpus = nvml->gpus;
      opt->node.links = nvml->links;
      opt->gpu_devices.minors = nvml->minors;
      opt->nvml_library = conf.nvml_library;
      opt->nvml_index = nvml->nvml_index;
      opt->gpu_health = conf.gpu_health;
      opt->gpu_devices.caps = nvml->cap_minors;
      // GPU feature discovery: what NVML says joins the features the cluster file gives.
      for (const std::string& f : nvml->features) {
        if (std::find(opt->node.features.begin(), opt->node.features.end(), f) == opt->node.features.end()) {
          opt->node.features.push_back(f);
        }
      }
    } else if (conf.gpus == "nvml" || nvml.status().code() != StatusCode::kNotFound) {
      return FailedPrecondition("NVML: " + nvml.status().message());
    }
  }
  if (!conf.gpu_devices.empty() && opt->gpu_devices.empty()) {
    // Fake GPUs standing on device nodes of a directory: GPU i is its i-th nvidia<N>.
    std::vector<int> minors = cgroup_internal::NvidiaGpuMinors(conf.gpu_devices);
    if (minors.size() < opt->node.gpus.size()) {
      return FailedPrecondition("agent.gpu_devices '" + conf.gpu_devices + "' holds " + std::to_string(minors.size()) +
                                " nvidia<N> character devices; node '" + node_name + "' has " +
                                std::to_string(opt->node.gpus.size()) + " GPUs");
    }
    minors.resize(opt->node.gpus.size());
    opt->gpu_devices.minors = minors;
  }
  return Status::Ok();
}

// Where the agent listens (--listen, else agent.listen) and how it reaches the controllers.
Status SetAgentAddresses(MusterConfig* conf, const DaemonArgs& args, const std::string& node_name,
                         AgentOptions* opt) {
  opt->ctld_addresses = {"unix:" + conf->ctld_socket};
  if (!args.listen.empty()) conf->agent_listen = args.listen;  // --listen: this agent's own address
  if (!conf->agent_listen.empty()) {
    StatusOr<HostPort> listen = ParseHostPort(conf->agent_listen, args.listen.empty() ? "agent.listen" : "--listen");
    if (!listen.ok()) return listen.status();
    opt->listen_host = listen->host;
    opt->listen_port = listen->port;
    opt->tls_cert_file = conf->tls_cert_file;  // (muster.yaml's tls: TCP speaks TLS both ways)
    opt->tls_key_file = conf->tls_key_file;
    // What the controller is told: the listen host, or this node's name for a wildcard.
    opt->advertise_host = AgentAdvertisedHost(*listen, node_name);
    // A node that is reached over TCP reaches the controller over TCP too (it may be on another host).
    if (!conf->ctld_listen.empty()) opt->ctld_addresses = {conf->ctld_listen};
  }
  // Several controllers (controller.hosts): over TCP to each, following the one that leads.
  if (!conf->ctld_hosts.empty()) {
    opt->ctld_addresses = conf->ctld_hosts;
    opt->ctld_timeout_ms = static_cast<int>(std::clamp<int64_t>(conf->ctld_lease_s * 1000, 2000, 10000));
  }
  return Status::Ok();
}

// The tokens of this node (the cluster key's), which a TCP listener and controller.hosts need.
Status SetAgentTokens(const MusterConfig& conf, const std::string& node_name, AgentOptions* opt,
                      std::unique_ptr<TokenAuthority>* tokens) {
  StatusOr<std::string> key = LoadClusterKey(conf.key_file, /*create=*/false);
  if (key.ok()) {
    *tokens = std::make_unique<TokenAuthority>(*key, NodeAudience(node_name));  // tokens for this node only
    opt->tokens = tokens->get();
  } else if (opt->listen_port >= 0) {
    return FailedPrecondition("agent.listen is set but the cluster key cannot be read (" + key.status().message() +
                              "): a TCP listener needs it to verify callers' tokens");
  } else if (!conf.ctld_hosts.empty()) {
    return FailedPrecondition("controller.hosts is set but the cluster key cannot be read (" + key.status().message() +
                              "): the agent needs it for the token it presents to the controllers over TCP");
  } else {
    LogWarning("no cluster key (" + key.status().message() + "): not minting tokens");
  }
  return Status::Ok();
}

// The agent's options from the configuration: the node as configured, its GPUs, its addresses,
// its directories, its tokens and its cgroups.
Status SetAgentOptions(MusterConfig* conf, const DaemonArgs& args, const std::string& node_name,
                       const std::string& running_hash, AgentOptions* opt, std::unique_ptr<TokenAuthority>* tokens) {
  const Node* configured = nullptr;
  for (const Node& n : conf->cluster.spec.nodes) {
    if (n.name == node_name) configured = &n;
  }
  if (configured == nullptr) return FailedPrecondition("node '" + node_name + "' is not in " + conf->cluster_file);
  opt->node = *configured;
  opt->node.state = NodeState::kIdle;
  opt->node.drain = false;
  opt->node.reason.clear();
  RETURN_IF_ERROR(SetNodeGpus(*conf, node_name, opt));
  opt->cluster_name = conf->cluster_name;
  opt->health_check_program = conf->health_check_program;
  opt->mps_control = conf->mps == "off" ? "" : conf->mps == "auto" ? FindMpsControl() : conf->mps;
  if (!opt->mps_control.empty() &&
      std::find(opt->node.features.begin(), opt->node.features.end(), "mps") == opt->node.features.end()) {
    opt->node.features.push_back("mps");  // jobs that want an enforced share ask -C mps
  }
  opt->health_check_interval_s = conf->health_check_interval_s;
  RETURN_IF_ERROR(SetAgentAddresses(conf, args, node_name, opt));
  opt->socket_path = conf->AgentSocket(node_name);
  opt->spool_dir = conf->spool_dir + "/" + node_name;
  if (!conf->script_dir.empty()) opt->script_dir = conf->script_dir + "/" + node_name;
  opt->heartbeat_interval_s = conf->heartbeat_interval_s;
  opt->allow_root_jobs = conf->allow_root_jobs;
  opt->trusted_uids = conf->admin_uids;
  opt->end_jobs_on_stop = args.end_jobs_on_stop;
  opt->kill_wait_s = conf->kill_wait_s;
  opt->config_hash = running_hash;
  if (!args.conf_servers.empty()) {
    // From the controller thread: SIGHUP wakes the main thread, which fetches and compares.
    opt->on_config_changed = [](const std::string&) { kill(getpid(), SIGHUP); };
  }
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return FailedPrecondition("cannot find this program's path (/proc/self/exe), which runs the jobs' shepherds");
  // The runs' shepherds' spawner: muster-shepherd beside this program (a sixth of its size: each
  // shepherd is a fork of it); this program itself (`musterd --spawner`) where it is missing.
  const std::string self(exe, static_cast<size_t>(n));
  const std::string shepherd = self.substr(0, self.rfind('/') + 1) + "muster-shepherd";
  if (access(shepherd.c_str(), X_OK) == 0) {
    opt->shepherd_exe = shepherd;
  } else {
    LogWarning("no " + shepherd + " (the runs' shepherds' spawner): this program spawns them instead");
    opt->shepherd_exe = self;
  }
  RETURN_IF_ERROR(SetAgentTokens(*conf, node_name, opt, tokens));
  if (conf->cgroups != "off") {
    // Named after the node and the spool directory too: two clusters on one host whose nodes
    // share names (local clusters) keep apart, and a restarted agent finds its own again.
    StatusOr<std::unique_ptr<Cgroup>> cg =
        DetectCgroup("/sys/fs/cgroup", AgentCgroupBase(node_name, opt->spool_dir),
                     conf->gpu_devices.empty() ? "/dev" : conf->gpu_devices);
    if (cg.ok()) {
      opt->cgroup = std::move(*cg);
    } else {
      LogWarning("cgroups unavailable: " + cg.status().message());
    }
  }
  return Status::Ok();
}

int Main(int argc, char** argv) {
  // The runs' shepherds' spawner (agent/shepherd_spawner.h), where muster-shepherd is not
  // installed beside musterd.
  if (argc == 2 && std::string(argv[1]) == "--spawner") {
    return SpawnerMain(argc, argv);
  }
  DaemonArgs args;
  if (std::optional<int> rc = StartDaemon(Daemon::kAgent, argc, argv, &args)) return *rc;
  std::string node_name = args.node;
  if (node_name.empty()) {
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    node_name = host;
  }
  args.log.node = node_name;
  if (Status st = InitLogging(args.log); !st.ok()) return Fail(st.message());
  const bool configless = !args.conf_servers.empty();
  std::unique_ptr<TokenAuthority> fetch_tokens;
  std::string running_hash;  // configless: the hash of the configuration it runs with
  if (configless) {
    StatusOr<std::string> k = LoadClusterKey(args.key_file, /*create=*/false);
    if (!k.ok()) return Fail("--conf-server needs the cluster key (--key-file): " + k.status().message());
    fetch_tokens = std::make_unique<TokenAuthority>(*k);
    if (!args.ca_file.empty()) {  // the fetch goes over TLS (until the configuration's own tls section)
      if (Status st = HttpClient::SetProcessTls(HttpClient::Tls{args.ca_file}); !st.ok()) return Fail(st.message());
    }
    StatusOr<std::string> hash = ConfiglessStart(args, *fetch_tokens);
    if (!hash.ok()) return Fail(hash.status().message());
    running_hash = *hash;
  }
  StatusOr<MusterConfig> conf = LoadAgentConfig(args, configless);
  if (!conf.ok()) return Fail(conf.status().message());
  AgentOptions opt;
  std::unique_ptr<TokenAuthority> tokens;
  if (Status st = SetAgentOptions(&*conf, args, node_name, running_hash, &opt, &tokens); !st.ok()) {
    return Fail(st.message());
  }
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);
  if (std::string bad = StopWhenStarterEnds(); !bad.empty()) return Fail(bad);
  SystemClock clock;
  std::string opt_ctld;
  for (const std::string& a : opt.ctld_addresses) opt_ctld += (opt_ctld.empty() ? "" : ", ") + a;
  opt_ctld = (opt.ctld_addresses.size() > 1 ? "controllers at " : "controller at ") + opt_ctld;
  Agent agent(std::move(opt), &clock);
  if (Status st = agent.Start(); !st.ok()) return Fail(st.message());
  LogInfo("serving on " + conf->AgentSocket(node_name) + (conf->agent_listen.empty() ? "" : " and " + agent.Address()) +
          ", " + opt_ctld + " (pid " + std::to_string(getpid()) + ")");
  int sig = 0;
  bool warned_hup = false;
  while (sigwait(&set, &sig) == 0 && sig == SIGHUP) {
    if (!configless) {
      if (!warned_hup) LogInfo("SIGHUP: a local muster.yaml is read at start; restart musterd to apply a change");
      warned_hup = true;
      continue;
    }
    StatusOr<std::string> hash = FetchIntoCache(args, *fetch_tokens);
    if (!hash.ok()) {
      LogWarning("configless: the controller's configuration changed but cannot be fetched: " + hash.status().message() +
                 " (running on with hash " + running_hash + ")");
      continue;
    }
    if (*hash == running_hash) continue;
    LogInfo("configless: the configuration changed (hash " + running_hash + " -> " + *hash +
            "): starting again with it (the runs here are kept)");
    agent.Stop();
    ExecAgain(argv, "with the new configuration");
  }
  // Jobs keep running when the agent stops (a restarted agent finds them gone and says so; a
  // node shutdown ends them with the machine).
  LogInfo("signal " + std::to_string(sig) + ", stopping");
  agent.Stop();
  return 0;
}
}  // namespace
}  // namespace muster

int main(int argc, char** argv) { return muster::Main(argc, argv); }
