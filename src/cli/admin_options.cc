// sprio, sshare, scontrol and sacctmgr: their tables (every option of Slurm 22.05's
// src/sprio/opts.c, src/sshare/sshare.c, src/scontrol/scontrol.c and src/sacctmgr/sacctmgr.c, in
// their long_options order, which is the order of an "is ambiguous" message) and their parsers
// (cli/command_options.h).
#include <cstdlib>

#include "cli/command_options.h"

#include <string_view>

#include "base/strings.h"

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

enum SprioOpt : int { kSpNoHeader, kSpJobs, kSpLong, kSpNorm, kSpPartition, kSpUser, kSpWeights, kSpFormat };

constexpr OptionSpec kSprioOptions[] = {
    {"noheader", 'h', Arg::kNone, Use::kOwn, kSpNoHeader},
    {"jobs", 'j', Arg::kOptional, Use::kOwn, kSpJobs, nullptr,
     "without a value, the first operand is the job list (-j 12), as in Slurm"},
    {"long", 'l', Arg::kNone, Use::kOwn, kSpLong, nullptr,
     "ASSOC is 0 (no association factor) and TRES empty; with -n Muster keeps the columns of -l"},
    {"cluster", 'M', Arg::kRequired, Use::kUnsupported, 0, "clusters", kOneCluster},
    {"clusters", 'M', Arg::kRequired, Use::kUnsupported, 0, nullptr, kOneCluster},
    {"norm", 'n', Arg::kNone, Use::kOwn, kSpNorm},
    {"format", 'o', Arg::kRequired, Use::kOwn, kSpFormat, nullptr,
     "ASSOC (%b, %B) is 0, CLUSTER (%c) and TRES (%t, %T) empty; an unknown field is an error (Slurm skips it)"},
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
constexpr char kSprioUsage[] =  // Slurm 22.05's, word for word
    "Usage: sprio [-j jid[s]] [-u user_name[s]] [-o format] [-p partitions]\n"
    "   [--federation] [--local] [--sibling] [--usage] [-hlnvVw]\n";

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

enum ScontrolOpt : int { kSoOneLiner, kSoJson, kSoDetails };

constexpr OptionSpec kScontrolOptions[] = {
    {"all", 'a', Arg::kNone, Use::kIgnored, 0, nullptr, "no effect: Muster hides no partition"},
    {"cluster", 'M', Arg::kRequired, Use::kUnsupported, 0, "clusters", kOneCluster},
    {"clusters", 'M', Arg::kRequired, Use::kUnsupported, 0, nullptr, kOneCluster},
    {"details", 'd', Arg::kNone, Use::kOwn, kSoDetails, nullptr,
     "Slurm's detail lines (a job's DerivedExitCode, JOB_GRES and per-node Mem and GRES indexes; a node's "
     "GresDrain and GresUsed), without a job's CPU_IDs: nodes choose their CPUs"},
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

constexpr char kNoReservations[] = "Muster has no reservations";
constexpr char kConfigured[] = "partitions come from the cluster file (docs/configuration.md); Muster has no reservations";
constexpr char kDaemonLogs[] = "the daemons' log levels are set on their command lines (docs/configuration.md)";
constexpr char kNoReboot[] = "Muster does not reboot nodes";
constexpr char kNoInteractive[] = "no interactive mode: scontrol runs the one command given";

// Every command of Slurm 22.05's scontrol (src/scontrol/scontrol.c, `scontrol help`), and the
// entities of its show.
constexpr ScontrolCommandSpec kScontrolCommands[] = {
    {"abort", Use::kUnsupported, "the controller is stopped by `muster down` or its service manager"},
    {"all", Use::kIgnored, "no effect: Muster hides no partition"},
    {"cancel_reboot", Use::kUnsupported, kNoReboot},
    {"cluster", Use::kUnsupported, kOneCluster},
    {"completing", Use::kUnsupported, "not implemented: `squeue -t CG` lists completing jobs"},
    {"create", Use::kUnsupported, kConfigured},
    {"delete", Use::kUnsupported, kConfigured},
    {"details", Use::kIgnored, "no interactive mode: alone on the line it changes nothing (use -d)"},
    {"errnumstr", Use::kUnsupported, "Muster's errors are text, not Slurm's error numbers"},
    {"exit", Use::kIgnored, kNoInteractive},
    {"fsdampeningfactor", Use::kUnsupported, "fair share is configured in muster.yaml"},
    {"getaddrs", Use::kUnsupported, "not implemented: agents are reached through the controller"},
    {"help", Use::kMeta, "Muster's help"},
    {"hide", Use::kIgnored, "no effect: Muster hides no partition"},
    {"hold", Use::kOwn, "job ids only (Slurm also takes job names)"},
    {"holdu", Use::kOwn, "as uhold"},
    {"listpids", Use::kUnsupported, "not implemented: the agent knows the processes of its runs"},
    {"notify", Use::kUnsupported, "not implemented: no message path to a job's srun"},
    {"oneliner", Use::kIgnored, "no interactive mode: alone on the line it changes nothing (use -o)"},
    {"pidinfo", Use::kUnsupported, "not implemented"},
    {"ping", Use::kOwn, "with controller.hosts each controller in order (primary, backup or backup1, backup2...), UP when it answers, leading or standing by; without, the one controller: Slurmctld(primary) at <this host> is UP"},
    {"power", Use::kUnsupported, "Muster has no power saving"},
    {"quiet", Use::kIgnored, "no effect: errors are still printed"},
    {"quit", Use::kIgnored, kNoInteractive},
    {"reboot", Use::kUnsupported, kNoReboot},
    {"reboot_nodes", Use::kUnsupported, kNoReboot},
    {"reconfigure", Use::kOwn,
     "the leading controller reads muster.yaml and the cluster file again and checks them (an error is printed and nothing changes), then starts again in its own process (as Slurm 23.11's slurmctld); configless agents (musterd --conf-server) fetch the new files and start again, their jobs running on"},
    {"release", Use::kOwn, "job ids only (Slurm also takes job names)"},
    {"requeue", Use::kOwn},
    {"requeuehold", Use::kUnsupported, "not implemented: requeue, then hold"},
    {"resume", Use::kUnsupported, "not implemented: only preemption suspends jobs"},
    {"schedloglevel", Use::kUnsupported, kDaemonLogs},
    {"setdebug", Use::kUnsupported, kDaemonLogs},
    {"setdebugflags", Use::kUnsupported, kDaemonLogs},
    {"show", Use::kOwn, "the entities below"},
    {"show aliases", Use::kUnsupported, "Muster's nodes have no aliases"},
    {"show assoc_mgr", Use::kUnsupported, "not implemented: `sshare` and `sacctmgr show assoc` list associations"},
    {"show bbstat", Use::kUnsupported, "Muster has no burst buffers"},
    {"show burstbuffer", Use::kUnsupported, "Muster has no burst buffers"},
    {"show config", Use::kOwn, "the keys Muster has"},
    {"show daemons", Use::kUnsupported, "not implemented"},
    {"show dwstat", Use::kUnsupported, "Muster has no burst buffers"},
    {"show federation", Use::kUnsupported, kNoFederation},
    {"show frontend", Use::kUnsupported, "Muster has no front-end nodes"},
    {"show hostlist", Use::kOwn},
    {"show hostlistsorted", Use::kOwn},
    {"show hostnames", Use::kOwn},
    {"show job", Use::kOwn, "--json prints Muster's job records"},
    {"show licenses", Use::kUnsupported, "Muster has no licenses"},
    {"show node", Use::kOwn, "--json prints Muster's node records"},
    {"show partition", Use::kOwn},
    {"show reservation", Use::kUnsupported, kNoReservations},
    {"show slurmd", Use::kUnsupported, "Muster's node agent is musterd"},
    {"show step", Use::kUnsupported, "not implemented: `squeue -s` lists steps"},
    {"show topology", Use::kUnsupported, "not implemented"},
    {"shutdown", Use::kUnsupported, "the controller is stopped by `muster down` or its service manager"},
    {"suspend", Use::kUnsupported, "not implemented: only preemption suspends jobs"},
    {"takeover", Use::kUnsupported, "Muster has one controller, no backup"},
    {"token", Use::kOwn,
     "a JWT for slurmrestd's REST API, signed with controller.jwt_key (`lifespan=`: a user's at most "
     "controller.jwt_max_lifespan, Slurm's max_token_lifespan; `username=`: root and admins only)"},
    {"top", Use::kUnsupported, "not implemented"},
    {"uhold", Use::kOwn, "as hold: Muster keeps no separate user hold"},
    {"update", Use::kOwn,
     "JobId= (TimeLimit, JobName, Comment, Nice, Dependency, StartTime) and NodeName= (State, Reason) only"},
    {"verbose", Use::kIgnored, kVerbose},
    {"version", Use::kOwn, "Muster's version, as -V (see the kept differences)"},
    {"wait_job", Use::kUnsupported, "not implemented: a running job's nodes are ready"},
    {"write", Use::kUnsupported, "not implemented"},
};

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
          case kSpFormat:
            if (const std::string bad = InvalidSprioField(v); !bad.empty()) {
              return InvalidArgument("sprio: error: Invalid job format specification: " + bad + "\n");
            }
            r.opt.format = v;
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
                     if (o.spec->id == kSoDetails) r.details = true;
                     return Status::Ok();
                   }));
  r.meta = line.meta;
  if (!r.meta.empty()) return r;  // answered at once, the rest unread
  r.words = std::move(line.operands);
  return r;
}

