// musterctld: the controller daemon. Owns the cluster state (SQLite or PostgreSQL), runs the
// scheduler loop and serves the HTTP/JSON API on a Unix socket (peer credentials) and optionally
// TCP (tokens).
//   musterctld [--conf PATH] [--listen HOST:PORT] [--socket PATH] [--log-file PATH] [--log-level LEVEL] [--syslog]
// Stops cleanly on SIGTERM/SIGINT; after kill -9 a restart recovers everything from the store.
// With controller.hosts (several controllers sharing a PostgreSQL state), it first stands by until
// it holds the lease (api/standby.h, ctld/lease_keeper.h), then leads while it renews it; a leader
// that loses it stops acting at once and starts again, as a standby (the same program, execv).
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <optional>

#include <cstdio>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "base/clock.h"
#include "base/exec_again.h"
#include "base/log.h"
#include "base/mutex.h"
#include "base/stop_with.h"
#include "config/daemon_args.h"
#include "config/muster_config.h"
#include "config/scheduling/scheduling_config.h"
#include "api/config_files.h"
#include "api/controller_metrics.h"
#include "api/dashboard.h"
#include "api/routes.h"
#include "api/slurmrest/slurmrest.h"
#include "api/route_util.h"
#include "api/standby.h"
#include "ctld/controller.h"
#include "ctld/agent_reach.h"
#include "ctld/lease_keeper.h"
#include "api/http_agent_client.h"
#include "net/http.h"
#include "net/key_file.h"
#include "net/token.h"
#include "store/pg_store.h"
#include "store/store.h"

namespace muster {
namespace {

int Fail(const std::string& msg) {
  LogError(msg);
  return 1;
}

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "localhost";
  return name;
}

std::string FormatSeconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", s);
  return buf;
}

// Every connection holds a descriptor (HttpServer's caps: 4,096 counted, 64 reserved, 256
// unauthenticated, on each listener), and the usual soft limit is 1,024 (systemd's default): the
// soft limit is raised to the hard one, so that accept() does not fail with EMFILE, which would shut
// out the Unix socket's callers too.
void RaiseOpenFilesLimit() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) {
    LogWarning(std::string("cannot read the open files limit: ") + std::strerror(errno));
    return;
  }
  if (lim.rlim_cur >= lim.rlim_max) return;
  const rlim_t was = lim.rlim_cur;
  lim.rlim_cur = lim.rlim_max;
  if (setrlimit(RLIMIT_NOFILE, &lim) != 0) {
    LogWarning("cannot raise the open files limit from " + std::to_string(was) + " to " +
               std::to_string(lim.rlim_max) + ": " + std::strerror(errno));
    return;
  }
  LogInfo("open files limit raised from " + std::to_string(was) + " to " + std::to_string(lim.rlim_max));
}

// Waits up to `ms` for SIGTERM/SIGINT (blocked in `set`): the signal, or 0.
int WaitSignal(const sigset_t& set, int64_t ms) {
  timespec ts{static_cast<time_t>(ms / 1000), static_cast<long>(ms % 1000) * 1000000};
  const int sig = sigtimedwait(&set, nullptr, &ts);
  return sig > 0 ? sig : 0;
}


// The leader's check at each renewal: a standby that hears more agents saying they cannot reach
// this controller than this controller heard in `window_s` gets the lease (ctld/agent_reach.h).
void HandOverIfCutOff(LeaseKeeper& keeper, Store& store, const Controller& controller, int64_t window_s) {
  StatusOr<std::vector<ControllerView>> views = store.ReadViews(keeper.options().lease_ms);
  if (!views.ok()) return;  // (the next renewal says whether the store is reachable)
  const int64_t heard = controller.NodesHeardWithin(window_s);
  std::optional<ControllerView> to = AgentReach::Successor(heard, *views, keeper.options().address);
  if (!to) return;
  LogWarning("handing the lease to " + to->address + ": " + std::to_string(to->agents) +
             " agent(s) reach it and say they cannot reach this controller, which heard " + std::to_string(heard) +
             " in the last " + std::to_string(window_s) + " s");
  if (Status st = keeper.HandOver(to->address); !st.ok()) LogWarning("cannot hand the lease over: " + st.message());
}

