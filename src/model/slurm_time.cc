#include "model/slurm_time.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <string>

namespace muster {
namespace {

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

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsBlank(char c) { return c == ' ' || c == '\t'; }

// True when `text` at `pos` starts with `word`, in any case.
bool StartsWithWord(std::string_view text, size_t pos, std::string_view word) {
  if (text.size() - pos < word.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[pos + i])) != word[i]) return false;
  }
  return true;
}

// The fields a specification sets (-1: not given).
struct Fields {
  int hour = -1, minute = -1, second = 0;
  int month = -1, mday = -1, year = -1;  // month 0-11, year since 1900

  void SetDate(const std::tm& tm) {
    month = tm.tm_mon;
    mday = tm.tm_mday;
    year = tm.tm_year;
  }
  void SetTime(int h, int m, int s) {
    hour = h;
    minute = m;
    second = s;
  }
};

class TimeReader {
 public:
  TimeReader(std::string_view text, int64_t now) : s_(text), now_(now), now_tm_(Local(now)) {}

  // Reads every token; false (with pos()) at the first that is not understood.
  bool ReadAll() {
    for (pos_ = 0; pos_ < s_.size() && s_[pos_] != '\n'; ++pos_) {
      const char c = s_[pos_];
      if (IsBlank(c) || c == '-' || c == 'T') continue;
      if (Word("today")) {
        f_.SetDate(now_tm_);
      } else if (Word("tomorrow")) {
        f_.SetDate(Local(now_ + 86400));
      } else if (Word("midnight")) {
        f_.SetTime(0, 0, 0);
      } else if (Word("noon")) {
        f_.SetTime(12, 0, 0);
      } else if (Word("fika")) {
        f_.SetTime(15, 0, 0);
      } else if (Word("teatime")) {
        f_.SetTime(16, 0, 0);
      } else if (StartsWithWord(s_, pos_, "now")) {
        if (!Now()) return false;
      } else if (!IsDigit(c)) {
        return false;
      } else if (At(pos_ + 1) == ':' || At(pos_ + 2) == ':') {
        if (!TimeOfDay()) return false;
      } else if (!Date()) {
        return false;
      }
    }
    return true;
  }

  size_t pos() const { return pos_; }
  const Fields& fields() const { return f_; }
  const std::tm& now_tm() const { return now_tm_; }

 private:
  char At(size_t i) const { return i < s_.size() ? s_[i] : '\0'; }

  // Consumes `word` (case-insensitive) at pos_, leaving pos_ on its last letter.
  bool Word(std::string_view word) {
    if (!StartsWithWord(s_, pos_, word)) return false;
    pos_ += word.size() - 1;
    return true;
  }

  // "now", then blanks, then nothing or "+count[unit]" / "-count[unit]".
  bool Now() {
    size_t i = pos_ + 3;
    int64_t delta = 0;
    while (i < s_.size() && IsBlank(s_[i])) ++i;
    if (i < s_.size() && s_[i] != '\n') {
      if (s_[i] != '+' && s_[i] != '-') {
        pos_ = i;
        return false;
      }
      const bool minus = s_[i] == '-';
      pos_ = i;
      if (!Delta(&delta)) return false;
      if (minus) delta = -delta;
    } else {
      pos_ = i - 1;
    }
    const std::tm later = Local(now_ + delta);
    f_.SetDate(later);
    f_.SetTime(later.tm_hour, later.tm_min, later.tm_sec);
    return true;
  }

  // After the sign at pos_: digits (blanks allowed among them), then an optional unit name.
  bool Delta(int64_t* out) {
    struct Unit {
      std::string_view name;
      int64_t seconds;
    };
    static constexpr Unit kUnits[] = {{"seconds", 1},   {"second", 1},  {"minutes", 60},      {"minute", 60},
                                      {"hours", 3600},  {"hour", 3600}, {"days", 86400},      {"day", 86400},
                                      {"weeks", 604800}, {"week", 604800}};
    int64_t count = 0;
    bool digit = false;
    size_t i = pos_ + 1;
    for (; i < s_.size() && s_[i] != '\n'; ++i) {
      if (std::isspace(static_cast<unsigned char>(s_[i]))) continue;
      const Unit* unit = nullptr;
      for (const Unit& u : kUnits) {
        if (StartsWithWord(s_, i, u.name)) {
          unit = &u;
          break;
        }
      }
      if (unit != nullptr) {
        i += unit->name.size();
        if (count > std::numeric_limits<int64_t>::max() / unit->seconds) break;
        count *= unit->seconds;
        pos_ = i - 1;
        *out = count;
        return digit;
      }
      if (!IsDigit(s_[i]) || count > (std::numeric_limits<int64_t>::max() - 9) / 10) {
        pos_ = i - 1;
        return false;
      }
      count = count * 10 + (s_[i] - '0');
      digit = true;
    }
    pos_ = i - 1;
    *out = count;
    return digit;
  }

  // One or two digits.
  bool Number(size_t* i, int* v, bool two) {
    if (!IsDigit(At(*i))) return false;
    *v = At((*i)++) - '0';
    if (IsDigit(At(*i))) {
      *v = *v * 10 + (At((*i)++) - '0');
    } else if (two) {
      return false;
    }
    return true;
  }

