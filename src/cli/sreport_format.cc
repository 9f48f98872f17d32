// sreport's layouts, as Slurm 22.05 prints them: the banner (cluster_reports.c, user_reports.c),
// the fields of each report and their widths (_setup_print_fields_list, common.c's
// sreport_set_usage_col_width), the figures in each time format (common.c's
// slurmdb_report_print_time) and the columns or '|' separated values (print_fields.c).
#include <strings.h>

#include <algorithm>
#include <cinttypes>
#include <cstdlib>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>

#include "cli/sreport_command.h"
#include "base/strings.h"
#include "report/slurm_format.h"

namespace muster {
namespace {

enum class Col {
  kCluster, kTresCount, kAlloc, kDown, kIdle, kPlanDown, kOver, kPlan, kReported, kAccount, kLogin, kProper,
  kUsed, kEnergy, kTresName, kWckey,
};
enum class Print { kStr, kUint, kTime };

struct Field {
  Col col;
  std::string name;
  int len = 0;
  Print print = Print::kStr;
};

bool PerFormat(SreportTime t) {
  return t == SreportTime::kSecsPer || t == SreportTime::kMinsPer || t == SreportTime::kHoursPer;
}

std::string Printf(const char* fmt, auto... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

// `word` (the field as given, "%N" cut off) matches `name` from `min` characters on.
bool Abbrev(const std::string& word, const char* name, size_t min) {
  return strncasecmp(name, word.c_str(), std::max(word.size(), min)) == 0;
}

std::optional<Field> ClusterField(const std::string& w, SreportTime t) {
  const bool per = PerFormat(t);
  if (Abbrev(w, "Accounts", 2)) return Field{Col::kAccount, "Account", 15};
  if (Abbrev(w, "allocated", 2)) return Field{Col::kAlloc, "Allocated", per ? 20 : 12, Print::kTime};
  if (Abbrev(w, "Cluster", 2)) return Field{Col::kCluster, "Cluster", 9};
  if (Abbrev(w, "down", 1)) return Field{Col::kDown, "Down", per ? 18 : 10, Print::kTime};
  if (Abbrev(w, "idle", 1)) return Field{Col::kIdle, "Idle", per ? 20 : 12, Print::kTime};
  if (Abbrev(w, "Login", 1)) return Field{Col::kLogin, "Login", 9};
  if (Abbrev(w, "overcommitted", 1)) return Field{Col::kOver, "Over Comm", per ? 18 : 9, Print::kTime};
  if (Abbrev(w, "PlannedDown", 2)) return Field{Col::kPlanDown, "PLND Down", per ? 18 : 10, Print::kTime};
  if (Abbrev(w, "Proper", 2)) return Field{Col::kProper, "Proper Name", 15};
  if (Abbrev(w, "reported", 3)) return Field{Col::kReported, "Reported", per ? 20 : 12, Print::kTime};
  if (Abbrev(w, "reserved", 3) || Abbrev(w, "planned", 4)) return Field{Col::kPlan, "Planned", per ? 18 : 9, Print::kTime};
  if (Abbrev(w, "TresCount", 5) || Abbrev(w, "cpucount", 2) || Abbrev(w, "count", 2)) {
    return Field{Col::kTresCount, "TRES Count", 10, Print::kUint};
  }
  if (Abbrev(w, "TresName", 5)) return Field{Col::kTresName, "TRES Name", 14};
  if (Abbrev(w, "Used", 1)) return Field{Col::kUsed, "Used", per ? 18 : 10, Print::kTime};
  if (Abbrev(w, "WCKey", 2)) return Field{Col::kWckey, "WCKey", 15};
  if (Abbrev(w, "Energy", 1)) return Field{Col::kEnergy, "Energy", per ? 18 : 10, Print::kTime};
  return std::nullopt;
}

std::optional<Field> UserField(const std::string& w, SreportTime t) {
  const bool per = PerFormat(t);
  if (Abbrev(w, "Accounts", 1)) return Field{Col::kAccount, "Account", 15};
  if (Abbrev(w, "Cluster", 1)) return Field{Col::kCluster, "Cluster", 9};
  if (Abbrev(w, "Energy", 1)) return Field{Col::kEnergy, "Energy", per ? 18 : 10, Print::kTime};
  if (Abbrev(w, "Login", 1)) return Field{Col::kLogin, "Login", 9};
  if (Abbrev(w, "Proper", 1)) return Field{Col::kProper, "Proper Name", 15};
  if (Abbrev(w, "TresName", 5)) return Field{Col::kTresName, "TRES Name", 14};
  if (Abbrev(w, "Used", 1)) return Field{Col::kUsed, "Used", per ? 18 : 10, Print::kTime};
  return std::nullopt;
}

// sreport_set_usage_col_width: 8 characters below 10^8 (seconds), one more for each power of ten
// (up to where Slurm's 64-bit bound wraps), 9 more with a percentage.
int UsageWidth(uint64_t number, SreportTime t) {
  constexpr uint64_t kMaxOrder = 1590897978359414784ull;  // 10^8 * 10^17, as it wraps in 64 bits
  int len = 8;
  for (uint64_t order = 100000000; order < kMaxOrder && number >= order; order *= 10) ++len;
  return PerFormat(t) ? len + 9 : len;
}

const char* TimeFormatString(SreportTime t) {
  switch (t) {
    case SreportTime::kSecs: return "Seconds";
    case SreportTime::kMins: return "Minutes";
    case SreportTime::kHours: return "Hours";
    case SreportTime::kPercent: return "Percentage of Total";
    case SreportTime::kSecsPer: return "Seconds/Percentage of Total";
    case SreportTime::kMinsPer: return "Minutes/Percentage of Total";
    case SreportTime::kHoursPer: return "Hours/Percentage of Total";
  }
  return "";
}

// One cell: a text (nullopt: none), a count, or seconds of a total.
struct Cell {
  std::optional<std::string> text;
  int64_t value = 0, total = 0;
};

class Table {
 public:
  Table(const SreportRequest& req, std::vector<Field> fields) : req_(req), fields_(std::move(fields)) {}
  std::vector<Field>& fields() { return fields_; }

  std::string Header() const {
    if (!req_.header) return "";
    std::string o;
    for (size_t i = 0; i < fields_.size(); ++i) {
      const Field& f = fields_[i];
      const bool last = i + 1 == fields_.size();
      if (req_.parsable == 2 && last) {
        o += f.name;
      } else if (req_.parsable) {
        o += f.name + "|";
      } else {
        o += Printf("%*.*s ", f.len, std::abs(f.len), f.name.c_str());
      }
    }
    o += "\n";
    if (req_.parsable) return o;
    for (const Field& f : fields_) o += std::string(std::abs(f.len), '-') + " ";
    return o + "\n";
  }

  std::string Row(const std::function<Cell(const Field&)>& cell) const {
    std::string o;
    for (size_t i = 0; i < fields_.size(); ++i) {
      const Field& f = fields_[i];
      const Cell c = cell(f);
      const bool last = i + 1 == fields_.size();
      const int w = std::abs(f.len);
      std::string v;
      if (f.print == Print::kTime && !c.text) {
        v = TimeValue(c.value, c.total);
      } else if (f.print == Print::kUint && !c.text) {
        v = std::to_string(c.value);
      } else if (c.text) {
        v = *c.text;
        if (!req_.parsable && static_cast<int>(v.size()) > w) v = v.substr(0, w - 1) + "+";
      } else {
        v = req_.parsable ? "" : " ";
      }
      if (req_.parsable == 2 && last) {
        o += v;
      } else if (req_.parsable) {
        o += v + "|";
      } else if (f.len == w) {
        o += Printf("%*.*s ", w, w, v.c_str());
      } else {
        o += Printf("%-*.*s ", w, w, v.c_str());
      }
    }
    return o + "\n";
  }

 private:
  std::string TimeValue(int64_t value, int64_t total) const {
    const double pct = static_cast<double>(value) / static_cast<double>(total > 0 ? total : 1) * 100;
    const double v = static_cast<double>(value);
    switch (req_.time) {
      case SreportTime::kSecs: return std::to_string(value);
      case SreportTime::kMins: return Printf("%.0lf", v / 60);
      case SreportTime::kHours: return Printf("%.0lf", v / 3600);
      case SreportTime::kPercent: return Printf("%.2lf%%", pct);
      case SreportTime::kSecsPer: return Printf("%" PRId64 "(%.2lf%%)", value, pct);
      case SreportTime::kMinsPer: return Printf("%.0lf(%.2lf%%)", v / 60, pct);
      case SreportTime::kHoursPer: return Printf("%.0lf(%.2lf%%)", v / 3600, pct);
    }
    return "";
  }

  const SreportRequest& req_;
  std::vector<Field> fields_;
};

std::vector<Field> Fields(const SreportRequest& req, const char* fallback, bool user_report, std::string* err) {
  std::vector<std::string> words = req.format;
  if (words.empty()) {
    for (const std::string& w : Split(fallback, ',')) words.push_back(w);
  }
  std::vector<Field> out;
  for (std::string w : words) {
    int newlen = 0;
    if (size_t pct = w.find('%'); pct != std::string::npos) {
      newlen = std::atoi(w.c_str() + pct + 1);
      w.resize(pct);
    }
    std::optional<Field> f = user_report ? UserField(w, req.time) : ClusterField(w, req.time);
    if (!f) {
      *err += " Unknown field '" + w + "'\n";
      continue;
    }
    if (newlen != 0) f->len = newlen;
    out.push_back(*f);
  }
  return out;
}

std::string Banner(const SreportRequest& req, const std::string& title, bool secs) {
  if (!req.header) return "";
  const std::string rule(80, '-');
  std::string o = rule + "\n" + title + " " + FormatSlurmTime(req.start) + " - " + FormatSlurmTime(req.end - 1);
  if (secs) o += Printf(" (%d secs)", static_cast<int>(req.end - req.start));
  o += "\n";
  if (req.time == SreportTime::kPercent) {
    o += std::string("Usage reported in ") + TimeFormatString(req.time) + "\n";
  } else {
    o += std::string("Usage reported in ") + (req.tres_given ? "TRES" : "CPU") + " " + TimeFormatString(req.time) + "\n";
  }
  return o + rule + "\n";
}

const UsageTresAnswer* FindTres(const UsageAnswer& u, const std::string& name) {
  for (const UsageTresAnswer& t : u.tres) {
    if (t.tres == name) return &t;
  }
  return nullptr;
}

int64_t Reported(const UsageTresAnswer& t) { return t.alloc_s + t.down_s + t.pdown_s + t.idle_s + t.plan_s; }

// Whether the report has rows for this cluster: named by Clusters= (or -M), and measured at all.
bool ClusterShown(const SreportRequest& req, const UsageAnswer& u) {
  if (u.measured_end <= u.measured_start) return false;
  if (req.clusters.empty()) return true;
  for (const std::string& c : req.clusters) {
    if (strcasecmp(c.c_str(), u.cluster.c_str()) == 0) return true;
  }
  return false;
}

std::string AccountName(const std::string& a) { return a.empty() ? "root" : a; }

std::string Utilization(const SreportRequest& req, const UsageAnswer& u, std::string* err) {
  std::string o = Banner(req, "Cluster Utilization", false);
  Table table(req, Fields(req, req.tres_given ? "Cl,TresName,al,d,planned,i,res,rep" : "Cl,al,d,planned,i,res,rep",
                          false, err));
  std::vector<const UsageTresAnswer*> rows;
  if (ClusterShown(req, u)) {
    for (const std::string& name : req.tres) {
      const UsageTresAnswer* t = FindTres(u, name);
      if (t != nullptr && t->count > 0) rows.push_back(t);
    }
  }
  int64_t max[9] = {};
  for (const UsageTresAnswer* t : rows) {
    const int64_t v[] = {t->alloc_s, t->down_s, t->idle_s, t->plan_s, t->over_s, t->pdown_s, Reported(*t)};
    for (int i = 0; i < 7; ++i) max[i] = std::max(max[i], v[i]);
  }
  for (Field& f : table.fields()) {
    const std::map<Col, int> slot = {{Col::kAlloc, 0}, {Col::kDown, 1}, {Col::kIdle, 2}, {Col::kPlan, 3},
                                     {Col::kOver, 4}, {Col::kPlanDown, 5}, {Col::kReported, 6}, {Col::kEnergy, 0}};
    if (auto it = slot.find(f.col); it != slot.end()) f.len = UsageWidth(max[it->second], req.time);
  }
  o += table.Header();
  const int64_t period = u.end - u.start;
  for (const UsageTresAnswer* t : rows) {
    const int64_t reported = Reported(*t);
    o += table.Row([&](const Field& f) -> Cell {
      switch (f.col) {
        case Col::kCluster: return {u.cluster};
        case Col::kTresCount: return {std::nullopt, t->count};
        case Col::kAlloc: return {std::nullopt, t->alloc_s, reported};
        case Col::kDown: return {std::nullopt, t->down_s, reported};
        case Col::kIdle: return {std::nullopt, t->idle_s, reported};
        case Col::kPlan: return {std::nullopt, t->plan_s, reported};
        case Col::kOver: return {std::nullopt, t->over_s, reported};
        case Col::kPlanDown: return {std::nullopt, t->pdown_s, reported};
        case Col::kReported: return {std::nullopt, reported, period * t->count};
        case Col::kEnergy: return {std::nullopt, 0, 0};
        case Col::kTresName: return {t->tres};
        default: return {std::nullopt, 0, 0};
      }
    });
  }
  return o;
}

// A row of the association reports: an account's total (user "") or a user's usage in an account,
// or (topusage with Group) a user's in all of them.
struct UsageRow {
  std::string account;  // as printed
  std::string user, proper;
  int64_t cpu_s = 0, gpu_s = 0;
  int64_t Seconds(const std::string& tres) const { return tres == "cpu" ? cpu_s : gpu_s; }
};

bool UserSelected(const SreportRequest& req, const std::string& user) { return req.users.empty() || req.users.count(user); }

// The association rows of AccountUtilizationByUser in the hierarchy's order: an account's total,
// its users by name, then its sub-accounts by name, from the root down; only those with usage.
std::vector<UsageRow> AccountRows(const SreportRequest& req, const UsageAnswer& u) {
  std::map<std::string, std::string> parent;  // account -> parent ("" = the root)
  for (const UsageAccountAnswer& a : u.accounts) parent[a.name] = a.parent;
  for (const UsageAssocAnswer& a : u.assocs) {
    if (!a.account.empty() && !parent.count(a.account)) parent[a.account] = "";
  }
  std::map<std::string, std::vector<std::string>> children;
  for (const auto& [name, p] : parent) children[p].push_back(name);  // names in order
  std::map<std::string, UsageRow> total;  // the subtree's usage of each account ("" = the root)
  for (const UsageAssocAnswer& a : u.assocs) {
    if (!UserSelected(req, a.user)) continue;
    for (std::string acct = a.account;; acct = parent[acct]) {
      total[acct].cpu_s += a.cpu_s;
      total[acct].gpu_s += a.gpu_s;
      if (acct.empty()) break;
    }
  }
  std::vector<UsageRow> rows;
  std::function<void(const std::string&, bool)> visit = [&](const std::string& acct, bool selected) {
    selected = selected || req.accounts.empty() || req.accounts.count(AccountName(acct));
    const UsageRow& t = total[acct];
    if (t.cpu_s == 0 && t.gpu_s == 0) return;
    if (selected && req.users.empty()) rows.push_back({AccountName(acct), "", "", t.cpu_s, t.gpu_s});
    if (selected) {
      for (const UsageAssocAnswer& a : u.assocs) {  // sorted by (account, user)
        if (a.account == acct && UserSelected(req, a.user)) {
          rows.push_back({AccountName(acct), a.user, a.proper, a.cpu_s, a.gpu_s});
        }
      }
    }
    for (const std::string& child : children[acct]) visit(child, selected);
  };
  visit("", false);
  return rows;
}

// The (user, account) rows of UserUtilizationByAccount and TopUsage (grouped by user with Group),
// ordered by the usage of `sort_tres`, largest first, then by name (by name alone with -s name).
std::vector<UsageRow> UserRows(const SreportRequest& req, const UsageAnswer& u, bool group, const std::string& sort_tres) {
  std::vector<UsageRow> rows;
  std::map<std::string, size_t> by_user;
  for (const UsageAssocAnswer& a : u.assocs) {
    if (!UserSelected(req, a.user)) continue;
    if (!req.accounts.empty() && !req.accounts.count(AccountName(a.account))) continue;
    if (group && by_user.count(a.user)) {
      UsageRow& r = rows[by_user[a.user]];
      r.account += ", " + AccountName(a.account);
      r.cpu_s += a.cpu_s;
      r.gpu_s += a.gpu_s;
      continue;
    }
    by_user[a.user] = rows.size();
    rows.push_back({AccountName(a.account), a.user, a.proper, a.cpu_s, a.gpu_s});
  }
  std::stable_sort(rows.begin(), rows.end(), [&](const UsageRow& a, const UsageRow& b) {
    if (!req.sort_by_name && a.Seconds(sort_tres) != b.Seconds(sort_tres)) return a.Seconds(sort_tres) > b.Seconds(sort_tres);
    return a.user < b.user;
  });
  return rows;
}

std::string AssocReport(const SreportRequest& req, const UsageAnswer& u, std::string* err) {
  const bool top = req.report == SreportReport::kTopUsage;
  const bool au = req.report == SreportReport::kAccountByUser;
  std::string title;
  const char* fallback = nullptr;
  if (au) {
    title = "Cluster/Account/User Utilization";
    fallback = req.tres_given ? "Cluster,Ac,Login,Proper,TresName,Used" : "Cluster,Ac,Login,Proper,Used,Energy";
  } else if (top) {
    const int64_t shown = req.top_count > 4294967295LL ? 4294967295LL : req.top_count;
    title = "Top " + std::to_string(shown) + " Users";
    fallback = req.tres_given ? "Cl,L,P,A,TresName,Used" : "Cl,L,P,A,U,Energy";
  } else {
    title = "Cluster/User/Account Utilization";
    fallback = req.tres_given ? "Cluster,Login,Proper,Ac,TresName,Used" : "Cluster,Login,Proper,Ac,Used,Energy";
  }
  std::string o = Banner(req, title, true);
  Table table(req, Fields(req, fallback, top, err));
  std::vector<UsageRow> rows;
  if (ClusterShown(req, u)) {
    // TopUsage sorts by the first TRES asked for; the others by CPU, as Slurm's sort_user_dec.
    rows = au ? AccountRows(req, u) : UserRows(req, u, top && req.group, top ? req.tres.front() : "cpu");
  }
  if (top && static_cast<int64_t>(rows.size()) > req.top_count) rows.resize(static_cast<size_t>(req.top_count));
  // The Used column's width from the first row (the largest): its CPU usage when there is an
  // Energy column, else its largest TRES (sreport_set_usage_column_width).
  bool energy = false;
  for (const Field& f : table.fields()) energy = energy || f.col == Col::kEnergy;
  uint64_t widest = 0;
  if (!rows.empty()) {
    if (energy) {
      widest = static_cast<uint64_t>(rows.front().cpu_s);
    } else {
      for (const std::string& t : req.tres) widest = std::max<uint64_t>(widest, rows.front().Seconds(t));
    }
  }
  for (Field& f : table.fields()) {
    if (f.col == Col::kUsed) f.len = UsageWidth(widest, req.time);
    if (f.col == Col::kEnergy) f.len = UsageWidth(0, req.time);
  }
  o += table.Header();
  for (const UsageRow& r : rows) {
    for (const std::string& tres : req.tres) {
      const UsageTresAnswer* t = FindTres(u, tres);
      const int64_t reported = t != nullptr ? Reported(*t) : 0;
      o += table.Row([&](const Field& f) -> Cell {
        switch (f.col) {
          case Col::kCluster: return {u.cluster};
          case Col::kAccount: return {r.account};
          case Col::kLogin: return r.user.empty() ? Cell{} : Cell{r.user};
          case Col::kProper: return r.proper.empty() ? Cell{} : Cell{r.proper};
          case Col::kUsed: return {std::nullopt, r.Seconds(tres), reported};
          case Col::kEnergy: return {std::nullopt, 0, 0};
          case Col::kTresName: return {tres};
          default: return {};
        }
      });
    }
  }
  return o;
}

}  // namespace

std::string FormatSreport(const SreportRequest& req, const UsageAnswer& usage, std::string* err) {
  if (req.report == SreportReport::kUtilization) return Utilization(req, usage, err);
  return AssocReport(req, usage, err);
}

}  // namespace muster
