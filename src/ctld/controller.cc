#include "ctld/controller.h"

#include "base/log.h"
#include "model/job_list_json.h"

#include <grp.h>
#include <pwd.h>

#include <algorithm>
#include <cstdlib>
#include <cctype>
#include <cstdio>
#include <csignal>
#include <unistd.h>
#include <tuple>

#include "ctld/kept_entries.h"
#include "model/dependency.h"
#include "model/job_array.h"
#include "model/hostlist.h"
#include "model/job_request.h"

namespace muster {

namespace {

// The most components a heterogeneous job may have.
constexpr size_t kMaxHetComponents = 128;

std::string UserName(uint32_t uid) {
  struct passwd pw, *res = nullptr;
  char buf[4096];
  if (getpwuid_r(uid, &pw, buf, sizeof buf, &res) == 0 && res != nullptr) return pw.pw_name;
  return std::to_string(uid);
}

std::string GroupName(uint32_t gid) {
  struct group gr, *res = nullptr;
  char buf[4096];
  if (getgrgid_r(gid, &gr, buf, sizeof buf, &res) == 0 && res != nullptr) return gr.gr_name;
  return std::to_string(gid);
}

// The names of every group of `user` (its primary group `gid` and its supplementary groups), as
// the system's user database says (getgrouplist): what AllowGroups= is checked against.
std::vector<std::string> GroupNamesOf(const std::string& user, uint32_t gid) {
  std::vector<gid_t> gids(64);
  int count = static_cast<int>(gids.size());
  if (getgrouplist(user.c_str(), gid, gids.data(), &count) < 0) {
    gids.resize(static_cast<size_t>(count));  // count is now the number needed
    if (getgrouplist(user.c_str(), gid, gids.data(), &count) < 0) count = 0;
  }
  std::vector<std::string> names;
  names.reserve(static_cast<size_t>(count) + 1);
  for (int i = 0; i < count; ++i) names.push_back(GroupName(gids[static_cast<size_t>(i)]));
  if (count == 0) names.push_back(GroupName(gid));
  return names;
}

// The user and group names of submissions, looked up at most once a minute per id: every lookup
// reads /etc/passwd or /etc/group (or asks NSS), a cost on each of a thousand submissions that
// buys nothing between two renames.
class NameCache {
 public:
  std::pair<std::string, std::string> Names(uint32_t uid, uint32_t gid, int64_t now) {
    MutexLock l(mu_);
    return {Lookup(users_, uid, now, UserName), Lookup(groups_, gid, now, GroupName)};
  }

  // Every group of the user (GroupNamesOf), cached like the names.
  std::vector<std::string> Groups(const std::string& user, uint32_t uid, uint32_t gid, int64_t now) {
    MutexLock l(mu_);
    Memberships& m = memberships_[{uid, gid}];
    if (!m.loaded || now - m.at >= kTtlS || now < m.at) m = Memberships{GroupNamesOf(user, gid), now, true};
    return m.groups;
  }

