// The options a job carries (model/job_options.h) as the commands read them: their rows in the
// option engine's tables (sbatch, salloc and srun put them into theirs), how an occurrence sets
// one, and the names Slurm's REST API gives them.
#pragma once

#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/job_options.h"
#include "model/option_engine.h"

namespace muster {

// The options' rows (OptionUse::kJob), as sbatch, salloc and srun read them, sorted by name.
OptionTable JobOptionTable();

// `own` with the job-carried rows put in: each before the first own row whose name sorts after it
// (so a table sorted by name stays sorted), looking only past the own row named `after` when one is
// named (srun's table is not sorted: its --comment stood after --quit-on-interrupt); at the end when
// none does. The order is that of an "is ambiguous" message. `note` (may be null) is given to each
// of them, after the row's own: srun's "a new allocation's".
std::vector<OptionSpec> WithJobOptions(OptionTable own, const char* after = nullptr, const char* note = nullptr);

// Sets the option `o` (a row of JobOptionTable) in `options`.
Status ApplyJobOption(JobOptions& options, const OptionOccurrence& o);

// The row of JobOptionTable that a key of Slurm's REST API names (its job properties name the
// options as sbatch does, a '-' written '_': "wckey"), or null: slurmrestd's submission takes
// every job-carried option so, with no case of its own.
const OptionSpec* JobOptionByRestKey(std::string_view key);

}  // namespace muster
