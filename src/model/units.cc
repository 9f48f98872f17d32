// Slurm's unit formats: time limits (ParseTimeSpec, FormatTimeSpec) and memory sizes
// (ParseMemoryMb). Declared in model/job_request.h.
//
// The grammar follows Slurm's time_str2secs (src/common/parse_time.c) and str_to_mbytes
// (src/common/proc_args.c) as read from its source, with these deliberate differences:
//   - Slurm reads "-5" as minus five days (its sscanf takes the sign) and, in the version captured in
//     shared/peers/slurm/captures/sbatch_bad_time2.txt, submits the job with that garbage limit.
//     Older sbatch rejected any negative limit other than INFINITE. We reject it: a negative limit
//     is never what the user meant. "-1" stays UNLIMITED, as in Slurm.
//   - Slurm computes seconds in an int and overflows silently; we reject values above INT32_MAX
//     seconds (24855-03:14:07), the largest Slurm itself can represent.
//   - ParseMemoryMb rejects leading blanks and '+' (strtoll would skip them) and reports overflow.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>

#include "model/job_request.h"
#include "model/limits.h"

namespace muster {
namespace {

constexpr int64_t kMaxTimeSeconds = std::numeric_limits<int32_t>::max();
// Fields saturate here: large enough to exceed kMaxTimeSeconds in any position, small enough that
// days * 86400 cannot overflow.
constexpr int64_t kFieldCap = 10'000'000'000'000;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Quotes user input for a message, shortened so that a megabyte of junk stays readable.
std::string Quote(std::string_view s) {
  constexpr size_t kMax = 80;
  if (s.size() <= kMax) return "'" + std::string(s) + "'";
  return "'" + std::string(s.substr(0, kMax)) + "...'";
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'a' && x <= 'z') x = static_cast<char>(x - 'a' + 'A');
    if (y >= 'a' && y <= 'z') y = static_cast<char>(y - 'a' + 'A');
    if (x != y) return false;
  }
  return true;
}

// A non-empty run of digits (saturating at kFieldCap); -1 if empty or not all digits.
int64_t ParseField(std::string_view s) {
  if (s.empty()) return -1;
  int64_t v = 0;
  for (char c : s) {
    if (!IsDigit(c)) return -1;
    v = std::min(v * 10 + (c - '0'), kFieldCap);
  }
  return v;
}

Status BadTime(const std::string& spec) {
  return InvalidArgument("invalid time specification " + Quote(spec) +
                         " (expected minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS)");
}

// Splits `s` on ':' into at most `max_parts` fields; false if there are more.
bool SplitColons(std::string_view s, int max_parts, std::string_view* parts, int* n) {
  *n = 0;
  size_t start = 0;
  while (true) {
    if (*n == max_parts) return false;
    const size_t colon = s.find(':', start);
    parts[(*n)++] = s.substr(start, colon == std::string_view::npos ? std::string_view::npos : colon - start);
    if (colon == std::string_view::npos) return true;
    start = colon + 1;
  }
}

}  // namespace

