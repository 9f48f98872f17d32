// musterctld: the controller daemon. Owns the cluster state (SQLite), runs the scheduler loop and
// serves the HTTP/JSON API on a Unix socket (peer credentials) and optionally TCP (tokens).
//   musterctld [--conf PATH] [--log-file PATH] [--log-level LEVEL] [--syslog]
// Stops cleanly on SIGTERM/SIGINT; after kill -9 a restart recovers everything from the store.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include "base/clock.h"
#include "base/log.h"
#include "base/stop_with.h"
#include "config/daemon_args.h"
#include "config/muster_config.h"
#include "config/scheduling/scheduling_config.h"
#include "api/controller_metrics.h"
#include "api/dashboard.h"
#include "api/routes.h"
#include "api/slurmrest/slurmrest.h"
#include "ctld/controller.h"
#include "api/http_agent_client.h"
#include "net/http.h"
#include "net/key_file.h"
#include "net/token.h"
#include "store/store.h"

namespace muster {
namespace {

int Fail(const std::string& msg) {
  LogError(msg);
  return 1;
}

int Main(int argc, char** argv) {
  DaemonArgs args;
  if (std::optional<int> rc = StartDaemon(Daemon::kController, argc, argv, &args)) return *rc;
  if (Status st = InitLogging(args.log); !st.ok()) return Fail(st.message());
  StatusOr<MusterConfig> conf = LoadMusterConfig(args.conf_path);
  if (!conf.ok()) return Fail(conf.status().message());
  StatusOr<SchedulingConfig> sched = LoadSchedulingConfig(*conf);
  if (!sched.ok()) return Fail(sched.status().message());
  // What the cluster file holds that Muster ignores (a slurm.conf's unsupported keys), once.
  for (const std::string& w : conf->cluster.warnings) LogWarning(w);
  for (const std::string& w : sched->warnings) LogWarning(w);
  StatusOr<std::string> key = LoadClusterKey(conf->key_file, /*create=*/true);
  if (!key.ok()) return Fail(key.status().message());
  TokenAuthority tokens(*key);
  StatusOr<std::unique_ptr<Store>> store = OpenStore(conf->state_path, conf->first_job_id);
  if (!store.ok()) return Fail(store.status().message());
  LogInfo("state store: " + StoreLocationForDisplay(conf->state_path));

  ControllerConfig cc;
  cc.cluster_name = conf->cluster_name;
  cc.cluster = ClusterSnapshot(conf->cluster.spec);  // (the cluster file's usage: is muster place's)
  cc.heartbeat_timeout_s = conf->heartbeat_timeout_s;
  cc.hold_on_launch_failure = conf->launch_failure == "hold";
  cc.kill_wait_s = conf->kill_wait_s;
  cc.min_job_age_s = conf->min_job_age_s;
  cc.first_job_id = conf->first_job_id;
  cc.admin_uids = conf->admin_uids;
  cc.allow_root_jobs = conf->allow_root_jobs;
  cc.priority = sched->priority;
  cc.scheduler = sched->scheduler;
  cc.learn_workload_mix = sched->learn_workload_mix;
  cc.check_caches = sched->check_caches;
  SystemClock clock;
  HttpAgentClient agents(&tokens);  // agents on TCP verify the controller's token
  Controller controller(cc, store->get(), &agents, &clock);
  if (Status st = controller.Recover(); !st.ok()) return Fail(st.message());

  // slurmrestd's REST API: on the Unix socket (peer credentials or a JWT) and, with
  // controller.rest_listen, on a TCP listener of its own (a JWT on every request).
  std::string jwt_key;
  if (!conf->jwt_key.empty()) {
    StatusOr<std::string> k = LoadClusterKey(conf->jwt_key, /*create=*/false);
    if (!k.ok()) return Fail("controller.jwt_key: " + k.status().message());
    jwt_key = std::move(*k);
  }
  slurmrest::RestOptions rest;
  rest.jwt_key = jwt_key;
  rest.server_threads = 4;
  Router router;
  AddControllerRoutes(controller, router, jwt_key);
  api::AddMetricsRoutes(controller, router, /*server_threads=*/4);
  // Every request a route answers is timed by its route's pattern (GET /metrics, sdiag).
  // sdiag's "by user" rows count the callers the server identified (peer credentials or a token).
  const Router::Observer timed = [&controller](const HttpRequest& r, const std::string& pattern, double seconds) {
    controller.stats().ApiRequest(pattern, r.method, seconds,
                                  r.caller.authenticated ? std::optional<uint32_t>(r.caller.uid) : std::nullopt);
  };
  router.SetObserver(timed);
  slurmrest::AddSlurmRestRoutes(controller, router, rest);
  api::AddDashboardRoutes(controller, router, jwt_key);
  Router rest_router;
  slurmrest::AddSlurmRestRoutes(controller, rest_router, rest);
  api::AddDashboardRoutes(controller, rest_router, jwt_key);  // a browser's JWT, as the REST API's
  rest_router.SetObserver(timed);
  HttpServer::Options opt;
  opt.unix_path = conf->ctld_socket;
  opt.unix_mode = 0666;
  opt.tcp_port = -1;
  if (!conf->ctld_listen.empty()) {
    StatusOr<HostPort> listen = ParseHostPort(conf->ctld_listen, "controller.listen");
    if (!listen.ok()) return Fail(listen.status().message());
    opt.tcp_host = listen->host;
    opt.tcp_port = listen->port;
  }
  opt.tokens = &tokens;
  opt.threads = 4;
  opt.body_limit = [](std::string_view method, std::string_view path) {
    return slurmrest::IsSlurmRestPath(path) ? slurmrest::SlurmRestBodyLimit(method, path)
                                            : ControllerBodyLimit(method, path);
  };
  // Root, the controller's own uid and the admins (the agents among them) are never shut out by
  // users holding connections.
  opt.privileged_uids = conf->admin_uids;
  opt.privileged_uids.push_back(0);
  opt.privileged_uids.push_back(geteuid());
  // Signals are taken by a thread with sigwait; block them before any thread starts.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);
  if (std::string bad = StopWhenStarterEnds(); !bad.empty()) return Fail(bad);

  // Every route but the ping needs a caller the server could identify: a request over TCP without
  // a token, or with a forged or expired one, is answered 401 before any handler sees it.
  StatusOr<std::unique_ptr<HttpServer>> server = HttpServer::Start(opt, [&router](const HttpRequest& r) {
    // The REST routes and the dashboard's decide for themselves (peer credentials or a JWT).
    if (slurmrest::IsSlurmRestPath(r.path) || api::IsDashboardPath(r.path)) return router.Handle(r);
    // The ping and /metrics (as musterd's: counts and timings, no job's secrets) are open to GET.
    if (!r.caller.authenticated && !(r.method == "GET" && (r.path == "/v1/ping" || r.path == "/metrics"))) {
      return HttpResponse::Error(401, "authentication required: " + r.caller.error);
    }
    return router.Handle(r);
  });
  if (!server.ok()) return Fail(server.status().message());
  std::unique_ptr<HttpServer> rest_server;
  if (!conf->rest_listen.empty()) {
    StatusOr<HostPort> listen = ParseHostPort(conf->rest_listen, "controller.rest_listen");
    if (!listen.ok()) return Fail(listen.status().message());
    HttpServer::Options ro;
    ro.tcp_host = listen->host;
    ro.tcp_port = listen->port;
    ro.threads = 2;
    ro.tokens = nullptr;  // callers present JWTs, which the routes verify
    ro.body_limit = slurmrest::SlurmRestBodyLimit;
    StatusOr<std::unique_ptr<HttpServer>> started = HttpServer::Start(ro, [&rest_router](const HttpRequest& r) {
      if (!slurmrest::IsSlurmRestPath(r.path) && !api::IsDashboardPath(r.path)) {
        return HttpResponse::Error(404, "no such path: " + r.path);
      }
      return rest_router.Handle(r);
    });
    if (!started.ok()) return Fail("controller.rest_listen: " + started.status().message());
    rest_server = std::move(*started);
    LogInfo("slurmrestd's REST API (v0.0.38) on tcp port " + std::to_string(rest_server->tcp_port()) +
            (jwt_key.empty() ? " (no controller.jwt_key: every TCP request is refused)" : ""));
  }
  LogInfo("cluster '" + conf->cluster_name + "' serving on " + conf->ctld_socket +
          (opt.tcp_port >= 0 ? " and tcp port " + std::to_string((*server)->tcp_port()) : "") + " (pid " +
          std::to_string(getpid()) + ")");
  std::thread loop([&controller] { controller.RunLoop(200); });
  int sig = 0;
  sigwait(&set, &sig);
  LogInfo("signal " + std::to_string(sig) + ", stopping");
  if (rest_server) rest_server->Stop();
  (*server)->Stop();
  controller.Stop();
  loop.join();
  if (Status st = controller.SaveUsage(); !st.ok()) {
    LogError("cannot save the usage: " + st.ToString());
  }
  return 0;
}

}  // namespace
}  // namespace muster

int main(int argc, char** argv) { return muster::Main(argc, argv); }
