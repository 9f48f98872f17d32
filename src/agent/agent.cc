#include "agent/agent.h"

#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "agent/agent_internal.h"
#include "base/read_file.h"
#include "agent/as_user.h"
#include "proc/job_env.h"
#include "proc/stray_processes.h"
#include "proc/launcher.h"
#include "agent/private_dir.h"
#include "base/log.h"
#include "model/record_json.h"
#include "model/step_layout.h"
#include "net/json_body.h"
#include "net/step_io.h"

namespace muster {


namespace {

// How long the reaper sleeps when nothing can wake it sooner (a safety timeout).
constexpr int kIdleWaitMs = 1000;

}  // namespace

void Agent::WakeReaper() {
  if (reaper_wake_fd_ < 0) return;
  const uint64_t one = 1;
  (void)!write(reaper_wake_fd_, &one, sizeof one);
}

Agent::Agent(AgentOptions options, const Clock* clock) : opt_(std::move(options)), clock_(clock) {
  AddRoutes();
  // NVML GPUs are read through the library discovery used; fake ones by formula (node_metrics.h).
  gpu_reader_ = std::make_unique<GpuReader>(GpuReader::Options{
      opt_.node.gpus, opt_.nvml_index.empty() ? "" : opt_.nvml_library, opt_.nvml_index, opt_.gpu_devices.minors, 1000});
  // A step whose srun is gone (killed) cannot say it ended: its CPUs would stay held for the
  // job's later steps. The node says it instead (any node of the step may; the first one counts).
  steps_.OnEndedWithoutSrun([this](int64_t job_id, int step_id) {
    MutexLock lock(mu_);
    if (no_allocation_.erase(job_id) > 0) return;  // the controller never heard of it
    outbox_.push_back(Report{"/v1/jobs/" + std::to_string(job_id) + "/steps/" + std::to_string(step_id) + "/done",
                             wire::Encode(ExitCode{1}), ""});
    cv_.notify_all();
  });
}

Agent::~Agent() {
  Stop();
  if (reaper_wake_fd_ >= 0) close(reaper_wake_fd_);
}

Status Agent::Start() {
  RETURN_IF_ERROR(LoadSpool());
  if (opt_.shepherd_exe.empty()) return FailedPrecondition("no shepherd program (muster-shepherd) given");
  spawner_ = std::make_unique<ShepherdSpawner>(opt_.shepherd_exe);
  RETURN_IF_ERROR(ReclaimEarlierRuns());
  RETURN_IF_ERROR(StartServing());
  if (!opt_.cgroup) LogInfo("running jobs without cgroups (no usable cgroup hierarchy)");
  reaper_wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (reaper_wake_fd_ < 0) return Internal(std::string("eventfd: ") + std::strerror(errno));
  WatchHealth();
  reaper_ = std::thread([this] { ReaperLoop(); });
  controller_thread_ = std::thread([this] { ControllerLoop(); });
  witness_thread_ = std::thread([this] {
    while (!stop_) {
      witness_->Check();
      MutexLock lock(mu_);
      lock.WaitFor(cv_, std::chrono::milliseconds(500), [&] { return stop_.load(); });
    }
  });
  return Status::Ok();
}

Status Agent::LoadSpool() {
  std::error_code ec;
  std::filesystem::create_directories(opt_.spool_dir, ec);
  if (ec) return InvalidArgument("cannot create spool dir '" + opt_.spool_dir + "': " + ec.message());
  chmod(opt_.spool_dir.c_str(), 0755);
  std::filesystem::create_directories(RunsDir(), ec);
  if (ec) return InvalidArgument("cannot create '" + RunsDir() + "': " + ec.message());
  chmod(RunsDir().c_str(), 0700);
  RETURN_IF_ERROR(CheckPrivateDir(RunsDir()));
  leader_token_ = ReadLease(opt_.spool_dir + "/leader_token");  // (a number file, as the lease's)
  witness_ = std::make_unique<OutageWitness>(OutageWitness::Options{opt_.spool_dir, &Agent::AskPeer}, clock_);
  witness_->Load();
  return Status::Ok();
}

Status Agent::ReclaimEarlierRuns() {
  std::error_code ec;
  // Runs an earlier incarnation of this agent started: those whose shepherds still hold them are
  // ours again; what no shepherd holds is ended (cgroups first: a suspended job's processes are
  // frozen there, and only a thaw lets SIGKILL end them).
  mps_ = std::make_unique<MpsManager>(opt_.mps_control, opt_.spool_dir + "/mps", opt_.node.name);
  const std::set<std::string> kept = AdoptRuns();
  if (opt_.cgroup) {
    std::set<std::string> kept_cgroups;
    {
      MutexLock lock(mu_);
      for (const auto& [id, run] : jobs_) kept_cgroups.insert("job_" + std::to_string(id));
    }
    for (const std::string& name : opt_.cgroup->Jobs()) {
      if (kept_cgroups.count(name)) continue;
      Status gone = opt_.cgroup->Destroy(name);
      LogInfo("cgroup " + name + " left by an earlier run of this agent: " +
                              (gone.ok() ? std::string("its processes killed, removed") : gone.message()));
    }
  }
  if (int n = KillStrayProcesses(opt_.spool_dir, [&](const std::string& run) { return kept.count(run) > 0; }); n > 0) {
    LogInfo("killed " + std::to_string(n) + " processes left by an earlier run of this agent");
  }
  if (ScriptDir() != opt_.spool_dir) {
    std::filesystem::create_directories(ScriptDir(), ec);
    if (ec) return InvalidArgument("cannot create script dir '" + ScriptDir() + "': " + ec.message());
    chmod(ScriptDir().c_str(), 0755);
  }
  {
    // The scripts of jobs an earlier run of this agent left, but those it adopted.
    MutexLock lock(mu_);
    for (const auto& e : std::filesystem::directory_iterator(ScriptDir(), ec)) {
      const std::string name = e.path().filename().string();
      if (name.size() < 4 || name.rfind("job", 0) != 0 || name.find_first_not_of("0123456789", 3) != std::string::npos) {
        continue;
      }
      const int64_t id = std::stoll(name.substr(3));
      if (!jobs_.count(id)) RemoveJobScriptDir(ScriptDir(), id);
    }
  }
  return Status::Ok();
}

Status Agent::StartServing() {
  if (opt_.listen_port >= 0 && opt_.tokens == nullptr) {
    return FailedPrecondition("listening on TCP needs the cluster key (to verify callers' tokens)");
  }
  HttpServer::Options so;
  so.tcp_host = opt_.listen_host;
  so.tcp_port = opt_.listen_port;
  so.unix_path = opt_.socket_path;
  so.unix_mode = 0666;  // users fetch tokens here; identity comes from peer credentials
  so.threads = 2;
  so.tokens = opt_.tokens;  // TCP callers: the controller and srun present tokens
  so.tls_cert_file = opt_.tls_cert_file;
  so.tls_key_file = opt_.tls_key_file;
  so.body_limit = [this](std::string_view method, std::string_view path) {
    return router_.BodyLimit(method, path);  // each route's (AddRoutes)
  };
  so.privileged_uids = opt_.trusted_uids;
  so.privileged_uids.push_back(0);
  so.privileged_uids.push_back(geteuid());
  if (opt_.ctld_addresses.empty()) return FailedPrecondition("no controller address given");
  if (opt_.tokens != nullptr && std::any_of(opt_.ctld_addresses.begin(), opt_.ctld_addresses.end(),
                                            [](const std::string& a) { return !a.starts_with("unix:"); })) {
    own_token_ = std::make_unique<OwnToken>(opt_.tokens, geteuid(), getegid(), kControllerAudience);
  }
  // A new token for each connection to a TCP controller (a token opens one connection).
  HttpClient::TokenSource tokens;
  if (own_token_) {
    tokens = own_token_->Source([this] { return clock_->NowSeconds(); });
  } else if (!opt_.ctld_token.empty()) {
    tokens.next = [this]() -> StatusOr<std::string> { return opt_.ctld_token; };
  }
  ctld_ = std::make_unique<ControllerLink>(opt_.ctld_addresses, opt_.ctld_timeout_ms, std::move(tokens));
  StatusOr<std::unique_ptr<HttpServer>> s = HttpServer::Start(so, [this](const HttpRequest& r) { return Handle(r); });
  if (!s.ok()) return s.status();
  server_ = std::move(*s);
  return Status::Ok();
}

void Agent::WatchHealth() {
  if (!opt_.nvml_index.empty()) {
    // The controller hears of a change at once, with a heartbeat of its own.
    StatusOr<std::unique_ptr<GpuHealthWatcher>> w =
        GpuHealthWatcher::Start(opt_.nvml_library, opt_.nvml_index, opt_.gpu_health, [this] {
          beat_now_ = true;
          cv_.notify_all();
        });
    if (w.ok()) {
      gpu_health_ = std::move(*w);
      gpu_reader_->SetXidSource([w = gpu_health_.get()] { return w->LastXids(); });
    } else {
      LogWarning("GPU health is not watched: " + w.status().message());
    }
  }
  if (!opt_.health_check_program.empty()) {
    health_check_thread_ = std::thread([this] {
      // A check may take its whole interval (a hung one fails then), and runs again after one.
      const auto interval = std::chrono::seconds(std::max<int64_t>(opt_.health_check_interval_s, 1));
      while (!stop_) {
        HealthCheckResult r = RunHealthCheck(
            opt_.health_check_program, std::chrono::duration_cast<std::chrono::milliseconds>(interval).count());
        bool changed;
        {
          MutexLock lock(mu_);
          changed = !node_health_ || !(*node_health_ == r);
          node_health_ = r;
        }
        if (changed) {
          Log(r.ok ? LogLevel::kInfo : LogLevel::kWarning, {}, r.ok ? "health check passed" : "health check failed: " + r.reason);
          beat_now_ = true;
          cv_.notify_all();
        }
        MutexLock lock(mu_);
        lock.WaitFor(cv_, interval, [&] { return stop_.load(); });
      }
    });
  }
}

std::set<std::string> Agent::AdoptRuns() {
  std::set<std::string> kept;
  std::error_code ec;
  // Where runs are kept, and where an agent of an earlier version kept them (the spool).
  std::vector<std::string> run_dirs;
  const std::string legacy = opt_.spool_dir + "/runs";
  std::vector<std::string> sources = {RunsDir()};
  if (legacy != RunsDir()) sources.push_back(legacy);
  for (const std::string& runs : sources) {
    for (const auto& e : std::filesystem::directory_iterator(runs, ec)) run_dirs.push_back(e.path().string());
  }
  MutexLock lock(mu_);
  for (const std::string& dir : run_dirs) {
    const std::string text = ReadFileOrEmpty(dir + "/job.json");
    StatusOr<SavedRun> saved = wire::Decode<SavedRun>(text, "a run's record");
    if (!saved.ok() || !saved->job) {  // a run whose start was cut short: nothing to adopt or report
      std::filesystem::remove_all(dir, ec);
      continue;
    }
    const JobRecord* job = &saved->job->job;
    Running run;
    run.job = *job;
    run.run_dir = dir;
    run.batch = saved->batch;
    run.cgroup = saved->cgroup;
    run.log_path = saved->log_path;
    run.cpus = saved->cpus;
    run.mps_gpu = saved->mps_gpu;
    if (run.mps_gpu >= 0) mps_->Adopt(run.mps_gpu);  // its daemon runs on; released with the run
    const std::string what = "run " + std::to_string(job->restart_count);
    StatusOr<ShepherdHandle> shepherd = ShepherdHandle::Adopt(dir);
    if (shepherd.ok() && !ReadShepherdExit(dir)) {
      run.shepherd.emplace(std::move(*shepherd));
      if (!run.cpus.empty()) {
        if (cpu_owner_.size() != static_cast<size_t>(opt_.node.cpus)) cpu_owner_.assign(opt_.node.cpus, 0);
        for (int c : run.cpus) {
          if (c >= 0 && c < opt_.node.cpus) cpu_owner_[c] = job->id;
        }
      }
      kept.insert(RunMarker(job->id, job->restart_count));
      LogInfo(LogSubject::Job(job->id), what + ": adopted from an earlier run of this agent (shepherd pid " +
                              std::to_string(run.shepherd->pid()) + ")");
      jobs_[job->id] = std::move(run);
      continue;
    }
    // Over: its end goes to the controller (again, if an earlier run of this agent queued it and
    // was killed before the controller had it).
    std::string report = ReadFileOrEmpty(dir + "/report.json");
    std::optional<ShepherdExit> end = ReadShepherdExit(dir);
    if (report.empty() && run.batch && end) report = wire::Encode(ExitReportOf(run, *end));
    LogInfo(LogSubject::Job(job->id), what + (!report.empty() ? ": ended while the agent was away, reported now"
                                                : ": its shepherd is gone, with no end recorded"));
    CleanUpRunLocked(run, /*keep_run_dir=*/!report.empty());
    if (!report.empty()) QueueExitLocked(dir, report);
  }
  return kept;
}

void Agent::Stop() {
  if (stop_.exchange(true)) return;
  cv_.notify_all();
  WakeReaper();
  steps_.Shutdown();  // their output streams end with the agent
  if (server_) server_->Stop();
  if (reaper_.joinable()) reaper_.join();
  if (controller_thread_.joinable()) controller_thread_.join();
  if (health_check_thread_.joinable()) health_check_thread_.join();
  if (witness_thread_.joinable()) witness_thread_.join();
  gpu_reader_->SetXidSource(nullptr);
  gpu_health_.reset();  // its thread calls back into us
  MutexLock lock(mu_);
  if (opt_.end_jobs_on_stop) {
    // A local cluster going down: every run ends with its agent.
    for (auto it = jobs_.begin(); it != jobs_.end();) {
      auto next = std::next(it);
      DropRunLocked(it);
      it = next;
    }
  }
  // Else the runs go on under their shepherds, for the agent that starts next to adopt.
  for (ShepherdHandle& s : ending_) {
    pollfd p{s.fd(), POLLIN, 0};
    (void)poll(&p, 1, 5000);
    (void)s.Finish();
  }
  ending_.clear();
  if (jobs_.empty() && opt_.cgroup) opt_.cgroup->RemoveBaseIfEmpty();
}

std::string Agent::Address() const {
  if (opt_.listen_port < 0 || !server_) return "unix:" + opt_.socket_path;
  const std::string& h = opt_.advertise_host.empty() ? opt_.listen_host : opt_.advertise_host;
  return (h.find(':') != std::string::npos ? "[" + h + "]" : h) + ":" + std::to_string(server_->tcp_port());
}

bool Agent::Trusted(const Caller& c) const {
  if (!c.authenticated) return false;
  if (c.uid == 0 || c.uid == geteuid()) return true;
  for (uint32_t u : opt_.trusted_uids) {
    if (u == c.uid) return true;
  }
  return false;
}

void Agent::AddRoutes() {
  // The job, its script included; srun's environment and arguments; the rest 64 KiB.
  router_.Add("POST", "/v1/launch", 16 << 20, [this](const HttpRequest& r) { return Launch(r); });
  router_.Add("POST", "/v1/signal", [this](const HttpRequest& r) { return Signal(r); });
  router_.Add("GET", "/v1/token", [this](const HttpRequest& r) { return Token(r); });
  router_.Add("POST", "/v1/step", 8 << 20, [this](const HttpRequest& r) { return Step(r); });
  router_.Add("POST", "/v1/signal-step", [this](const HttpRequest& r) { return SignalStep(r); });
  router_.Add("GET", "/metrics", [this](const HttpRequest& r) { return Metrics(r); });
  router_.Add("GET", "/v1/ping", [this](const HttpRequest&) {
    return JsonOk(AgentPing{opt_.node.name, RunningJobs(), registered_.load(), witness_ ? witness_->HeardMsAgo() : -1});
  });
}

HttpResponse Agent::Handle(const HttpRequest& r) {
  // Who is calling must be known for everything that acts on jobs: over TCP a request without a
  // valid token (none, forged, expired) is refused here. /v1/token says why it refuses itself.
  if (r.method == "POST" && !r.caller.authenticated) {
    return HttpResponse::Error(401, "authentication required: " + r.caller.error);
  }
  return router_.Handle(r);
}

std::vector<JobOnNode> Agent::JobsOnNode() const {
  MutexLock lock(mu_);
  std::vector<JobOnNode> jobs;
  for (const auto& [id, r] : jobs_) {
    jobs.push_back(JobOnNode{id, r.job.user, r.job.account, JobGpusOn(r.job.allocation, opt_.node.name), r.cgroup, {}});
  }
  return jobs;
}

std::optional<std::vector<GpuUtilization>> Agent::GpuUsageNow() const {
  // Never the driver itself (GpuReader::Recent): the last scrape's NVML readings, for up to
  // three heartbeats, or the fake GPUs' figures.
  const std::vector<GpuReading> readings =
      gpu_reader_->Recent(JobsOnNode(), clock_->NowMillis(), 3000 * opt_.heartbeat_interval_s);
  std::vector<GpuUtilization> out;
  for (const GpuReading& g : readings) {
    if (g.gpu_util) out.push_back(GpuUtilization{g.index, *g.gpu_util, g.fb_used_mib});
  }
  if (out.empty()) return std::nullopt;
  return out;
}

HttpResponse Agent::Metrics(const HttpRequest&) {
  std::vector<JobOnNode> jobs = JobsOnNode();
  // The cgroup's files and the driver are read outside mu_: a slow read holds up no launch.
  for (JobOnNode& j : jobs) {
    if (opt_.cgroup && !j.cgroup.empty()) j.usage = opt_.cgroup->Usage(j.cgroup);
  }
  const std::vector<GpuReading> gpus = gpu_reader_->Read(jobs, clock_->NowMillis());
  StatusOr<std::string> text = prom::WriteText(NodeMetricFamilies(opt_.node.name, gpus, jobs));
  if (!text.ok()) return HttpResponse::Error(500, text.status().message());
  return HttpResponse{200, prom::kContentType, std::move(*text)};
}

std::vector<int64_t> Agent::RunningJobs() const {
  MutexLock lock(mu_);
  std::vector<int64_t> ids;
  for (const auto& [id, r] : jobs_) ids.push_back(id);
  return ids;
}

HttpResponse Agent::Token(const HttpRequest& r) {
  if (opt_.tokens == nullptr) return HttpResponse::Error(404, "this agent does not mint tokens");
  if (r.caller.via != "unix" || !r.caller.authenticated) {
    return HttpResponse::Error(403, "tokens are only given over the local Unix socket");
  }
  // For the controllers (the default), or for one node's agent (srun's steps).
  auto aud = r.query.find("aud");
  const std::string audience = aud == r.query.end() ? kControllerAudience : aud->second;
  if (audience != kControllerAudience && (!audience.starts_with("node:") || audience.size() == 5)) {
    return HttpResponse::Error(400, "invalid audience '" + audience + "' (controller, or node:<name>)");
  }
  const int64_t now = clock_->NowSeconds();
  return JsonOk(TokenAnswer{opt_.tokens->Mint(r.caller.uid, r.caller.gid, now, 300, audience), now + 300});
}

HttpResponse Agent::Launch(const HttpRequest& r) {
  const int64_t order_us = WallMicros();
  if (!Trusted(r.caller)) return HttpResponse::Error(403, "only the controller may launch jobs");
  StatusOr<wire::bj::value> parsed = ParseRequestBody(r.body);
  if (!parsed.ok()) return HttpResponse::Error(400, parsed.status().message());
  StatusOr<LaunchOrder> order = wire::FromValue<LaunchOrder>(*parsed);
  if (!order.ok()) return HttpResponse::Error(400, order.status().message());
  if (!order->job) return HttpResponse::Error(400, "missing 'job'");
  if (std::string why; !FromTheLeader(order->leader_token, &why)) {
    LogWarning("refusing a launch of job " + std::to_string(order->job->job.id) + ": " + why);
    return HttpResponse::Error(409, "launch refused: " + why);
  }
  // A launch that waited (in this agent's queue) past the moment the controller stopped waiting
  // for it: the controller has requeued the job elsewhere, so it must not run here.
  if (const int64_t not_after = order->not_after_ms; not_after > 0 && clock_->NowMillis() > not_after) {
    LogWarning("refusing a launch that came " + std::to_string(clock_->NowMillis() - not_after) +
                            " ms after the controller stopped waiting for it");
    return HttpResponse::Error(409, "launch expired: the controller gave up on it");
  }
  const JobRecord* job = &order->job->job;
  if (job->uid == 0 && !opt_.allow_root_jobs) return HttpResponse::Error(403, "refusing to run a job as root");
  MutexLock lock(mu_);
  if (auto old = jobs_.find(job->id); old != jobs_.end()) {
    if (old->second.job.restart_count == job->restart_count) return JsonOk();  // a retried launch
    if (old->second.job.restart_count > job->restart_count) {
      return HttpResponse::Error(409, "job " + std::to_string(job->id) + ": run " + std::to_string(job->restart_count) +
                                          " is older than run " + std::to_string(old->second.job.restart_count) +
                                          " here");
    }
    // A requeued job comes back while its earlier run is still here: end that run first.
    DropRunLocked(old);
  }
  Running run;
  run.job = *job;
  // An interactive allocation (salloc) runs no batch script: its steps come from srun.
  run.batch = job->batch_host == opt_.node.name && !job->interactive;
  Status st = StartRun(run, order_us);
  if (!st.ok()) {
    // The job's own doing (a file it names that it may not open) fails the job; anything else
    // is this node's fault. 422 and 409 tell the controller which.
    const bool job_fault = IsJobFault(st);
    LogWarning(LogSubject::Job(job->id), std::string("launch failed (") + (job_fault ? "the job's" : "the node's") + " fault): " + st.message());
    return HttpResponse::Json(job_fault ? 422 : 409, wire::Encode(LaunchRefusal{st.message(), job_fault ? "job" : "node"}));
  }
  jobs_[job->id] = std::move(run);
  WakeReaper();
  return JsonOk();
}

Status Agent::StartRun(Running& run, int64_t order_us) {
  const JobRecord& job = run.job;
  run.run_dir = RunDir(job.id, job.restart_count);
  ShepherdSpec spec;
  spec.job_id = job.id;
  spec.restart_count = job.restart_count;
  spec.batch = run.batch;
  spec.lease_file = opt_.spool_dir + "/lease";
  spec.kill_wait_s = opt_.kill_wait_s;
  spec.marker = RunMarker(job.id, job.restart_count);
  spec.spool_marker = kSpoolMarker + opt_.spool_dir;
  if (run.batch) RETURN_IF_ERROR(PrepareBatch(run, spec));
  // Where all of the run's processes are, for the shepherd to end them when its lease runs out
  // (a node without the batch script makes the job's cgroup at its first step).
  if (opt_.cgroup) spec.procs_files = opt_.cgroup->ProcsFile("job_" + std::to_string(job.id));
  std::error_code ec;
  std::filesystem::remove_all(run.run_dir, ec);  // an earlier start of this very run that failed
  if (mkdir(run.run_dir.c_str(), 0700) != 0) {
    return Internal("cannot create '" + run.run_dir + "': " + std::strerror(errno));
  }
  SaveRunLocked(run);
  StatusOr<ShepherdHandle> shepherd = ShepherdHandle::Start(*spawner_, run.run_dir, spec);
  if (!shepherd.ok()) {
    CleanUpRunLocked(run);
    return shepherd.status();
  }
  run.shepherd.emplace(std::move(*shepherd));
  if (run.batch) {
    // With where the start's time went, for the admin and bench/launch_budget.sh (its parser).
    LogInfo(LogSubject::Job(job.id), "started as pid " + std::to_string(run.shepherd->script_pid()) + " (uid " +
                                         std::to_string(job.uid) + "; shepherd " + std::to_string(run.shepherd->pid()) +
                                         "); " + StartTimesText(order_us, run.shepherd->times()));
  }
  return Status::Ok();
}

Status Agent::PrepareBatch(Running& run, ShepherdSpec& spec) {
  const JobRecord& job = run.job;
  const std::string dir = JobScriptDir(ScriptDir(), job.id);
  const std::string script = dir + "/slurm_script";
  // Resolved here, where the NSS modules stay loaded, not in the shepherd (LaunchSpec::groups).
  std::vector<uint32_t> groups;
  if (geteuid() == 0) {
    ASSIGN_OR_RETURN(groups, SupplementaryGroups(job.user, job.gid));
  }
  RETURN_IF_ERROR(WriteBatchScript(job, dir, script));
  // The job's cgroup will hide the node's other GPUs (EnsureCgroup below): CUDA numbers its own from 0.
  const bool devices_constrained = opt_.cgroup != nullptr && !opt_.gpu_devices.empty();
  LaunchSpec& launch = spec.launch;
  launch = BatchLaunch(job, script, devices_constrained, spec.marker);
  launch.groups = std::move(groups);
  run.log_path = launch.stderr_path.empty() ? launch.stdout_path : launch.stderr_path;
  RETURN_IF_ERROR(AcquireGpuShares(run, devices_constrained, launch));
  if (Status st = EnsureCgroup(run); !st.ok()) {
    if (run.mps_gpu >= 0) mps_->Release(std::exchange(run.mps_gpu, -1));
    RemoveJobScriptDir(ScriptDir(), job.id);
    return st;
  }
  if (!run.cgroup.empty()) launch.cgroup_procs_file = opt_.cgroup->ProcsFile(run.cgroup);
  return Status::Ok();
}

Status Agent::WriteBatchScript(const JobRecord& job, const std::string& dir, const std::string& script) const {
  // job<id>/ stays the agent's (0711: the job's user reaches the script by name and can add
  // nothing); the script is the user's, readable and runnable by them alone. So the job's end
  // removes exactly one file and one directory, with nothing of the user's in them to follow.
  if (mkdir(dir.c_str(), 0711) != 0) {
    struct stat st;
    if (errno != EEXIST || lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      return Internal("cannot create '" + dir + "': " + std::strerror(errno));
    }
    // Left by an earlier start of this job here (requeued): take it back.
    if (st.st_uid != geteuid() && chown(dir.c_str(), geteuid(), getegid()) != 0) {
      return Internal("cannot take over '" + dir + "': " + std::strerror(errno));
    }
    chmod(dir.c_str(), 0711);
    unlink(script.c_str());
  }
  {
    int fd = open(script.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0500);
    if (fd < 0) return Internal("cannot create '" + script + "': " + std::strerror(errno));
    const bool written = WriteFully(fd, job.script.str());
    const bool chowned = geteuid() != 0 || fchown(fd, job.uid, job.gid) == 0;
    close(fd);
    if (!written || !chowned) {
      RemoveJobScriptDir(ScriptDir(), job.id);
      return Internal("cannot write '" + script + "'");
    }
  }
  return Status::Ok();
}

LaunchSpec Agent::BatchLaunch(const JobRecord& job, const std::string& script, bool devices_constrained,
                              const std::string& marker) const {
  TaskPlacement where;
  where.node_index = 0;
  LaunchSpec launch;
  launch.uid = job.uid;
  launch.gid = job.gid;
  launch.user = job.user;
  launch.workdir = job.workdir;
  launch.log_name = "musterd-" + opt_.node.name;
  launch.argv = {script};
  launch.argv.insert(launch.argv.end(), job.script_args.begin(), job.script_args.end());
  where.mig_uuids = MigUuids(opt_.node.gpus);
  launch.env = BuildJobEnvironment(job, opt_.node.name, where, opt_.cluster_name, devices_constrained);
  TakePropagatedLimits(&launch);
  launch.stdin_path = job.stdin_path.empty() ? "/dev/null" : job.stdin_path;
  auto resolve = [&](const std::string& pattern) {
    std::string p = ExpandOutputPattern(pattern, job, opt_.node.name, where);
    return p.empty() || p[0] == '/' ? p : job.workdir + "/" + p;
  };
  // Slurm's default names: slurm-<job id>.out, slurm-<array id>_<task id>.out for an array task.
  const char* default_out = job.array_job_id != 0 ? "slurm-%A_%a.out" : "slurm-%j.out";
  launch.stdout_path = resolve(job.stdout_pattern.empty() ? default_out : job.stdout_pattern);
  launch.stderr_path = job.stderr_pattern.empty() ? "" : resolve(job.stderr_pattern);
  launch.allow_root = opt_.allow_root_jobs;
  launch.env.push_back(kSpoolMarker + opt_.spool_dir);
  launch.env.push_back(marker);
  return launch;
}

Status Agent::AcquireGpuShares(Running& run, bool devices_constrained, LaunchSpec& launch) {
  const JobRecord& job = run.job;
  // A shared (fractional) GPU: its MPS daemon, and the job's share of it (mps.h).
  for (const NodeAllocation& a : job.allocation) {
    const GpuShare* shared = a.node == opt_.node.name ? SharedGpu(a) : nullptr;
    if (shared == nullptr || shared->index >= static_cast<int>(opt_.node.gpus.size())) continue;
    const Gpu& gpu = opt_.node.gpus[static_cast<size_t>(shared->index)];
    MpsShare share;
    share.gpu = shared->index;
    share.device = opt_.gpu_devices.empty() || gpu.uuid.empty() ? std::to_string(shared->index) : gpu.uuid;
    const std::vector<int> mine = JobGpusOn(job.allocation, opt_.node.name);
    share.visible_index =
        devices_constrained
            ? static_cast<int>(std::lower_bound(mine.begin(), mine.end(), shared->index) - mine.begin())
            : shared->index;
    share.milli = shared->milli;
    share.memory_mb =
        job.request.gpu_memory_mb > 0 ? job.request.gpu_memory_mb : gpu.memory_mb * shared->milli / kMilliPerGpu;
    StatusOr<std::vector<std::string>> share_env = mps_->Acquire(share);
    if (!share_env.ok()) {
      RemoveJobScriptDir(ScriptDir(), job.id);
      return share_env.status().WithPrefix("MPS");
    }
    if (mps_->available()) run.mps_gpu = shared->index;
    launch.env.insert(launch.env.end(), share_env->begin(), share_env->end());
  }
  return Status::Ok();
}

std::string Agent::RunDir(int64_t job_id, int restart_count) const {
  return RunsDir() + "/" + std::to_string(job_id) + "." + std::to_string(restart_count);
}

void Agent::SaveRunLocked(const Running& run) const {
  const std::string saved = wire::Encode(SavedRun{FullJob{run.job}, run.batch, run.cgroup, run.log_path, run.cpus, run.mps_gpu});
  const std::string path = run.run_dir + "/job.json", tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << saved;
  }
  chmod(tmp.c_str(), 0600);
  std::rename(tmp.c_str(), path.c_str());
}

