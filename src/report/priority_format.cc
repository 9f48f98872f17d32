#include "report/priority_format.h"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <cstdio>
#include <string_view>

namespace muster {
namespace {

// Right-aligned in `width` (Slurm's "%.Nx"); cut to the width when longer.
std::string Right(const std::string& s, size_t width) {
  if (s.size() >= width) return s.substr(0, width);
  return std::string(width - s.size(), ' ') + s;
}
std::string Left(const std::string& s, size_t width) {
  if (s.size() >= width) return s.substr(0, width);
  return s + std::string(width - s.size(), ' ');
}
std::string Fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}
int64_t Weighted(int64_t w, double f) { return static_cast<int64_t>(std::floor(static_cast<double>(w) * f)); }

}  // namespace

namespace {

// One field of an -o format: Slurm's _parse_format (src/sprio/opts.c) and _print_str (print.c).
struct SprioField {
  char letter = 0;     // 0: text alone (before the first field)
  size_t width = 0;    // 0: as long as the value
  bool right = false;  // "%.10Y": right-justified
  std::string suffix;  // the text up to the next field
};

std::vector<SprioField> ParseSprioFormat(const std::string& format) {
  std::vector<SprioField> fields;
  size_t i = format.find('%');
  SprioField prefix;
  prefix.suffix = format.substr(0, i);
  if (!prefix.suffix.empty()) fields.push_back(prefix);
  while (i != std::string::npos && i + 1 < format.size()) {
    SprioField f;
    size_t p = i + 1;
    if (format[p] == '.') f.right = true, ++p;
    while (p < format.size() && std::isdigit(static_cast<unsigned char>(format[p]))) {
      f.width = f.width * 10 + static_cast<size_t>(format[p] - '0');
      if (f.width > 1024) f.width = 1024;
      ++p;
    }
    if (p >= format.size()) break;
    f.letter = format[p];
    const size_t next = format.find('%', p + 1);
    f.suffix = format.substr(p + 1, next == std::string::npos ? std::string::npos : next - p - 1);
    fields.push_back(f);
    i = next;
  }
  return fields;
}

// _print_str: cut to the width, padded to it (on the left when right-justified).
std::string Pad(const std::string& s, const SprioField& f) {
  if (f.width == 0) return s;
  return f.right ? Right(s, f.width) : Left(s, f.width);
}

constexpr char kSprioLetters[] = "aAbBcfFijJNpPqQrStTuyY";

std::string FormatSprioFields(const std::vector<SprioRow>& rows, const SprioWeights& w, const SprioOptions& o) {
  const std::vector<SprioField> fields = ParseSprioFormat(o.format);
  // What a field shows: the header (row == nullptr, weights false), the weights row, or a job's.
  const auto cell = [&](const SprioField& f, const SprioRow* r, bool weights) -> std::string {
    struct Factor {
      char lower;
      const char* header;
      int64_t weight;
      double SprioRow::*factor;
    };
    const Factor factors[] = {{'a', "AGE", w.age, &SprioRow::age},
                              {'b', "ASSOC", 0, nullptr},
                              {'f', "FAIRSHARE", w.fairshare, &SprioRow::fairshare},
                              {'j', "JOBSIZE", w.job_size, &SprioRow::job_size},
                              {'p', "PARTITION", w.partition, &SprioRow::partition_factor},
                              {'q', "QOS", w.qos, &SprioRow::qos}};
    for (const Factor& x : factors) {
      if (f.letter != x.lower && f.letter != x.lower - 'a' + 'A') continue;
      if (r == nullptr) return weights ? std::to_string(x.weight) : x.header;
      const double v = x.factor != nullptr ? r->*(x.factor) : 0.0;
      return f.letter == x.lower ? Fixed(x.weight != 0 ? v : 0.0, 7) : std::to_string(Weighted(x.weight, v));
    }
    switch (f.letter) {
      case 'c': return r == nullptr && !weights ? "CLUSTER" : "";
      case 'i': return r == nullptr ? (weights ? "Weights" : "JOBID") : std::to_string(r->job_id);
      case 'N': return r == nullptr ? (weights ? "" : "NICE") : "0";
      case 'r': return r == nullptr ? (weights ? "" : "PARTITION") : r->partition;
      case 'S': return r == nullptr ? (weights ? "1" : "SITE") : "0";
      case 't':
      case 'T': return r == nullptr && !weights ? "TRES" : "";
      case 'u': return r == nullptr ? (weights ? "" : "USER") : r->user;
      case 'y': {
        if (r == nullptr) return weights ? "" : "PRIORITY";
        char buf[64];
        std::snprintf(buf, sizeof buf, "%16.14f", static_cast<double>(r->priority) / 4294967295.0);
        return buf;
      }
      case 'Y': return r == nullptr ? (weights ? "" : "PRIORITY") : std::to_string(r->priority);
    }
    return "";
  };
  const auto line = [&](const SprioRow* r, bool weights) {
    std::string l;
    for (const SprioField& f : fields) {
      if (f.letter != 0) l += Pad(cell(f, r, weights), f);
      l += f.suffix;
    }
    return l + "\n";
  };
  std::string out;
  if (!o.no_header) out += line(nullptr, false);
  if (o.weights) return out + line(nullptr, true);
  std::vector<const SprioRow*> sorted;
  for (const SprioRow& r : rows) sorted.push_back(&r);
  std::sort(sorted.begin(), sorted.end(), [](const SprioRow* a, const SprioRow* b) { return a->job_id < b->job_id; });
  for (const SprioRow* r : sorted) out += line(r, false);
  return out;
}

}  // namespace

