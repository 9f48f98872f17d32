// sdiag: the controller's figures (GET /v1/diag) in Slurm 22.05's layout; -r resets them (admins).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/option_engine.h"
#include "wire/diag.h"

namespace muster {

// How sdiag orders the RPC rows: by count (default), by id (-i), by total time (-t), by average
// time (-T), as Slurm's sdiag.
enum class SdiagSort { kCount, kId, kTime, kAverage };

// sdiag's text, as Slurm 22.05's src/sdiag/sdiag.c prints it; times in the local zone.
std::string FormatSdiag(const DiagAnswer& d, SdiagSort sort = SdiagSort::kCount);

// sdiag's command line, read with the option engine (model/option_engine.h) and a table of every
// option of Slurm 22.05's sdiag; errors carry the whole text sdiag prints on stderr (exit status 1).
// `meta`: "help", "usage" or "version" when one of them came first (answered, the rest unread).
struct SdiagArgs {
  std::string meta;
  bool reset = false;
  SdiagSort sort = SdiagSort::kCount;
};
StatusOr<SdiagArgs> ParseSdiagArgs(const std::vector<std::string>& args);
OptionTable SdiagOptionTable();

int SdiagMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace muster