 private:
  static constexpr int64_t kTtlS = 60;
  struct Entry {
    std::string name;
    int64_t at = 0;
  };
  static const std::string& Lookup(std::map<uint32_t, Entry>& cache, uint32_t id, int64_t now,
                                   std::string (*fn)(uint32_t)) {
    Entry& e = cache[id];
    if (e.name.empty() || now - e.at >= kTtlS || now < e.at) e = Entry{fn(id), now};
    return e.name;
  }
  struct Memberships {
    std::vector<std::string> groups;
    int64_t at = 0;
    bool loaded = false;
  };
  Mutex mu_{"name cache"};
  std::map<uint32_t, Entry> users_ GUARDED_BY(mu_), groups_ GUARDED_BY(mu_);
  std::map<std::pair<uint32_t, uint32_t>, Memberships> memberships_ GUARDED_BY(mu_);
};

NameCache& Names() {
  static NameCache cache;
  return cache;
}

}  // namespace

std::vector<std::string> Controller::GroupsOf(const std::string& user, uint32_t uid, uint32_t gid) const {
  return Names().Groups(user, uid, gid, clock_->NowSeconds());
}

Controller::Controller(ControllerConfig config, Store* store, AgentClient* agents, const Clock* clock)
    : config_(std::move(config)),
      store_(store),
      agents_(agents),
      clock_(clock),
      outage_(OutageRule{config_.outage_threshold_pct, config_.heartbeat_interval_s * 1000},
              (config_.heartbeat_timeout_s + config_.kill_wait_s + kLeaseMarginS) * 1000),
      nodes_(config_.cluster, config_.scheduler),
      usage_(nodes_),
      policy_(config_.priority, config_.scheduler.policy, config_.cluster, config_.usage_save_s),
      stats_(clock->NowSeconds()),
      ids_(store) {
  outage_.Started(clock->NowMillis());
  nodes_.Lock().StartCounting(clock->NowMillis());
  config_.scheduler.policy.reset();
  config_.priority.accounts = AccountTree{};
  size_t max_gpus = 1;  // on one node, for the workload mix
  for (const Node& n : config_.cluster.nodes) max_gpus = std::max(max_gpus, n.gpus.size());
  mix_learner_ = MixLearner(/*half_life_jobs=*/1000, static_cast<int>(max_gpus));
}

Controller::~Controller() { Stop(); }

Controller::JobsLock::~JobsLock() {
  if (c_->node_states_stale_) {
    // Set only by operations that change jobs, which hold the controller as non-const.
    Controller* c = const_cast<Controller*>(c_);
    NodeTable::Access nodes = c->nodes_.Lock();
    c->RefreshNodeStatesLocked(nodes);
  }
  if (c_->job_events_.empty() && c_->het_followers_.empty()) return;
  std::vector<std::pair<int64_t, std::string>> events;
  events.swap(c_->job_events_);
  std::vector<HetFollower> followers;
  followers.swap(c_->het_followers_);
  lock_.Unlock();
  for (const auto& [id, line] : events) LogInfo(LogSubject::Job(id), line);
  // A heterogeneous job's components that ended or were requeued with their leader: stored,
  // and stopped on their nodes (changed only by operations holding the controller as non-const).
  Controller* c = const_cast<Controller*>(c_);
  for (const HetFollower& f : followers) {
    (void)c->Persist(f.record);
    if (!f.cleanup.allocation.empty()) c->SignalAll(f.cleanup, SIGKILL, 0, "cleanup");
  }
}

Status Controller::LoadRecordsSince(int64_t now) {
  StatusOr<std::string> since = store_->GetMeta(kRecordsSinceKey);
  if (since.ok()) {
    records_since_ = std::atoll(since->c_str());
    return Status::Ok();
  }
  if (since.status().code() != StatusCode::kNotFound) return since.status();
  // The first start on this database, or one that kept jobs before the key existed: the oldest
  // job's submission (read once).
  records_since_ = now;
  StatusOr<std::vector<JobRecord>> all = store_->LoadJobs();
  if (!all.ok()) return all.status();
  for (const JobRecord& j : *all) {
    if (j.submit_time > 0) records_since_ = std::min(records_since_, j.submit_time);
  }
  return store_->SetMeta(kRecordsSinceKey, std::to_string(records_since_));
}

Status Controller::Recover() {
  StatusOr<std::vector<NodeRecord>> nodes = store_->LoadNodes();
  if (!nodes.ok()) return nodes.status().WithPrefix("loading nodes");
  // Only what the controller holds: the jobs not finished, and those that ended within MinJobAge.
  // History stays in the store (sacct reads it there).
  const int64_t started = clock_->NowSeconds();
  StatusOr<std::vector<JobRecord>> jobs =
      store_->LoadLiveJobs(config_.min_job_age_s > 0 ? started - config_.min_job_age_s : 0);
  if (!jobs.ok()) return jobs.status().WithPrefix("loading jobs");
  std::set<int64_t> held;
  for (const JobRecord& j : *jobs) held.insert(j.id);
  StatusOr<std::vector<StepRecord>> steps = store_->LoadStepsOf(held);
  if (!steps.ok()) return steps.status().WithPrefix("loading steps");
  StatusOr<std::string> usage = store_->GetMeta(kUsageKey);
  if (!usage.ok() && usage.status().code() != StatusCode::kNotFound) return usage.status().WithPrefix("loading usage");
  RETURN_IF_ERROR(LoadRecordsSince(started).WithPrefix("loading when the records begin"));
  // Ids go on just past the largest stored job's (or from first_job_id, if higher): what the last
  // run reserved and never gave a job, clean stop or crash, is numbered again (a start no longer
  // skips a block of ids). Only a leading controller gets here.
  StatusOr<int64_t> next_id = store_->RewindJobIds(std::max<int64_t>(1, config_.first_job_id));
  if (!next_id.ok()) return next_id.status().WithPrefix("numbering jobs");
  ids_.Restart(*next_id);  // no block reserved yet: the first submission reserves one
  StatusOr<std::string> policy = store_->GetMeta(kPolicyKey);
  if (!policy.ok() && policy.status().code() != StatusCode::kNotFound) {
    return policy.status().WithPrefix("loading account and QOS changes");
  }
  JobsLock lock(this);
  const int64_t now = clock_->NowSeconds();
  if (policy.ok()) RETURN_IF_ERROR(policy_.Replay(*policy).WithPrefix("loading account and QOS changes"));
  if (usage.ok()) RETURN_IF_ERROR(policy_.RestoreUsage(*usage).WithPrefix("loading usage"));
  NodeTable::Access records = nodes_.Lock();
  for (NodeRecord& n : *nodes) {
    NodeRecord* r = records.Find(n.node.name);
    if (r == nullptr) continue;  // no longer configured
    // Agents get a full heartbeat period to re-register before their nodes are declared DOWN.
    if (n.last_heartbeat > 0) n.last_heartbeat = now;
    *r = std::move(n);
  }
  records.OffersChanged(/*hardware=*/true);
  // Every node has a whole lease and margin to register again before a job of its is given up.
  records.StartCounting(clock_->NowMillis());
  outage_.Started(clock_->NowMillis());
  for (JobRecord& j : *jobs) {
    if (Expired(j, now)) continue;  // past MinJobAge: only the store keeps it
    const int64_t id = j.id;
    if (!j.submit_key.empty() && (j.array_job_id == 0 || j.array_job_id == id)) jobs_.SetKey({j.uid, j.submit_key}, id);
    JobRecord& slot = jobs_.Add(std::move(j));  // active unless finished
    if (!IsFinished(slot.state)) LearnShapeLocked(slot);
  }
  usage_.Invalidate();  // recounted from the jobs just loaded
  std::erase_if(*steps, [&](const StepRecord& st) REQUIRES(mu_) { return !jobs_.Contains(st.job_id); });
  steps_.Reset(std::move(*steps));
  for (const auto& [id, j] : jobs_.all()) {
    if (IsFinished(j.state)) EndStepsLocked(j);
    // Requeued and waiting: its earlier run's steps ended with that run (RequeueLocked, in memory).
    if (j.state == JobState::kPending) steps_.EndJob(id, now);
  }
  RefreshNodeStatesLocked(records);
  policy_.RefreshPriorities(jobs_.active(), now);
  return Status::Ok();
}

Controller::OutageView Controller::outage() const {
  JobsLock lock(this);
  return OutageView{outage_.own_fault(), outage_.out(), outage_.peers(), outage_.outages()};
}

bool Controller::Expired(const JobRecord& job, int64_t now) const {
  return config_.min_job_age_s > 0 && IsFinished(job.state) && job.end_time > 0 &&
         now - job.end_time >= config_.min_job_age_s;
}

void Controller::PurgeExpiredLocked(int64_t now) {
  jobs_.Purge([&](const JobRecord& j) { return Expired(j, now); });
  steps_.RetainJobs([&](int64_t job_id) REQUIRES(mu_) { return jobs_.Contains(job_id); });
}

bool Controller::IsAdmin(const Caller& caller) const {
  return caller.authenticated &&
         std::find(config_.admin_uids.begin(), config_.admin_uids.end(), caller.uid) != config_.admin_uids.end();
}

StatusOr<int64_t> Controller::Submit(const JobSpec& request, const Caller& caller, std::string* user_msg) {
  const std::string& k = request.submit_key;
  if (k.empty()) return SubmitOrTest(request, caller, nullptr, user_msg);
  if (k.size() > 64 || !std::all_of(k.begin(), k.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'; })) {
    return InvalidArgument("invalid submission key (at most 64 letters, digits, '-' and '_')");
  }
  const auto key = std::make_pair(caller.uid, k);
  {
    MutexLock lock(mu_);
    // A retry that overtook the first attempt waits for it to be stored (or refused).
    lock.Wait(keys_cv_, [&] {
      mu_.AssertHeld();
      return !jobs_.KeyInFlight(key);
    });
    if (std::optional<int64_t> first = jobs_.KeyedJob(key)) return *first;
    jobs_.KeyBegun(key);
  }
  StatusOr<int64_t> id = SubmitOrTest(request, caller, nullptr, user_msg);
  {
    JobsLock lock(this);
    jobs_.KeyEnded(key);
    if (id.ok()) jobs_.SetKey(key, *id);
  }
  keys_cv_.notify_all();
  return id;
}

StatusOr<WillRun> Controller::TestOnly(const JobSpec& request, const Caller& caller,
                                                   std::string* user_msg) {
  WillRun w;
  RETURN_IF_ERROR(SubmitOrTest(request, caller, &w, user_msg).status());
  return w;
}

StatusOr<int64_t> Controller::SubmitOrTest(const JobSpec& request, const Caller& caller, WillRun* will_run,
                                           std::string* user_msg) {
  ASSIGN_OR_RETURN(BuiltSubmission built, BuildSubmission(request, caller, user_msg));
  if (will_run != nullptr) return AnswerTestOnly(built.job, *will_run, user_msg);
  ASSIGN_OR_RETURN(std::vector<JobRecord> jobs, NumberedJobs(std::move(built.job), std::move(built.het), built.array));
  // Durable before acknowledged; concurrent submissions share one commit (group commit).
  RETURN_IF_ERROR(store_->SaveJobs(jobs));
  {
    JobsLock lock(this);
    if (built.array.max_running > 0) throttled_arrays_ = true;
    for (const JobRecord& j : jobs) {
      JobRecord& stored = jobs_.Add(j);  // active: pending
      LearnShapeLocked(stored);
      policy_.Prioritize(stored, clock_->NowSeconds());
      // Waiting for a time or another job shows at once (squeue right after sbatch), as in Slurm.
      if (stored.begin_time > 0 || !stored.dependency.empty()) (void)EligibleLocked(stored);
    }
  }
  stats_.Submitted(jobs.size());
  Wake();
  if (config_.log_events && LogEnabled(LogLevel::kInfo)) {
    LogInfo(LogSubject::Job(jobs.front().id),
            (jobs.front().het_job_size > 1 ? "heterogeneous job of " + std::to_string(jobs.size()) + " components submitted"
             : jobs.size() > 1 ? "array of " + std::to_string(jobs.size()) + " tasks submitted" : std::string("submitted")) +
                " by uid " + std::to_string(jobs.front().uid) + " to partition " + jobs.front().partition +
                (jobs.front().account.empty() ? "" : ", account " + jobs.front().account));
  }
  return jobs.front().id;
}

StatusOr<Controller::BuiltSubmission> Controller::BuildSubmission(const JobSpec& request, const Caller& caller,
                                                                  std::string* user_msg) {
  BuiltSubmission out;
  // Outside mu_: BuildJob reads only the request, the caller, the partitions (fixed), a copy
  // of the accounts and QOS in force, and the nodes' idle probe (under the nodes' lock).
  // Can it ever run? The scheduler decides against an idle cluster with every node up.
  auto ever_runs = [this](const JobRequest& request, std::string* msg) -> Status {
    return nodes_.EverRuns(request, clock_->NowSeconds(), msg);
  };
  SubmitPolicy policy;
  policy.allow_root_jobs = config_.allow_root_jobs;
  policy.max_script_bytes = config_.max_script_bytes;
  const PolicyState::InForce in_force = policy_.in_force();
  policy.accounts = in_force.accounts.get();
  policy.qos = in_force.policy != nullptr ? &in_force.policy->qos : nullptr;
  policy.caller_is_admin = IsAdmin(caller);
  Submitter who;
  if (caller.authenticated) {
    std::tie(who.user, who.group) = Names().Names(caller.uid, caller.gid, clock_->NowSeconds());
    // Only a partition with AllowGroups= needs them (a lookup in the user database).
    const auto& parts = config_.cluster.partitions;
    if (std::any_of(parts.begin(), parts.end(), [](const Partition& p) { return !p.access.allow_groups.empty(); })) {
      who.groups = Names().Groups(who.user, caller.uid, caller.gid, clock_->NowSeconds());
    }
  }
  StatusOr<BuiltJob> built =
      BuildJob(request, caller, who, config_.cluster.partitions, policy, clock_->NowSeconds(), ever_runs, user_msg);
  if (!built.ok()) return built.status();
  out.job = std::move(built->job);
  out.array = std::move(built->array);
  // A heterogeneous job: each further component is checked as a job of its own (its
  // resources, partition, account and QOS), without a script: the leader's runs on the first
  // component's first node, and the others hold their nodes for its steps.
  if (!request.het_components.empty()) {
    if (!out.array.tasks.empty()) return InvalidArgument("Job arrays of heterogeneous jobs are not supported");
    if (request.interactive) {
      return InvalidArgument("heterogeneous allocations (salloc or srun with ':') are not supported; submit the job with sbatch");
    }
    if (request.het_components.size() + 1 > kMaxHetComponents) {
      return InvalidArgument("a heterogeneous job has at most " + std::to_string(kMaxHetComponents) + " components");
    }
    for (size_t k = 0; k < request.het_components.size(); ++k) {
      const HetComponentSpec& c = request.het_components[k];
      JobSpec part = request;
      part.het_components.clear();
      part.resources = c.resources;
      part.submit_args = c.submit_args;
      if (!c.account.empty()) part.account = c.account;
      if (!c.qos.empty()) part.qos = c.qos;
      part.script.clear();
      part.script_args.clear();
      part.interactive = true;
      StatusOr<BuiltJob> other =
          BuildJob(part, caller, who, config_.cluster.partitions, policy, clock_->NowSeconds(), ever_runs, user_msg);
      if (!other.ok()) return other.status();
      out.het.push_back(std::move(other->job));
    }
  }
  return out;
}

StatusOr<int64_t> Controller::AnswerTestOnly(const JobRecord& job, WillRun& will_run, std::string* user_msg) {
  PendingJob probe;
  probe.request = job.request;
  probe.user = job.user;
  probe.account = job.account;
  probe.qos = job.qos;
  probe.submit_time = job.submit_time;
  std::vector<Decision> d;
  {
    JobsLock lock(this);
    NodeTable::Access nodes = nodes_.Lock();
    ClusterSnapshot now = SnapshotLocked(nodes);
    SchedulerOptions options = config_.scheduler;
    options.policy = policy_.scheduler_policy();
    options.backfill = true;  // for the reservation's time when it cannot start now
    options.strict_priority = true;
    Scheduler scheduler(now, options);
    d = scheduler.RunCycle({probe});
  }
  if (!d.empty() && d[0].kind == DecisionKind::kReject) {
    if (user_msg != nullptr) *user_msg = d[0].user_msg;
    return InvalidArgument(d[0].message);
  }
  will_run.partition = job.partition;
  if (!d.empty() && (d[0].kind == DecisionKind::kStart || d[0].start_time > 0)) {
    will_run.start_time = d[0].kind == DecisionKind::kStart ? clock_->NowSeconds() : d[0].start_time;
    if (job.begin_time > will_run.start_time) will_run.start_time = job.begin_time;
    std::vector<std::string> names;
    for (const NodeAllocation& a : d[0].nodes) {
      names.push_back(a.node);
      will_run.cpus += static_cast<int>(CpusOf(a));
    }
    will_run.nodes = CompressHostlist(names);
  }
  // The id the job would get, none taken: an id is shown before its job is stored nowhere else
  // (Store::RewindJobIds reuses the ids of jobs never stored).
  will_run.job_id = ids_.Peek();
  return will_run.job_id;
}

StatusOr<std::vector<JobRecord>> Controller::NumberedJobs(JobRecord job, std::vector<JobRecord> het,
                                                          const ArraySpec& array) {
  // A job array: one job per task, each with an id of its own; the first one's id names the array.
  std::vector<JobRecord> jobs;
  if (!het.empty()) {
    // A heterogeneous job: consecutive ids, the leader's first (Slurm's "J+0", "J+1", ...).
    ASSIGN_OR_RETURN(const int64_t first, ids_.Take(static_cast<int>(het.size()) + 1));
    jobs.push_back(std::move(job));
    for (JobRecord& c : het) jobs.push_back(std::move(c));
    for (size_t k = 0; k < jobs.size(); ++k) {
      JobRecord& j = jobs[k];
      j.id = first + static_cast<int64_t>(k);
      j.het_job_id = first;
      j.het_job_offset = static_cast<int>(k);
      j.het_job_size = static_cast<int>(jobs.size());
      if (k > 0) j.submit_key.clear();  // (the leader's answers a retry)
    }
  } else if (array.tasks.empty()) {
    jobs.push_back(std::move(job));
  } else {
    jobs.reserve(array.tasks.size());
    for (int t : array.tasks) {
      jobs.push_back(job);
      jobs.back().array_task_id = t;
    }
  }
  for (JobRecord& j : jobs) {
    if (j.het_job_id != 0) break;  // numbered above
    StatusOr<int64_t> id = ids_.Take();
    if (!id.ok()) return id.status();
    j.id = *id;
    if (!array.tasks.empty()) j.array_job_id = jobs.front().id;
  }
  return jobs;
}

StatusOr<JobRecord> Controller::GetJob(int64_t job_id) const {
  JobsLock lock(this);
  const JobRecord* job = jobs_.Find(job_id);
  if (job == nullptr) return NotFound("Invalid job id specified");
  return *job;
}

std::string Controller::UserNameOf(uint32_t uid) { return UserName(uid); }

void Controller::FinishJobLocked(JobRecord& job, JobState state, int exit_code, int signal) {
  unacknowledged_runs_.erase(JobRun{job.id, job.restart_count});
  usage_.Count(job, -1);
  jobs_.Finish(job.id);
  job.state = state;
  job.exit_code = exit_code;
  job.exit_signal = signal;
  job.end_time = clock_->NowSeconds();
  stats_.Ended(state);
  policy_.Ended(job);  // (charged before its suspension is cleared)
  if (job.suspend_time > 0) {
    job.suspended_s = SuspendedSeconds(job, job.end_time);
    job.suspend_time = 0;
  }
  job.reason = "None";
  job.ending.clear();
  job.kill_at = 0;
  EndStepsLocked(job);
  node_states_stale_ = true;
  if (config_.log_events && LogEnabled(LogLevel::kInfo)) {
    job_events_.emplace_back(job.id, std::string("ended: ") + JobStateName(state) + ", exit " +
                                         std::to_string(exit_code) + ":" + std::to_string(signal));
  }
  if (job.het_job_size > 1 && job.het_job_offset == 0) FollowLeaderLocked(job, false);
}

void Controller::EndingLocked(JobRecord& job, const std::string& ending, int64_t grace_s) {
  usage_.Count(job, -1);
  job.state = JobState::kCompleting;
  usage_.Count(job, 1);
  job.ending = ending;
  job.kill_at = clock_->NowSeconds() + grace_s;
}

void Controller::LoseJobLocked(JobRecord& job, const std::string& why, std::vector<JobRecord>* kill) {
  if (job.het_job_offset > 0) {
    // A heterogeneous job's component lost: the whole job goes, through its leader (requeued or
    // ended; this component follows it). The caller stores this component; the leader is
    // stored with the other components (JobsLock).
    JobRecord* leader = jobs_.Find(job.het_job_id);
    if (leader != nullptr && HoldsResources(leader->state)) {
      LoseJobLocked(*leader, why + " (component " + std::to_string(job.het_job_offset) + ")", kill);
      het_followers_.push_back(HetFollower{*leader, JobRecord{}});
      if (!HoldsResources(job.state)) return;
    }
  }
  if (job.requeue && (job.ending.empty() || job.ending == "preempt-requeue" || job.ending == "requeue")) {
    RequeueLocked(job, why, kill);
    return;
  }
  const JobState state = job.ending == "cancel"    ? JobState::kCancelled
                         : job.ending == "preempt" ? JobState::kPreempted
                                                   : JobState::kNodeFail;
  FinishJobLocked(job, state, 0, 0);
}

void Controller::RequeueLocked(JobRecord& job, const std::string& why, std::vector<JobRecord>* kill,
                               std::optional<bool> lost_launch) {
  // A run its batch host never acknowledged did not start there (a launch it refused, one that
  // never reached it, or one it never named in a report): requeued, it is a lost launch.
  const bool unacknowledged = unacknowledged_runs_.erase(JobRun{job.id, job.restart_count}) > 0;
  const bool lost = lost_launch.value_or(unacknowledged);
  usage_.Count(job, -1);
  if (kill != nullptr) kill->push_back(job);
  policy_.Requeued(job, clock_->NowSeconds());  // the run so far counts
  job.run_before_s = RunSeconds(job, clock_->NowSeconds());
  job.state = JobState::kPending;
  job.restart_count += 1;  // the next run's number, lost launch or not (orders name runs by it)
  if (lost) job.lost_launches += 1;
  job.warn_sent = false;
  job.allocation.clear();
  job.batch_host.clear();
  job.start_time = 0;
  job.end_time = 0;
  job.suspend_time = 0;
  job.suspended_s = 0;
  job.reason = "None";
  job.reason_detail = why;
  job.eligible_time = clock_->NowSeconds();
  job.ending.clear();
  job.kill_at = 0;
  // The run's steps end with it (CANCELLED): they held its nodes, and the next run's srun would
  // wait for them ("Requested nodes are busy") where their agent never reports (a node cut off).
  steps_.EndJob(job.id, clock_->NowSeconds());
  // Its rank as it waits again (under multifactor the priority it had: the next Tick moves it).
  job.priority = policy_.Rank(job, job.eligible_time);
  node_states_stale_ = true;
  if (config_.log_events && LogEnabled(LogLevel::kInfo)) {
    const char* const lost_note = lost ? " (the run never started: not counted as a restart)" : "";
    job_events_.emplace_back(job.id, "requeued: " + why + lost_note);
  }
  if (job.het_job_size > 1 && job.het_job_offset == 0) FollowLeaderLocked(job, true, lost);
}

void Controller::FollowLeaderLocked(const JobRecord& leader, bool requeued, bool lost_launch) {
  for (int k = 1; k < leader.het_job_size; ++k) {
    JobRecord* component = jobs_.Find(leader.id + k);
    if (component == nullptr) continue;
    JobRecord& c = *component;
    if (IsFinished(c.state)) continue;
    const bool held = HoldsResources(c.state);
    if (requeued && !held) continue;
    HetFollower f;
    if (held) f.cleanup = c;  // its run, to stop on its nodes
    if (requeued) {
      RequeueLocked(c, "heterogeneous job " + std::to_string(leader.id) + " requeued", nullptr, lost_launch);
    } else {
      c.cancelled_by = leader.cancelled_by;
      FinishJobLocked(c, leader.state, leader.exit_code, leader.exit_signal);
    }
    f.record = c;
    het_followers_.push_back(std::move(f));
  }
}

Status Controller::Persist(std::span<const JobRecord> jobs) {
  if (jobs.empty()) return Status::Ok();
  return store_->SaveJobs(jobs);
}

void Controller::SignalAll(const JobRecord& job, int signal, int64_t kill_after, const std::string& why) {
  std::vector<std::string> names;
  for (const NodeAllocation& a : job.allocation) names.push_back(a.node);
  std::vector<NodeRecord> targets = nodes_.Get(names);
  // The batch host last: the other nodes tell the job's sruns that their steps end (Slurm's
  // "*** STEP ... CANCELLED ***") while the batch shell, and the sruns it runs, still live.
  std::stable_partition(targets.begin(), targets.end(),
                        [&](const NodeRecord& n) { return n.node.name != job.batch_host; });
  for (const NodeRecord& n : targets) {
    // A node that stopped answering is not called: its runs end by its lease (and what is left
    // when it answers again is named in its heartbeat's answer), and a call would wait the
    // client's whole timeout on the loop's thread (10 s of no scheduling per lost node).
    if (n.node.state == NodeState::kDown && n.node.reason == "Not responding") continue;
    Status st = agents_->SignalJob(n, JobRun{job.id, job.restart_count}, signal, kill_after, why);
    (void)st;  // a lost node is handled by the heartbeat timeout
  }
}

Status Controller::JobExited(int64_t job_id, const std::string& node, const ExitReport& report, const Caller& caller) {
  if (!IsAdmin(caller)) return Status(StatusCode::kPermissionDenied, "only the node agent may report job exits");
  std::vector<JobRecord> changed, cleanup;
  {
    JobsLock lock(this);
    if (!jobs_.Contains(job_id)) return NotFound("Invalid job id specified");
    SettleExitsLocked(node, {RunExit{job_id, report}}, &changed, &cleanup);
  }
  RETURN_IF_ERROR(Persist(changed));
  // Other nodes of the allocation may still run step tasks: end them.
  for (const JobRecord& j : cleanup) SignalAll(j, SIGKILL, 0, "cleanup");
  if (!changed.empty()) Wake();
  return Status::Ok();
}

void Controller::SettleExitsLocked(const std::string& node, const std::vector<RunExit>& exits,
                                   std::vector<JobRecord>* changed, std::vector<JobRecord>* cleanup) {
  for (const RunExit& e : exits) {
    const ExitReport& report = e.report;
    JobRecord* record = jobs_.Find(e.job_id);
    if (record == nullptr) continue;  // past MinJobAge: settled long ago
    JobRecord& job = *record;
    if (!HoldsResources(job.state)) continue;  // already settled (duplicate report after a retry)
    if (job.batch_host != node) continue;  // only the batch script decides the job's end
    if (report.restart_count != job.restart_count) continue;  // an earlier run's late report
    unacknowledged_runs_.erase(JobRun{job.id, job.restart_count});  // it ran there: a requeue now is a restart
    if (report.lease_expired) {
      // The node ended the run when it lost touch with us: lost with the node (requeued, or
      // NODE_FAIL), not a job that failed.
      std::vector<JobRecord> ignored;
      LoseJobLocked(job, "node " + node + " ended it when its lease ran out", &ignored);
      changed->push_back(job);
      continue;
    }
    JobRecord copy;
    const std::string ending = job.ending;
    const std::vector<NodeAllocation> held = job.allocation;
    if (ending == "preempt-requeue" || ending == "requeue") {
      // Preempted with REQUEUE, or scontrol requeue: pending again, to run from the start.
      RequeueLocked(job, ending == "requeue" ? "Requeued" : "Preempted by job " + std::to_string(job.preempted_by),
                    nullptr);
      copy = job;
    } else {
      JobState state;
      if (ending == "preempt") {
        state = JobState::kPreempted;
      } else if (ending == "cancel") {
        state = JobState::kCancelled;
      } else if (ending == "timeout") {
        state = JobState::kTimeout;
      } else if (report.oom) {
        state = JobState::kOutOfMemory;
      } else if (report.exit_code == 0 && report.signal == 0) {
        state = JobState::kCompleted;
      } else {
        state = JobState::kFailed;
      }
      FinishJobLocked(job, state, report.exit_code, report.signal);
      copy = job;
    }
    changed->push_back(copy);
    if (held.size() > 1) {
      copy.allocation = held;
      copy.restart_count = report.restart_count;  // the run that ended (a requeue moved the count on)
      cleanup->push_back(std::move(copy));
    }
  }
}


void Controller::Wake() {
  {
    JobsLock lock(this);
    wake_ = true;
  }
  cv_.notify_all();
}

void Controller::Stop() {
  {
    JobsLock lock(this);
    stop_ = true;
  }
  cv_.notify_all();
}

void Controller::RunLoop(int period_ms) {
  int64_t last_tick = 0;
  while (true) {
    {
      MutexLock lock(mu_);
      lock.WaitFor(cv_, std::chrono::milliseconds(period_ms), [&] {
        mu_.AssertHeld();
        return wake_ || stop_;
      });
      if (stop_) return;
      wake_ = false;
    }
    ScheduleOnce();
    const int64_t now_ms = clock_->NowMillis();
    if (now_ms - last_tick >= 1000) {
      last_tick = now_ms;
      Tick();
    }
  }
}

}  // namespace muster