std::string InvalidSprioField(const std::string& format) {
  for (const SprioField& f : ParseSprioFormat(format)) {
    if (f.letter != 0 && std::string_view(kSprioLetters).find(f.letter) == std::string_view::npos) {
      return std::string(1, f.letter);
    }
  }
  return "";
}

std::string FormatSprio(const std::vector<SprioRow>& rows, const SprioWeights& w, const SprioOptions& o) {
  if (!o.format.empty()) return FormatSprioFields(rows, w, o);
  struct Column {
    const char* header;
    int64_t weight;
    double SprioRow::*factor;
  };
  // ASSOC: Muster has no association factor (weight 0); Slurm's -l shows it all the same.
  const Column factors[] = {{"AGE", w.age, &SprioRow::age},
                            {"ASSOC", 0, nullptr},
                            {"FAIRSHARE", w.fairshare, &SprioRow::fairshare},
                            {"JOBSIZE", w.job_size, &SprioRow::job_size},
                            {"PARTITION", w.partition, &SprioRow::partition_factor},
                            {"QOS", w.qos, &SprioRow::qos}};
  const bool user = o.show_user || o.long_list;
  std::string out;
  // -l is Slurm's "%.15i %9r %.8u %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10Q %.11N %.20T".
  auto line = [&](const std::string& id, const std::string& part, const std::string& who, const std::string& prio,
                  const std::string& site, const std::vector<std::string>& cells, const std::string& nice,
                  const std::string& tres) {
    std::string l = Right(id, 15) + " " + Left(part, 9);
    if (user) l += " " + Right(who, 8);
    l += " " + Right(prio, 10) + " " + Right(site, 10);
    for (const std::string& c : cells) l += " " + Right(c, 10);
    if (o.long_list) l += " " + Right(nice, 11) + " " + Right(tres, 20);
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  };
  std::vector<const Column*> shown;
  for (const Column& c : factors) {
    if (o.long_list || (c.weight != 0 && c.factor != nullptr)) shown.push_back(&c);
  }
  if (!o.no_header) {
    std::vector<std::string> heads;
    for (const Column* c : shown) heads.push_back(c->header);
    line("JOBID", "PARTITION", "USER", "PRIORITY", "SITE", heads, "NICE", "TRES");
  }
  if (o.weights) {
    std::vector<std::string> cells;
    for (const Column* c : shown) cells.push_back(std::to_string(c->weight));
    line("Weights", "", "", "", "1", cells, "", "");
    return out;
  }
  std::vector<const SprioRow*> sorted;
  for (const SprioRow& r : rows) sorted.push_back(&r);
  std::sort(sorted.begin(), sorted.end(), [](const SprioRow* a, const SprioRow* b) { return a->job_id < b->job_id; });
  for (const SprioRow* r : sorted) {
    std::vector<std::string> cells;
    for (const Column* c : shown) {
      const double f = c->factor != nullptr ? r->*(c->factor) : 0.0;
      cells.push_back(o.normalized ? Fixed(f, 7) : std::to_string(Weighted(c->weight, f)));
    }
    const std::string prio =
        o.normalized ? Fixed(static_cast<double>(r->priority) / 4294967295.0, 7) : std::to_string(r->priority);
    line(std::to_string(r->job_id), r->partition, r->user, prio, "0", cells, "0", "");
  }
  return out;
}

