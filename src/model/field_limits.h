// How long each free-text field of a submission may be: slurmctld's _test_job_desc_fields bounds
// them (1024 bytes for names, PATH_MAX for paths, ...) so that one request cannot make the
// controller hold, store and show megabytes, and refuses a longer one with
// ESLURM_PATHNAME_TOO_LONG's words. Muster refuses it with the same words, then the field and its
// limit. Checked at submission (ctld/build_job.cc) and update (scontrol update JobName=, Comment=,
// Dependency=): a record already stored is never refused for them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace muster {

// Slurm's limits (src/slurmctld/job_mgr.c, _test_job_desc_fields).
inline constexpr size_t kMaxJobNameBytes = 1024;         // name
inline constexpr size_t kMaxCommentBytes = 1024;         // comment
inline constexpr size_t kMaxAccountBytes = 1024;         // account, qos, partition, alloc_node
inline constexpr size_t kMaxDependencyBytes = 128 * 1024;  // dependency
inline constexpr size_t kMaxArraySpecBytes = 4 * 1024;   // array_inx
inline constexpr size_t kMaxPathBytes = 4096;            // work_dir, std_out, std_err, std_in (PATH_MAX)
inline constexpr size_t kMaxSubmitLineBytes = 1024 * 1024;  // submit_line (max_submit_line_size)
// Linux's longest argument or environment string (MAX_ARG_STRLEN, and Slurm's MAX_ENV_STRLEN):
// execve refuses a longer one, so the job could never start.
inline constexpr size_t kMaxArgBytes = 128 * 1024;
// The environment, and the script's arguments, each in all: execve takes about 2 MiB of both
// together (a quarter of the default 8 MiB stack), with Slurm's variables added on the node.
inline constexpr size_t kMaxEnvironmentBytes = 1024 * 1024;
inline constexpr size_t kMaxArgumentsBytes = 1024 * 1024;

// Slurm's "Pathname of a file, directory or other parameter too long", then what: "...: job name
// (-J, --job-name) is 10485760 bytes, at most 1024".
Status TooLong(std::string_view field, size_t bytes, size_t limit);

// OK, or TooLong when `value` is longer than `limit` bytes.
Status CheckLength(std::string_view field, std::string_view value, size_t limit);

// A list of strings: each at most `each` bytes (one too long named "<one> <its place>", or with
// `by_name`, as environment variables, "<one> <NAME>"), and at most `all` bytes in all ("<all> in
// all").
Status CheckList(std::string_view one, std::string_view all_name, bool by_name, const std::vector<std::string>& values,
                 size_t each, size_t all);

}  // namespace muster
