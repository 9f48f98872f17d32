// The options a job carries unchanged from its submission to its record (--comment, ...): read by
// sbatch, salloc and srun from one table, sent in the submission, checked once at submission,
// stored in the job record and shown by the reports. Adding one means: its row in JobOptionTable
// and its case in ApplyJobOption (model/job_option_table.h, .cc), its field and key here, its
// check in ValidateJobOptions, and its display (slurmrestd's submission takes it by its name:
// JobOptionByRestKey). The commands' table is in a header of its own, so that the job's headers
// (job_spec.h, job_record.h) do not bring in the option engine.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace muster {

struct JobOptions {
  std::string comment;  // --comment: free text, shown by scontrol, squeue %k, sacct, slurmrestd
  std::string wckey;    // --wckey: Slurm's workload characterization key, shown by sacct and slurmrestd
  // --mail-type: the events a user asked mail for (MailTypeFlags, 0 = none) and --mail-user: to whom
  // ("" = the job's user, as slurmctld defaults it); shown by scontrol. Muster sends no mail.
  int mail_type = 0;
  std::string mail_user;

  bool operator==(const JobOptions&) const = default;
};

// The keys of JobOptions, in the style of model/job_record_fields.h: flattened into the record that
// holds them (JobSpec on the wire, JobRecord in the store), so that a key moved here keeps its
// place and its bytes.
template <class V, class R>
void JobOptionsFields(V& v, R& r, const JobOptions& d) {
  v("comment", r.comment, d.comment);
  v("wckey", r.wckey, d.wckey);
  v("mail_type", r.mail_type, d.mail_type);
  v("mail_user", r.mail_user, d.mail_user);
}

// --mail-type's events, with Slurm's bits (slurm.h's MAIL_*).
enum MailTypeFlags : int {
  kMailBegin = 0x0001,
  kMailEnd = 0x0002,
  kMailFail = 0x0004,
  kMailRequeue = 0x0008,
  kMailTimeLimit = 0x0010,
  kMailTimeLimit90 = 0x0020,
  kMailTimeLimit80 = 0x0040,
  kMailTimeLimit50 = 0x0080,
  kMailStageOut = 0x0100,
  kMailArrayTasks = 0x0200,
  kMailInvalidDepend = 0x0400,
  kMailAll = kMailBegin | kMailEnd | kMailFail | kMailRequeue | kMailStageOut | kMailInvalidDepend,
};
// --mail-type's value as Slurm reads it: a comma-separated list of event names, any case (ALL,
// NONE, BEGIN, END, FAIL, REQUEUE, INVALID_DEPEND, STAGE_OUT, TIME_LIMIT, TIME_LIMIT_90/80/50,
// ARRAY_TASKS); NONE ends the list with none; names it does not know are passed over, but a list
// of no name it knows is refused ("--mail-type=X invalid").
StatusOr<int> ParseMailType(std::string_view text);
// The events as scontrol shows them (Slurm's print_mail_type): "NONE", or the names in Slurm's
// order, "BEGIN,END,FAIL".
std::string MailTypeText(int flags);

// Slurm's bounds on the options (model/field_limits.h), with its words: checked at submission.
Status ValidateJobOptions(const JobOptions& options);

}  // namespace muster