OptionTable ScontrolOptionTable() { return kScontrolOptions; }

std::span<const ScontrolCommandSpec> ScontrolCommandTable() { return kScontrolCommands; }

const ScontrolCommandSpec* FindScontrolCommand(const std::vector<std::string>& words) {
  if (words.empty()) return nullptr;
  const auto find = [](const std::string& name) -> const ScontrolCommandSpec* {
    for (const ScontrolCommandSpec& c : kScontrolCommands) {
      if (name == c.name) return &c;
    }
    return nullptr;
  };
  const std::string verb = Lower(words[0]);
  if (words.size() >= 2) {
    std::string entity = Lower(words[1]);
    if (entity.size() > 1 && entity.back() == 's' && find(verb + " " + entity) == nullptr) entity.pop_back();
    if (const ScontrolCommandSpec* c = find(verb + " " + entity)) return c;
    // A prefix of one entity names it ("show hostname"), as Slurm's abbreviations do.
    const std::string prefix = verb + " " + entity;
    const ScontrolCommandSpec* only = nullptr;
    int n = 0;
    for (const ScontrolCommandSpec& c : kScontrolCommands) {
      if (std::string_view(c.name).starts_with(prefix)) only = &c, ++n;
    }
    if (n == 1) return only;
  }
  return find(verb);
}

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
