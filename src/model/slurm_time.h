// Slurm's date-and-time specifications (sbatch --begin, scontrol update StartTime=, sacct -S/-E)
// -> seconds since the epoch, as Slurm 22.05's parse_time() reads them.
//
// The text is a sequence of tokens, blanks, '-' and 'T' between them being skipped:
//   "today", "tomorrow"                      the date
//   "midnight", "noon", "fika" (15:00), "teatime" (16:00)   a time of day (22.05 has no "elevenses")
//   "HH:MM[:SS] [AM|PM]"                     a time of day
//   "MMDD[YY]", "MM/DD[/YY]", "MM.DD[.YY]", "YYYY-MM-DD"   a date
//   "now[{+|-}count[seconds|minutes|hours|days|weeks]]"     date and time (blanks allowed: "now + 2 hours";
//                                            unit names in full, singular or plural; no unit: seconds)
//   "uts<seconds>"                           the whole text: seconds since the epoch
// so "2027-01-02T10:00", "01/02-10:00", "tomorrow 10:00" and "teatime tomorrow" combine a date and a
// time. A time without a date is the next one to come (today if its hour and minute are still ahead,
// else tomorrow: "midnight" is the coming one), or today's with TimeDirection::kPast (sacct); a date
// without a time is its midnight; a date without a year is the next one to come (kFuture) or the
// last one (kPast: this year unless its month is after this one). Case-insensitive; local time.
// Errors: "Invalid time specification (pos=N): <text>" (Slurm's words; N = where it stopped), or
// "Invalid time specification: <text>" when it names neither a date nor a time ("", "T").
// Pure apart from the time zone.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/status.h"

namespace muster {

enum class TimeDirection { kFuture, kPast };

StatusOr<int64_t> ParseSlurmTime(std::string_view spec, int64_t now, TimeDirection direction);

// Local midnight of the day holding `now` (sacct's default start).
int64_t LocalMidnight(int64_t now);

}  // namespace muster
