#include "report/priority_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

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

std::string FormatSprio(const std::vector<SprioRow>& rows, const SprioWeights& w, const SprioOptions& o) {
  struct Column {
    const char* header;
    int64_t weight;
    double SprioRow::*factor;
  };
  const Column factors[] = {{"AGE", w.age, &SprioRow::age},
                            {"FAIRSHARE", w.fairshare, &SprioRow::fairshare},
                            {"JOBSIZE", w.job_size, &SprioRow::job_size},
                            {"PARTITION", w.partition, &SprioRow::partition_factor},
                            {"QOS", w.qos, &SprioRow::qos}};
  const bool user = o.show_user || o.long_list;
  std::string out;
  auto line = [&](const std::string& id, const std::string& part, const std::string& who, const std::string& prio,
                  const std::string& site, const std::vector<std::string>& cells, const std::string& nice) {
    std::string l = Right(id, 15) + " " + Left(part, 9);
    if (user) l += " " + Right(who, 8);
    l += " " + Right(prio, 10) + " " + Right(site, 10);
    for (const std::string& c : cells) l += " " + Right(c, 10);
    if (o.long_list) l += " " + Right(nice, 10);
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  };
  std::vector<const Column*> shown;
  for (const Column& c : factors) {
    if (o.long_list || c.weight != 0) shown.push_back(&c);
  }
  if (!o.no_header) {
    std::vector<std::string> heads;
    for (const Column* c : shown) heads.push_back(c->header);
    line("JOBID", "PARTITION", "USER", "PRIORITY", "SITE", heads, "NICE");
  }
  if (o.weights) {
    std::vector<std::string> cells;
    for (const Column* c : shown) cells.push_back(std::to_string(c->weight));
    line("Weights", "", "", "", "1", cells, "");
    return out;
  }
  std::vector<const SprioRow*> sorted;
  for (const SprioRow& r : rows) sorted.push_back(&r);
  std::sort(sorted.begin(), sorted.end(), [](const SprioRow* a, const SprioRow* b) { return a->job_id < b->job_id; });
  for (const SprioRow* r : sorted) {
    std::vector<std::string> cells;
    for (const Column* c : shown) {
      const double f = r->*(c->factor);
      cells.push_back(o.normalized ? Fixed(f, 7) : std::to_string(Weighted(c->weight, f)));
    }
    const std::string prio =
        o.normalized ? Fixed(static_cast<double>(r->priority) / 4294967295.0, 7) : std::to_string(r->priority);
    line(std::to_string(r->job_id), r->partition, r->user, prio, "0", cells, "0");
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
