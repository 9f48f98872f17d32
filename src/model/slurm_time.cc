#include "model/slurm_time.h"

#include <cctype>
#include <ctime>
#include <string>

namespace muster {
namespace {

Status Bad(std::string_view spec) { return InvalidArgument("invalid time specification '" + std::string(spec) + "'"); }

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

int ToInt(std::string_view s) { return std::stoi(std::string(s)); }

std::tm Local(int64_t t) {
  std::tm tm{};
  const time_t tt = static_cast<time_t>(t);
  localtime_r(&tt, &tm);
  return tm;
}

int64_t FromLocal(std::tm tm) {
  tm.tm_isdst = -1;
  return static_cast<int64_t>(mktime(&tm));
}

// "+2hours", "-30", "+1day" -> seconds (sign included).
StatusOr<int64_t> Offset(std::string_view s, std::string_view spec) {
  const int sign = s[0] == '-' ? -1 : 1;
  s.remove_prefix(1);
  size_t n = 0;
  while (n < s.size() && std::isdigit(static_cast<unsigned char>(s[n]))) ++n;
  if (n == 0 || n > 9) return Bad(spec);
  const int64_t count = std::stoll(std::string(s.substr(0, n)));
  const std::string unit(s.substr(n));
  int64_t mult = 0;
  if (unit.empty() || unit == "s" || unit == "sec" || unit == "secs" || unit == "second" || unit == "seconds") {
    mult = 1;
  } else if (unit == "m" || unit == "min" || unit == "mins" || unit == "minute" || unit == "minutes") {
    mult = 60;
  } else if (unit == "h" || unit == "hour" || unit == "hours") {
    mult = 3600;
  } else if (unit == "d" || unit == "day" || unit == "days") {
    mult = 86400;
  } else if (unit == "w" || unit == "week" || unit == "weeks") {
    mult = 7 * 86400;
  } else {
    return Bad(spec);
  }
  return sign * count * mult;
}

// "HH:MM[:SS]" -> fills tm's time of day.
bool TimeOfDay(std::string_view s, std::tm& tm) {
  const size_t c1 = s.find(':');
  if (c1 == std::string_view::npos) return false;
  const size_t c2 = s.find(':', c1 + 1);
  std::string_view h = s.substr(0, c1);
  std::string_view m = s.substr(c1 + 1, c2 == std::string_view::npos ? std::string_view::npos : c2 - c1 - 1);
  std::string_view sec = c2 == std::string_view::npos ? std::string_view("0") : s.substr(c2 + 1);
  if (!AllDigits(h) || !AllDigits(m) || !AllDigits(sec) || h.size() > 2 || m.size() != 2 || sec.size() > 2) return false;
  tm.tm_hour = ToInt(h);
  tm.tm_min = ToInt(m);
  tm.tm_sec = ToInt(sec);
  return tm.tm_hour < 24 && tm.tm_min < 60 && tm.tm_sec < 61;
}

}  // namespace

int64_t LocalMidnight(int64_t now) {
  std::tm tm = Local(now);
  tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
  return FromLocal(tm);
}

StatusOr<int64_t> ParseSlurmTime(std::string_view spec, int64_t now, bool roll_forward) {
  std::string s(spec);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s.empty()) return Bad(spec);
  // A keyword with an offset.
  static const char* kWords[] = {"now", "today", "midnight", "noon", "teatime", "tomorrow"};
  for (const char* w : kWords) {
    const std::string word = w;
    if (s.compare(0, word.size(), word) != 0 || (s.size() > word.size() && s[word.size()] != '+' && s[word.size()] != '-')) {
      continue;
    }
    int64_t base = now;
    std::tm tm = Local(now);
    if (word == "today" || word == "midnight") {
      base = LocalMidnight(now);
    } else if (word == "noon" || word == "teatime") {
      tm.tm_hour = word == "noon" ? 12 : 16;
      tm.tm_min = tm.tm_sec = 0;
      base = FromLocal(tm);
      if (base < now) base += 86400;
    } else if (word == "tomorrow") {
      tm.tm_mday += 1;
      tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
      base = FromLocal(tm);
    }
    if (s.size() == word.size()) return base;
    if (s[word.size()] == '-' && word != "now") return Bad(spec);
    ASSIGN_OR_RETURN(int64_t off, Offset(std::string_view(s).substr(word.size()), spec));
    return base + off;
  }
  std::tm tm = Local(now);
  tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
  // YYYY-MM-DD[THH:MM[:SS]]
  if (s.size() >= 10 && s[4] == '-' && s[7] == '-') {
    std::string_view v(s);
    if (!AllDigits(v.substr(0, 4)) || !AllDigits(v.substr(5, 2)) || !AllDigits(v.substr(8, 2))) return Bad(spec);
    tm.tm_year = ToInt(v.substr(0, 4)) - 1900;
    tm.tm_mon = ToInt(v.substr(5, 2)) - 1;
    tm.tm_mday = ToInt(v.substr(8, 2));
    if (tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31) return Bad(spec);
    if (v.size() > 10) {
      if (v[10] != 't' || !TimeOfDay(v.substr(11), tm)) return Bad(spec);
    }
    return FromLocal(tm);
  }
  // MM/DD[/YY]
  if (s.find('/') != std::string::npos) {
    std::string_view v(s);
    const size_t a = v.find('/'), b = v.find('/', a + 1);
    std::string_view mm = v.substr(0, a), dd = v.substr(a + 1, b == std::string_view::npos ? b : b - a - 1);
    if (!AllDigits(mm) || !AllDigits(dd)) return Bad(spec);
    tm.tm_mon = ToInt(mm) - 1;
    tm.tm_mday = ToInt(dd);
    if (b != std::string_view::npos) {
      std::string_view yy = v.substr(b + 1);
      if (!AllDigits(yy) || (yy.size() != 2 && yy.size() != 4)) return Bad(spec);
      tm.tm_year = yy.size() == 2 ? ToInt(yy) + 100 : ToInt(yy) - 1900;
    }
    if (tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31) return Bad(spec);
    return FromLocal(tm);
  }
  // HH:MM[:SS]
  if (s.find(':') != std::string::npos) {
    if (!TimeOfDay(s, tm)) return Bad(spec);
    int64_t t = FromLocal(tm);
    if (roll_forward && t < now) t += 86400;
    return t;
  }
  // MMDD[YY]
  if (AllDigits(s) && (s.size() == 4 || s.size() == 6)) {
    tm.tm_mon = ToInt(s.substr(0, 2)) - 1;
    tm.tm_mday = ToInt(s.substr(2, 2));
    if (s.size() == 6) tm.tm_year = ToInt(s.substr(4, 2)) + 100;
    if (tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31) return Bad(spec);
    return FromLocal(tm);
  }
  return Bad(spec);
}

}  // namespace muster
