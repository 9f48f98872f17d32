// squeue's output: Slurm's -o/--format engine over job records. The default and -l layouts are
// format strings like any other. Pure; see slurm_format.h for the shared conventions.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "base/status.h"
#include "report/slurm_format.h"
#include "model/job_record.h"

namespace muster {

inline constexpr char kSqueueDefaultFormat[] = "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R";
inline constexpr char kSqueueLongFormat[] = "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R";

// The field types squeue knows: i j u t T M l D R P N r C b m S V e L a g q Q Z o k U G x n f c F K
// d E h B y v A (see squeue_format.cc for each one's header and value).
struct SqueueOptions {
  std::string format = kSqueueDefaultFormat;
  bool date_line = false;  // -l: the date line first
  bool no_header = false;  // -h
  bool sort = true;        // Slurm's default order: partition, state, priority (highest first), id
  std::string sort_keys;   // -S: "-i", "P,-p,i" (field letters, '-' = descending); "" = the default order
  bool expand_arrays = false;  // -r: a line per waiting array task (else one per array: "120_[1-3]")
};

// squeue -O/--Format ("JobID,Name:30,State:.10") as the equivalent -o format ("%20i%30j%.10T"):
// each field 20 wide and left-justified unless ":[.]width" says otherwise. Errors name the field
// ("Invalid job format specification: nosuch").
StatusOr<std::string> SqueueFormatFromFields(const std::string& fields);
// The options `squeue -l` means.
SqueueOptions SqueueLongOptions();

// The table. Errors: an unknown field type ("Invalid job format specification: z").
StatusOr<std::string> FormatSqueue(const std::vector<JobRecord>& jobs, const SqueueOptions& options,
                                   int64_t now);
StatusOr<std::string> FormatSqueueJobs(std::vector<const JobRecord*> jobs, const SqueueOptions& options, int64_t now);

// squeue -s/--steps: the running steps of `jobs` (srun's, and batch steps: BatchSteps), ordered
// by job then step (batch last). Fields: i (step id, "STEPID"), j, P, u, M (the step's elapsed
// time), l (the job's limit), N, A (tasks, "TASKS"), S (start), b (GRES: "(null)"); another
// letter prints as written, with Slurm's complaint on stderr.
inline constexpr char kSqueueStepsFormat[] = "%.15i %.8j %.9P %.8u %.9M %N";
inline constexpr int kBatchStepId = -5;  // StepRecord::step_id of "<job>.batch", as Slurm numbers it
// Each running batch job's batch step ("<id>.batch", named "batch", one task on its batch host).
std::vector<StepRecord> BatchSteps(const std::vector<JobRecord>& jobs);
SlurmOutput FormatSqueueSteps(std::vector<StepRecord> steps, const std::vector<JobRecord>& jobs,
                              const std::string& format, bool header, bool date_line, int64_t now);

// Which jobs squeue shows (-j, -u/--me, -p, -t). The controller applies it, both when it renders
// the table itself (GET /v1/jobs?render=squeue: a thousand pending jobs then cost squeue one small
// text answer instead of decoding a thousand records) and for squeue --json's job list.
struct SqueueSelection {
  std::set<int64_t> ids;
  std::set<std::string> users;       // names or numeric uids
  std::set<std::string> partitions;
  std::set<std::string> accounts;    // -A
  std::set<std::string> names;       // -n
  std::set<std::string> states;      // full state names, or "ALL"; empty: jobs not finished (also
                                     // with -j: Slurm's squeue shows an ended job only with -t)
  bool Matches(const JobRecord& job) const;
};

// A whole squeue request as query parameters ("render=squeue&format=...&users=a,b") and back.
// The parsing side names the bad parameter ("ids: invalid job id 'x'").
std::string SqueueQuery(const SqueueSelection& selection, const SqueueOptions& options);
// Only the selection's parameters ("ids=...&users=...&active=1"), for GET /v1/jobs as JSON.
std::string SqueueSelectionQuery(const SqueueSelection& selection);
StatusOr<std::pair<SqueueSelection, SqueueOptions>> ParseSqueueQuery(const std::map<std::string, std::string>& query);

}  // namespace muster
