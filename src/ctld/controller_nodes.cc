// The controller's node side: registration, heartbeats and admin state changes, the node
// states (idle/mix/alloc) derived from what the jobs hold, and what a scheduling pass is given
// (the snapshot and the waiting list).
#include "base/log.h"
#include "ctld/controller.h"
#include "ctld/kept_entries.h"
#include "sched/admission.h"
#include "model/dependency.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <optional>
#include <set>
#include <utility>

namespace muster {

std::map<std::string, NodeAllocated> Controller::AllocatedByNode() const {
  JobsLock lock(this);
  std::map<std::string, NodeAllocated> out;
  for (const auto& [id, j] : jobs_.active()) SumAllocation(*j, out);
  return out;
}

std::vector<NodeRecord> Controller::ListNodes() const { return nodes_.List(); }

int64_t Controller::NodesHeardWithin(int64_t seconds) const {
  return nodes_.CountHeardSince(clock_->NowSeconds() - seconds);
}

std::vector<Partition> Controller::ListPartitions() const { return config_.cluster.partitions; }

void Controller::RefreshNodeStatesLocked(NodeTable::Access& nodes) {
  node_states_stale_ = false;
  usage_.SetNodeStates(nodes, jobs_.active());
}

Status Controller::UpdateNode(const std::string& name, const std::string& state, const std::string& reason,
                              const Caller& caller) {
  if (!IsAdmin(caller)) return Status(StatusCode::kPermissionDenied, "Access/permission denied");
  std::vector<JobRecord> changed, kill;
  NodeRecord copy;
  {
    JobsLock lock(this);
    NodeTable::Access nodes = nodes_.Lock();
    NodeRecord* n = nodes.Find(name);
    if (n == nullptr) return NotFound("Invalid node name specified: " + name);
    std::string up;
    for (char c : state) up += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const int64_t now = clock_->NowSeconds();
    if (up == "DRAIN") {
      if (reason.empty()) return InvalidArgument("You must specify a reason when DOWNING or DRAINING a node");
      n->node.drain = true;
      n->node.reason = reason;
      n->node.reason_user = UserNameOf(caller.uid);
      n->node.reason_time = now;
    } else if (up == "RESUME" || up == "IDLE") {
      // GPUs its health watch took out come back too (the agent's watch is told so, and takes them
      // out again if they are still bad).
      for (const GpuFault& f : n->failed_gpus) nodes.ResumeGpu(name, f.index);
      if (!n->failed_gpus.empty()) {
        n->failed_gpus.clear();
        nodes.OffersChanged(/*hardware=*/false);
      }
      n->node.drain = false;
      n->node.reason.clear();
      n->node.reason_user.clear();
      n->node.reason_time = 0;
      if (n->node.state == NodeState::kDown || n->node.state == NodeState::kFuture) {
        n->node.state = n->last_heartbeat > 0 ? NodeState::kIdle : NodeState::kUnknown;
      }
    } else if (up == "DOWN") {
      if (reason.empty()) return InvalidArgument("You must specify a reason when DOWNING or DRAINING a node");
      n->node.state = NodeState::kDown;
      n->node.reason = reason;
      n->node.reason_user = UserNameOf(caller.uid);
      n->node.reason_time = now;
      for (int64_t id : jobs_.ActiveIds()) {
        JobRecord& j = jobs_.at(id);
        if (!HoldsResources(j.state)) continue;
        bool on = std::any_of(j.allocation.begin(), j.allocation.end(), [&](const auto& a) { return a.node == name; });
        if (!on) continue;
        LoseJobLocked(j, "node " + name + " set DOWN", &kill);
        changed.push_back(j);
      }
    } else {
      return InvalidArgument("Invalid node state specified");
    }
    RefreshNodeStatesLocked(nodes);
    copy = *n;
  }
  RETURN_IF_ERROR(store_->SaveNode(copy));
  RETURN_IF_ERROR(Persist(changed));
  for (const JobRecord& j : kill) SignalAll(j, SIGKILL, 0, "requeue");
  Wake();
  return Status::Ok();
}

std::vector<JobRun> Controller::StrayRunsLocked(const std::string& node, const NodeReport& report) const {
  std::vector<JobRun> stray;
  for (const JobRun& run : report.running) {
    const JobRecord* j = jobs_.Find(run.job_id);
    const bool ours = j != nullptr && HoldsResources(j->state) && j->restart_count == run.restart_count &&
                      std::any_of(j->allocation.begin(), j->allocation.end(),
                                  [&](const NodeAllocation& a) { return a.node == node; });
    if (!ours) stray.push_back(run);
  }
  return stray;
}

void Controller::LoseMissingRunsLocked(const std::string& node, const NodeReport& report, std::vector<JobRecord>* kill,
                                       std::vector<JobRecord>* changed) {
  const std::set<JobRun> reported(report.running.begin(), report.running.end());
  const int64_t now = clock_->NowSeconds();
  for (int64_t id : jobs_.ActiveIds()) {
    JobRecord& j = jobs_.at(id);
    if (!HoldsResources(j.state) || j.batch_host != node) continue;
    if (reported.count(JobRun{id, j.restart_count})) {
      unacknowledged_runs_.erase(JobRun{id, j.restart_count});  // its node holds it: it started
      continue;
    }
    // A launch may still be on its way (the node made its report before it came): only a run
    // started longer ago than a launch can take is missing for good.
    if (j.start_time > 0 && now - j.start_time < kLaunchGraceS) continue;
    LoseJobLocked(j, "batch host " + node + " no longer has the job", kill);
    changed->push_back(j);
  }
}

bool Controller::ApplyGpuHealthLocked(NodeTable::Access& nodes, NodeRecord& n, const NodeReport& report,
                                      std::vector<JobRecord>* kill, std::vector<JobRecord>* changed) {
  if (!report.gpu_faults || *report.gpu_faults == n.failed_gpus) return false;
  const std::vector<GpuFault>& faults = *report.gpu_faults;
  const std::string name = n.node.name;
  std::set<int> newly;
  for (const GpuFault& f : faults) {
    if (std::none_of(n.failed_gpus.begin(), n.failed_gpus.end(), [&](const GpuFault& o) { return o.index == f.index; })) {
      newly.insert(f.index);
    }
  }
  const std::string before = DescribeGpuFaults(n.failed_gpus);
  for (int64_t id : jobs_.ActiveIds()) {
    JobRecord& j = jobs_.at(id);
    if (!HoldsResources(j.state)) continue;
    const GpuFault* hit = nullptr;
    for (const NodeAllocation& a : j.allocation) {
      if (a.node != name) continue;
      for (const GpuFault& f : faults) {
        if (HoldsGpu(a, f.index) && newly.count(f.index)) hit = &f;
      }
    }
    if (hit == nullptr) continue;
    const JobRecord was = j;  // its run, on every node, is ended
    LoseJobLocked(j, "GPU " + std::to_string(hit->index) + " of " + name + " failed: " + hit->reason, nullptr);
    kill->push_back(was);
    changed->push_back(j);
  }
  n.failed_gpus = faults;
  const std::string now = DescribeGpuFaults(n.failed_gpus);
  if (n.node.reason.empty() || n.node.reason == before) {
    n.node.reason = now;
    n.node.reason_user = now.empty() ? "" : "musterd";
    n.node.reason_time = now.empty() ? 0 : clock_->NowSeconds();
  }
  Log(now.empty() ? LogLevel::kInfo : LogLevel::kWarning, LogSubject::Node(name), now.empty() ? "every GPU healthy again" : now);
  nodes.OffersChanged(/*hardware=*/false);  // a GPU out counts as taken (NodeUsageBook::Current)
  return true;
}

namespace {
constexpr char kHealthCheckReason[] = "health check: ";
}  // namespace

bool Controller::ApplyNodeHealthLocked(NodeRecord& n, const NodeReport& report) {
  if (!report.node_health) return false;
  const bool ours = n.node.drain && n.node.reason.rfind(kHealthCheckReason, 0) == 0;
  if (!report.node_health->ok) {
    const std::string reason = kHealthCheckReason + report.node_health->reason;
    if (n.node.drain && (n.node.reason == reason || !ours)) return false;  // drained already (by it, or an admin)
    n.node.drain = true;
    n.node.reason = reason;
    n.node.reason_user = "musterd";
    n.node.reason_time = clock_->NowSeconds();
    LogWarning(LogSubject::Node(n.node.name), "drained: " + reason);
    return true;
  }
  if (!ours) return false;
  n.node.drain = false;
  n.node.reason.clear();
  n.node.reason_user.clear();
  n.node.reason_time = 0;
  LogInfo(LogSubject::Node(n.node.name), "health check passes again, resumed");
  return true;
}

StatusOr<NodeOrders> Controller::RegisterNode(const NodeRecord& node, const NodeReport& report, const Caller& caller) {
  if (!IsAdmin(caller)) return Status(StatusCode::kPermissionDenied, "only the node agent (an admin uid) may register nodes");
  std::vector<JobRecord> changed, kill, cleanup;
  NodeOrders orders;
  orders.lease_s = config_.heartbeat_timeout_s;
  NodeRecord copy;
  {
    JobsLock lock(this);
    NodeTable::Access nodes = nodes_.Lock();
    NodeRecord* n = nodes.Find(node.node.name);
    if (n == nullptr) return NotFound("node '" + node.node.name + "' is not configured");
    // The runs that ended while the controller or the agent was away, before what it runs is read.
    SettleExitsLocked(node.node.name, report.exits, &changed, &cleanup);
    nodes.OffersChanged(/*hardware=*/true);  // what it has may have changed
    const bool drain = n->node.drain;
    const std::string reason = n->node.reason;
    const NodeState before = n->node.state;
    const bool registered_before = n->last_heartbeat > 0;
    const std::string address_before = n->agent_address;
    const bool was_down = before == NodeState::kDown;
    n->node = node.node;
    n->node.drain = drain;
    n->node.reason = was_down && reason == "Not responding" ? "" : reason;
    // Registration brings back a node that stopped answering, not one an admin (or the
    // configuration) set DOWN with a reason, nor a FUTURE node: those wait for State=RESUME.
    const bool stays = before == NodeState::kFuture || (was_down && !reason.empty() && reason != "Not responding");
    n->node.state = stays ? before : NodeState::kIdle;
    n->agent_address = node.agent_address;
    n->version = node.version;
    n->boot_time = node.boot_time;
    n->start_time = node.start_time;
    n->arch = node.arch;
    n->os = node.os;
    n->hostname = node.hostname;
    n->last_heartbeat = clock_->NowSeconds();
    nodes.Heard(n->node.name, clock_->NowMillis());
    if (!registered_before || n->agent_address != address_before) nodes.PeersChanged();  // the peers' lists name it
    orders.witness = WitnessFor(nodes, n->node.name, outage_.rule(), nodes.peers_generation());
    if (config_.log_events) {
      LogInfo(LogSubject::Node(node.node.name), "registered (" + std::to_string(node.node.gpus.size()) + " GPUs, " +
                                                    std::to_string(node.node.cpus) + " CPUs, agent " + node.agent_address +
                                                    ")" + (stays ? ", stays " + std::string(NodeStateName(before)) : ""));
    }
    LoseMissingRunsLocked(node.node.name, report, &kill, &changed);
    ApplyGpuHealthLocked(nodes, *n, report, &kill, &changed);
    ApplyNodeHealthLocked(*n, report);
    // Runs the node holds that are over, or not its: it stops them.
    orders.stop = StrayRunsLocked(node.node.name, report);
    orders.resume_gpus = nodes.TakeResumedGpus(node.node.name);
    RefreshNodeStatesLocked(nodes);
    copy = *n;
  }
  RETURN_IF_ERROR(store_->SaveNode(copy));
  RETURN_IF_ERROR(Persist(changed));
  for (const JobRecord& j : kill) SignalAll(j, SIGKILL, 0, "requeue");
  for (const JobRecord& j : cleanup) SignalAll(j, SIGKILL, 0, "cleanup");
  Wake();
  return orders;
}

StatusOr<NodeOrders> Controller::Heartbeat(const std::string& node, const NodeReport& report, const Caller& caller,
                                           int64_t witness_generation) {
  if (!IsAdmin(caller)) return Status(StatusCode::kPermissionDenied, "only the node agent may send heartbeats");
  bool woke = false;
  std::vector<JobRecord> changed, cleanup, kill;
  std::optional<NodeRecord> node_copy;
  NodeOrders orders;
  orders.lease_s = config_.heartbeat_timeout_s;
  {
    JobsLock lock(this);
    NodeTable::Access nodes = nodes_.Lock();
    NodeRecord* n = nodes.Find(node);
    if (n == nullptr) return NotFound("node '" + node + "' is not configured");
    if (n->last_heartbeat == 0) return FailedPrecondition("node '" + node + "' must register first");
    n->last_heartbeat = clock_->NowSeconds();
    nodes.Heard(node, clock_->NowMillis());
    if (witness_generation != nodes.peers_generation()) {
      orders.witness = WitnessFor(nodes, node, outage_.rule(), nodes.peers_generation());
    }
    if (n->node.state == NodeState::kDown && n->node.reason == "Not responding") {
      n->node.state = NodeState::kIdle;
      n->node.reason.clear();
      LogInfo(LogSubject::Node(node), "responding again");
      RefreshNodeStatesLocked(nodes);
      woke = true;
    }
    SettleExitsLocked(node, report.exits, &changed, &cleanup);
    LoseMissingRunsLocked(node, report, &kill, &changed);
    const bool gpus_changed = ApplyGpuHealthLocked(nodes, *n, report, &kill, &changed);
    if (ApplyNodeHealthLocked(*n, report) || gpus_changed) {
      RefreshNodeStatesLocked(nodes);
      node_copy = *n;
      woke = true;
    }
    orders.stop = StrayRunsLocked(node, report);
    orders.resume_gpus = nodes.TakeResumedGpus(node);
  }
  gpu_usage_.Set(node, clock_->NowSeconds(), report.gpu_usage);
  if (node_copy) RETURN_IF_ERROR(store_->SaveNode(*node_copy));
  RETURN_IF_ERROR(Persist(changed));
  for (const JobRecord& j : kill) SignalAll(j, SIGKILL, 0, "requeue");
  for (const JobRecord& j : cleanup) SignalAll(j, SIGKILL, 0, "cleanup");
  if (woke || !changed.empty()) Wake();
  return orders;
}

namespace {

// Whether an index built with node `a` holds for node `b`: everything but the state is the same,
// and of the state, whether the node takes work.
bool SameForIndex(const Node& a, const Node& b) {
  return a.schedulable() == b.schedulable() && a.name == b.name && a.cpus == b.cpus && a.sockets == b.sockets &&
         a.cores_per_socket == b.cores_per_socket && a.threads_per_core == b.threads_per_core &&
         a.numa_nodes == b.numa_nodes && a.memory_mb == b.memory_mb && a.drain == b.drain &&
         a.features == b.features && a.gpus == b.gpus && a.links == b.links;
}

}  // namespace

// The scheduler's view: every node, what the jobs holding resources use (a suspended job its
// memory and GPUs only), and those jobs with their ends.
ClusterSnapshot Controller::SnapshotLocked(NodeTable::Access& nodes) const {
  ClusterSnapshot s;
  s.partitions = config_.cluster.partitions;
  s.topology = config_.cluster.topology;
  s.nodes.reserve(nodes.size());
  for (size_t i = 0; i < nodes.size(); ++i) s.nodes.push_back(nodes.at(i).node);
  FillSnapshotLocked(nodes, s);
  return s;
}

bool Controller::SyncSnapshotNodesLocked(NodeTable::Access& nodes, ClusterSnapshot& s, uint64_t& epoch) const {
  bool same = s.nodes.size() == nodes.size();
  if (same && epoch == nodes.epoch()) {
    // No record replaced since: only the state, drain and reason may differ.
    for (size_t i = 0; same && i < nodes.size(); ++i) {
      const Node& live = nodes.at(i).node;
      same = s.nodes[i].schedulable() == live.schedulable() && s.nodes[i].drain == live.drain;
    }
  } else {
    for (size_t i = 0; same && i < nodes.size(); ++i) same = SameForIndex(s.nodes[i], nodes.at(i).node);
  }
  epoch = nodes.epoch();
  if (same) {
    for (size_t i = 0; i < nodes.size(); ++i) {
      const Node& live = nodes.at(i).node;
      s.nodes[i].state = live.state;
      if (s.nodes[i].reason != live.reason) s.nodes[i].reason = live.reason;
    }
    return true;
  }
  // The configuration's partitions and topology never change after construction.
  s.partitions = config_.cluster.partitions;
  s.topology = config_.cluster.topology;
  s.nodes.clear();
  for (size_t i = 0; i < nodes.size(); ++i) s.nodes.push_back(nodes.at(i).node);
  return false;
}

void Controller::FillSnapshotLocked(NodeTable::Access& nodes, ClusterSnapshot& s,
                                    SchedulingPass::KeptRunning* kept_running) const {
  s.now = clock_->NowSeconds();
  s.usage = usage_.Current(nodes, jobs_.active());
  SchedulingPass::KeptRunning local;  // for a snapshot not kept: every entry is new
  SchedulingPass::KeptRunning& kept = kept_running != nullptr ? *kept_running : local;
  kept.Begin(s.running);
  for (const auto& [id, job] : jobs_.active()) {
    const JobRecord& j = *job;
    if (!HoldsResources(j.state)) continue;
    bool fresh = false;
    SchedulingPass::FilledFrom* from = nullptr;
    RunningJob& r = kept.Next(j.id, &fresh, &from);
    // A job's user, account, QOS and partition are set when it is submitted and never change
    // (no operation updates them; see JobRecord): an entry kept from last pass holds them.
    if (fresh) {
      r.user = j.user;
      r.account = j.account;
      r.qos = j.qos;
      r.partition = j.partition;
    }
    // Backfill plans with when it ends at the latest: its start plus its time limit.
    r.end_time = j.time_limit_s > 0 && j.start_time > 0 ? j.start_time + j.time_limit_s + j.suspended_s : kUnlimited;
    r.start_time = j.start_time;
    r.terminating = j.state == JobState::kCompleting;
    r.preempted_by = r.terminating && j.ending.rfind("preempt", 0) == 0 ? j.preempted_by : 0;
    const bool suspended = j.state == JobState::kSuspended;
    if (suspended) {
      r.preempted_by = j.preempted_by;
      r.end_time = kUnlimited;  // its clock stands still
    }
    const SchedulingPass::RunOf run{j.start_time, j.restart_count, HoldsCpus(j), suspended};
    const bool same_run = !fresh && from->run == run;
    // A running job ranks by its priority when it started, or under a service order by what it
    // has attained by now: the rank of last pass while the order says it cannot have changed.
    if (const int64_t run_s = RunSeconds(j, s.now);
        same_run && run_s >= from->rank_from_run_s && run_s < from->rank_until_run_s) {
      r.priority = from->rank;
    } else {
      r.priority = from->rank = policy_.Rank(j, s.now, &from->rank_until_run_s);
      from->rank_from_run_s = run_s;
    }
    // The allocation, copied again only for another run, or when the CPUs came or went.
    if (same_run) continue;
    from->run = run;
    r.revision = ++run_revisions_;  // (the scheduler keeps what it built from an entry until this moves)
    r.allocation.resize(j.allocation.size());
    r.node_pos.resize(j.allocation.size(), -1);
    for (size_t a = 0; a < j.allocation.size(); ++a) {
      NodeAllocation& n = r.allocation[a];
      // Where the node is in s.nodes, looked up only when the entry names another node.
      if (n.node != j.allocation[a].node || r.node_pos[a] < 0) r.node_pos[a] = nodes_.Pos(j.allocation[a].node);
      n = j.allocation[a];  // (assigned over: a kept entry reuses its buffers)
      if (!run.cpus) n.cpu_milli = 0;
    }
    const JobUse held = UseOf(r.allocation);
    r.held_gpu_milli = held.gpu_milli;
    r.held_cpu_milli = held.cpu_milli;
    r.held_memory_mb = held.memory_mb;
    r.suspended = suspended;
    r.suspended_cpu_milli.clear();
    if (suspended) {
      for (const NodeAllocation& a : j.allocation) r.suspended_cpu_milli.push_back(a.cpu_milli);
    }
  }
  kept.Finish();
}

AdmissionFacts Controller::OwnAdmissionFactsLocked(JobRecord& job, int64_t now) {
  AdmissionFacts f;
  f.now = now;
  f.begin_time = job.begin_time;
  if (job.begin_time <= now && !job.dependency.empty()) f.dependency = DependencyLocked(job, now);
  return f;
}

bool Controller::EligibleLocked(JobRecord& job) {
  const std::optional<PendingReason> why = AdmissionReason(OwnAdmissionFactsLocked(job, clock_->NowSeconds()));
  if (why) job.reason = PendingReasonName(*why);
  return !why;
}

std::optional<DependencyState> Controller::DependencyLocked(JobRecord& job, int64_t now) {
  if (job.dependency.empty()) return std::nullopt;
  const DependencySpec& spec = job.dependency;
  // A job array stands for all its tasks: started when one has, ended when all have, ok when all
  // completed with 0 (Slurm's dependency on an array job id).
  std::map<int64_t, JobRecord> arrays;
  auto find = [&](int64_t id) REQUIRES(mu_) -> const JobRecord* {
    const JobRecord* held = jobs_.Find(id);
    if (held == nullptr) return nullptr;
    if (held->array_job_id != id) return held;
    auto [a, added] = arrays.try_emplace(id);
    if (!added) return &a->second;
    JobRecord& all = a->second;
    all.id = id;
    all.state = JobState::kCompleted;
    bool ended = true, ok = true;
    for (const auto& [tid, t] : jobs_.all()) {
      if (t.array_job_id != id) continue;
      if (t.start_time > 0) all.start_time = t.start_time;
      ended = ended && IsFinished(t.state);
      ok = ok && t.state == JobState::kCompleted && t.exit_code == 0;
    }
    all.state = !ended ? JobState::kRunning : ok ? JobState::kCompleted : JobState::kFailed;
    return &all;
  };
  bool singleton_blocked = false;
  for (const DependencyItem& item : spec.items) {
    if (item.type != DependencyType::kSingleton) continue;
    for (const auto& [id, other] : jobs_.active()) {
      if (id != job.id && other->uid == job.uid && other->name == job.name &&
          (HoldsResources(other->state) || (other->state == JobState::kPending && id < job.id))) {
        singleton_blocked = true;
        break;
      }
    }
    break;
  }
  std::vector<DependencyState> states;
  for (const DependencyItem& item : spec.items) states.push_back(ItemState(item, find, singleton_blocked));
  const DependencyState all = EvaluateDependency(spec, find, singleton_blocked);
  if (all == DependencyState::kSatisfied) {
    // Satisfied for good: Slurm drops it (Dependency=(null)); eligible from now.
    job.dependency = {};
    job.dependency_left.clear();
    job.eligible_time = std::max(job.eligible_time, now);
    return all;
  }
  job.dependency_left = FormatDependency(spec, states);
  return all;
}

bool Controller::FillPendingLocked(std::vector<PendingJob>& pending) {
  bool suspended = false;
  // A job preempted for another waits until that one has started: else, tied with it (equal
  // priority, the same second), it could take back what it was stopped to free, and be
  // preempted again, round after round. Not behind a preemptor that waits the same way
  // itself, though: two jobs that preempted each other in turn would wait for ever.
  auto waits_for = [&](const JobRecord& j) REQUIRES(mu_) -> const JobRecord* {
    if (j.preempted_by == 0 || j.restart_count == 0) return nullptr;
    const JobRecord* by = jobs_.FindActive(j.preempted_by);
    return by != nullptr && by->state == JobState::kPending ? by : nullptr;
  };
  // Arrays with a '%' limit: how many of each array's tasks run (or are offered this pass).
  std::unordered_map<int64_t, int> array_running;
  if (throttled_arrays_) {
    for (const auto& [id, job] : jobs_.active()) {
      if (job->array_max_running > 0 && HoldsResources(job->state)) ++array_running[job->array_job_id];
    }
  }
  KeptEntries<PendingJob, JobRecord*>& kept = pass_.pending_kept;
  kept.Begin(pending);
  const int64_t now = clock_->NowSeconds();
  for (const auto& [id, job] : jobs_.active()) {
    const JobRecord& j = *job;
    suspended = suspended || j.state == JobState::kSuspended;
    if (j.state != JobState::kPending || j.held) continue;
    // A heterogeneous job's further components are decided with their leader (its entry).
    if (j.het_job_offset > 0) continue;
    // Admission (sched/admission.h): the facts about other jobs gathered here, the verdict there.
    AdmissionFacts f = OwnAdmissionFactsLocked(*job, now);
    int* running = nullptr;
    if (j.array_max_running > 0) {
      running = &array_running[j.array_job_id];
      f.array_max_running = j.array_max_running;
      f.array_running = *running;
    }
    const JobRecord* by = waits_for(j);
    f.preemptor_waits = by != nullptr && waits_for(*by) == nullptr;
    const std::optional<PendingReason> why = AdmissionReason(f);
    // Past its array's limit check, it counts against the limit for the jobs after it.
    if (running != nullptr && (!why || *why == PendingReason::kPriority)) ++*running;
    if (why) {
      job->reason = PendingReasonName(*why);
      continue;
    }
    bool fresh = false;
    JobRecord** record = nullptr;
    PendingJob& p = kept.Next(id, &fresh, &record);
    *record = job;
    // The request, user, account and QOS are set at submission and never change (see
    // JobRecord): an entry kept from last pass holds them.
    if (fresh) {
      p.request = j.request;
      p.user = j.user;
      p.account = j.account;
      p.qos = j.qos;
      p.het = HetComponentsLocked(j);
      p.revision = ++run_revisions_;  // (the scheduler keeps what it resolved from it until this moves)
    }
    p.priority = j.priority;
    p.submit_time = j.eligible_time;
  }
  kept.Finish();
  return suspended;
}

std::vector<PendingComponent> Controller::HetComponentsLocked(const JobRecord& leader) const {
  std::vector<PendingComponent> out;
  if (leader.het_job_id != leader.id) return out;
  for (int k = 1; k < leader.het_job_size; ++k) {
    const JobRecord* component = jobs_.Find(leader.id + k);
    if (component == nullptr) continue;
    const JobRecord& c = *component;
    out.push_back({c.id, c.request, c.account, c.qos});
  }
  return out;
}

std::vector<PendingJob> Controller::FreshPendingLocked(const std::vector<PendingJob>& pending) const {
  std::vector<PendingJob> out;
  out.reserve(pending.size());
  for (const PendingJob& kept : pending) {
    const JobRecord* active = jobs_.FindActive(kept.id);
    if (active == nullptr) continue;
    const JobRecord& j = *active;
    PendingJob p;
    p.id = j.id;
    p.request = j.request;
    p.priority = j.priority;
    p.submit_time = j.eligible_time;
    p.user = j.user;
    p.account = j.account;
    p.qos = j.qos;
    p.het = HetComponentsLocked(j);
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace muster
