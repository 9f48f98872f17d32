// sacct, after Slurm 22.05's (src/sacct/options.c as documented in sacct(1)): selection by -j, -u,
// -a, -A, -r, -s, -S, -E; layout by -o (or $SACCT_FORMAT), -b, -l, -X, -n, -p, -P, --json. Its
// options are read with the option engine and kSacctOptions, every option of Slurm's sacct, in
// getopt_long's default order (options may follow operands); getopt's complaints are printed as
// Slurm's sacct prints them: "sacct: " and getopt's line, no more (exit 1).
// Differences, on purpose: -M/-L (clusters) and --duplicates are accepted and have no effect (one
// cluster, one record per job); -s takes the states without requiring -S/-E.
#include "cli/sacct_command.h"

#include <unistd.h>

#include <cstdlib>
#include <set>

#include "base/clock.h"
#include "cli/command_args.h"
#include "cli/ctld_client.h"
#include "model/job_list_json.h"
#include "base/pretty_json.h"
#include "model/record_json.h"
#include "model/slurm_time.h"

namespace muster {
namespace {

std::string Join(const std::set<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ",") + s;
  return out;
}

using Arg = OptionArg;
using Use = OptionUse;

enum SacctOpt : int {
  kAllUsers, kAccounts, kAllocations, kBrief, kOptHelpFormat, kEndTime, kOptHelp, kJobs, kLong, kNoHeader, kFormat,
  kParsable, kParsable2, kPartition, kState, kStartTime, kUser, kOptUsage, kOptVersion, kJson,
};

constexpr char kNotImplemented[] = "not implemented";

constexpr OptionSpec kSacctOptions[] = {
    {"allusers", 'a', Arg::kNone, Use::kOwn, kAllUsers},
    {"accounts", 'A', Arg::kRequired, Use::kOwn, kAccounts},
    {"allocations", 'X', Arg::kNone, Use::kOwn, kAllocations},
    {"brief", 'b', Arg::kNone, Use::kOwn, kBrief},
    {"batch-script", 'B', Arg::kNone, Use::kUnsupported, 0, nullptr, "not implemented: scripts are not kept for sacct"},
    {"completion", 'c', Arg::kNone, Use::kUnsupported, 0, nullptr, "Muster has no job completion plugin"},
    {"constraints", 'C', Arg::kRequired, Use::kUnsupported, 0, nullptr, kNotImplemented},
    {"delimiter", 0, Arg::kRequired, Use::kUnsupported, 0, nullptr, "not implemented: '|' only"},
    {"duplicates", 'D', Arg::kNone, Use::kIgnored, 0, nullptr, "no effect: one record per job"},
    {"federation", 0, Arg::kNone, Use::kUnsupported, 0, nullptr, "one cluster: Muster has no federation"},
    {"helpformat", 'e', Arg::kNone, Use::kMeta, kOptHelpFormat},
    {"help-fields", 'e', Arg::kNone, Use::kMeta, kOptHelpFormat, "helpformat"},
    {"endtime", 'E', Arg::kRequired, Use::kOwn, kEndTime},
    {"env-vars", 0, Arg::kNone, Use::kUnsupported, 0, nullptr, "not implemented: environments are not kept for sacct"},
    {"file", 'f', Arg::kRequired, Use::kUnsupported, 0, nullptr, "Muster has no job completion files"},
    {"flags", 'F', Arg::kRequired, Use::kUnsupported, 0, nullptr, kNotImplemented},
    {"gid", 'g', Arg::kRequired, Use::kUnsupported, 0, "group", "not implemented: no selection by group"},
    {"group", 'g', Arg::kRequired, Use::kUnsupported, 0, nullptr, "not implemented: no selection by group"},
    {"help", 'h', Arg::kNone, Use::kMeta, kOptHelp},
    {"local", 0, Arg::kNone, Use::kIgnored, 0, nullptr, "no effect: one cluster"},
    {"name", 0, Arg::kRequired, Use::kUnsupported, 0, nullptr, "not implemented: no selection by job name"},
    {"nnodes", 'i', Arg::kRequired, Use::kUnsupported, 0, nullptr, kNotImplemented},
    {"ncpus", 'I', Arg::kRequired, Use::kUnsupported, 0, nullptr, kNotImplemented},
    {"jobs", 'j', Arg::kRequired, Use::kOwn, kJobs},
    {"timelimit-min", 'k', Arg::kRequired, Use::kUnsupported, 0, nullptr, kNotImplemented},
    {"timelimit-max", 'K', Arg::kRequired, Use::kUnsupported, 0, nullptr, kNotImplemented},
    {"long", 'l', Arg::kNone, Use::kOwn, kLong},
    {"allclusters", 'L', Arg::kNone, Use::kIgnored, 0, nullptr, "no effect: one cluster"},
    {"cluster", 'M', Arg::kRequired, Use::kIgnored, 0, "clusters", "no effect: one cluster, whichever is named"},
    {"clusters", 'M', Arg::kRequired, Use::kIgnored, 0, nullptr, "no effect: one cluster, whichever is named"},
    {"nodelist", 'N', Arg::kRequired, Use::kUnsupported, 0, nullptr, "not implemented: no selection by node"},
    {"noconvert", 0, Arg::kNone, Use::kUnsupported, 0, nullptr, "not implemented: sizes are printed as Muster formats them"},
    {"units", 0, Arg::kRequired, Use::kUnsupported, 0, nullptr, "not implemented: sizes are printed as Muster formats them"},
    {"noheader", 'n', Arg::kNone, Use::kOwn, kNoHeader},
    {"fields", 'o', Arg::kRequired, Use::kOwn, kFormat, "format"},
    {"format", 'o', Arg::kRequired, Use::kOwn, kFormat},
    {"parsable", 'p', Arg::kNone, Use::kOwn, kParsable},
    {"parsable2", 'P', Arg::kNone, Use::kOwn, kParsable2},
    {"qos", 'q', Arg::kRequired, Use::kUnsupported, 0, nullptr, "not implemented: no selection by QOS"},
    {"partition", 'r', Arg::kRequired, Use::kOwn, kPartition},
    {"reason", 0, Arg::kRequired, Use::kUnsupported, 0, nullptr,
     "not implemented: no selection by reason (Slurm 22.05 has no -R for it either)"},
    {"state", 's', Arg::kRequired, Use::kOwn, kState},
    {"starttime", 'S', Arg::kRequired, Use::kOwn, kStartTime},
    {"truncate", 'T', Arg::kNone, Use::kUnsupported, 0, nullptr, kNotImplemented},
    {"uid", 'u', Arg::kRequired, Use::kOwn, kUser, "user"},
    {"use-local-uid", 0, Arg::kNone, Use::kUnsupported, 0, nullptr, kNotImplemented},
    {"usage", 'U', Arg::kNone, Use::kMeta, kOptUsage},
    {"user", 'u', Arg::kRequired, Use::kOwn, kUser},
    {"verbose", 'v', Arg::kNone, Use::kIgnored, 0, nullptr, "no effect: Muster prints no more"},
    {"version", 'V', Arg::kNone, Use::kMeta, kOptVersion},
    {"wckeys", 'W', Arg::kRequired, Use::kUnsupported, 0, nullptr, "Muster has no WCKeys"},
    {"whole-hetjob", 0, Arg::kOptional, Use::kUnsupported, 0, nullptr,
     "not implemented: -j with a heterogeneous job's id shows every component, a component's id that one"},
    {"associations", 'x', Arg::kRequired, Use::kUnsupported, 0, nullptr, "not implemented: no selection by association"},
    {"json", 0, Arg::kNone, Use::kOwn, kJson},
    {"yaml", 0, Arg::kNone, Use::kUnsupported, 0, nullptr, "not implemented: --json is"},
    {"", 't', Arg::kNone, Use::kOwn, kAllocations, "allocations", "Slurm's old -X"},
};

// Messages without "sacct: " (SacctMain frames them); getopt_long's default order.
constexpr GetoptStyle kSacctStyle{.permute = true};

constexpr char kUsage[] = "Usage: sacct [options]\n\tUse --help for help\n";

constexpr char kHelp[] =
    "sacct [<OPTION>]\n"
    "    Valid <OPTION> values are:\n"
    "     -a, --allusers:    Display jobs for all users.\n"
    "     -A, --accounts:    Use this comma separated list of accounts to select jobs.\n"
    "     -b, --brief:       Equivalent to '--format=jobid,state,exitcode'.\n"
    "     -e, --helpformat:  Print a list of fields that can be specified with '--format'.\n"
    "     -E, --endtime:     Select jobs eligible before this time.\n"
    "     -h, --help:        Print this description of use.\n"
    "     -j, --jobs:        Format is <job(.step)>. Display information about this job or\n"
    "                        comma-separated list of jobs.\n"
    "     --json:            Produce JSON output.\n"
    "     -l, --long:        Equivalent to specifying a long list of fields.\n"
    "     -n, --noheader:    No header will be added to the beginning of output.\n"
    "     -o, --format:      Comma separated list of fields (use \"-e\" for a list); %N sets a width.\n"
    "     -p, --parsable:    Output will be '|' delimited with a '|' at the end.\n"
    "     -P, --parsable2:   Output will be '|' delimited without a '|' at the end.\n"
    "     -r, --partition:   Comma separated list of partitions to select jobs and job steps from.\n"
    "     -s, --state:       Select jobs based on their state during the time period given.\n"
    "     -S, --starttime:   Select jobs eligible after this time (default: midnight today).\n"
    "     -u, --uid, --user: Use this comma separated list of uids or user names to select jobs.\n"
    "     --usage:           Display brief usage message.\n"
    "     -V, --version:     Print version.\n"
    "     -X, --allocations: Only show statistics relevant to the job allocation itself, not steps.\n"
    // Slurm's section, byte for byte (the forms -S and -E read: model/slurm_time.h).
    "\t                                                                    \n"
    "     Note, valid start/end time formats are...                              \n"
    "\t           HH:MM[:SS] [AM|PM]                                       \n"
    "\t           MMDD[YY] or MM/DD[/YY] or MM.DD[.YY]                     \n"
    "\t           MM/DD[/YY]-HH:MM[:SS]                                    \n"
    "\t           YYYY-MM-DD[THH:MM[:SS]]                                  \n"
    "\t           now[{+|-}count[seconds(default)|minutes|hours|days|weeks]]\n"
    "\n";

// getopt's own complaints (model/option_engine.h), which Slurm's sacct prints alone.
bool IsGetoptError(const std::string& m) {
  return m.rfind("unrecognized option '", 0) == 0 || m.rfind("invalid option -- '", 0) == 0 ||
         m.rfind("option '", 0) == 0 || m.rfind("option requires an argument -- '", 0) == 0;
}

}  // namespace

