#include "sched/why.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <tuple>

#include "model/job_request.h"
#include "sched/cluster_index.h"
#include "sched/priority_policy.h"
#include "sched/queue_order.h"
#include "sched/workload_mix.h"

namespace muster {

const char* WhyStartName(WhyStart s) {
  switch (s) {
    case WhyStart::kNow: return "now";
    case WhyStart::kPreempting: return "preempting";
    case WhyStart::kPlanned: return "planned";
    case WhyStart::kUnplanned: return "unplanned";
    case WhyStart::kNever: return "never";
  }
  return "unplanned";
}

WhyOutcome OutcomeOf(const Decision& d, int64_t now) {
  WhyOutcome o;
  o.reason = d.reason;
  o.message = d.message;
  switch (d.kind) {
    case DecisionKind::kStart:
    case DecisionKind::kResume:
      o.start = WhyStart::kNow;
      o.start_time = now;
      o.nodes = d.nodes;
      break;
    case DecisionKind::kReject:
      o.start = WhyStart::kNever;
      break;
    case DecisionKind::kPending:
      if (!d.preempt.empty()) {
        o.start = WhyStart::kPreempting;
        o.start_time = now;
        for (const Preemption& p : d.preempt) o.preempt.push_back(p.victim);
      } else if (d.start_time > 0) {
        o.start = WhyStart::kPlanned;
        o.start_time = d.start_time;
        o.nodes = d.nodes;
      }
      break;
  }
  return o;
}

namespace {

// When an outcome starts, for comparing: no start at all is the latest.
int64_t StartKey(const WhyOutcome& o) {
  switch (o.start) {
    case WhyStart::kNow:
    case WhyStart::kPreempting:
    case WhyStart::kPlanned:
      return o.start_time;
    case WhyStart::kUnplanned:
    case WhyStart::kNever:
      break;
  }
  return INT64_MAX;
}

bool StartsNow(const WhyOutcome& o) { return o.start == WhyStart::kNow || o.start == WhyStart::kPreempting; }

// How a request asks for whole GPUs: the field scaled by a what-if, and how many of it make the
// total. None for a job without GPUs or with a fraction of one.
struct GpuForm {
  int JobRequest::*field = nullptr;
  int count = 0;       // the field's value
  int multiplier = 1;  // total = count * multiplier
};

GpuForm GpuFormOf(const JobRequest& r) {
  GpuForm f;
  if (r.wants_fraction()) return f;
  if (r.gpus_total > 0) {
    f.field = &JobRequest::gpus_total;
    f.count = r.gpus_total;
  } else if (r.gpus_per_node > 0) {
    f.field = &JobRequest::gpus_per_node;
    f.count = r.gpus_per_node;
    f.multiplier = std::max(1, r.min_nodes);
  } else if (r.gpus_per_task > 0) {
    f.field = &JobRequest::gpus_per_task;
    f.count = r.gpus_per_task;
    f.multiplier = std::max(1, r.ntasks);
  }
  return f;
}

// The option that asks for `count` as `form` does: "--gres=gpu:a100:4", "--gpus=8", ...
std::string GpuOption(const JobRequest& r, const GpuForm& form, int count) {
  const std::string type = r.gpu_type.empty() ? "" : r.gpu_type + ":";
  if (form.field == &JobRequest::gpus_total) return "--gpus=" + type + std::to_string(count);
  if (form.field == &JobRequest::gpus_per_node) return "--gres=gpu:" + type + std::to_string(count);
  return "--gpus-per-task=" + type + std::to_string(count);
}

std::string Plural(int64_t n, const char* one) { return std::to_string(n) + " " + one + (n == 1 ? "" : "s"); }

// A limit of the policy that a pending reason names: where it is, and what it is.
struct LimitHeld {
  std::string account;  // "" for a QOS's
  std::string qos;
  std::string limit;    // Slurm's name
  int64_t value = kUnlimited;
  int64_t in_use = -1;  // what the account holds of it (-1: not counted here)
};

// `account` and its ancestors in `policy`, nearest first, to change.
std::vector<Account*> MutablePath(SchedPolicy& policy, const std::string& account) {
  std::vector<Account*> out;
  for (const Account* a : policy.accounts.Path(account)) {
    for (Account& mine : policy.accounts.accounts) {
      if (mine.name == a->name) out.push_back(&mine);
    }
  }
  return out;
}

// Lifts, in `policy`, the limits behind `reason` for `job` (on every account of its path for an
// account's limit, as the gate checks each level; on its QOS for a QOS's) and says which one
// held it (the nearest set). `usage`: what runs, for the figures.
std::optional<LimitHeld> LiftLimit(SchedPolicy& policy, const PendingJob& job, PendingReason reason,
                                   const LimitGate& usage) {
  std::optional<LimitHeld> held;
  const std::vector<Account*> path = MutablePath(policy, job.account);
  // One field of each account on the path; `used` what the account's subtree holds of it.
  auto on_path = [&](const std::string& name, auto get, auto used) {
    for (Account* a : path) {
      int64_t& field = get(*a);
      if (field == kUnlimited) continue;
      if (!held) held = LimitHeld{a->name, "", name, field, used(usage.AccountUse(a->name))};
      field = kUnlimited;
    }
  };
  auto unknown = [](const UseTotals&) -> int64_t { return -1; };
  Qos* qos = nullptr;
  const std::string qos_name = job.qos.empty() ? "normal" : job.qos;
  for (Qos& q : policy.qos) {
    if (q.name == qos_name) qos = &q;
  }
  auto on_qos = [&](const char* name, int64_t Qos::*field) {
    if (qos == nullptr || qos->*field == kUnlimited) return;
    held = LimitHeld{"", qos->name, name, qos->*field, -1};
    qos->*field = kUnlimited;
  };
  switch (reason) {
    case PendingReason::kAssocGrpGRES:
      // The account's cap and its user's, on every level.
      on_path("GrpTRES=gres/gpu", [](Account& a) -> int64_t& { return a.limit.gpus; },
              [](const UseTotals& u) { return u.gpu_milli / kMilliPerGpu; });
      on_path("MaxTRESPerUser=gres/gpu", [](Account& a) -> int64_t& { return a.max_gpus_per_user; }, unknown);
      break;
    case PendingReason::kAssocGrpCpuLimit:
      on_path("GrpTRES=cpu", [](Account& a) -> int64_t& { return a.limit.cpus; },
              [](const UseTotals& u) { return u.cpu_milli / 1000; });
      break;
    case PendingReason::kAssocGrpMemLimit:
      on_path("GrpTRES=mem", [](Account& a) -> int64_t& { return a.limit.memory_mb; },
              [](const UseTotals& u) { return u.memory_mb; });
      break;
    case PendingReason::kAssocMaxJobsLimit:
      on_path("MaxJobs", [](Account& a) -> int64_t& { return a.max_jobs; }, unknown);
      break;
    case PendingReason::kAssocGrpJobsLimit:
      on_path("GrpJobs", [](Account& a) -> int64_t& { return a.grp_jobs; }, [](const UseTotals& u) { return u.jobs; });
      break;
    case PendingReason::kAssocMaxWallDurationPerJobLimit:
      on_path("MaxWall", [](Account& a) -> int64_t& { return a.max_wall_s; }, unknown);
      break;
    case PendingReason::kQOSMaxGRESPerUser: on_qos("MaxTRESPerUser=gres/gpu", &Qos::max_gpus_per_user); break;
    case PendingReason::kQOSMaxGRESPerJob: on_qos("MaxTRESPerJob=gres/gpu", &Qos::max_gpus_per_job); break;
    case PendingReason::kQOSMaxJobsPerUserLimit: on_qos("MaxJobsPerUser", &Qos::max_jobs_per_user); break;
    case PendingReason::kQOSMaxWallDurationPerJobLimit: on_qos("MaxWall", &Qos::max_wall_s); break;
    case PendingReason::kQOSGrpGRES: on_qos("GrpTRES=gres/gpu", &Qos::grp_gpus); break;
    default: break;
  }
  return held;
}

// Runs the core on copies, counting the cycles.
class Asker {
 public:
  Asker(const ClusterSnapshot& snapshot, const SchedulerOptions& options, std::vector<PendingJob> queue, int64_t id)
      : snapshot_(snapshot), index_(snapshot_), options_(Fresh(options)), queue_(std::move(queue)), id_(id) {
    scheduler_ = std::make_unique<Scheduler>(snapshot_, index_, options_);
    for (size_t i = 0; i < queue_.size(); ++i) {
      if (queue_[i].id == id) at_ = i;
    }
  }
  // The whole cycle as given.
  std::vector<Decision> Cycle() {
    ++cycles_;
    return scheduler_->RunCycle(queue_);
  }
  // The job's outcome with its request (and account, QOS) as in `job`, and with `policy` when
  // given (else the pass's).
  WhyOutcome Ask(const PendingJob& job, std::shared_ptr<const SchedPolicy> policy = nullptr) {
    std::vector<PendingJob> q = queue_;
    q[at_] = job;
    ++cycles_;
    std::vector<Decision> ds;
    if (policy) {
      SchedulerOptions o = options_;
      o.policy = std::move(policy);
      o = Fresh(o);
      Scheduler s(snapshot_, index_, o);
      ds = s.RunCycle(q);
    } else {
      ds = scheduler_->RunCycle(q);
    }
    for (const Decision& d : ds) {
      if (d.job_id == id_) return OutcomeOf(d, snapshot_.now);
    }
    return {};
  }
  const PendingJob& job() const { return queue_[at_]; }
  const ClusterIndex& index() const { return index_; }
  const SchedulerOptions& options() const { return options_; }
  int cycles() const { return cycles_; }

