// sacct's output (the format half of `sacct`): one row per job and, unless -X, one per step: the
// batch script as "<id>.batch" (Slurm's batch step; Muster keeps no record of it, so the row is
// derived from the job: its batch host's CPUs, GPUs and memory, the job's state and exit code) and
// each srun step as "<id>.<n>". Field names, default widths and justification are Slurm 22.05's
// (sacct.c); layouts are columns (the default), -p (each field followed by '|') and -P ('|'
// between fields). Accounting fields Muster does not gather (MaxRSS, AveCPU, energy, disk I/O: with
// JobAcctGatherType=none Slurm leaves them empty too) print empty.
//
// Pure functions of their arguments; times print in the process's local time zone.
#pragma once

#include <cstdint>
#include <boost/json/value.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/job_record.h"

namespace muster {

struct SacctField {
  std::string name;   // canonical spelling ("JobID")
  int width = 10;
  bool right = true;  // Slurm right-justifies every field but JobID and JobIDRaw
  friend bool operator==(const SacctField&, const SacctField&) = default;
};

// "JobID,JobName%20,state" (case-insensitive names, %N sets the width). An unknown name is Slurm's
// error: `Invalid field requested: "NoSuchField"`.
StatusOr<std::vector<SacctField>> ParseSacctFields(std::string_view list);
std::vector<SacctField> SacctDefaultFields();  // JobID JobName Partition Account AllocCPUS State ExitCode
std::vector<SacctField> SacctBriefFields();    // -b: JobID State ExitCode
std::vector<SacctField> SacctLongFields();     // -l
// Every field name sacct knows, in its order (sacct -e).
std::vector<std::string> SacctFieldNames();
// sacct -e's listing: the names four to a line, each padded to 20.
std::string FormatSacctHelpFormat();

enum class SacctLayout { kColumns, kParsable, kParsable2 };

struct SacctOptions {
  std::vector<SacctField> fields = SacctDefaultFields();
  SacctLayout layout = SacctLayout::kColumns;
  bool header = true;   // -n turns it off
  bool steps = true;    // -X turns them off
  std::string cluster;  // for the Cluster field
};

// The rows of `jobs` (in the order given) and their steps (`steps` may hold steps of other jobs).
std::string FormatSacct(const std::vector<JobRecord>& jobs, const std::vector<StepRecord>& steps,
                        const SacctOptions& options, int64_t now);

// sacct --json: {"meta", "errors", "jobs": [...]} in the shape of Slurm's slurmdb v0.0.38 job
// records (job_id, name, state {current, reason}, time {submission, start, end, elapsed, limit},
// exit_code, tres {allocated, requested}, steps [...], ...).
boost::json::value SacctJson(const std::vector<JobRecord>& jobs, const std::vector<StepRecord>& steps,
                         const std::string& cluster, int64_t now);

// Elapsed times as sacct prints them: "00:00:30", "1-02:03:04".
std::string SacctElapsed(int64_t seconds);

}  // namespace muster
