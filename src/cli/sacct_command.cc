// sacct, after Slurm 22.05's (src/sacct/options.c as documented in sacct(1)): selection by -j, -u,
// -a, -A, -r, -s, -S, -E; layout by -o (or $SACCT_FORMAT), -b, -l, -X, -n, -p, -P, --json.
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
    "     -X, --allocations: Only show statistics relevant to the job allocation itself, not steps.\n";

}  // namespace

StatusOr<SacctRequest> ParseSacctArgs(const std::vector<std::string>& args, uint32_t uid, int64_t now,
                                      const std::string& sacct_format) {
  SacctRequest r;
  std::set<std::string> ids, users, accounts, partitions, states;
  bool all_users = false, brief = false, long_fmt = false;
  std::string format = sacct_format, start, end;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string v;
    if (a == "-a" || a == "--allusers") {
      all_users = true;
    } else if (a == "-b" || a == "--brief") {
      brief = true;
    } else if (a == "-l" || a == "--long") {
      long_fmt = true;
    } else if (a == "-X" || a == "--allocations") {
      r.options.steps = false;
    } else if (a == "-n" || a == "--noheader") {
      r.options.header = false;
    } else if (a == "-p" || a == "--parsable") {
      r.options.layout = SacctLayout::kParsable;
    } else if (a == "-P" || a == "--parsable2") {
      r.options.layout = SacctLayout::kParsable2;
    } else if (a == "--json") {
      r.json = true;
    } else if (a == "-h" || a == "--help") {
      r.help = true;
    } else if (a == "--usage") {
      r.usage = true;
    } else if (a == "-V" || a == "--version") {
      r.version = true;
    } else if (a == "-e" || a == "--helpformat") {
      r.helpformat = true;
    } else if (a == "-D" || a == "--duplicates" || a == "-L" || a == "--allclusters" || a == "-X") {
      // accepted without effect: one cluster, one record per job
    } else if (TakeValue(args, i, "-M", "--clusters", &v)) {
    } else if (TakeValue(args, i, "-j", "--jobs", &v)) {
      for (const std::string& s : Split(v, ',')) {
        const std::string id = s.substr(0, s.find_first_of("._"));
        if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos || id.size() > 15) {
          return InvalidArgument("Invalid job id: " + s);
        }
        ids.insert(id);
      }
    } else if (TakeValue(args, i, "-u", "--user", &v) || TakeValue(args, i, "", "--uid", &v)) {
      for (const std::string& s : Split(v, ',')) {
        if (!s.empty()) users.insert(s);
      }
    } else if (TakeValue(args, i, "-A", "--accounts", &v)) {
      for (const std::string& s : Split(v, ',')) accounts.insert(s);
    } else if (TakeValue(args, i, "-r", "--partition", &v)) {
      for (const std::string& s : Split(v, ',')) partitions.insert(s);
    } else if (TakeValue(args, i, "-s", "--state", &v)) {
      for (const std::string& s : Split(v, ',')) states.insert(s);
    } else if (TakeValue(args, i, "-S", "--starttime", &v)) {
      start = v;
    } else if (TakeValue(args, i, "-E", "--endtime", &v)) {
      end = v;
    } else if (TakeValue(args, i, "-o", "--format", &v)) {
      format = v;
    } else if (!a.empty() && a[0] == '-') {
      return Status(StatusCode::kInvalidArgument, "unrecognized option '" + a + "'");
    } else {
      return InvalidArgument("Unknown arguments: " + a);
    }
  }
  if (brief) r.options.fields = SacctBriefFields();
  if (long_fmt) r.options.fields = SacctLongFields();
  if (!format.empty()) {
    ASSIGN_OR_RETURN(r.options.fields, ParseSacctFields(format));
  }
  std::string q;
  auto add = [&](const char* key, const std::string& value) {
    if (!value.empty()) q += (q.empty() ? "" : "&") + std::string(key) + "=" + value;
  };
  add("ids", Join(ids));
  // Only the caller's own jobs unless -a, -u or -j, or the caller is root (Slurm's default).
  if (users.empty() && !all_users && ids.empty() && uid != 0) users.insert(std::to_string(uid));
  add("users", Join(users));
  add("accounts", Join(accounts));
  add("partitions", Join(partitions));
  add("states", Join(states));
  if (!start.empty()) {
    ASSIGN_OR_RETURN(int64_t t, ParseSlurmTime(start, now));
    add("start", std::to_string(t));
  } else if (ids.empty()) {
    add("start", std::to_string(LocalMidnight(now)));
  }
  if (!end.empty()) {
    ASSIGN_OR_RETURN(int64_t t, ParseSlurmTime(end, now));
    add("end", std::to_string(t));
  }
  r.query = q;
  return r;
}

int SacctMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const char* env_format = std::getenv("SACCT_FORMAT");
  StatusOr<SacctRequest> req = ParseSacctArgs(args, getuid(), SystemClock().NowSeconds(), env_format ? env_format : "");
  if (!req.ok()) {
    const std::string& m = req.status().message();
    if (m.rfind("unrecognized option", 0) == 0) {
      err << "sacct: " << m << "\nTry \"sacct --help\" for more information\n";
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
