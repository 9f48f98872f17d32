#include "model/job_options.h"

#include "model/field_limits.h"

namespace muster {

Status ValidateJobOptions(const JobOptions& options) {
  RETURN_IF_ERROR(CheckLength("comment (--comment)", options.comment, kMaxCommentBytes));
  // Slurm bounds the key as it bounds names.
  return CheckLength("wckey (--wckey)", options.wckey, kMaxJobNameBytes);
}

}  // namespace muster
