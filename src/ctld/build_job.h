// A submission made into a job record: BuildJob, a pure function of the request, who submits it,
// the partitions and the policy (no clock, no lock, no store). The controller gives it the time,
// the submitter's names and its probe of whether the job could ever run, and keeps what comes
// back (ids, persistence and scheduling are its own).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/caller.h"
#include "base/status.h"
#include "model/account.h"
#include "model/job_array.h"
#include "model/job_record.h"
#include "model/partition.h"
#include "model/qos.h"
#include "model/job_spec.h"

namespace muster {

// What BuildJob checks a submission against.
struct SubmitPolicy {
  bool allow_root_jobs = false;
  int64_t max_script_bytes = 0;
  const AccountTree* accounts = nullptr;  // associations (default and allowed accounts), MaxWall, QOS access
  const std::vector<Qos>* qos = nullptr;  // the QOS defined (none: only "normal")
  bool caller_is_admin = false;           // may lower nice, use any QOS, any partition's AllowGroups
};

// Who submits: the authenticated caller's names (resolved by the controller).
struct Submitter {
  std::string user;
  std::string group;                // the primary group
  std::vector<std::string> groups;  // every group of the user (primary and supplementary), for AllowGroups
};

struct BuiltJob {
  JobRecord job;    // PENDING (or held), no id yet
  ArraySpec array;  // its tasks when it is an array (then one record per task, from `job`)
};

// Whether a job could ever run as asked (on an idle cluster with every node up): OK, or the
// rejection and what Slurm tells the submitter before it (`*user_msg`).
using EverRuns = std::function<Status(const JobRequest& request, std::string* user_msg)>;

// The checks, in Slurm's order, with Slurm's messages: authentication ("authentication required:
// ..."), root ("jobs may not run as root on this cluster ..."), the length of every free-text
// field, the script's, and the arguments' and environment's (model/field_limits.h: "Pathname of a
// file, directory or other parameter too long: job name (-J, --job-name) is 10485760 bytes, at
// most 1024"), the resource options (ParseJobRequest's), an empty script, an interactive array, the array
// specification, the partition ("Invalid partition name specified"), `ever_runs`, the account
// ("Invalid account or account/partition combination specified"), QOS and nice, the partition's
// access lists (model/partition_access.h: "User's group not permitted to use this partition" as
// PermissionDenied, the account's and the QOS's messages as above), --signal,
// --dependency. Defaults applied: the partition's default memory per CPU and time limit, else the
// account's or QOS's MaxWall; --begin in the past is now.
StatusOr<BuiltJob> BuildJob(const JobSpec& request, const Caller& caller, const Submitter& submitter,
                            const std::vector<Partition>& partitions, const SubmitPolicy& policy, int64_t now,
                            const EverRuns& ever_runs, std::string* user_msg);

}  // namespace muster
