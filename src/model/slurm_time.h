// Slurm's date-and-time specifications (sacct -S/-E, sbatch --begin) -> seconds since the epoch.
//
// Accepted, as Slurm's parse_time() takes them: "YYYY-MM-DD[THH:MM[:SS]]", "MM/DD[/YY]",
// "MMDD[YY]", "HH:MM[:SS]" (today, or tomorrow when that time has passed and `roll_forward`),
// "now", "today", "midnight", "noon", "teatime" (16:00), "tomorrow", each optionally followed by
// "+count[seconds|minutes|hours|days|weeks]" ("now+1hour", "now+30" = 30 seconds) or, for
// "now", "-count...". Case-insensitive. Interpreted in the process's local time zone.
// Errors name the text ("invalid time specification 'x'"). Pure apart from the time zone.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/status.h"

namespace muster {

StatusOr<int64_t> ParseSlurmTime(std::string_view spec, int64_t now, bool roll_forward = false);

// Local midnight of the day holding `now` (sacct's default start).
int64_t LocalMidnight(int64_t now);

}  // namespace muster