OptionTable SacctOptionTable() { return kSacctOptions; }

namespace {

// What sacct's options ask for beyond the request itself: the filters of its query and the fields.
struct SacctFilters {
  std::set<std::string> ids, users, accounts, partitions, states;
  bool all_users = false, brief = false, long_fmt = false;
  std::string format, start, end;
};

Status ApplySacctOption(const OptionOccurrence& o, SacctRequest& r, SacctFilters& f) {
  const std::string v = o.value.value_or("");
  switch (static_cast<SacctOpt>(o.spec->id)) {
    case kAllUsers:
      f.all_users = true;
      break;
    case kAccounts:
      for (const std::string& s : Split(v, ',')) f.accounts.insert(s);
      break;
    case kAllocations:
      r.options.steps = false;
      break;
    case kBrief:
      f.brief = true;
      break;
    case kEndTime:
      f.end = v;
      break;
    case kJobs:
      for (const std::string& s : Split(v, ',')) {
        const std::string id = s.substr(0, s.find_first_of("._"));
        if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos || id.size() > 15) {
          return InvalidArgument("Invalid job id: " + s);
        }
        f.ids.insert(id);
      }
      break;
    case kLong:
      f.long_fmt = true;
      break;
    case kNoHeader:
      r.options.header = false;
      break;
    case kFormat:
      f.format = v;
      break;
    case kParsable:
      r.options.layout = SacctLayout::kParsable;
      break;
    case kParsable2:
      r.options.layout = SacctLayout::kParsable2;
      break;
    case kPartition:
      for (const std::string& s : Split(v, ',')) f.partitions.insert(s);
      break;
    case kState:
      for (const std::string& s : Split(v, ',')) f.states.insert(s);
      break;
    case kStartTime:
      f.start = v;
      break;
    case kUser:
      for (const std::string& s : Split(v, ',')) {
        if (!s.empty()) f.users.insert(s);
      }
      break;
    case kJson:
      r.json = true;
      break;
    case kOptHelpFormat:
    case kOptHelp:
    case kOptUsage:
    case kOptVersion:
      break;  // kMeta: ReadCommandLine ends the reading there
  }
  return Status::Ok();
}

