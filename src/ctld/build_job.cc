#include "ctld/build_job.h"

#include <algorithm>

#include "model/dependency.h"
#include "model/field_limits.h"
#include "model/job_request.h"
#include "model/limits.h"
#include "model/partition_access.h"
#include "model/policy_ops.h"
#include "sched/pending_reason.h"

namespace muster {
namespace {

constexpr int64_t kMaxNice = 2147483645;  // Slurm's bound on --nice

const Partition* FindPartition(const std::vector<Partition>& partitions, const std::string& name) {
  const Partition* part = nullptr;
  for (const Partition& p : partitions) {
    if ((name.empty() && p.is_default) || p.name == name) part = &p;
  }
  if (name.empty() && part == nullptr && !partitions.empty()) part = &partitions[0];
  return part;
}

Status CheckQosAndNice(const JobSpec& request, const SubmitPolicy& policy, const std::string& account) {
  if (!request.qos.empty() && request.qos != kDefaultQosName &&
      (policy.qos == nullptr || FindQos(*policy.qos, request.qos) == nullptr)) {
    return InvalidArgument("Invalid qos specification");
  }
  if (!request.qos.empty() && !policy.caller_is_admin && policy.accounts != nullptr &&
      !MayUseQos(*policy.accounts, account, request.qos)) {
    return InvalidArgument("Invalid qos specification");
  }
  if (request.nice < -kMaxNice || request.nice > kMaxNice) {
    return InvalidArgument("Invalid nice value: must be between -" + std::to_string(kMaxNice) + " and " +
                           std::to_string(kMaxNice));
  }
  if (request.nice < 0 && !policy.caller_is_admin) {
    return Status(StatusCode::kPermissionDenied, "Invalid nice value: only an administrator may lower it");
  }
  return Status::Ok();
}

// The partition's AllowGroups/AllowAccounts/DenyAccounts/AllowQos/DenyQos, with Slurm's messages.
Status CheckAccess(const Partition& part, const Submitter& submitter, const SubmitPolicy& policy,
                   const std::string& account, const std::string& qos) {
  PartitionAccessRequest who;
  who.groups = submitter.groups;
  if (std::find(who.groups.begin(), who.groups.end(), submitter.group) == who.groups.end()) {
    who.groups.push_back(submitter.group);
  }
  who.privileged = policy.caller_is_admin;
  who.account = account;
  who.qos = qos;
  const PartitionAccessDenial denial = CheckPartitionAccess(part.access, who);
  if (denial == PartitionAccessDenial::kNone) return Status::Ok();
  return Status(denial == PartitionAccessDenial::kGroup ? StatusCode::kPermissionDenied : StatusCode::kInvalidArgument,
                PartitionAccessMessage(denial));
}

// Every free-text field within Slurm's bounds (model/field_limits.h), before anything is parsed:
// one request may not make the controller hold, store and show megabytes.
Status CheckSizes(const JobSpec& r, const SubmitPolicy& policy) {
  if (static_cast<int64_t>(r.script.size()) > policy.max_script_bytes) {
    return TooLong("the batch script", r.script.size(), static_cast<size_t>(policy.max_script_bytes));
  }
  // Slurm's submit line: every component's options, as given (`line`) and as the text of their
  // typed request (`text`, which a client could make larger than the options it shows).
  const auto text_of = [](const JobRequest& q) {
    size_t n = q.name.size() + q.partition.size() + q.gpu_type.size() + q.constraint.size();
    for (const std::string& h : q.nodelist) n += h.size();
    for (const std::string& h : q.exclude) n += h.size();
    return n;
  };
  size_t line = 0, text = text_of(r.resources);
  for (const std::string& a : r.submit_args) line += a.size();
  for (const HetComponentSpec& c : r.het_components) {
    text += text_of(c.resources);
    for (const std::string& a : c.submit_args) line += a.size();
    RETURN_IF_ERROR(CheckLength("account (-A, --account)", c.account, kMaxAccountBytes));
    RETURN_IF_ERROR(CheckLength("QOS (-q, --qos)", c.qos, kMaxAccountBytes));
  }
  line = std::max(line, text);
  if (line > kMaxSubmitLineBytes) return TooLong("the resource options", line, kMaxSubmitLineBytes);
  const std::string dependency = DependencyText(r.dependency);  // as the command's option gave it
  const std::string array = ArraySpecText(r.array);
  const struct {
    const char* field;
    const std::string& value;
    size_t limit;
  } fields[] = {
      {"account (-A, --account)", r.account, kMaxAccountBytes},
      {"QOS (-q, --qos)", r.qos, kMaxAccountBytes},
      {"dependency (-d, --dependency)", dependency, kMaxDependencyBytes},
      {"job array (-a, --array)", array, kMaxArraySpecBytes},
      {"working directory (-D, --chdir)", r.workdir, kMaxPathBytes},
      {"output file (-o, --output)", r.stdout_pattern, kMaxPathBytes},
      {"error file (-e, --error)", r.stderr_pattern, kMaxPathBytes},
      {"input file (-i, --input)", r.stdin_path, kMaxPathBytes},
      {"submit host", r.submit_host, kMaxAccountBytes},
  };
  // The job name, then the job-carried options, then the rest: of several fields too long, the
  // first in this order is named.
  RETURN_IF_ERROR(CheckLength("job name (-J, --job-name)", r.name, kMaxJobNameBytes));
  RETURN_IF_ERROR(ValidateJobOptions(r.options));
  for (const auto& f : fields) RETURN_IF_ERROR(CheckLength(f.field, f.value, f.limit));
  RETURN_IF_ERROR(CheckList("script argument", "the script's arguments", /*by_name=*/false, r.script_args, kMaxArgBytes,
                            kMaxArgumentsBytes));
  return CheckList("environment variable", "the environment", /*by_name=*/true, r.environment, kMaxArgBytes,
                   kMaxEnvironmentBytes);
}

// The smallest MaxWall of the account chain and the QOS (kUnlimited: none).
int64_t MaxWall(const SubmitPolicy& policy, const std::string& account, const std::string& qos) {
  int64_t wall = kUnlimited;
  auto lower = [&](int64_t w) {
    if (w != kUnlimited && (wall == kUnlimited || w < wall)) wall = w;
  };
  if (policy.accounts != nullptr) {
    for (const Account* a : policy.accounts->Path(account)) lower(a->max_wall_s);
  }
  if (policy.qos != nullptr) {
    if (const Qos* q = FindQos(*policy.qos, qos)) lower(q->max_wall_s);
  }
  return wall;
}

}  // namespace

StatusOr<BuiltJob> BuildJob(const JobSpec& request, const Caller& caller, const Submitter& submitter,
                            const std::vector<Partition>& partitions, const SubmitPolicy& policy, int64_t now,
                            const EverRuns& ever_runs, std::string* user_msg) {
  if (user_msg != nullptr) user_msg->clear();
  if (!caller.authenticated) return Status(StatusCode::kUnauthenticated, "authentication required: " + caller.error);
  if (caller.uid == 0 && !policy.allow_root_jobs) {
    return Status(StatusCode::kPermissionDenied, "jobs may not run as root on this cluster (allow_root_jobs is off)");
  }
  RETURN_IF_ERROR(CheckSizes(request, policy));
  // The command parsed the options; a request from elsewhere is checked as the parser checks them.
  RETURN_IF_ERROR(ValidateJobRequest(request.resources));
  JobRequest req = request.resources;
  if (!request.name.empty()) req.name = request.name;
  RETURN_IF_ERROR(CheckLength("job name (-J, --job-name)", req.name, kMaxJobNameBytes));  // (given as an option)
  if (request.script.empty() && !request.interactive) return InvalidArgument("Batch script is empty!");
  if (request.interactive && !request.array.empty()) return InvalidArgument("an interactive allocation cannot be a job array");
  BuiltJob out;
  if (!request.array.empty()) {  // parsed where it came in; a typed one held to the same rules
    if (!ValidateArraySpec(request.array).ok()) return InvalidArgument(std::string(kArrayProblem));
    out.array = request.array;
  }
  const Partition* part = FindPartition(partitions, req.partition);
  if (part == nullptr) return InvalidArgument("Invalid partition name specified");
  req.partition = part->name;
  if (ever_runs) RETURN_IF_ERROR(ever_runs(req, user_msg));

  JobRecord& job = out.job;
  job.name = req.name.empty() ? "sbatch" : req.name;
  job.uid = caller.uid;
  job.gid = caller.gid;
  job.user = submitter.user;
  job.group = submitter.group;
  job.account = request.account;
  if (job.account.empty()) {
    job.account = policy.accounts != nullptr ? policy.accounts->DefaultAccount(job.user) : "";
  } else if (policy.accounts != nullptr && !policy.accounts->MayUse(job.user, job.account)) {
    return InvalidArgument("Invalid account or account/partition combination specified");
  }
  RETURN_IF_ERROR(CheckQosAndNice(request, policy, job.account));
  RETURN_IF_ERROR(CheckAccess(*part, submitter, policy, job.account, request.qos));
  job.qos = request.qos;
  job.nice = request.nice;
  job.partition = part->name;
  job.request = req;
  job.submit_args = request.submit_args;
  job.script = request.interactive ? std::string() : request.script;
  job.interactive = request.interactive;
  job.script_args = request.script_args;
  job.workdir = request.workdir.empty() ? "/" : request.workdir;
  job.submit_host = request.submit_host;
  job.submit_sid = request.submit_sid;
  job.options = request.options;  // checked in CheckSizes (ValidateJobOptions)
  job.submit_key = request.submit_key;
  if (request.warn_signal < 0 || request.warn_signal > 64 || request.warn_time_s < 0 || request.warn_time_s > 65535) {
    return InvalidArgument("Invalid --signal specification");
  }
  job.warn_signal = request.warn_signal;
  job.warn_time_s = request.warn_time_s;
  job.warn_batch_only = request.warn_batch_only;
  job.environment = request.environment;
  job.stdout_pattern = request.stdout_pattern;
  job.stderr_pattern = request.stderr_pattern;
  job.stdin_path = request.stdin_path;
  // No memory asked for: the partition's DefMemPerCPU, as Slurm records it in the job (what the
  // scheduler would apply anyway; now scontrol and sacct show it too).
  if (job.request.mem_per_node_mb == 0 && job.request.mem_per_cpu_mb == 0 && job.request.mem_per_gpu_mb == 0) {
    job.request.mem_per_cpu_mb = part->def_mem_per_cpu_mb;
  }
  job.time_limit_s = req.time_limit_s > 0 ? req.time_limit_s : part->default_time_s;
  // No time limit given or defaulted: the account's or the QOS's MaxWall becomes it, as Slurm
  // does (else such a job would wait for ever under a MaxWall).
  if (job.time_limit_s == kUnlimited || job.time_limit_s <= 0) {
    if (const int64_t wall = MaxWall(policy, job.account, job.qos); wall != kUnlimited) {
      job.time_limit_s = wall;
      job.request.time_limit_s = wall;
    }
  }
  job.requeue = request.requeue;
  job.held = request.hold;
  job.state = JobState::kPending;
  job.reason = PendingReasonName(request.hold ? PendingReason::kJobHeldUser : PendingReason::kNone);
  job.submit_time = now;
  job.eligible_time = job.submit_time;
  job.dependency = request.dependency;  // parsed where it came in (the command, the API edge)
  job.begin_time = request.begin_time > job.submit_time ? request.begin_time : 0;
  if (job.begin_time > 0) job.eligible_time = job.begin_time;
  if (!out.array.tasks.empty()) {
    job.array_tasks = FormatArrayTasks(out.array.tasks);
    job.array_max_running = out.array.max_running;
  }
  return out;
}

}  // namespace muster