void Agent::CleanUpRunLocked(Running& run, bool keep_run_dir) {
  if (run.mps_gpu >= 0) mps_->Release(std::exchange(run.mps_gpu, -1));
  if (!run.cgroup.empty() && opt_.cgroup) (void)opt_.cgroup->Destroy(run.cgroup);
  if (opt_.cgroup && run.cgroup.empty()) (void)opt_.cgroup->Destroy("job_" + std::to_string(run.job.id));
  ReleaseCpus(run.job.id);
  if (run.batch) RemoveJobScriptDir(ScriptDir(), run.job.id);
  std::error_code ec;
  if (!run.run_dir.empty() && !keep_run_dir) std::filesystem::remove_all(run.run_dir, ec);
}

void Agent::QueueExitLocked(const std::string& run_dir, const std::string& body) {
  // Durable before it is queued: an agent killed before the controller has it sends it again.
  const std::string path = run_dir + "/report.json", tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << body;
  }
  std::rename(tmp.c_str(), path.c_str());
  outbox_.push_back(Report{kExitPath, body, run_dir});
  cv_.notify_all();
}

void Agent::AcknowledgedLocked(const Report& r) {
  std::error_code ec;
  // Unless the run was started again meanwhile (a requeued job back on this node: a new run dir).
  if (!r.run_dir.empty()) std::filesystem::remove_all(r.run_dir, ec);
}