// GET /v1/accounting's query: the filters given; only the caller's own jobs unless -a, -u or -j;
// from today's midnight unless -S or -j.
StatusOr<std::string> SacctQuery(SacctFilters& f, uint32_t uid, int64_t now) {
  std::string q;
  auto add = [&](const char* key, const std::string& value) {
    if (!value.empty()) q += (q.empty() ? "" : "&") + std::string(key) + "=" + value;
  };
  add("ids", Join(f.ids));
  // Only the caller's own jobs unless -a, -u or -j, or the caller is root (Slurm's default).
  if (f.users.empty() && !f.all_users && f.ids.empty() && uid != 0) f.users.insert(std::to_string(uid));
  add("users", Join(f.users));
  add("accounts", Join(f.accounts));
  add("partitions", Join(f.partitions));
  add("states", Join(f.states));
  if (!f.start.empty()) {
    ASSIGN_OR_RETURN(int64_t t, ParseSlurmTime(f.start, now, TimeDirection::kPast));
    add("start", std::to_string(t));
  } else if (f.ids.empty()) {
    add("start", std::to_string(LocalMidnight(now)));
  }
  if (!f.end.empty()) {
    ASSIGN_OR_RETURN(int64_t t, ParseSlurmTime(f.end, now, TimeDirection::kPast));
    add("end", std::to_string(t));
  }
  return q;
}

}  // namespace

