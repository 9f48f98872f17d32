// sprio and sshare output, as Slurm prints them. Pure: rows in, text out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace muster {

// ---- sprio ----
struct SprioWeights {
  int64_t age = 0, fairshare = 0, job_size = 0, partition = 0, qos = 0;
};
struct SprioRow {
  int64_t job_id = 0;
  std::string partition;
  std::string user;
  int64_t priority = 0;
  // Factors in [0, 1].
  double age = 0, fairshare = 0, job_size = 0, partition_factor = 0, qos = 0;
};
struct SprioOptions {
  bool long_list = false;   // -l: every factor, the user and nice
  bool normalized = false;  // -n: factors in [0, 1] instead of weighted
  bool no_header = false;   // -h
  bool weights = false;     // -w: only the weights
  bool show_user = false;   // -u given: a USER column
  // -o/--format: Slurm's "%[.][width]<letter>" fields with text between them (ValidSprioFormat);
  // "" = the columns above.
  std::string format;
};
// Columns as Slurm's sprio: JOBID PARTITION [USER] PRIORITY SITE, then AGE FAIRSHARE JOBSIZE
// PARTITION QOS for the factors whose weight is not zero; with -l all of them, ASSOC (always 0:
// Muster has no association factor) after AGE, then NICE and TRES (empty). Rows by job id.
std::string FormatSprio(const std::vector<SprioRow>& rows, const SprioWeights& w, const SprioOptions& o);
// "" when every field of an -o format is one Slurm's sprio knows (src/sprio/print.c: a A b B c f F
// i j J N p P q Q r S t T u y Y), else the first unknown letter.
std::string InvalidSprioField(const std::string& format);

// ---- sshare ----
struct SshareRow {
  std::string account;  // "" = the root
  std::string user;     // "" on an account's row
  int depth = 0;        // 0 = a child of the root
  int64_t raw_shares = 0;
  double norm_shares = 0, raw_usage = 0, norm_usage = 0, fairshare = 0;
  double level_fs = 0;  // may be +inf
};
struct SshareOptions {
  bool long_list = false;  // -l: NormUsage and LevelFS too
  bool no_header = false;  // -n
  bool parsable = false;   // -P: '|' between fields, no padding
};
// A root row first, then `rows` in the order given (depth first), account names indented one
// space a level as Slurm does.
std::string FormatSshare(const std::vector<SshareRow>& rows, const SshareOptions& o);

}  // namespace muster