void Agent::DropRunLocked(std::map<int64_t, Running>::iterator it) {
  Running& run = it->second;
  steps_.Signal(run.job.id, -1, SIGKILL);
  if (run.shepherd) {
    if (!run.shepherd->End()) (void)run.shepherd->Signal(SIGKILL, "all");
    ending_.push_back(std::move(*run.shepherd));
    run.shepherd.reset();
  }
  CleanUpRunLocked(run);
  jobs_.erase(it);
  WakeReaper();
}

ExitNotice Agent::ExitReportOf(const Running& run, const ShepherdExit& end) const {
  ExitNotice n;
  n.node = opt_.node.name;
  n.exit.job_id = run.job.id;
  ExitReport& r = n.exit.report;
  r.exit_code = end.exited ? end.exit_code : 0;
  r.signal = end.exited ? 0 : end.signal;
  r.oom = !run.cgroup.empty() && opt_.cgroup && opt_.cgroup->OomKilled(run.cgroup);
  r.lease_expired = end.lease_expired;
  r.restart_count = run.job.restart_count;
  return n;
}

Status Agent::EnsureCgroup(Running& run) {
  if (!opt_.cgroup || !run.cgroup.empty()) return Status::Ok();
  const JobRecord& job = run.job;
  CgroupLimits limits;
  for (const NodeAllocation& a : job.allocation) {
    if (a.node != opt_.node.name) continue;
    limits.memory_bytes = a.memory_mb * 1024 * 1024;
    limits.cpus = AssignCpus(job.id, static_cast<int>(CpusOf(a)));
    run.cpus = limits.cpus;
    limits.devices = AllowedDevices(opt_.gpu_devices, a);
  }
  limits.restrict_devices = !opt_.gpu_devices.empty();
  const std::string name = "job_" + std::to_string(job.id);
  Status st = opt_.cgroup->Create(name, limits);
  if (!st.ok()) {
    ReleaseCpus(job.id);
    return st.WithPrefix("cgroup");
  }
  run.cgroup = name;
  return Status::Ok();
}

