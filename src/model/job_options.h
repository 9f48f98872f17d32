// The options a job carries unchanged from its submission to its record (--comment, ...): read by
// sbatch, salloc and srun from one table, sent in the submission, checked once at submission,
// stored in the job record and shown by the reports. Adding one means: its row in JobOptionTable
// and its case in ApplyJobOption (job_options.cc), its field and key here, its check in
// ValidateJobOptions, and its display.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "model/option_engine.h"

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

// The options' rows (OptionUse::kJob), as sbatch, salloc and srun read them, sorted by name.
OptionTable JobOptionTable();

// `own` with the job-carried rows put in: each before the first own row whose name sorts after it
// (so a table sorted by name stays sorted), looking only past the own row named `after` when one is
// named (srun's table is not sorted: its --comment stood after --quit-on-interrupt); at the end when
// none does. The order is that of an "is ambiguous" message. `note` (may be null) is given to each
// of them: srun's "a new allocation's".
std::vector<OptionSpec> WithJobOptions(OptionTable own, const char* after = nullptr, const char* note = nullptr);

// Sets the option `o` (a row of JobOptionTable) in `options`.
Status ApplyJobOption(JobOptions& options, const OptionOccurrence& o);

// Slurm's bounds on the options (model/field_limits.h), with its words: checked at submission.
Status ValidateJobOptions(const JobOptions& options);

}  // namespace muster
