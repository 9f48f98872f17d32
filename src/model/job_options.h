// The options a job carries unchanged from its submission to its record (--comment, ...): read by
// sbatch, salloc and srun from one table, sent in the submission, checked once at submission,
// stored in the job record and shown by the reports. Adding one means: its row in JobOptionTable
// and its case in ApplyJobOption (model/job_option_table.h, .cc), its field and key here, its
// check in ValidateJobOptions, and its display (slurmrestd's submission takes it by its name:
// JobOptionByRestKey). The commands' table is in a header of its own, so that the job's headers
// (job_spec.h, job_record.h) do not bring in the option engine.
#pragma once

#include <string>

#include "base/status.h"

namespace muster {

struct JobOptions {
  std::string comment;  // --comment: free text, shown by scontrol, squeue %k, sacct, slurmrestd
  std::string wckey;    // --wckey: Slurm's workload characterization key, shown by sacct and slurmrestd

  bool operator==(const JobOptions&) const = default;
};

// The keys of JobOptions, in the style of model/job_record_fields.h: flattened into the record that
// holds them (JobSpec on the wire, JobRecord in the store), so that a key moved here keeps its
// place and its bytes.
template <class V, class R>
void JobOptionsFields(V& v, R& r, const JobOptions& d) {
  v("comment", r.comment, d.comment);
  v("wckey", r.wckey, d.wckey);
}

// Slurm's bounds on the options (model/field_limits.h), with its words: checked at submission.
Status ValidateJobOptions(const JobOptions& options);

}  // namespace muster