// Waits (poll) on the pidfds of the batch scripts, a wake-up eventfd and the nearest SIGKILL
// deadline, instead of waking every few milliseconds: a job's end is seen at once, and an idle
// agent does not run at all.
void Agent::ReaperLoop() {
  std::vector<pollfd> fds;
  auto gone = [](int fd) {
    pollfd p{fd, POLLIN, 0};
    return fd < 0 || (poll(&p, 1, 0) > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR)) != 0);
  };
  while (!stop_) {
    int timeout_ms = kIdleWaitMs;
    fds.assign(1, pollfd{reaper_wake_fd_, POLLIN, 0});
    {
      MutexLock lock(mu_);
      const int64_t now = clock_->NowMillis();
      for (auto it = jobs_.begin(); it != jobs_.end();) {
        Running& run = it->second;
        if (run.kill_at_ms > 0 && now >= run.kill_at_ms) {
          if (!run.batch) {
            // A node without the batch script, whose step tasks outlived the grace period.
            auto next = std::next(it);
            DropRunLocked(it);
            it = next;
            continue;
          }
          if (run.shepherd) (void)run.shepherd->Signal(SIGKILL, "all");
          steps_.Signal(run.job.id, -1, SIGKILL);
          run.kill_at_ms = 0;
        }
        if (!run.shepherd || !gone(run.shepherd->fd())) {
          ++it;
          continue;
        }
        // The shepherd is gone: the batch script ended (or the lease ran out), and it recorded how.
        std::optional<ShepherdExit> end = run.shepherd->Finish();
        run.shepherd.reset();
        if (!end) {
          // It died without a record (killed): what it held is ended here, and the run is lost.
          end = ShepherdExit{};
          end->signal = SIGKILL;
          end->lease_expired = true;
          LogWarning(LogSubject::Job(run.job.id), "its shepherd died without recording an end");
        }
        std::string report;
        if (run.batch) {
          const ExitNotice exit_report = ExitReportOf(run, *end);  // (before the cgroup goes: its OOM count)
          report = wire::Encode(exit_report);
          LogInfo(LogSubject::Job(run.job.id),
                  "run " + std::to_string(run.job.restart_count) + " ended, exit " + std::to_string(end->exit_code) + ":" +
                      std::to_string(end->signal) + (exit_report.exit.report.oom ? " (out of memory)" : "") +
                      (end->lease_expired ? " (its lease ran out)" : ""));
        } else if (end->lease_expired) {
          LogWarning(LogSubject::Job(run.job.id), "ended here, its lease ran out");
        }
        steps_.Signal(run.job.id, -1, SIGKILL);              // the job's steps end with it
        CleanUpRunLocked(run, /*keep_run_dir=*/!report.empty());  // and every process of its cgroup
        if (!report.empty()) QueueExitLocked(run.run_dir, report);
        it = jobs_.erase(it);
      }
      // Shepherds told to end: reaped once they are gone.
      std::erase_if(ending_, [&](ShepherdHandle& s) {
        if (!gone(s.fd())) return false;
        (void)s.Finish();
        return true;
      });
      // What to wait for next: the shepherds, and the nearest kill deadline.
      for (const auto& [id, run] : jobs_) {
        if (run.kill_at_ms > 0) timeout_ms = static_cast<int>(std::clamp<int64_t>(run.kill_at_ms - now, 0, timeout_ms));
        if (run.shepherd && run.shepherd->fd() >= 0) fds.push_back(pollfd{run.shepherd->fd(), POLLIN, 0});
      }
      for (const ShepherdHandle& s : ending_) {
        if (s.fd() >= 0) fds.push_back(pollfd{s.fd(), POLLIN, 0});
      }
    }
    if (stop_) break;
    // Another thread may erase a job meanwhile, closing its pidfd: poll holds its own reference
    // to every file it waits on, and the list is rebuilt from jobs_ each round.
    if (poll(fds.data(), fds.size(), timeout_ms) > 0 && (fds[0].revents & POLLIN)) {
      uint64_t n;
      (void)!read(reaper_wake_fd_, &n, sizeof n);
    }
  }
}

std::string Agent::EndingText(const std::string& why) const { return EndingLine(clock_->NowSeconds(), why); }

void Agent::LogEnding(const Running& r, const std::string& ending) const {
  if (r.log_path.empty() || r.log_path == "/dev/null") return;
  // With the user's rights and no symbolic link followed (the path is the user's to change while
  // the job runs), and without waiting long on it.
  Status st = AppendAsUser(r.log_path, UserIdentity{r.job.uid, r.job.gid, r.job.user},
                           "musterd: error: *** JOB " + std::to_string(r.job.id) + " ON " + opt_.node.name + ending);
  if (!st.ok()) LogWarning(LogSubject::Job(r.job.id), "ending line not written: " + st.message());
}

}  // namespace muster
