// Small argument helpers shared by the commands.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "base/status.h"
#include "base/strings.h"  // Split
#include "report/slurm_format.h"

namespace muster {


// "--opt=value" or "--opt value" / "-o value" / "-ovalue"; advances i past a separate value.
bool TakeValue(const std::vector<std::string>& a, size_t& i, const std::string& shrt, const std::string& lng,
               std::string* value);

// A job named on a command line: "12", "12_3" (task 3 of job array 12), "12_[1-3,5]".
struct JobToken {
  std::string text;        // as given
  int64_t id = 0;          // the job's, or the job array's id
  std::vector<int> tasks;  // the array tasks named (empty: the whole job or array)
};
StatusOr<JobToken> ParseJobToken(const std::string& text);

// This host's name (gethostname).
std::string LocalHostname();

// Prints what a formatter produced (report/slurm_format.h) and returns its exit status.
int EmitOutput(const SlurmOutput& o, std::ostream& out, std::ostream& err);

// Connection errors, as the commands print them ("<cmd>: error: <message>"); returns 1.
int ConnectError(const char* cmd, const Status& st, std::ostream& err);

}  // namespace muster
