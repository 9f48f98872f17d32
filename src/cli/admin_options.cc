// sprio, sshare, scontrol and sacctmgr: their tables (every option of Slurm 22.05's
// src/sprio/opts.c, src/sshare/sshare.c, src/scontrol/scontrol.c and src/sacctmgr/sacctmgr.c, in
// their long_options order, which is the order of an "is ambiguous" message) and their parsers
// (cli/command_options.h).
#include <cstdlib>

#include "cli/command_options.h"

namespace muster {
namespace {

using Arg = OptionArg;
using Use = OptionUse;

constexpr char kOneCluster[] = "one cluster: Muster has no other clusters to name";
constexpr char kNoFederation[] = "one cluster: Muster has no federation";
constexpr char kVerbose[] = "no effect: Muster prints no more";

std::set<std::string> Items(const std::string& list) {
  std::set<std::string> out;
  for (const std::string& s : Split(list, ',')) out.insert(s);
  return out;
}

// ----------------------------------------------------------------------------------------------- sprio

enum SprioOpt : int { kSpNoHeader, kSpJobs, kSpLong, kSpNorm, kSpPartition, kSpUser, kSpWeights };

constexpr OptionSpec kSprioOptions[] = {
    {"noheader", 'h', Arg::kNone, Use::kOwn, kSpNoHeader},
    {"jobs", 'j', Arg::kOptional, Use::kOwn, kSpJobs, nullptr,
     "without a value, the first operand is the job list (-j 12), as in Slurm"},
    {"long", 'l', Arg::kNone, Use::kOwn, kSpLong},
    {"cluster", 'M', Arg::kRequired, Use::kUnsupported, 0, "clusters", kOneCluster},
    {"clusters", 'M', Arg::kRequired, Use::kUnsupported, 0, nullptr, kOneCluster},
    {"norm", 'n', Arg::kNone, Use::kOwn, kSpNorm},
    {"format", 'o', Arg::kRequired, Use::kUnsupported, 0, nullptr, "not implemented: Slurm's default columns only"},
    {"sort", 'S', Arg::kRequired, Use::kUnsupported, 0, nullptr, "not implemented: rows by job id"},
    {"partition", 'p', Arg::kRequired, Use::kOwn, kSpPartition},
    {"user", 'u', Arg::kRequired, Use::kOwn, kSpUser},
    {"users", 'u', Arg::kRequired, Use::kOwn, kSpUser, "user"},
    {"verbose", 'v', Arg::kNone, Use::kIgnored, 0, nullptr, kVerbose},
    {"version", 'V', Arg::kNone, Use::kMeta},
    {"weights", 'w', Arg::kNone, Use::kOwn, kSpWeights},
    {"federation", 0, Arg::kNone, Use::kUnsupported, 0, nullptr, kNoFederation},
    {"help", 0, Arg::kNone, Use::kMeta},
    {"local", 0, Arg::kNone, Use::kIgnored, 0, nullptr, "no effect: every job is local (one cluster)"},
    {"sib", 0, Arg::kNone, Use::kUnsupported, 0, "sibling", kNoFederation},
    {"sibling", 0, Arg::kNone, Use::kUnsupported, 0, nullptr, kNoFederation},
    {"usage", 0, Arg::kNone, Use::kMeta},
};

constexpr GetoptStyle kSprioStyle{.program = "sprio", .end = "\n", .permute = true};
constexpr char kSprioUsage[] = "Usage: sprio [-j jobid[,jobid...]] [-u user[,user...]] [-l] [-n] [-h] [-w]\n";

Status SprioJobs(const std::string& list, SprioArgs* r) {
  for (const std::string& s : Split(list, ',')) {
    char* end = nullptr;
    const long long id = std::strtoll(s.c_str(), &end, 10);
    if (*end != '\0' || id <= 0) return InvalidArgument("sprio: error: Invalid job id: " + s + "\n");
    r->ids.insert(id);
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------- sshare

enum SshareOpt : int { kShAccounts, kShAll, kShLong, kShNoHeader, kShParsable2, kShUsers };

constexpr OptionSpec kSshareOptions[] = {
    {"accounts", 'A', Arg::kRequired, Use::kOwn, kShAccounts},
    {"all", 'a', Arg::kNone, Use::kOwn, kShAll},
    {"helpformat", 'e', Arg::kNone, Use::kUnsupported, 0, nullptr, "not implemented: there is no --format"},
    {"long", 'l', Arg::kNone, Use::kOwn, kShLong},
    {"partition", 'm', Arg::kNone, Use::kUnsupported, 0, nullptr, "not implemented: no partition associations"},
    {"cluster", 'M', Arg::kRequired, Use::kUnsupported, 0, "clusters", kOneCluster},
    {"clusters", 'M', Arg::kRequired, Use::kUnsupported, 0, nullptr, kOneCluster},
    {"noheader", 'n', Arg::kNone, Use::kOwn, kShNoHeader},
    {"format", 'o', Arg::kRequired, Use::kUnsupported, 0, nullptr, "not implemented: Slurm's default columns only"},
    {"parsable", 'p', Arg::kNone, Use::kUnsupported, 0, nullptr, "not implemented: use -P"},
    {"parsable2", 'P', Arg::kNone, Use::kOwn, kShParsable2},
    {"users", 'u', Arg::kRequired, Use::kOwn, kShUsers},
    {"Users", 'U', Arg::kNone, Use::kUnsupported, 0, nullptr, "not implemented"},
    {"verbose", 'v', Arg::kNone, Use::kIgnored, 0, nullptr, kVerbose},
    {"version", 'V', Arg::kNone, Use::kMeta},
    {"help", 0, Arg::kNone, Use::kMeta},
    {"usage", 0, Arg::kNone, Use::kMeta},
    {"", 'h', Arg::kNone, Use::kOwn, kShNoHeader, "noheader", "as -n, as in Slurm"},
    {"", 'q', Arg::kNone, Use::kUnsupported, 0, nullptr,
     "in Slurm's option string without a meaning: its sshare fails (\"getopt error\")"},
    {"", 't', Arg::kRequired, Use::kUnsupported, 0, nullptr,
     "in Slurm's option string without a meaning: its sshare fails (\"getopt error\")"},
};

constexpr GetoptStyle kSshareStyle{.program = "sshare", .end = "\n", .permute = true};

// -------------------------------------------------------------------------------------------- scontrol

enum ScontrolOpt : int { kSoOneLiner, kSoJson };

constexpr OptionSpec kScontrolOptions[] = {
    {"all", 'a', Arg::kNone, Use::kIgnored, 0, nullptr, "no effect: Muster hides no partition"},
    {"cluster", 'M', Arg::kRequired, Use::kUnsupported, 0, "clusters", kOneCluster},
    {"clusters", 'M', Arg::kRequired, Use::kUnsupported, 0, nullptr, kOneCluster},
    {"details", 'd', Arg::kNone, Use::kUnsupported, 0, nullptr, "not implemented: the detailed records"},
    {"federation", 0, Arg::kNone, Use::kUnsupported, 0, nullptr, kNoFederation},
    {"future", 'F', Arg::kNone, Use::kUnsupported, 0, nullptr, "Muster has no FUTURE nodes"},
    {"help", 'h', Arg::kNone, Use::kMeta},
    {"hide", 0, Arg::kNone, Use::kIgnored, 0, nullptr, "no effect: Muster hides no partition"},
    {"local", 0, Arg::kNone, Use::kIgnored, 0, nullptr, "no effect: one cluster"},
    {"oneliner", 'o', Arg::kNone, Use::kOwn, kSoOneLiner},
    {"quiet", 'Q', Arg::kNone, Use::kIgnored, 0, nullptr, "no effect: errors are still printed"},
    {"sibling", 0, Arg::kNone, Use::kUnsupported, 0, nullptr, kNoFederation},
    {"uid", 'u', Arg::kRequired, Use::kUnsupported, 0, nullptr, "not implemented: requests are the caller's"},
    {"usage", 0, Arg::kNone, Use::kMeta, 0, nullptr, "Muster's usage line (Slurm's prints its help)"},
    {"verbose", 'v', Arg::kNone, Use::kIgnored, 0, nullptr, kVerbose},
    {"version", 'V', Arg::kNone, Use::kMeta},
    {"json", 0, Arg::kNone, Use::kOwn, kSoJson, nullptr, "Muster's: Slurm 22.05's scontrol has no --json"},
};

constexpr GetoptStyle kScontrolStyle{.program = "scontrol", .end = "\n", .permute = true};

// -------------------------------------------------------------------------------------------- sacctmgr

enum SacctmgrOpt : int { kSmNoHeader, kSmParsable, kSmParsable2 };

constexpr OptionSpec kSacctmgrOptions[] = {
    {"help", 'h', Arg::kNone, Use::kMeta},
    {"usage", 0, Arg::kNone, Use::kMeta, 0, "help"},
    {"immediate", 'i', Arg::kNone, Use::kIgnored, 0, nullptr, "no effect: changes are never confirmed first"},
    {"noheader", 'n', Arg::kNone, Use::kOwn, kSmNoHeader},
    {"oneliner", 'o', Arg::kNone, Use::kUnsupported, 0, nullptr, "not implemented"},
    {"parsable", 'p', Arg::kNone, Use::kOwn, kSmParsable},
    {"parsable2", 'P', Arg::kNone, Use::kOwn, kSmParsable2},
    {"quiet", 'Q', Arg::kNone, Use::kIgnored, 0, nullptr, "no effect: errors are still printed"},
    {"readonly", 'r', Arg::kNone, Use::kUnsupported, 0, nullptr, "not implemented: changes would not be refused"},
    {"associations", 's', Arg::kNone, Use::kUnsupported, 0, nullptr, "not implemented (show assoc lists them)"},
    {"verbose", 'v', Arg::kNone, Use::kIgnored, 0, nullptr, kVerbose},
    {"version", 'V', Arg::kNone, Use::kMeta},
};

constexpr GetoptStyle kSacctmgrStyle{.program = "sacctmgr", .end = "\n", .permute = true};

}  // namespace

StatusOr<SprioArgs> ParseSprioArgs(const std::vector<std::string>& args) {
  SprioArgs r;
  bool jobs_flag = false;
  ASSIGN_OR_RETURN(
      CommandLine line, ReadCommandLine(kSprioOptions, args, kSprioStyle, [&](const OptionOccurrence& o) -> Status {
        const std::string v = o.value.value_or("");
        switch (static_cast<SprioOpt>(o.spec->id)) {
          case kSpNoHeader:
            r.opt.no_header = true;
            break;
          case kSpJobs:
            jobs_flag = true;
            if (o.value) return SprioJobs(v, &r);
            break;
          case kSpLong:
            r.opt.long_list = true;
            break;
          case kSpNorm:
            r.opt.normalized = true;
            break;
          case kSpPartition:
            for (const std::string& s : Items(v)) r.partitions.insert(s);
            break;
          case kSpUser:
            for (const std::string& s : Items(v)) r.users.insert(s);
            r.opt.show_user = true;
            break;
          case kSpWeights:
            r.opt.weights = true;
            break;
        }
        return Status::Ok();
      }));
  r.meta = line.meta;
  if (!r.meta.empty()) return r;  // answered at once, the rest unread
  size_t next = 0;
  if (next < line.operands.size() && jobs_flag) RETURN_IF_ERROR(SprioJobs(line.operands[next++], &r));
  if (next < line.operands.size()) {
    return InvalidArgument("sprio: error: Unrecognized option: " + line.operands[next] + "\n" + kSprioUsage);
  }
  return r;
}

OptionTable SprioOptionTable() { return kSprioOptions; }

std::string SprioUsage() { return kSprioUsage; }

StatusOr<SshareArgs> ParseSshareArgs(const std::vector<std::string>& args) {
  SshareArgs r;
  ASSIGN_OR_RETURN(
      CommandLine line, ReadCommandLine(kSshareOptions, args, kSshareStyle, [&](const OptionOccurrence& o) -> Status {
        const std::string v = o.value.value_or("");
        switch (static_cast<SshareOpt>(o.spec->id)) {
          case kShAccounts:
            for (const std::string& s : Items(v)) r.accounts.insert(s);
            break;
          case kShAll:
            r.all = true;
            break;
          case kShLong:
            r.opt.long_list = true;
            break;
          case kShNoHeader:
            r.opt.no_header = true;
            break;
          case kShParsable2:
            r.opt.parsable = true;
            break;
          case kShUsers:
            for (const std::string& s : Items(v)) r.users.insert(s);
            break;
        }
        return Status::Ok();
      }));
  r.meta = line.meta;
  if (!r.meta.empty()) return r;  // answered at once, the rest unread
  // Slurm's sshare ignores operands; Muster says that it does not take them.
  RETURN_IF_ERROR(RefuseOperands("sshare", line));
  return r;
}

OptionTable SshareOptionTable() { return kSshareOptions; }

StatusOr<ScontrolArgs> ParseScontrolArgs(const std::vector<std::string>& args) {
  ScontrolArgs r;
  ASSIGN_OR_RETURN(CommandLine line,
                   ReadCommandLine(kScontrolOptions, args, kScontrolStyle, [&](const OptionOccurrence& o) -> Status {
                     if (o.spec->id == kSoOneLiner) r.one_liner = true;
                     if (o.spec->id == kSoJson) r.json = true;
                     return Status::Ok();
                   }));
  r.meta = line.meta;
  if (!r.meta.empty()) return r;  // answered at once, the rest unread
  r.words = std::move(line.operands);
  return r;
}

OptionTable ScontrolOptionTable() { return kScontrolOptions; }

StatusOr<SacctmgrArgs> ParseSacctmgrArgs(const std::vector<std::string>& args) {
  SacctmgrArgs r;
  ASSIGN_OR_RETURN(CommandLine line,
                   ReadCommandLine(kSacctmgrOptions, args, kSacctmgrStyle, [&](const OptionOccurrence& o) -> Status {
                     switch (static_cast<SacctmgrOpt>(o.spec->id)) {
                       case kSmNoHeader:
                         r.header = false;
                         break;
                       case kSmParsable:
                         r.parsable = 2;
                         break;
                       case kSmParsable2:
                         r.parsable = 1;
                         break;
                     }
                     return Status::Ok();
                   }));
  r.meta = line.meta;
  if (!r.meta.empty()) return r;  // answered at once, the rest unread
  r.words = std::move(line.operands);
  return r;
}

OptionTable SacctmgrOptionTable() { return kSacctmgrOptions; }

}  // namespace muster