// Stands by: serves the standby's answers (api/standby.h) on the controller's addresses, and tries
// to take the lease every PollMs(), until it holds it (true) or a signal comes (false).
// `*previous`: the address of the last leader it saw ("" = none).
// Meanwhile it counts the agents that come to it because they cannot reach the leader, and reports
// that count through the store at each poll (ctld/agent_reach.h).
StatusOr<bool> StandBy(LeaseKeeper& keeper, Store& store, AgentReach& reach, const HttpServer::Options& opt,
                       const std::string& cluster, const sigset_t& signals, std::string* previous) {
  const std::string& address = keeper.options().address;
  StatusOr<std::unique_ptr<HttpServer>> server = HttpServer::Start(opt, [&](const HttpRequest& r) {
    const Leadership last = keeper.Last();
    if (std::string node = api::FailedOverNode(r, last.remaining_ms > 0 ? last.address : "", opt.privileged_uids);
        !node.empty()) {
      reach.Note(node, SteadyMillis());
    }
    return api::StandbyAnswer(r, cluster, address, last);
  });
  if (!server.ok()) return server.status();
  std::string said;  // the last state logged, to log changes only
  int64_t reported = -1;       // the count the store holds (-1: not known; written at the first poll)
  std::string report_failed;   // the last failure to write it, logged once
  while (true) {
    StatusOr<Leadership> l = keeper.Try();
    if (l.ok() && l->leading) break;
    // A count of 0 already in the store need not be written again (the leader never hands the
    // lease to it); any other is written at each poll, to stay fresh.
    const int64_t agents = reach.Count(SteadyMillis());
    if (agents != 0 || reported != 0) {
      if (Status st = store.ReportView(address, agents); !st.ok()) {
        if (st.message() != report_failed) LogWarning("cannot report this standby's view: " + st.message());
        report_failed = st.message();
        reported = -1;
      } else {
        if (agents != reported && (agents > 0 || reported > 0)) {
          LogInfo(std::to_string(agents) + " agent(s) reached this standby in the last " +
                  std::to_string(reach.window_ms() / 1000) + " s saying they cannot reach the leader");
        }
        report_failed.clear();
        reported = agents;
      }
    }
    if (l.ok() && l->token > 0) *previous = l->address;
    const std::string now = !l.ok() ? "cannot read the lease: " + l.status().message()
                                    : l->remaining_ms > 0 ? "the leader is " + l->address + " (lease token " +
                                                                std::to_string(l->token) + ")"
                                                          : "no controller leads";
    if (now != said) LogInfo("standing by as " + address + ": " + now);
    said = now;
    if (int sig = WaitSignal(signals, keeper.PollMs()); sig != 0) {
      LogInfo("signal " + std::to_string(sig) + ", stopping (standby)");
      (*server)->Stop();
      return false;
    }
  }
  (*server)->Stop();
  return true;
}

// What musterctld reads at its start: muster.yaml, the scheduling configuration, and what
// configless agents fetch (GET /v1/config/files) with its hash.
struct StartConfig {
  MusterConfig conf;
  SchedulingConfig sched;
  ServedConfig served;
};

StatusOr<StartConfig> ReadStartConfig(const std::string& conf_path) {
  StatusOr<MusterConfig> conf = LoadMusterConfig(conf_path);
  if (!conf.ok()) return conf.status();
  if (conf->tls()) {  // every TCP connection this daemon opens verifies its server with the cluster CA
    if (Status st = HttpClient::SetProcessTls(HttpClient::Tls{conf->tls_ca_file}); !st.ok()) return st;
  }
  StatusOr<SchedulingConfig> sched = LoadSchedulingConfig(*conf);
  if (!sched.ok()) return sched.status();
  // What the cluster file holds that Muster ignores (a slurm.conf's unsupported keys), once.
  for (const std::string& w : conf->cluster.warnings) LogWarning(w);
  for (const std::string& w : sched->warnings) LogWarning(w);
  // What configless agents fetch, as read at this start.
  StatusOr<ServedConfig> served = api::ReadServedConfig(*conf);
  if (!served.ok()) return served.status();
  return StartConfig{std::move(*conf), std::move(*sched), std::move(*served)};
}

