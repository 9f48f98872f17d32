// sreport's command line, after Slurm 22.05's src/sreport/sreport.c (options, read with getopt_long
// in its default order: options may follow the report's words) and the conditions of
// cluster_reports.c and user_reports.c (words abbreviated as Slurm matches them, case-insensitive).
// Differences, on purpose: the interactive mode (no report on the command line), job and
// reservation reports and the WCKey reports are refused by name; -a, -M, --federation and --local
// have no effect beyond naming the one cluster (Clusters= and -M naming another give no rows).
#include "cli/sreport_command.h"

#include <strings.h>
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "base/clock.h"
#include "cli/command_args.h"
#include "cli/command_help.h"
#include "cli/ctld_client.h"
#include "model/slurm_time.h"

namespace muster {
namespace {

using Arg = OptionArg;
using Use = OptionUse;

enum SreportOpt : int { kAllClusters, kCluster, kNoHeader, kParsable, kParsable2, kSort, kTime, kTres, kHelp, kVersion };

constexpr OptionSpec kSreportOptions[] = {
    {"all_clusters", 'a', Arg::kNone, Use::kIgnored, kAllClusters, nullptr, "no effect: one cluster"},
    {"cluster", 'M', Arg::kRequired, Use::kOwn, kCluster, nullptr,
     "one cluster: another name gives no rows"},
    {"federation", 0, Arg::kNone, Use::kIgnored, 0, nullptr, "no effect: Muster has no federation"},
    {"help", 'h', Arg::kNone, Use::kMeta, kHelp},
    {"immediate", 0, Arg::kNone, Use::kIgnored, 0, nullptr, "no effect: reports change nothing"},
    {"local", 0, Arg::kNone, Use::kIgnored, 0, nullptr, "no effect: one cluster"},
    {"noheader", 'n', Arg::kNone, Use::kOwn, kNoHeader},
    {"parsable", 'p', Arg::kNone, Use::kOwn, kParsable},
    {"parsable2", 'P', Arg::kNone, Use::kOwn, kParsable2},
    {"quiet", 'Q', Arg::kNone, Use::kIgnored, 0, nullptr, "no effect: Muster's sreport prints no messages"},
    {"sort", 's', Arg::kRequired, Use::kOwn, kSort, nullptr, "Name or Time; Slurm's --sort takes no value"},
    {"", 't', Arg::kRequired, Use::kOwn, kTime},
    {"tres", 'T', Arg::kRequired, Use::kOwn, kTres, nullptr, "cpu and gres/gpu are reported (ALL: both)"},
    {"usage", 'h', Arg::kNone, Use::kMeta, kHelp, "help"},
    {"verbose", 'v', Arg::kNone, Use::kIgnored, 0, nullptr, "no effect: Muster prints no more"},
    {"version", 'V', Arg::kNone, Use::kMeta, kVersion},
};

constexpr GetoptStyle kSreportStyle{.permute = true};

// Slurm's xstrncasecmp(word, name, MAX(strlen(word), min)) == 0: `word` a prefix of `name`, at
// least `min` characters long.
bool Abbrev(const std::string& word, const char* name, size_t min) {
  const size_t n = std::max(word.size(), min);
  return strncasecmp(word.c_str(), name, n) == 0;
}

void AddList(std::set<std::string>* set, const std::string& value) {
  for (const std::string& s : Split(value, ',')) {
    std::string v = s;
    v.erase(std::remove(v.begin(), v.end(), '"'), v.end());
    v.erase(std::remove(v.begin(), v.end(), '\''), v.end());
    if (!v.empty()) set->insert(v);
  }
}

StatusOr<SreportTime> ParseTimeFormat(const std::string& f) {
  if (Abbrev(f, "SecPer", 6)) return SreportTime::kSecsPer;
  if (Abbrev(f, "MinPer", 6)) return SreportTime::kMinsPer;
  if (Abbrev(f, "HourPer", 6)) return SreportTime::kHoursPer;
  if (Abbrev(f, "Seconds", 1)) return SreportTime::kSecs;
  if (Abbrev(f, "Minutes", 1)) return SreportTime::kMins;
  if (Abbrev(f, "Hours", 1)) return SreportTime::kHours;
  if (Abbrev(f, "Percent", 1)) return SreportTime::kPercent;
  return InvalidArgument("unknown time format " + f);
}

constexpr char kHelpText[] =
    "sreport [<OPTION>] [<COMMAND>]\n"
    "    Valid <OPTION> values are:\n"
    "     -h or --help: Print this description of use.\n"
    "     -n or --noheader: No header lines.\n"
    "     -p or --parsable: output will be '|' delimited with a '|' at the end\n"
    "     -P or --parsable2: output will be '|' delimited without a '|' at the end\n"
    "     -s or --sort <Name|Time>: user reports ordered by name or by usage (default)\n"
    "     -t <time_format>: Second, Minute, Hour, Percent, SecPer, MinPer, HourPer\n"
    "     -T or --tres: comma separated list of TRES (cpu, gres/gpu), or 'ALL' for both\n"
    "     -V or --version: Print version.\n"
    "\n"
    "    Valid report types are:\n"
    "     cluster AccountUtilizationByUser|UserUtilizationByAccount|Utilization <OPTIONS>\n"
    "     user TopUsage <OPTIONS>\n"
    "\n"
    "    <OPTIONS>: Start=<time> End=<time> (default: yesterday), Format=<fields>,\n"
    "     Clusters=<names>; AccountUtilizationByUser, UserUtilizationByAccount and TopUsage:\n"
    "     Users=<names> Accounts=<names>; TopUsage: TopCount=<n> (default 10), Group.\n"
    "\n"
    "  Note, valid start/end time formats are...\n"
    "       HH:MM[:SS] [AM|PM]\n"
    "       MMDD[YY] or MM/DD[/YY] or MM.DD[.YY]\n"
    "       MM/DD[/YY]-HH:MM[:SS]\n"
    "       YYYY-MM-DD[THH:MM[:SS]]\n"
    "       now[{+|-}count[seconds(default)|minutes|hours|days|weeks]]\n";

}  // namespace

OptionTable SreportOptionTable() { return kSreportOptions; }

void RoundReportPeriod(int64_t* start, int64_t* end, int64_t now) {
  auto round = [](int64_t given, int64_t now, bool is_start) {
    const time_t t = static_cast<time_t>(given ? given : now);
    struct tm tm {};
    localtime_r(&t, &tm);
    if (!given) {
      tm.tm_hour = 0;
      if (is_start) tm.tm_mday--;
    } else {
      if (tm.tm_sec >= 30) tm.tm_min++;
      if (tm.tm_min >= 30) tm.tm_hour++;
    }
    tm.tm_sec = 0;
    tm.tm_min = 0;
    tm.tm_isdst = -1;
    return static_cast<int64_t>(mktime(&tm));
  };
  *end = round(*end, now, false);
  *start = round(*start, now, true);
  if (*end - *start < 3600) *end = *start + 3600;
}

namespace {

// -T/--tres: the TRES to report, of those Muster has (cpu, gres/gpu; "all": both).
Status ReadTresList(const std::string& tres_arg, SreportRequest& r) {
  r.tres.clear();
  for (const std::string& t : Split(tres_arg, ',')) {
    std::string name = t;
    std::transform(name.begin(), name.end(), name.begin(), ::tolower);
    if (name == "all") {
      r.tres = {"cpu", "gres/gpu"};
      break;
    }
    if ((name == "cpu" || name == "gres/gpu") && std::find(r.tres.begin(), r.tres.end(), name) == r.tres.end()) {
      r.tres.push_back(name);
    }
  }
  if (r.tres.empty()) return InvalidArgument("No valid TRES given (Muster reports cpu and gres/gpu)");
  return Status::Ok();
}

// The report: "cluster <report>" or "user Top".
Status ReadReportKind(const std::vector<std::string>& w, SreportRequest& r) {
  if (w.empty()) return InvalidArgument("no report given: Muster's sreport has no interactive mode");
  if (Abbrev(w[0], "cluster", 2)) {
    if (w.size() < 2) return InvalidArgument("too few arguments for keyword:" + w[0]);
    const std::string& rep = w[1];
    if (strncasecmp(rep.c_str(), "AccountUtilizationByUser", 1) == 0) {
      r.report = SreportReport::kAccountByUser;
    } else if (strncasecmp(rep.c_str(), "UserUtilizationByAccount", 18) == 0 || strncasecmp(rep.c_str(), "UA", 2) == 0) {
      r.report = SreportReport::kUserByAccount;
    } else if (strncasecmp(rep.c_str(), "UserUtilizationByWckey", 18) == 0 || strncasecmp(rep.c_str(), "UW", 2) == 0 ||
               strncasecmp(rep.c_str(), "WCKeyUtilizationByUser", 1) == 0) {
      return InvalidArgument("the WCKey reports are not supported: Muster has no WCKeys");
    } else if (strncasecmp(rep.c_str(), "Utilization", 2) == 0) {
      r.report = SreportReport::kUtilization;
    } else {
      return InvalidArgument("Not valid report " + rep +
                             "\nValid cluster reports are, \"AccountUtilizationByUser\", \"UserUtilizationByAccount\", "
                             "\"UserUtilizationByWckey\", \"Utilization\", and \"WCKeyUtilizationByUser\"");
    }
  } else if (Abbrev(w[0], "user", 1)) {
    if (w.size() < 2) return InvalidArgument("too few arguments for keyword:" + w[0]);
    if (strncasecmp(w[1].c_str(), "Top", 1) != 0) {
      return InvalidArgument("Not valid report " + w[1] + "\nValid user reports are, \"Top\"");
    }
    r.report = SreportReport::kTopUsage;
  } else if (Abbrev(w[0], "job", 1) || Abbrev(w[0], "reservation", 2) || Abbrev(w[0], "resv", 2)) {
    return InvalidArgument(w[0] + " reports are not supported by Muster (cluster and user reports are)");
  } else {
    return InvalidArgument("invalid keyword: " + w[0]);
  }
  return Status::Ok();
}

// The conditions after the report, as _set_cluster_cond, _set_assoc_cond and user_reports.c's
// _set_cond read them; a condition not understood is a warning.
void ReadReportConditions(const std::vector<std::string>& w, int64_t now, SreportRequest& r) {
  const bool assoc = r.report != SreportReport::kUtilization;
  const bool user = r.report == SreportReport::kTopUsage;
  std::string start, end;
  for (size_t i = 2; i < w.size(); ++i) {
    const std::string& a = w[i];
    const size_t eq = a.find('=');
    const std::string key = eq == std::string::npos ? a : a.substr(0, eq);
    std::string value = eq == std::string::npos ? a : a.substr(eq + 1);
    if (!user && !value.empty() && value[0] == '=' && eq != std::string::npos) value.erase(0, 1);
    const bool bare = eq == std::string::npos;
    if (bare && Abbrev(key, "all_clusters", 1)) {
      continue;
    } else if (bare && !user && assoc && Abbrev(key, "Tree", 4)) {
      continue;  // the tree's indentation is not drawn: accounts in the hierarchy's order
    } else if (bare && user && Abbrev(key, "group", 1)) {
      r.group = true;
    } else if (assoc && (bare || Abbrev(key, "Users", 1))) {
      AddList(&r.users, value);
    } else if (!assoc && (bare || Abbrev(key, "Clusters", 1))) {
      AddList(&r.clusters, value);
    } else if (assoc && (Abbrev(key, "Accounts", 2) || Abbrev(key, "Acct", 4))) {
      AddList(&r.accounts, value);
    } else if (Abbrev(key, "Clusters", 1)) {
      AddList(&r.clusters, value);
    } else if (Abbrev(key, "End", 1)) {
      end = value;
    } else if (Abbrev(key, "Format", 1)) {
      for (const std::string& f : Split(value, ',')) {
        if (!f.empty()) r.format.push_back(f);
      }
    } else if (Abbrev(key, "Start", 1)) {
      start = value;
    } else if (user && Abbrev(key, "TopCount", 1)) {
      char* rest = nullptr;
      const long long n = std::strtoll(value.c_str(), &rest, 10);
      if (n == 0 && *rest != '\0') {
        r.warnings.push_back("sreport: error: Invalid value for TopCount (" + value + ")");
      } else {
        r.top_count = n < 0 ? INT64_MAX : n;
      }
    } else {
      r.warnings.push_back(" Unknown condition: " + a + "\nUse keyword set to modify value");
    }
  }
  auto parse = [&](const std::string& spec) -> int64_t {
    if (spec.empty()) return 0;
    StatusOr<int64_t> t = ParseSlurmTime(spec, now, TimeDirection::kPast);
    if (!t.ok()) {
      r.warnings.push_back("sreport: error: " + t.status().message());
      return 0;  // as Slurm's parse_time: the default then
    }
    return *t;
  };
  r.start = parse(start);
  r.end = parse(end);
  if (r.end > now) r.end = now;  // sanity_check_endtime
  RoundReportPeriod(&r.start, &r.end, now);
}

}  // namespace

StatusOr<SreportRequest> ParseSreportArgs(const std::vector<std::string>& args, int64_t now) {
  SreportRequest r;
  std::string tres_arg;
  ASSIGN_OR_RETURN(CommandLine line, ReadCommandLine(kSreportOptions, args, kSreportStyle, [&](const OptionOccurrence& o) -> Status {
    const std::string v = o.value.value_or("");
    switch (static_cast<SreportOpt>(o.spec->id)) {
      case kCluster:
        AddList(&r.clusters, v);
        break;
      case kNoHeader:
        r.header = false;
        break;
      case kParsable:
        r.parsable = 1;
        break;
      case kParsable2:
        r.parsable = 2;
        break;
      case kSort:
        if (Abbrev(v, "Name", 1)) {
          r.sort_by_name = true;
        } else if (Abbrev(v, "Time", 6)) {
          r.sort_by_name = false;
        } else {
          return InvalidArgument("unknown timesort format " + v);
        }
        break;
      case kTime: {
        ASSIGN_OR_RETURN(r.time, ParseTimeFormat(v));
        break;
      }
      case kTres:
        tres_arg = v;
        r.tres_given = true;
        break;
      case kAllClusters:
      case kHelp:
      case kVersion:
        break;
    }
    return Status::Ok();
  }));
  if (line.meta == "help") return r.help = true, r;
  if (line.meta == "version") return r.version = true, r;
  if (r.tres_given) RETURN_IF_ERROR(ReadTresList(tres_arg, r));
  const std::vector<std::string>& w = line.operands;
  RETURN_IF_ERROR(ReadReportKind(w, r));
  ReadReportConditions(w, now, r);
  return r;
}

int SreportMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  StatusOr<SreportRequest> req = ParseSreportArgs(args, SystemClock().NowSeconds());
  if (!req.ok()) {
    const std::string& m = req.status().message();
    if (m.rfind("unrecognized option", 0) == 0 || m.rfind("invalid option", 0) == 0 || m.rfind("option ", 0) == 0) {
      err << "sreport: " << m << "\nTry \"sreport --help\" for more information\n";
    } else if (m.rfind("invalid keyword", 0) == 0 || m.rfind("too few arguments", 0) == 0 ||
               m.rfind("Not valid report", 0) == 0 || m.rfind("unknown time", 0) == 0) {
      err << m << "\n";  // Slurm's sreport prints these alone
    } else {
      err << "sreport: error: " << m << "\n";
    }
    return 1;
  }
  if (req->help) return out << kHelpText, 0;
  if (req->version) return out << "muster " << kMusterVersion << " (sreport)\n", 0;
  for (const std::string& w : req->warnings) err << w << "\n";
  StatusOr<std::unique_ptr<CtldClient>> c = CtldClient::Connect();
  if (!c.ok()) return ConnectError("sreport", c.status(), err);
  StatusOr<UsageAnswer> usage = (*c)->Usage(req->start, req->end);
  if (!usage.ok()) return ConnectError("sreport", usage.status(), err);
  std::string field_errors;
  out << FormatSreport(*req, *usage, &field_errors);
  err << field_errors;
  return req->warnings.empty() && field_errors.empty() ? 0 : 1;
}

}  // namespace muster