StatusOr<int64_t> ParseTimeSpec(const std::string& spec) {
  if (EqualsIgnoreCase(spec, "UNLIMITED") || EqualsIgnoreCase(spec, "INFINITE") || spec == "-1") {
    return kUnlimited;
  }
  if (spec.empty()) return BadTime(spec);
  for (char c : spec) {
    if (!IsDigit(c) && c != '-' && c != ':') return BadTime(spec);
  }
  std::string_view rest(spec);
  int64_t days = 0;
  const size_t dash = rest.find('-');
  const bool has_days = dash != std::string_view::npos;
  if (has_days) {
    days = ParseField(rest.substr(0, dash));  // a leading '-' (negative) gives an empty field
    if (days < 0) return BadTime(spec);
    rest = rest.substr(dash + 1);
  }
  std::string_view parts[3];
  int n = 0;
  if (!SplitColons(rest, 3, parts, &n)) return BadTime(spec);
  int64_t v[3] = {0, 0, 0};
  // Slurm accepts "D-" as D days (an empty hours field); any other empty field is an error.
  const bool days_only = has_days && n == 1 && parts[0].empty();
  if (!days_only) {
    for (int i = 0; i < n; ++i) {
      v[i] = ParseField(parts[i]);
      if (v[i] < 0) return BadTime(spec);
    }
  }
  int64_t seconds = 0;
  if (has_days) {
    // days-hours[:minutes[:seconds]]
    seconds = days * 86400 + v[0] * 3600 + v[1] * 60 + v[2];
  } else if (n == 3) {
    seconds = v[0] * 3600 + v[1] * 60 + v[2];  // hours:minutes:seconds
  } else {
    seconds = v[0] * 60 + v[1];  // minutes[:seconds]
  }
  // Slurm does not bound fields (e.g. "0:90" is 90 seconds); only the total must fit.
  if (seconds > kMaxTimeSeconds) {
    return InvalidArgument("time specification " + Quote(spec) + " is too large (at most " +
                           FormatTimeSpec(kMaxTimeSeconds) + ")");
  }
  return seconds;
}

std::string FormatTimeSpec(int64_t seconds) {
  // Matches Slurm's secs2time_str: HH:MM:SS even under an hour (e.g. MaxTime=00:30:00 in
  // scontrol show partition), D-HH:MM:SS with days, INVALID for other negative values.
  if (seconds == kUnlimited) return "UNLIMITED";
  if (seconds < 0) return "INVALID";
  const long long s = seconds % 60;
  const long long m = (seconds / 60) % 60;
  const long long h = (seconds / 3600) % 24;
  const long long d = seconds / 86400;
  char buf[48];
  if (d > 0) {
    std::snprintf(buf, sizeof(buf), "%lld-%02lld:%02lld:%02lld", d, h, m, s);
  } else {
    std::snprintf(buf, sizeof(buf), "%02lld:%02lld:%02lld", h, m, s);
  }
  return buf;
}

StatusOr<int64_t> ParseMemoryMb(const std::string& spec) {
  const std::string expected = " (expected a number of MiB with an optional K, M, G or T suffix)";
  if (spec.empty()) return InvalidArgument("empty memory size" + expected);
  if (spec[0] == '-') return InvalidArgument("negative memory size " + Quote(spec) + expected);
  size_t i = 0;
  int64_t value = 0;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  while (i < spec.size() && IsDigit(spec[i])) {
    const int d = spec[i] - '0';
    if (value > (kMax - d) / 10) return InvalidArgument("memory size " + Quote(spec) + " is too large");
    value = value * 10 + d;
    ++i;
  }
  if (i == 0) return InvalidArgument("invalid memory size " + Quote(spec) + expected);
  std::string_view suffix = std::string_view(spec).substr(i);
  char unit = 'M';
  if (!suffix.empty()) {
    unit = suffix[0];
    if (unit >= 'a' && unit <= 'z') unit = static_cast<char>(unit - 'a' + 'A');
    // Like Slurm, a trailing B is allowed after the unit ("16GB"), but not alone ("16B").
    const bool tail_ok = suffix.size() == 1 || (suffix.size() == 2 && (suffix[1] == 'B' || suffix[1] == 'b'));
    if ((unit != 'K' && unit != 'M' && unit != 'G' && unit != 'T') || !tail_ok) {
      return InvalidArgument("invalid memory size " + Quote(spec) + expected);
    }
  }
  int64_t factor = 1;
  switch (unit) {
    case 'K': return (value / 1024) + (value % 1024 != 0 ? 1 : 0);  // rounds up, like Slurm
    case 'M': factor = 1; break;
    case 'G': factor = 1024; break;
    case 'T': factor = 1024 * 1024; break;
  }
  if (value > kMax / factor) return InvalidArgument("memory size " + Quote(spec) + " is too large");
  return value * factor;
}

}  // namespace muster