  // "H[H]:MM[:SS]", blanks, then an optional AM or PM. A number out of range stops two places
  // back (Slurm's position in its message).
  bool TimeOfDay() {
    size_t i = pos_;
    int hour = 0, minute = 0, second = 0;
    if (!Number(&i, &hour, false)) return Fail(i);
    if (hour > 23) return Fail(i < 2 ? 0 : i - 2);
    if (At(i) != ':') return Fail(i);
    ++i;
    if (!Number(&i, &minute, true)) return Fail(i);
    if (minute > 59) return Fail(i < 2 ? 0 : i - 2);
    if (At(i) == ':') {
      ++i;
      if (!Number(&i, &second, true)) return Fail(i);
      if (second > 59) return Fail(i < 2 ? 0 : i - 2);
    }
    while (i < s_.size() && std::isspace(static_cast<unsigned char>(s_[i]))) ++i;
    if (StartsWithWord(s_, i, "pm")) {
      hour = hour == 12 ? 12 : hour + 12;
      if (hour > 23) return Fail(i);
      i += 2;
    } else if (StartsWithWord(s_, i, "am")) {
      if (hour > 12) return Fail(i);
      if (hour == 12) hour = 0;
      i += 2;
    }
    pos_ = i - 1;
    f_.SetTime(hour, minute, second);
    return true;
  }

  // "YYYY-MM-DD", or "MM[/.]DD[[/.]YY]".
  bool Date() {
    size_t i = pos_;
    int month = 0, day = 0, year = -1;
    const bool iso = At(i + 4) == '-' && At(i + 7) == '-';
    if (iso) {
      int y = 0;
      for (int k = 0; k < 4; ++k) {
        if (!IsDigit(At(i))) return Fail(i);
        y = y * 10 + (At(i++) - '0');
      }
      year = y - 1900;
      ++i;  // '-'
    }
    if (!Number(&i, &month, false)) return Fail(i);
    if (month < 1 || month > 12) return Fail(i < 2 ? 0 : i - 2);
    if (iso || At(i) == '.' || At(i) == '/') ++i;
    if (!Number(&i, &day, false)) return Fail(i);
    if (day < 1 || day > 31) return Fail(i < 2 ? 0 : i - 2);
    if (!iso) {
      if (At(i) == '.' || At(i) == '/') ++i;
      if (IsDigit(At(i))) {
        int y = 0;
        if (!Number(&i, &y, true)) return Fail(i);
        if (y != 0) year = y + 100;  // "00" leaves the year to be chosen, as in Slurm
      }
    }
    pos_ = i - 1;
    f_.month = month - 1;
    f_.mday = day;
    if (year != -1) f_.year = year;
    return true;
  }

  bool Fail(size_t i) {
    pos_ = i;
    return false;
  }

  std::string_view s_;
  int64_t now_;
  std::tm now_tm_;
  size_t pos_ = 0;
  Fields f_;
};

// (month, day, hour, minute) after now's?
bool Ahead(const Fields& f, const std::tm& now) {
  if (f.month != now.tm_mon) return f.month > now.tm_mon;
  if (f.mday != now.tm_mday) return f.mday > now.tm_mday;
  if (f.hour != now.tm_hour) return f.hour > now.tm_hour;
  return f.minute > now.tm_min;
}

}  // namespace

int64_t LocalMidnight(int64_t now) {
  std::tm tm = Local(now);
  tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
  return FromLocal(tm);
}

StatusOr<int64_t> ParseSlurmTime(std::string_view spec, int64_t now, TimeDirection direction) {
  const std::string text(spec);
  if (StartsWithWord(spec, 0, "uts")) {
    const std::string digits = text.substr(3);
    char* end = nullptr;
    errno = 0;
    const long long uts = digits.empty() ? 0 : std::strtoll(digits.c_str(), &end, 10);
    if (digits.empty() || errno != 0 || *end != '\0' || uts < 1000000) {
      return InvalidArgument("Invalid time specification (pos=0): " + text);
    }
    return static_cast<int64_t>(uts);
  }
  TimeReader r(spec, now);
  if (!r.ReadAll()) return InvalidArgument("Invalid time specification (pos=" + std::to_string(r.pos()) + "): " + text);
  Fields f = r.fields();
  const std::tm& now_tm = r.now_tm();
  const bool past = direction == TimeDirection::kPast;
  if (f.hour == -1 && f.month == -1) return InvalidArgument("Invalid time specification: " + text);
  if (f.hour == -1) {
    f.hour = f.minute = 0;
  } else if (f.month == -1) {
    const bool later_today =
        f.hour > now_tm.tm_hour || (f.hour == now_tm.tm_hour && f.minute > now_tm.tm_min);
    f.SetDate(past || later_today ? now_tm : Local(now + 86400));
  }
  if (f.year == -1) {
    if (past) {
      f.year = f.month > now_tm.tm_mon ? now_tm.tm_year - 1 : now_tm.tm_year;
    } else {
      f.year = Ahead(f, now_tm) ? now_tm.tm_year : now_tm.tm_year + 1;
    }
  }
  std::tm tm{};
  tm.tm_sec = f.second;
  tm.tm_min = f.minute;
  tm.tm_hour = f.hour;
  tm.tm_mday = f.mday;
  tm.tm_mon = f.month;
  tm.tm_year = f.year;
  const int64_t t = FromLocal(tm);
  if (t == -1) return InvalidArgument("Invalid time specification: " + text);
  return t;
}

}  // namespace muster