// One of several controllers (a keeper): stands by until it leads (true) or a signal comes (false).
// Without a keeper, true at once.
StatusOr<bool> StandByFirst(LeaseKeeper* keeper, Store& store, const MusterConfig& conf,
                            const HttpServer::Options& opt, const sigset_t& set, std::string* took_from) {
  if (!keeper) return true;
  LogInfo("controller " + keeper->options().address + " of " + std::to_string(conf.ctld_hosts.size()) +
          " (controller.hosts), lease " + std::to_string(conf.ctld_lease_s) + " s: standing by until it leads");
  AgentReach reach(StandbyReachWindowMs(conf.ctld_lease_s, conf.heartbeat_interval_s));
  return StandBy(*keeper, store, reach, opt, conf.cluster_name, set, took_from);
}

// With controller.hosts, the keeper of this controller's lease (its own entry of them); else nullptr.
StatusOr<std::unique_ptr<LeaseKeeper>> MakeLeaseKeeper(const MusterConfig& conf, const std::string& listen_address,
                                                       Store* store) {
  if (conf.ctld_hosts.empty()) return std::unique_ptr<LeaseKeeper>();
  const std::string host = HostName();
  StatusOr<std::string> own = api::OwnHostsEntry(conf, listen_address, host);
  if (!own.ok()) return own.status();
  return std::make_unique<LeaseKeeper>(
      store, LeaseKeeper::Options{api::NewLeaseHolder(*own, host), *own, conf.ctld_lease_s * 1000});
}

// Signals are taken by a thread with sigwait; they are blocked before any thread starts.
sigset_t BlockStopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return set;
}

// The controller leads after `standby_s` standing by: its statistics and the log say so.
void NoteLeading(const LeaseKeeper& keeper, const Leadership& lease, Controller& controller, const Clock& clock,
                 double standby_s, const std::string& took_from) {
  controller.stats().SetLeadership({keeper.options().address, lease.token, clock.NowSeconds(), standby_s, took_from});
  LogInfo("leading as " + keeper.options().address + " (lease token " + std::to_string(lease.token) + ") after " +
          FormatSeconds(standby_s) + " s standing by" +
          (took_from.empty() ? std::string() : ": took over from " + took_from));
}

// The controller's listeners: the Unix socket, and TCP (--listen, else controller.listen) with the
// cluster's tokens and TLS.
Status SetServerOptions(const MusterConfig& conf, const DaemonArgs& args, const std::string& listen_address,
                        const std::string& socket_path, const TokenAuthority* tokens, HttpServer::Options* opt) {
  opt->unix_path = socket_path;
  opt->unix_mode = 0666;
  opt->tcp_port = -1;
  if (!listen_address.empty()) {
    StatusOr<HostPort> listen = ParseHostPort(listen_address, args.listen.empty() ? "controller.listen" : "--listen");
    if (!listen.ok()) return listen.status();
    opt->tcp_host = listen->host;
    opt->tcp_port = listen->port;
  }
  opt->tokens = tokens;
  opt->tls_cert_file = conf.tls_cert_file;  // muster.yaml's tls: TCP speaks TLS (rest_listen too)
  opt->tls_key_file = conf.tls_key_file;
  opt->threads = 4;
  // A standby has no routes yet: the limits the leader's routes have (once they exist, theirs).
  opt->body_limit = ControllerUnroutedBodyLimit;
  // Root, the controller's own uid and the admins (the agents among them) are never shut out by
  // users holding connections.
  opt->privileged_uids = conf.admin_uids;
  opt->privileged_uids.push_back(0);
  opt->privileged_uids.push_back(geteuid());
  return Status::Ok();
}

