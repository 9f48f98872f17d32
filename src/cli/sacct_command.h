// sacct: accounting records of jobs and steps (parse -> GET /v1/accounting/... -> format).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/option_engine.h"
#include "report/sacct_format.h"

namespace muster {

// What sacct's command line asks for. Pure parse (ParseSacctArgs); SacctMain does the rest.
struct SacctRequest {
  SacctOptions options;
  std::string query;  // the GET /v1/accounting/jobs query string ("ids=1,2&start=...")
  bool json = false;
  bool help = false, usage = false, version = false, helpformat = false;
};

// `uid`: the caller (only its own jobs unless -a, -u or -j, or root); `now`: for the default start
// (midnight today, when no -j) and relative times; `sacct_format`: $SACCT_FORMAT ("" = unset).
// Errors carry the message sacct prints after "sacct: error: " (getopt's complaints, such as
// "unrecognized option '--x'", after "sacct: " alone).
StatusOr<SacctRequest> ParseSacctArgs(const std::vector<std::string>& args, uint32_t uid, int64_t now,
                                      const std::string& sacct_format);
OptionTable SacctOptionTable();  // every option of Slurm 22.05's sacct

int SacctMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace muster