 private:
  // The mix made again for this index (a mix's memos are per node of the index it served).
  static SchedulerOptions Fresh(SchedulerOptions o) {
    if (o.mix != nullptr) o.mix = std::make_shared<const WorkloadMix>(o.mix->shapes(), o.mix->step_milli());
    return o;
  }
  const ClusterSnapshot& snapshot_;
  ClusterIndex index_;
  SchedulerOptions options_;
  std::vector<PendingJob> queue_;
  int64_t id_;
  size_t at_ = 0;
  std::unique_ptr<Scheduler> scheduler_;
  int cycles_ = 0;
};

// Fewer GPUs: the most with which it starts now, else one with an earlier planned start.
void FewerGpus(Asker& ask, const WhyOutcome& base, std::vector<WhyAlternative>& out) {
  const PendingJob& job = ask.job();
  const GpuForm form = GpuFormOf(job.request);
  if (form.field == nullptr || form.count <= 1) return;
  auto with = [&](int k) {
    PendingJob j = job;
    j.request.*form.field = k;
    return ask.Ask(j);
  };
  auto report = [&](int k, WhyOutcome o) {
    WhyAlternative a;
    a.kind = "gpus";
    a.gpus = static_cast<double>(k) * form.multiplier;
    a.change = Plural(static_cast<int64_t>(a.gpus), "GPU") + " (" + GpuOption(job.request, form, k) + ")";
    a.outcome = std::move(o);
    out.push_back(std::move(a));
  };
  WhyOutcome one = with(1);
  if (StartsNow(one)) {
    // The largest k in [1, count) that starts now: fewer GPUs never fit worse.
    int lo = 1, hi = form.count;  // lo starts now, hi does not
    WhyOutcome best = one;
    while (hi - lo > 1) {
      const int mid = lo + (hi - lo) / 2;
      WhyOutcome o = with(mid);
      if (StartsNow(o)) {
        lo = mid;
        best = std::move(o);
      } else {
        hi = mid;
      }
    }
    report(lo, std::move(best));
    return;
  }
  // Nothing starts it now: half its GPUs, or one, where either is planned sooner.
  const int half = form.count / 2;
  if (half > 1) {
    WhyOutcome o = with(half);
    if (Sooner(o, base)) {
      report(half, std::move(o));
      return;
    }
  }
  if (Sooner(one, base)) report(1, std::move(one));
}

// A shorter time limit: the longest, in whole minutes, with which it starts now.
void ShorterLimit(Asker& ask, const WhyOutcome& base, int64_t limit, std::vector<WhyAlternative>& out) {
  (void)base;
  const PendingJob& job = ask.job();
  int64_t top_min = 0;  // the longest limit to try, in minutes (exclusive of the job's own)
  if (limit > 0) {
    top_min = (limit + 59) / 60 - 1;
  } else {
    top_min = ask.options().backfill_horizon_s / 60;
  }
  if (top_min < 1) return;
  auto with = [&](int64_t minutes) {
    PendingJob j = job;
    j.request.time_limit_s = minutes * 60;
    return ask.Ask(j);
  };
  WhyOutcome one = with(1);
  if (!StartsNow(one)) return;
  int64_t lo = 1, hi = top_min + 1;
  WhyOutcome best = std::move(one);
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    WhyOutcome o = with(mid);
    if (StartsNow(o)) {
      lo = mid;
      best = std::move(o);
    } else {
      hi = mid;
    }
  }
  WhyAlternative a;
  a.kind = "time";
  a.time_limit_s = lo * 60;
  a.change = "--time=" + FormatTimeSpec(lo * 60);
  a.outcome = std::move(best);
  out.push_back(std::move(a));
}

void OtherPartitions(Asker& ask, const WhyOutcome& base, const std::string& current, const WhyOptions& why,
                     const ClusterSnapshot& snapshot, std::vector<WhyAlternative>& out) {
  std::vector<std::string> names;
  if (why.partitions) {
    names = *why.partitions;
  } else {
    for (const Partition& p : snapshot.partitions) names.push_back(p.name);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  for (const std::string& name : names) {
    if (name == current || ask.index().FindPartition(name) == nullptr) continue;
    PendingJob j = ask.job();
    j.request.partition = name;
    WhyOutcome o = ask.Ask(j);
    if (!Sooner(o, base)) continue;
    WhyAlternative a;
    a.kind = "partition";
    a.partition = name;
    a.change = "-p " + name;
    a.outcome = std::move(o);
    out.push_back(std::move(a));
  }
}

LimitGate UsageGate(const SchedPolicy& policy, const ClusterSnapshot& snapshot) {
  LimitGate gate(policy.accounts, policy.qos);
  for (const RunningJob& r : snapshot.running) gate.AddAs(HeldBy(r), r.account, r.user, r.qos);
  return gate;
}

// The snapshot stripped of every hint and promise (a Scheduler of its own decides).
ClusterSnapshot Stripped(const ClusterSnapshot& snapshot) {
  ClusterSnapshot bare = snapshot;
  for (RunningJob& r : bare.running) {
    r.revision = 0;
    r.node_pos.clear();
    r.held_gpu_milli = -1;
  }
  return bare;
}

// The queue in the order the cycle takes jobs without team quotas: by priority, then submission, then id.
std::vector<const PendingJob*> ByPriority(const std::vector<PendingJob>& queue) {
  std::vector<const PendingJob*> by_priority;
  for (const PendingJob& j : queue) by_priority.push_back(&j);
  std::sort(by_priority.begin(), by_priority.end(), [](const PendingJob* a, const PendingJob* b) {
    return std::make_tuple(-a->priority, a->submit_time, a->id) < std::make_tuple(-b->priority, b->submit_time, b->id);
  });
  return by_priority;
}

// The jobs the cycles asked need, without hints: those up to `target`, or all of them under quotas.
std::vector<PendingJob> AskedJobs(const std::vector<const PendingJob*>& by_priority, const PendingJob* target,
                                  bool quotas) {
  std::vector<PendingJob> asked;
  for (const PendingJob* j : by_priority) {
    asked.push_back(*j);
    asked.back().revision = 0;
    if (!quotas && j == target) break;
  }
  return asked;
}

// A job's partition, the default one when it names none.
std::string PartitionOf(const PendingJob& j, const std::string& default_partition) {
  return j.request.partition.empty() ? default_partition : j.request.partition;
}

// The job's place and outcome in `cycle`, the jobs before it; returns its account and theirs shown.
std::vector<std::string> PlaceInCycle(PendingExplanation& e, const PendingJob& target,
                                      const std::vector<Decision>& cycle,
                                      const std::map<int64_t, const PendingJob*>& by_id,
                                      const std::string& default_partition, const WhyOptions& why, int64_t now) {
  int position = 0;
  std::vector<std::string> accounts{target.account};
  for (const Decision& d : cycle) {
    const auto it = by_id.find(d.job_id);
    // Resumed jobs (not waiting) and a heterogeneous job's further components (with their leader).
    if (d.kind == DecisionKind::kResume || it == by_id.end()) continue;
    ++position;
    if (d.job_id == e.job_id) {
      e.position = position;
      e.outcome = OutcomeOf(d, now);
      break;
    }
    ++e.ahead_total;
    const PendingJob& j = *it->second;
    if (PartitionOf(j, default_partition) != e.partition) continue;
    ++e.ahead_in_partition;
    if (e.ahead.size() >= why.max_ahead) continue;
    WhyAhead a;
    a.id = j.id;
    a.position = position;
    a.user = j.user;
    a.account = j.account;
    a.partition = PartitionOf(j, default_partition);
    a.priority = j.priority;
    a.gpus = RequestedGpus(j.request);
    a.outcome = OutcomeOf(d, now);
    e.ahead.push_back(std::move(a));
    accounts.push_back(j.account);
  }
  return accounts;
}

// Under team quotas, `accounts`' places in the division as the cycle made it; returns whether in GPUs.
bool ShowShares(PendingExplanation& e, const SchedPolicy& policy, const ClusterSnapshot& bare,
                const std::vector<const PendingJob*>& by_priority, std::vector<std::string>& accounts,
                std::map<std::string, QueueShare>& shares) {
  e.fair_share_order = true;
  QueueOrder order(policy.accounts);
  int64_t gpus = 0, cpus = 0;
  for (const Node& n : bare.nodes) {
    if (!n.schedulable()) continue;
    gpus += static_cast<int64_t>(n.gpus.size()) * kMilliPerGpu;
    cpus += int64_t{n.cpus} * 1000;
  }
  const bool by_gpus = gpus > 0;
  (void)order.Order(by_priority, bare.running, by_gpus ? gpus : cpus, by_gpus);
  shares = order.shares();
  std::sort(accounts.begin(), accounts.end());
  accounts.erase(std::unique(accounts.begin(), accounts.end()), accounts.end());
  for (const std::string& name : accounts) {
    auto it = shares.find(name);
    if (it == shares.end()) continue;
    WhyShare s;
    s.account = name;
    s.held = it->second.held / 1000.0;
    s.fair_share = it->second.fair_share / 1000.0;
    s.demand = it->second.demand / 1000.0;
    if (const Account* a = policy.accounts.Find(name)) {
      const int64_t q = by_gpus ? a->quota.gpus : a->quota.cpus;
      if (q != kUnlimited) s.quota = static_cast<double>(q);
    }
    e.shares.push_back(std::move(s));
  }
  return by_gpus;
}

// The limit its reason names, lifted: an alternative when it then starts sooner.
void LiftedLimit(Asker& ask, const SchedPolicy& policy, const ClusterSnapshot& bare, PendingExplanation& e) {
  auto lifted = std::make_shared<SchedPolicy>(policy);
  const LimitGate usage = UsageGate(policy, bare);
  if (std::optional<LimitHeld> held = LiftLimit(*lifted, ask.job(), e.outcome.reason, usage)) {
    WhyOutcome o = ask.Ask(ask.job(), lifted);
    if (Sooner(o, e.outcome)) {
      WhyAlternative a;
      a.kind = "limit";
      a.account = held->account.empty() ? held->qos : held->account;
      a.limit = held->limit;
      a.value = held->value;
      a.in_use = held->in_use;
      a.change = (held->account.empty() ? "QOS " + held->qos : "account " + held->account) + "'s " + held->limit +
                 " (" + std::to_string(held->value) + ") lifted";
      a.outcome = std::move(o);
      e.sooner.push_back(std::move(a));
    }
  }
}

// Under team quotas in GPUs: its account's quota raised to cover what it holds and this job.
void RaisedQuota(Asker& ask, const SchedPolicy& policy, const PendingJob& target,
                 const std::map<std::string, QueueShare>& shares, bool quotas, bool by_gpus, PendingExplanation& e) {
  const Account* account = policy.accounts.Find(target.account);
  auto share = shares.find(target.account);
  if (quotas && by_gpus && account != nullptr && share != shares.end()) {
    const int64_t need = (share->second.held + static_cast<int64_t>(std::ceil(e.gpus * kMilliPerGpu)) +
                          kMilliPerGpu - 1) / kMilliPerGpu;
    const int64_t now_quota = account->quota.gpus == kUnlimited ? 0 : account->quota.gpus;
    if (need > now_quota) {
      auto raised = std::make_shared<SchedPolicy>(policy);
      for (Account& a : raised->accounts.accounts) {
        if (a.name == account->name) a.quota.gpus = need;
      }
      WhyOutcome o = ask.Ask(ask.job(), raised);
      if (Sooner(o, e.outcome)) {
        WhyAlternative a;
        a.kind = "quota";
        a.account = account->name;
        a.value = need;
        a.in_use = share->second.held / kMilliPerGpu;
        a.change = "account " + account->name + "'s quota raised from " + Plural(now_quota, "GPU") + " to " +
                   std::to_string(need);
        a.outcome = std::move(o);
        e.sooner.push_back(std::move(a));
      }
    }
  }
}

}  // namespace

bool Sooner(const WhyOutcome& a, const WhyOutcome& b) { return StartKey(a) < StartKey(b); }

PendingExplanation ExplainPending(const ClusterSnapshot& snapshot, const SchedulerOptions& options,
                                  const std::vector<PendingJob>& queue, int64_t job_id, const WhyOptions& why) {
  PendingExplanation e;
  e.job_id = job_id;
  e.queue_size = static_cast<int>(queue.size());
  const PendingJob* target = nullptr;
  for (const PendingJob& j : queue) {
    if (j.id == job_id) target = &j;
  }
  if (target == nullptr) return e;
  e.queued = true;
  ClusterSnapshot bare = Stripped(snapshot);
  // The order the cycle takes jobs in (sched/scheduler.h): without team quotas, by priority,
  // then submission, then id, and a job's decision depends only on the jobs before it: the
  // cycles asked need only those. With quotas the order depends on every account's demand.
  const bool quotas = options.policy != nullptr && QueueOrder(options.policy->accounts).active();
  std::vector<const PendingJob*> by_priority = ByPriority(queue);
  std::vector<PendingJob> asked = AskedJobs(by_priority, target, quotas);
  std::map<int64_t, const PendingJob*> by_id;
  for (const PendingJob& j : queue) by_id.emplace(j.id, &j);

  Asker ask(bare, options, std::move(asked), job_id);
  const std::vector<Decision> cycle = ask.Cycle();
  const std::string& default_partition = ask.index().default_partition();
  e.partition = PartitionOf(*target, default_partition);
  e.gpus = RequestedGpus(target->request);
  e.time_limit_s = target->request.time_limit_s;
  if (e.time_limit_s <= 0) {
    if (const Partition* p = ask.index().FindPartition(e.partition)) e.time_limit_s = p->default_time_s;
  }
  std::vector<std::string> accounts = PlaceInCycle(e, *target, cycle, by_id, default_partition, why, bare.now);
  std::map<std::string, QueueShare> shares;
  bool by_gpus = true;
  if (quotas) by_gpus = ShowShares(e, *options.policy, bare, by_priority, accounts, shares);
  // What would let it start sooner (a heterogeneous job's gang is left as it is).
  if (why.what_ifs && !StartsNow(e.outcome) && target->het.empty()) {
    FewerGpus(ask, e.outcome, e.sooner);
    ShorterLimit(ask, e.outcome, e.time_limit_s, e.sooner);
    OtherPartitions(ask, e.outcome, e.partition, why, bare, e.sooner);
    if (options.policy != nullptr) {
      LiftedLimit(ask, *options.policy, bare, e);
      RaisedQuota(ask, *options.policy, *target, shares, quotas, by_gpus, e);
    }
  }
  e.cycles = ask.cycles();
  return e;
}

}  // namespace muster