ControllerConfig ControllerConfigFrom(const MusterConfig& conf, const SchedulingConfig& sched,
                                      const ServedConfig& served) {
  ControllerConfig cc;
  cc.cluster_name = conf.cluster_name;
  cc.cluster = ClusterSnapshot(conf.cluster.spec);  // (the cluster file's usage: is muster place's)
  cc.heartbeat_timeout_s = conf.heartbeat_timeout_s;
  cc.heartbeat_interval_s = conf.heartbeat_interval_s;
  cc.outage_threshold_pct = conf.outage_threshold_pct;
  cc.hold_on_launch_failure = conf.launch_failure == "hold";
  cc.kill_wait_s = conf.kill_wait_s;
  cc.min_job_age_s = conf.min_job_age_s;
  cc.first_job_id = conf.first_job_id;
  cc.admin_uids = conf.admin_uids;
  cc.allow_root_jobs = conf.allow_root_jobs;
  cc.priority = sched.priority;
  cc.scheduler = sched.scheduler;
  cc.check_caches = sched.check_caches;
  cc.config_hash = served.hash;
  return cc;
}

// Every route of the controller's servers: `router` (the Unix socket's and controller.listen's),
// `rest_router` (controller.rest_listen's). scontrol reconfigure sets `*restart_requested`.
void AddAllRoutes(Controller& controller, Router& router, Router& rest_router, const std::string& jwt_key,
                  const MusterConfig& conf, const ServedConfig& served, const DaemonArgs& args,
                  std::atomic<bool>* restart_requested) {
  slurmrest::RestOptions rest;
  rest.jwt_key = jwt_key;
  rest.server_threads = 4;
  AddControllerRoutes(controller, router, jwt_key, conf.jwt_max_lifespan_s);
  api::AddMetricsRoutes(controller, router, /*server_threads=*/4);
  // Every request a route answers is timed by its route's pattern (GET /metrics, sdiag).
  // sdiag's "by user" rows count the callers the server identified (peer credentials or a token).
  const Router::Observer timed = [&controller](const HttpRequest& r, const std::string& pattern, double seconds) {
    controller.stats().ApiRequest(pattern, r.method, seconds,
                                  r.caller.authenticated ? std::optional<uint32_t>(r.caller.uid) : std::nullopt);
  };
  // scontrol reconfigure: the files read and checked again; if they pass, this process starts
  // again with them once the answer is sent (below, as on SIGTERM, but for the exit).
  api::AddConfigFileRoutes(controller, router, served, [&args, restart_requested]() -> Status {
    StatusOr<MusterConfig> again = LoadMusterConfig(args.conf_path);
    if (!again.ok()) return again.status();
    RETURN_IF_ERROR(CheckStatePasswordFile(*again));
    StatusOr<SchedulingConfig> sched_again = LoadSchedulingConfig(*again);
    if (!sched_again.ok()) return sched_again.status();
    StatusOr<ServedConfig> files = api::ReadServedConfig(*again);
    if (!files.ok()) return files.status();
    *restart_requested = true;
    return Status::Ok();
  });
  router.SetObserver(timed);
  slurmrest::AddSlurmRestRoutes(controller, router, rest);
  api::AddDashboardRoutes(controller, router, jwt_key);
  slurmrest::AddSlurmRestRoutes(controller, rest_router, rest);
  api::AddDashboardRoutes(controller, rest_router, jwt_key);  // a browser's JWT, as the REST API's
  rest_router.SetObserver(timed);
}

// The server of the Unix socket and controller.listen. Every route but the ping needs a caller the
// server could identify: a request over TCP without a token, or with a forged or expired one, is
// answered 401 before any handler sees it.
StatusOr<std::unique_ptr<HttpServer>> StartServer(const HttpServer::Options& opt, const LeaseKeeper* keeper,
                                                  const std::string& cluster_name, Router& router) {
  return HttpServer::Start(opt, [&router, keeper, cluster_name](const HttpRequest& r) {
    // One of several controllers: the ping says it leads.
    if (keeper && r.method == "GET" && r.path == "/v1/ping") {
      return api::Ok(api::HostsPing(r, cluster_name, true, keeper->options().address, keeper->Last()));
    }
    // The REST routes and the dashboard's decide for themselves (peer credentials or a JWT).
    if (slurmrest::IsSlurmRestPath(r.path) || api::IsDashboardPath(r.path)) return router.Handle(r);
    // The ping and /metrics (as musterd's: counts and timings, no job's secrets) are open to GET.
    if (!r.caller.authenticated && !(r.method == "GET" && (r.path == "/v1/ping" || r.path == "/metrics"))) {
      return HttpResponse::Error(401, "authentication required: " + r.caller.error);
    }
    return router.Handle(r);
  });
}

