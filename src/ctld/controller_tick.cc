// The controller's clock-driven duties, once a second (Tick): nodes that stopped answering go
// DOWN and lose their jobs (unless so many stopped at once that it is the controller's own fault:
// ctld/outage_guard.h); running jobs get their --signal warning and are ended at their time
// limit; jobs being stopped that outlive their SIGKILL are signalled again; the decayed usage is
// saved.
#include <unistd.h>

#include <csignal>
#include <cstdio>

#include "base/log.h"
#include "ctld/controller.h"

namespace muster {

namespace {

constexpr int64_t kResignalS = 10;  // SIGKILL again this long after it was due

}  // namespace

void Controller::Tick() {
  const int64_t now = clock_->NowSeconds();
  TickWork w;
  {
    JobsLock lock(this);
    w.usage = policy_.Tick(jobs_.active(), now);
    // A pass over every job, so at most every 10 s (or MinJobAge, if shorter).
    if (config_.min_job_age_s > 0 && now - last_purge_ >= std::min<int64_t>(10, config_.min_job_age_s)) {
      last_purge_ = now;
      PurgeExpiredLocked(now);
    }
    NodeTable::Access nodes = nodes_.Lock();
    TickNodesLocked(nodes, now, w);
    TickJobsLocked(now, w);
    if (!w.down_nodes.empty()) node_states_stale_ = true;  // set again as the lock is released
  }
  for (const NodeRecord& n : w.down_nodes) (void)store_->SaveNode(n);
  (void)Persist(w.changed);
  if (!w.usage.empty()) {
    if (Status st = store_->SetMeta(kUsageKey, w.usage); !st.ok()) {
      LogError("cannot save the usage: " + st.ToString());
      policy_.UsageSaveFailed();  // again at the next Tick
    }
  }
  // sbatch --signal: the steps, or with B: the batch shell alone (Slurm's rule).
  for (const JobRecord& j : w.warned) SignalAll(j, j.warn_signal, 0, j.warn_batch_only ? "signal-batch" : "signal-steps");
  for (const JobRecord& j : w.to_timeout) SignalAll(j, SIGTERM, config_.kill_wait_s, "timeout");
  for (const JobRecord& j : w.resignal) SignalAll(j, SIGKILL, 0, j.ending);
  for (const JobRecord& j : w.kill) SignalAll(j, SIGKILL, 0, "requeue");
  for (const JobRecord& j : w.ended) SignalAll(j, SIGKILL, 0, "cleanup");
  if (!w.down_nodes.empty() || !w.changed.empty()) Wake();
}

void Controller::TickNodesLocked(NodeTable::Access& nodes, int64_t now, TickWork& w) {
  // How many of the nodes are out of touch: many at once is the controller's own fault, and
  // then no silent node's jobs are given up (model/outage.h).
  const int64_t now_ms = clock_->NowMillis();
  int64_t peers = 0, out = 0;
  for (size_t p = 0; p < nodes.size(); ++p) {
    if (!nodes.counted(p)) continue;
    ++peers;
    out += OutOfTouch(nodes, p, now_ms, outage_.rule());
  }
  outage_.Update(now_ms, out, peers);
  const bool may_give_up = outage_.MayGiveUp(now_ms);
  for (size_t p = 0; p < nodes.size(); ++p) {
    NodeRecord& n = nodes.at(p);
    const std::string& name = n.node.name;
    if (n.last_heartbeat == 0 || n.node.state == NodeState::kFuture) continue;
    const int64_t silent = now - n.last_heartbeat;
    if (n.node.state != NodeState::kDown && silent >= config_.heartbeat_timeout_s) {
      n.node.state = NodeState::kDown;
      n.node.reason = "Not responding";
      n.node.reason_user = UserNameOf(geteuid());  // the controller's own reason (Slurm: SlurmUser)
      n.node.reason_time = now;
      w.down_nodes.push_back(n);
      LogWarning(LogSubject::Node(name), "not responding for " + std::to_string(silent) + " s: set DOWN");
    }
    // Its jobs are given up once its lease has run out and its shepherds have ended them: never
    // do they run in two places at once. Not while many nodes are silent at once (its peers
    // renew its lease then), nor until a whole lease after that.
    if (n.node.state != NodeState::kDown || n.node.reason != "Not responding" ||
        silent < config_.heartbeat_timeout_s + config_.kill_wait_s + kLeaseMarginS || !may_give_up) {
      continue;
    }
    for (int64_t id : jobs_.ActiveIds()) {
      JobRecord& j = jobs_.at(id);
      if (!HoldsResources(j.state)) continue;
      bool on = std::any_of(j.allocation.begin(), j.allocation.end(), [&](const auto& a) { return a.node == name; });
      if (!on) continue;
      LoseJobLocked(j, "node " + name + " not responding", &w.kill);
      w.changed.push_back(j);
    }
  }
}

void Controller::TickJobsLocked(int64_t now, TickWork& w) {
  std::vector<int64_t> ending_ids;
  // One walk over the jobs for both (changed lists the time-outs first, as they are signalled).
  for (const auto& [id, job] : jobs_.active()) {
    JobRecord& j = *job;
    if (j.state == JobState::kRunning) {
      if (j.time_limit_s <= 0 || j.start_time == 0) continue;
      const int64_t ran = now - j.start_time - j.suspended_s;
      if (j.warn_signal > 0 && !j.warn_sent && j.ending.empty() && ran >= j.time_limit_s - j.warn_time_s) {
        j.warn_sent = true;  // sbatch --signal
        w.warned.push_back(j);
        w.changed.push_back(j);
      }
      if (ran < j.time_limit_s || !j.ending.empty()) continue;
      EndingLocked(j, "timeout", config_.kill_wait_s);
      w.to_timeout.push_back(j);
    } else if (j.state == JobState::kCompleting) {
      // An interactive allocation being stopped ends when its grace does: no batch script
      // reports it (its step tasks had SIGTERM; SIGKILL goes with the end).
      if (j.interactive && j.kill_at > 0 && now >= j.kill_at) {
        ending_ids.push_back(id);  // finished after this walk (it leaves the active list)
        continue;
      }
      // A job being stopped that is still there well after its SIGKILL was due (the signal
      // was lost, or the controller restarted before sending it): SIGKILL again, every 10 s.
      if (j.kill_at == 0 || now < j.kill_at + kResignalS) continue;
      j.kill_at = now;
      w.resignal.push_back(j);
    }
  }
  for (int64_t id : ending_ids) {
    JobRecord& j = jobs_.at(id);
    FinishJobLocked(j, j.ending == "timeout" ? JobState::kTimeout : JobState::kCancelled, 0, 0);
    w.ended.push_back(j);
    w.changed.push_back(j);
  }
  w.changed.insert(w.changed.end(), w.to_timeout.begin(), w.to_timeout.end());
  w.changed.insert(w.changed.end(), w.resignal.begin(), w.resignal.end());
}

}  // namespace muster