StatusOr<SacctRequest> ParseSacctArgs(const std::vector<std::string>& args, uint32_t uid, int64_t now,
                                      const std::string& sacct_format) {
  SacctRequest r;
  SacctFilters f;
  f.format = sacct_format;
  ASSIGN_OR_RETURN(CommandLine line, ReadCommandLine(kSacctOptions, args, kSacctStyle, [&](const OptionOccurrence& o) {
    return ApplySacctOption(o, r, f);
  }));
  if (!line.meta.empty()) {
    r.help = line.meta == "help";
    r.usage = line.meta == "usage";
    r.version = line.meta == "version";
    r.helpformat = line.meta == "helpformat";
    return r;
  }
  if (!line.operands.empty()) {
    std::string words;
    for (const std::string& w : line.operands) words += " " + w;
    return InvalidArgument("Unknown arguments:" + words);
  }
  if (f.brief) r.options.fields = SacctBriefFields();
  if (f.long_fmt) r.options.fields = SacctLongFields();
  if (!f.format.empty()) {
    ASSIGN_OR_RETURN(r.options.fields, ParseSacctFields(f.format));
  }
  ASSIGN_OR_RETURN(r.query, SacctQuery(f, uid, now));
  return r;
}

int SacctMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const char* env_format = std::getenv("SACCT_FORMAT");
  StatusOr<SacctRequest> req = ParseSacctArgs(args, getuid(), SystemClock().NowSeconds(), env_format ? env_format : "");
  if (!req.ok()) {
    const std::string& m = req.status().message();
    if (IsGetoptError(m)) {
      err << "sacct: " << m << "\n";  // getopt's line; Slurm's sacct adds no "Try" line
    } else {
      err << "sacct: error: " << m << "\n";
    }
    return 1;
  }
  if (req->help) return out << kHelp, 0;
  if (req->usage) return out << kUsage, 0;
  if (req->version) return out << "muster 0.1.0 (sacct)\n", 0;
  if (req->helpformat) return out << FormatSacctHelpFormat(), 0;
  StatusOr<std::unique_ptr<CtldClient>> c = CtldClient::Connect();
  if (!c.ok()) return ConnectError("sacct", c.status(), err);
  StatusOr<std::vector<JobRecord>> jobs = (*c)->AccountingJobs(req->query);
  if (!jobs.ok()) return ConnectError("sacct", jobs.status(), err);
  std::vector<StepRecord> steps;
  if (!jobs->empty() && (req->options.steps || req->json)) {
    std::string ids;
    for (const JobRecord& j : *jobs) ids += (ids.empty() ? "" : ",") + std::to_string(j.id);
    StatusOr<std::vector<StepRecord>> s = (*c)->AccountingSteps(ids);
    if (!s.ok()) return ConnectError("sacct", s.status(), err);
    steps = std::move(*s);
  }
  const int64_t now = SystemClock().NowSeconds();
  if (req->json) {
    out << PrettyJson(SacctJson(*jobs, steps, (*c)->cluster_name(), now)) << "\n";
    return 0;
  }
  req->options.cluster = (*c)->cluster_name();
  out << FormatSacct(*jobs, steps, req->options, now);
  return 0;
}

}  // namespace muster
