// The agent's side of the controller link: registration, heartbeats carrying the node's report
// (runs, exits, GPU and node health) and the orders that come back, and the exit-report outbox.
#include "agent/agent.h"

#include <signal.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "agent/agent_internal.h"
#include "base/log.h"
#include "model/record_json.h"
#include "net/json_body.h"

namespace muster {


bool Agent::FromTheLeader(int64_t token, std::string* why) {
  int64_t seen = leader_token_.load();
  while (token > seen) {
    if (leader_token_.compare_exchange_weak(seen, token)) {
      Status st = WriteLease(opt_.spool_dir + "/leader_token", token);
      if (!st.ok()) LogWarning("cannot keep the leader's token: " + st.message());
      return true;
    }
  }
  if (token >= seen) return true;
  *why = "it comes from a controller that no longer leads (lease token " + std::to_string(token) +
         ", the leader's is " + std::to_string(seen) + ")";
  return false;
}

StatusOr<std::string> Agent::CallController(const std::string& target, const std::string& body) {
  StatusOr<std::string> answer = ctld_->Post(target, body);
  if (ctld_->switches() != ctld_switches_) {
    // Another controller leads now: it hears our registration (and the exits it carries) first.
    ctld_switches_ = ctld_->switches();
    registered_ = false;
  }
  return answer;
}

NodeReport Agent::NodeReportLocked(std::vector<std::string>* exits) const {
  NodeReport out;
  for (const auto& [id, r] : jobs_) out.running.push_back({id, r.job.restart_count});
  for (const Report& r : outbox_) {
    if (r.path != kExitPath) continue;
    StatusOr<ExitNotice> notice = wire::Decode<ExitNotice>(r.body, "a queued exit report");  // our own text
    if (!notice.ok()) continue;
    exits->push_back(r.body);
    out.exits.push_back(std::move(notice->exit));
  }
  if (gpu_health_) {
    // The GPUs out now (none: every GPU healthy); warnings go to the log only.
    out.gpu_faults.emplace();
    for (const GpuHealth& h : gpu_health_->Snapshot()) {
      if (h.condition == GpuCondition::kHealthy) continue;
      out.gpu_faults->push_back({h.index, h.condition == GpuCondition::kNeedsReset, h.reason});
    }
  }
  if (node_health_) out.node_health = NodeHealth{node_health_->ok, node_health_->reason};
  return out;
}

Status Agent::ReportToController(const std::string& target, const std::string& body, const std::vector<std::string>& exits) {
  StatusOr<std::string> answer = CallController(target, body);
  if (!answer.ok()) return answer.status();
  StatusOr<NodeOrders> orders = wire::Decode<NodeOrders>(*answer, "the controller's answer");
  if (std::string why; orders.ok() && !FromTheLeader(orders->leader_token, &why)) {
    LogWarning("ignoring the orders in an answer: " + why);
    return Status::Ok();
  }
  // The controller heard us: the runs here may go on for the lease it grants (the shepherds read
  // its file; the controller waits the lease and a margin before it gives them up).
  if (orders.ok()) {
    if (Status st = witness_->Heard(orders->lease_s); !st.ok()) LogWarning("cannot renew the lease: " + st.message());
    if (orders->witness) {
      if (Status st = witness_->SetView(*orders->witness); !st.ok()) LogWarning("cannot keep the peers' list: " + st.message());
    }
  }
  if (orders.ok() && !opt_.config_hash.empty() && !orders->config_hash.empty() &&
      orders->config_hash != opt_.config_hash && opt_.on_config_changed) {
    opt_.on_config_changed(orders->config_hash);  // (musterd fetches it and starts again)
  }
  if (orders.ok() && gpu_health_) {
    for (int g : orders->resume_gpus) {
      LogInfo("GPU " + std::to_string(g) + " resumed by an admin");
      gpu_health_->Resume(g);
    }
  }
  MutexLock lock(mu_);
  // The exits it carried are settled: acknowledged as if each had been sent alone.
  std::erase_if(outbox_, [&](const Report& e) {
    mu_.AssertHeld();
    if (e.path != kExitPath || std::find(exits.begin(), exits.end(), e.body) == exits.end()) return false;
    AcknowledgedLocked(e);
    return true;
  });
  if (!orders.ok()) return Status::Ok();
  // Runs the controller does not have running here (requeued, ended while we were away, a launch
  // it gave up on): they stop.
  for (const JobRun& s : orders->stop) {
    const int64_t id = s.job_id;
    const int rc = s.restart_count;
    auto it = jobs_.find(id);
    if (it == jobs_.end() || it->second.job.restart_count != rc) continue;
    LogWarning(LogSubject::Job(id), "run " + std::to_string(rc) + ": the controller does not run it here; stopping it");
    SignalRunLocked(it, SIGKILL, 0, "cleanup");
  }
  return Status::Ok();
}

Status Agent::Register() {
  NodeRecord rec;
  rec.node = opt_.node;
  rec.agent_address = Address();
  if (start_time_ == 0) start_time_ = clock_->NowSeconds();
  rec.start_time = start_time_;
  rec.boot_time = start_time_;  // unless the kernel says when it booted
  if (std::ifstream stat("/proc/stat"); stat) {
    for (std::string key; stat >> key;) {
      if (key == "btime") {
        stat >> rec.boot_time;
        break;
      }
      stat.ignore(1 << 20, '\n');
    }
  }
  if (utsname u{}; uname(&u) == 0) {
    rec.arch = u.machine;
    rec.hostname = u.nodename;
    rec.os = std::string(u.sysname) + " " + u.release + " " + u.version;
  }
  rec.version = "0.1";
  std::vector<std::string> exits;
  Registration registration;
  registration.node = std::move(rec);
  {
    MutexLock lock(mu_);
    registration.report = NodeReportLocked(&exits);
  }
  return ReportToController("/v1/agent/register", wire::Encode(registration), exits);
}

void Agent::ControllerLoop() {
  int64_t last_beat = 0;
  while (!stop_) {
    if (!registered_) {
      Status st = Register();
      if (st.ok()) {
        registered_ = true;
        last_beat = clock_->NowMillis();
        LogInfo("registered with the controller");
      } else {
        MutexLock lock(mu_);
        lock.WaitFor(cv_, std::chrono::milliseconds(500), [&] { return stop_.load(); });
        continue;
      }
    }
    // Exit reports first: they free resources for the next jobs. But not past a heartbeat's time:
    // under a storm of ending jobs the outbox never empties, and the heartbeat renews the lease
    // (a starved one let the lease run out while the controller was there).
    while (!stop_ && clock_->NowMillis() - last_beat < opt_.heartbeat_interval_s * 1000) {
      Report rep;
      {
        MutexLock lock(mu_);
        if (outbox_.empty()) break;
        rep = outbox_.front();
      }
      Status st = CallController(rep.path, rep.body).status();
      if (!st.ok() && st.code() != StatusCode::kNotFound && st.code() != StatusCode::kPermissionDenied) {
        if (st.code() == StatusCode::kUnavailable) LostController(st);
        break;  // retried after the pause below
      }
      MutexLock lock(mu_);
      // (a heartbeat may have carried it meanwhile, and taken it off)
      if (!outbox_.empty() && outbox_.front().path == rep.path && outbox_.front().body == rep.body) {
        AcknowledgedLocked(outbox_.front());
        outbox_.pop_front();
      }
    }
    const int64_t now = clock_->NowMillis();
    if (gpu_health_ && beat_now_) LogGpuHealth();
    if (now - last_beat >= opt_.heartbeat_interval_s * 1000 || beat_now_.exchange(false)) {
      last_beat = now;
      std::vector<std::string> exits;
      Heartbeat beat;
      beat.node = opt_.node.name;
      beat.witness_generation = witness_->generation();
      std::optional<std::vector<GpuUtilization>> usage = GpuUsageNow();  // takes mu_ itself
      {
        MutexLock lock(mu_);
        beat.report = NodeReportLocked(&exits);
      }
      beat.report.gpu_usage = std::move(usage);
      Status st = ReportToController("/v1/agent/heartbeat", wire::Encode(beat), exits);
      // A controller that restarted without us, or lost us: register again (said once an outage).
      if (!st.ok()) LostController(st);
    }
    MutexLock lock(mu_);
    lock.WaitFor(cv_, std::chrono::milliseconds(200), [&] {
      mu_.AssertHeld();
      return stop_.load() || !outbox_.empty() || beat_now_.load();
    });
  }
}

StatusOr<int64_t> Agent::AskPeer(const PeerAgent& peer) {
  // Briefly: a peer that does not answer at once counts as one that still hears the controller.
  ASSIGN_OR_RETURN(std::unique_ptr<HttpClient> http, HttpClient::Connect(peer.address, "", 1000));
  ASSIGN_OR_RETURN(HttpResponse r, http->Request("GET", "/v1/ping"));
  if (r.status != 200) return Status(StatusCode::kUnavailable, "peer " + peer.node + " answered " + std::to_string(r.status));
  ASSIGN_OR_RETURN(AgentPing ping, wire::Decode<AgentPing>(r.body, "peer " + peer.node + "'s ping"));
  if (ping.node != peer.node) return Status(StatusCode::kUnavailable, "peer at " + peer.address + " is " + ping.node);
  return ping.leader_heard_ms_ago;
}

void Agent::LostController(const Status& why) {
  if (registered_.exchange(false)) {  // said once an outage
    LogWarning("lost the controller (" + why.message() + "); registering again when it answers");
  }
}

void Agent::LogGpuHealth() {
  std::string now;
  for (const GpuHealth& h : gpu_health_->Snapshot()) {
    if (h.condition != GpuCondition::kHealthy) {
      now += (now.empty() ? "" : "; ") + std::string("GPU ") + std::to_string(h.index) + " " +
             GpuConditionName(h.condition) + ": " + h.reason;
    }
    if (!h.warning.empty()) now += (now.empty() ? "" : "; ") + std::string("GPU ") + std::to_string(h.index) + " " + h.warning;
  }
  if (now == reported_health_) return;
  Log(now.empty() ? LogLevel::kInfo : LogLevel::kWarning, {}, now.empty() ? "GPU health: every GPU healthy" : "GPU health: " + now);
  reported_health_ = now;
}

}  // namespace muster