// controller.rest_listen's server (slurmrestd's REST API, a JWT on every request); nullptr without
// one, and on failure (with *error).
std::unique_ptr<HttpServer> StartRestServer(const MusterConfig& conf, Controller& controller,
                                            const std::string& jwt_key, Router& rest_router,
                                            const HttpServer::Options& opt, std::string* error) {
  if (conf.rest_listen.empty()) return nullptr;
  StatusOr<HostPort> listen = ParseHostPort(conf.rest_listen, "controller.rest_listen");
  if (!listen.ok()) {
    *error = listen.status().message();
    return nullptr;
  }
  HttpServer::Options ro;
  ro.tcp_host = listen->host;
  ro.tcp_port = listen->port;
  ro.threads = 2;
  // Callers present JWTs: checked as soon as a request's header is in, so that a body without a
  // valid one is never read (401 first), and a connection counts as its user's once it has one
  // (HttpServer::Options' caps); the routes decide again with the whole request.
  ro.authenticate = [&controller, jwt_key](const std::map<std::string, std::string>& headers) {
    return slurmrest::AuthenticateHeaders(headers, jwt_key, controller.NowSeconds(), [&controller](uint32_t uid) {
      return controller.IsAdmin(Caller{true, uid, 0, "jwt", ""});
    });
  };
  ro.unauthenticated_reply = [](const std::string&) { return slurmrest::AuthenticationFailure(); };
  ro.body_limit = [&rest_router](std::string_view method, std::string_view path) {
    return rest_router.BodyLimit(method, path);
  };
  ro.privileged_uids = opt.privileged_uids;
  ro.tls_cert_file = conf.tls_cert_file;  // muster.yaml's tls: the same certificate and key
  ro.tls_key_file = conf.tls_key_file;
  StatusOr<std::unique_ptr<HttpServer>> started = HttpServer::Start(ro, [&rest_router](const HttpRequest& r) {
    if (!slurmrest::IsSlurmRestPath(r.path) && !api::IsDashboardPath(r.path)) {
      return HttpResponse::Error(404, "no such path: " + r.path);
    }
    return rest_router.Handle(r);
  });
  if (!started.ok()) {
    *error = "controller.rest_listen: " + started.status().message();
    return nullptr;
  }
  LogInfo("slurmrestd's REST API (v0.0.38) on tcp port " + std::to_string((*started)->tcp_port()) +
          (ro.tls_cert_file.empty() ? "" : " (TLS)") +
          (jwt_key.empty() ? " (no controller.jwt_key: every TCP request is refused)" : ""));
  return std::move(*started);
}

// Why the leader stops: deposed (sig 0, no restart), reconfigured, or a signal.
void LogStopping(const LeaseKeeper* keeper, int sig, bool restart, bool deposed) {
  if (deposed) {
    const Leadership l = keeper->Last();
    LogError("no longer leading: " +
             (!keeper->HandedTo().empty() ? "handed the lease to " + keeper->HandedTo()
              : l.holder != keeper->options().holder && !l.holder.empty()
                  ? "the lease was taken by " + l.address + " (token " + std::to_string(l.token) + ")"
                  : std::string("the lease could not be renewed in time")) +
             "; stopping as leader and starting again as a standby");
  } else if (restart) {
    LogInfo("scontrol reconfigure: stopping, to start again with the configuration as it is now");
  } else {
    LogInfo("signal " + std::to_string(sig) + ", stopping");
  }
}

