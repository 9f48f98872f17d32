// muster why (GET /v1/jobs/{id}/why): the pass's own input, copied under the locks, explained by
// the scheduler core without them (sched/why.h).
#include <algorithm>
#include <string>
#include <vector>

#include "ctld/controller.h"
#include "model/hostlist.h"
#include "model/partition_access.h"
#include "sched/why.h"

namespace muster {

namespace {

// "0-3,6": GPU indices as ranges.
std::string Ranges(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  std::string s;
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (!s.empty()) s += ",";
    s += std::to_string(v[i]);
    if (j > i) s += "-" + std::to_string(v[j]);
    i = j + 1;
  }
  return s;
}

WhyOutcomeAnswer OutcomeAnswer(const WhyOutcome& o) {
  WhyOutcomeAnswer a;
  a.start = WhyStartName(o.start);
  if (o.start != WhyStart::kNow && o.reason != PendingReason::kNone) a.reason = PendingReasonName(o.reason);
  a.message = o.message;
  a.start_time = o.start_time;
  std::vector<std::string> names;
  for (const NodeAllocation& n : o.nodes) {
    names.push_back(n.node);
    std::vector<int> gpus;
    for (const GpuShare& g : n.gpus) gpus.push_back(g.index);
    if (!gpus.empty()) a.gpus.push_back(n.node + ":" + Ranges(gpus));
  }
  if (!names.empty()) a.nodes = CompressHostlist(names);
  a.preempt = o.preempt;
  return a;
}

// A queued job's explanation, in the answer.
void AnswerExplained(const PendingExplanation& e, WhyAnswer& answer) {
  answer.explained = true;
  answer.partition = e.partition;
  answer.gpus = e.gpus;
  answer.time_limit_s = e.time_limit_s;
  answer.outcome = OutcomeAnswer(e.outcome);
  answer.position = e.position;
  answer.queue_size = e.queue_size;
  answer.ahead_total = e.ahead_total;
  answer.ahead_in_partition = e.ahead_in_partition;
  for (const WhyAhead& a : e.ahead) {
    answer.ahead.push_back({a.id, a.position, a.user, a.account, a.partition, a.priority, a.gpus, OutcomeAnswer(a.outcome)});
  }
  answer.fair_share_order = e.fair_share_order;
  for (const WhyShare& s : e.shares) answer.shares.push_back({s.account, s.held, s.fair_share, s.demand, s.quota});
  for (const WhyAlternative& a : e.sooner) {
    answer.sooner.push_back({a.kind, a.change, a.gpus, a.time_limit_s, a.partition, a.account, a.limit, a.value,
                             a.in_use, OutcomeAnswer(a.outcome)});
  }
  answer.cycles = e.cycles;
}

}  // namespace

StatusOr<WhyAnswer> Controller::Why(int64_t job_id) {
  WhyAnswer answer;
  answer.job_id = job_id;
  ClusterSnapshot snapshot;
  std::vector<PendingJob> pending;
  SchedulerOptions options;
  std::string user;
  uint32_t uid = 0, gid = 0;
  std::string qos;
  {
    // As the pass takes its input (BuildCycleInput): one pass at a time, then the jobs, then the
    // nodes. Filling the waiting list here does what the next pass would do first.
    MutexLock cycle(pass_.mu);
    JobsLock lock(this);
    const JobRecord* held = jobs_.Find(job_id);
    if (held == nullptr) return NotFound("Invalid job id specified");
    {
      const JobRecord& j = *held;
      answer.user = j.user;
      answer.account = j.account;
      answer.partition = j.partition;
      answer.state = JobStateName(j.state);
      answer.now = clock_->NowSeconds();
      user = j.user;
      uid = j.uid;
      gid = j.gid;
      qos = j.qos;
      if (j.state != JobState::kPending) {
        answer.note = "it is not pending";
      } else if (j.held) {
        answer.note = "it is held (" + j.reason + "): it is not scheduled until released (scontrol release)";
      } else if (j.het_job_offset > 0) {
        answer.note = "it is a component of heterogeneous job " + std::to_string(j.het_job_id) +
                      ", scheduled with it: ask about " + std::to_string(j.het_job_id);
      }
    }
    if (answer.note.empty()) {
      if (pending_stale_) {
        pass_.pending.clear();
        pending_stale_ = false;
      }
      (void)FillPendingLocked(pass_.pending);
      const bool queued = std::any_of(pass_.pending.begin(), pass_.pending.end(),
                                      [&](const PendingJob& p) { return p.id == job_id; });
      if (!queued) {
        // Admission holds it before any placement (its --begin, --dependency, array limit...).
        answer.note = "it is not scheduled yet: " + held->reason;
        if (!held->dependency_left.empty()) answer.note += " (waits for " + held->dependency_left + ")";
      } else {
        pending = FreshPendingLocked(pass_.pending);
        NodeTable::Access nodes = nodes_.Lock();
        snapshot = SnapshotLocked(nodes);
        options = config_.scheduler;
        options.policy = policy_.scheduler_policy();
        options.mix = pass_.mix();
      }
    }
    const JobRecord& j = *held;  // (after FillPendingLocked: the reason as the pass sets it)
    answer.reason = j.reason;
    answer.reason_detail = j.reason_detail;
    answer.expected_start = j.expected_start;
    answer.sched_nodes = j.sched_nodes;
  }
  if (!answer.note.empty()) return answer;
  WhyOptions why;  // over the partitions its owner may use, as at submission
  why.partitions = UsablePartitions(user, uid, gid, answer.account, qos);
  const PendingExplanation e = ExplainPending(snapshot, options, pending, job_id, why);
  if (!e.queued) {
    answer.note = "it left the scheduling queue meanwhile";
    return answer;
  }
  AnswerExplained(e, answer);
  return answer;
}

std::vector<std::string> Controller::UsablePartitions(const std::string& user, uint32_t uid, uint32_t gid,
                                                      const std::string& account, const std::string& qos) const {
  std::vector<std::string> out;
  PartitionAccessRequest who;
  Caller owner;
  owner.authenticated = true;
  owner.uid = uid;
  owner.gid = gid;
  who.privileged = IsAdmin(owner);
  who.account = account;
  who.qos = qos;
  const auto& parts = config_.cluster.partitions;
  if (std::any_of(parts.begin(), parts.end(), [](const Partition& p) { return !p.access.allow_groups.empty(); })) {
    who.groups = GroupsOf(user, uid, gid);
  }
  for (const Partition& p : parts) {
    if (CheckPartitionAccess(p.access, who) == PartitionAccessDenial::kNone) out.push_back(p.name);
  }
  return out;
}

}  // namespace muster
