// squeue's output: Slurm's -o/--format engine over job records. The default and -l layouts are
// format strings like any other. Pure; see slurm_format.h for the shared conventions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "cli/slurm_format.h"
#include "model/job_record.h"

namespace muster {

inline constexpr char kSqueueDefaultFormat[] = "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R";
inline constexpr char kSqueueLongFormat[] = "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R";

// The field types squeue knows: i j u t T M l D R P N r C b m S V e L a g q Q Z o k U G x n f c
// d E h B y v A (see squeue_format.cc for each one's header and value).
struct SqueueOptions {
  std::string format = kSqueueDefaultFormat;
  bool date_line = false;  // -l: the date line first
  bool no_header = false;  // -h
  bool sort = true;        // Slurm's default order: partition, state, priority (highest first), id
};
// The options `squeue -l` means.
SqueueOptions SqueueLongOptions();

// The table. Errors: an unknown field type ("Invalid job format specification: z").
StatusOr<std::string> FormatSqueue(const std::vector<JobRecord>& jobs, const SqueueOptions& options,
                                   int64_t now);

}  // namespace muster