// A stopping leader's lease: kept for this address across a reconfigure, else resigned.
void ReleaseLease(const LeaseKeeper& keeper, Store& store, bool restart) {
  if (restart) {
    // Reconfigured: the lease is reserved for this address for one lease length, so this
    // controller, started again, takes it back at once and no standby takes over meanwhile.
    if (Status st = store.HandOver(keeper.options().holder, keeper.options().address, keeper.options().lease_ms);
        !st.ok()) {
      LogWarning("cannot keep the lease across the reconfigure: " + st.ToString());
    }
  } else if (Status st = store.Resign(keeper.options().holder); !st.ok()) {
    // A clean stop hands over at once: a standby need not wait for the lease to lapse.
    LogWarning("cannot resign the lease (a standby takes over when it lapses): " + st.ToString());
  } else {
    LogInfo("resigned the lease");
  }
}

// The lease's renewals, on a thread of their own (a call may wait on the store's server), every
// RenewMs() until Stop().
class Renewer {
 public:
  void Start(LeaseKeeper& keeper, Store& store, const Controller& controller, int64_t heard_window_s) {
    thread_ = std::thread([this, &keeper, &store, &controller, heard_window_s] {
      MutexLock l(mu_);
      const auto stopping = [this] {
        mu_.AssertHeld();
        return stopping_;
      };
      while (!l.WaitFor(cv_, std::chrono::milliseconds(keeper.RenewMs()), stopping)) {
        l.Unlock();
        StatusOr<Leadership> r = keeper.Try();
        if (!r.ok()) {
          LogWarning("cannot renew the lease: " + r.status().message() + " (" +
                     std::to_string(std::max<int64_t>(0, keeper.RemainingMs())) + " ms left)");
        } else if (keeper.Leading()) {
          HandOverIfCutOff(keeper, store, controller, heard_window_s);
        }
        l.Lock();
      }
    });
  }
  void Stop() {
    {
      MutexLock l(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  Mutex mu_{"lease renewer"};
  std::condition_variable cv_;
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread thread_;
};

int Main(int argc, char** argv) {
  DaemonArgs args;
  if (std::optional<int> rc = StartDaemon(Daemon::kController, argc, argv, &args)) return *rc;
  if (Status st = InitLogging(args.log); !st.ok()) return Fail(st.message());
  RaiseOpenFilesLimit();
  StatusOr<StartConfig> start = ReadStartConfig(args.conf_path);
  if (!start.ok()) return Fail(start.status().message());
  const MusterConfig* const conf = &start->conf;
  const SchedulingConfig* const sched = &start->sched;
  const ServedConfig* const served = &start->served;
  StatusOr<std::string> key = LoadClusterKey(conf->key_file, /*create=*/true);
  if (!key.ok()) return Fail(key.status().message());
  TokenAuthority tokens(*key, kControllerAudience);  // takes tokens for the controllers only
  if (Status st = CheckStatePasswordFile(*conf); !st.ok()) return Fail(st.message());
  StatusOr<std::unique_ptr<Store>> store =
      OpenStore(PgUrlWithPassfile(conf->state_path, conf->state_password_file), conf->first_job_id);
  if (!store.ok()) return Fail(store.status().message());
  LogInfo("state store: " + StoreLocationForDisplay(conf->state_path));
  const std::string listen_address = args.listen.empty() ? conf->ctld_listen : args.listen;
  const std::string socket_path = args.socket.empty() ? conf->ctld_socket : args.socket;
  StatusOr<std::unique_ptr<LeaseKeeper>> keeper_made = MakeLeaseKeeper(*conf, listen_address, store->get());
  if (!keeper_made.ok()) return Fail(keeper_made.status().message());
  std::unique_ptr<LeaseKeeper> keeper = std::move(*keeper_made);
  HttpServer::Options opt;
  if (Status st = SetServerOptions(*conf, args, listen_address, socket_path, &tokens, &opt); !st.ok()) {
    return Fail(st.message());
  }
  const sigset_t set = BlockStopSignals();
  if (std::string bad = StopWhenStarterEnds(); !bad.empty()) return Fail(bad);
  const int64_t standby_began = SteadyMillis();
  std::string took_from;
  if (StatusOr<bool> led = StandByFirst(keeper.get(), **store, *conf, opt, set, &took_from); !led.ok() || !*led) {
    return led.ok() ? 0 : Fail(led.status().message());
  }
  const Leadership lease = keeper ? keeper->Last() : Leadership{};
  SystemClock clock;
  HttpAgentClient agents(&tokens);  // agents on TCP verify the controller's token
  // Every order carries the lease's token: an agent that saw a later leader's refuses it.
  if (keeper) agents.SetLeaderToken(lease.token);
  Controller controller(ControllerConfigFrom(*conf, *sched, *served), store->get(), &agents, &clock);
  if (Status st = controller.Recover(); !st.ok()) return Fail(st.message());
  // A token opens one connection, and its nonce is recorded in the store as well as in memory: a
  // token used before a restart (of this controller, or of another sharing the store) is refused
  // after it. (A standby, which answers 503, remembers them in memory only.)
  tokens.SetNonceJournal([s = store->get()](const std::string& nonce, int64_t expires, int64_t now) {
    return s->UseNonce(nonce, expires, now);
  });
  if (keeper) NoteLeading(*keeper, lease, controller, clock, double(SteadyMillis() - standby_began) / 1000, took_from);
  // slurmrestd's REST API: on the Unix socket (peer credentials or a JWT) and, with
  // controller.rest_listen, on a TCP listener of its own (a JWT on every request).
  StatusOr<std::string> jwt_key = conf->jwt_key.empty() ? StatusOr<std::string>(std::string())
                                                        : LoadClusterKey(conf->jwt_key, /*create=*/false);
  if (!jwt_key.ok()) return Fail("controller.jwt_key: " + jwt_key.status().message());
  // Each route carries its body limit: the servers ask their router.
  Router router(ControllerUnroutedBodyLimit);
  opt.body_limit = [&router](std::string_view method, std::string_view path) {
    return router.BodyLimit(method, path);
  };
  std::atomic<bool> restart_requested{false};
  Router rest_router(slurmrest::SlurmRestBodyLimit);
  AddAllRoutes(controller, router, rest_router, *jwt_key, *conf, *served, args, &restart_requested);
  StatusOr<std::unique_ptr<HttpServer>> server = StartServer(opt, keeper.get(), conf->cluster_name, router);
  if (!server.ok()) return Fail(server.status().message());
  std::string rest_error;
  std::unique_ptr<HttpServer> rest_server = StartRestServer(*conf, controller, *jwt_key, rest_router, opt, &rest_error);
  if (!rest_error.empty()) return Fail(rest_error);
  LogInfo("cluster '" + conf->cluster_name + "' serving on " + socket_path +
          (opt.tcp_port >= 0 ? " and tcp port " + std::to_string((*server)->tcp_port()) : "") + " (pid " +
          std::to_string(getpid()) + ")");
  std::thread loop([&controller] { controller.RunLoop(200); });
  Renewer renewer;
  if (keeper) {
    renewer.Start(*keeper, **store, controller, LeaderHeardWindowS(conf->ctld_lease_s, conf->heartbeat_interval_s));
  }
  int sig = 0;
  while ((sig = WaitSignal(set, 100)) == 0 && (!keeper || keeper->Leading()) && !restart_requested) {
  }
  const bool restart = sig == 0 && restart_requested;
  const bool deposed = sig == 0 && !restart;
  LogStopping(keeper.get(), sig, restart, deposed);
  if (rest_server) rest_server->Stop();
  (*server)->Stop();
  controller.Stop();
  // Deposed: acting stops here (no request is answered, the loop is told to stop; a write still in
  // flight is refused by the store's fencing), and the process starts again as a standby.
  if (deposed) ExecAgain(argv, "as a standby");
  loop.join();
  if (Status st = controller.SaveUsage(); !st.ok()) {
    LogError("cannot save the usage: " + st.ToString());
  }
  if (keeper) {
    renewer.Stop();
    ReleaseLease(*keeper, **store, restart);
  }
  if (restart) ExecAgain(argv, "reconfigured");  // (a single controller reloads its state from the store)
  return 0;
}

}  // namespace
}  // namespace muster

int main(int argc, char** argv) { return muster::Main(argc, argv); }