std::string FormatSshare(const std::vector<SshareRow>& rows, const SshareOptions& o) {
  struct Field {
    const char* header;
    int width;
    bool left;
  };
  std::vector<Field> fields = {{"Account", 20, true},      {"User", 10, false},       {"RawShares", 10, false},
                               {"NormShares", 11, false},  {"RawUsage", 11, false}};
  if (o.long_list) fields.push_back({"NormUsage", 11, false});
  fields.push_back({"EffectvUsage", 13, false});
  fields.push_back({"FairShare", 10, false});
  if (o.long_list) fields.push_back({"LevelFS", 10, false});
  std::string out;
  auto emit = [&](const std::vector<std::string>& cells) {
    std::string l;
    for (size_t i = 0; i < fields.size(); ++i) {
      if (o.parsable) {
        l += (i ? "|" : "") + cells[i];
      } else {
        l += (fields[i].left ? Left(cells[i], fields[i].width) : Right(cells[i], fields[i].width)) + " ";
      }
    }
    out += l + "\n";
  };
  if (!o.no_header) {
    std::vector<std::string> heads, dashes;
    for (const Field& f : fields) {
      heads.push_back(f.header);
      dashes.push_back(std::string(f.width, '-'));
    }
    emit(heads);
    if (!o.parsable) emit(dashes);
  }
  double total = 0;
  for (const SshareRow& r : rows) {
    if (r.depth == 0) total += r.raw_usage;
  }
  auto cells = [&](const std::string& account, const std::string& user, const std::string& raw_shares,
                   const std::string& norm_shares, double raw_usage, double norm_usage, const std::string& fairshare,
                   const std::string& level) {
    std::vector<std::string> c = {account, user, raw_shares, norm_shares,
                                  std::to_string(static_cast<int64_t>(std::llround(raw_usage)))};
    if (o.long_list) c.push_back(Fixed(norm_usage, 6));
    c.push_back(Fixed(norm_usage, 6));
    c.push_back(fairshare);
    if (o.long_list) c.push_back(level);
    return c;
  };
  emit(cells("root", "", "", "0.000000", total, total > 0 ? 1.0 : 0.0, "", ""));
  for (const SshareRow& r : rows) {
    // Users sit one level below their account's row; Slurm repeats the account name on them.
    const int indent = r.depth + 1;
    const std::string account = std::string(indent, ' ') + (r.account.empty() ? "root" : r.account);
    const std::string level = std::isinf(r.level_fs) ? "inf" : Fixed(r.level_fs, 6);
    emit(cells(account, r.user, std::to_string(r.raw_shares), Fixed(r.norm_shares, 6), r.raw_usage, r.norm_usage,
               r.user.empty() ? "" : Fixed(r.fairshare, 6), level));
  }
  return out;
}

}  // namespace muster
