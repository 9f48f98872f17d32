// squeue, sinfo and scancel: their tables (every option of Slurm 22.05's src/squeue/opts.c,
// src/sinfo/opts.c and src/scancel/opt.c, in their long_options order, which is the order of an
// "is ambiguous" message) and their parsers (cli/command_options.h).
#include <csignal>
#include <sstream>

#include "cli/command_help.h"
#include "cli/command_options.h"
#include "model/hostlist.h"

namespace muster {
namespace {

using Arg = OptionArg;
using Use = OptionUse;

constexpr char kOneCluster[] = "one cluster: Muster has no other clusters to name";
constexpr char kNoFederation[] = "one cluster: Muster has no federation";
constexpr char kNoHiddenPartitions[] = "no effect: Muster hides no partition";
constexpr char kNoIterate[] = "not implemented (run the command under watch(1))";
constexpr char kNoConvert[] = "not implemented: sizes are printed as Muster formats them";
constexpr char kOnlyJson[] = "not implemented: --json is";
constexpr char kNoReservations[] = "Muster has no reservations";
constexpr char kVerbose[] = "no effect: Muster prints no more";

// Slurm's usage line after an error about an operand (Slurm prints it with the error, then exits 1).
std::string UsageOf(const char* command) {
  std::ostringstream s;
  AnswerMetaOption(command, {"--usage"}, s);
  return s.str();
}

std::set<std::string> Items(const std::string& list) {
  std::set<std::string> out;
  for (const std::string& s : Split(list, ',')) out.insert(s);
  return out;
}

// ---------------------------------------------------------------------------------------------- squeue

enum SqueueOpt : int {
  kSqAccounts, kSqArray, kSqFormatFields, kSqFormat, kSqJobs, kSqLong, kSqMe, kSqName, kSqNoHeader,
  kSqPartitions, kSqSort, kSqStart, kSqSteps, kSqStates, kSqUser, kSqJson,
};

constexpr OptionSpec kSqueueOptions[] = {
    {"accounts", 'A', Arg::kRequired, Use::kOwn, kSqAccounts},
    {"all", 'a', Arg::kNone, Use::kIgnored, 0, nullptr, kNoHiddenPartitions},
    {"array", 'r', Arg::kNone, Use::kOwn, kSqArray},
    {"array-unique", 0, Arg::kNone, Use::kUnsupported, 0, nullptr, "not implemented"},
    {"Format", 'O', Arg::kRequired, Use::kOwn, kSqFormatFields},
    {"format", 'o', Arg::kRequired, Use::kOwn, kSqFormat},
    {"federation", 0, Arg::kNone, Use::kUnsupported, 0, nullptr, kNoFederation},
    {"help", 0, Arg::kNone, Use::kMeta},
    {"hide", 0, Arg::kNone, Use::kIgnored, 0, nullptr, kNoHiddenPartitions},
    {"iterate", 'i', Arg::kRequired, Use::kUnsupported, 0, nullptr, kNoIterate},
    {"jobs", 'j', Arg::kOptional, Use::kOwn, kSqJobs, nullptr,
     "without a value, the first operand is the job list (-j 12), as in Slurm"},
    {"local", 0, Arg::kNone, Use::kIgnored, 0, nullptr, "no effect: every job is local (one cluster)"},
    {"long", 'l', Arg::kNone, Use::kOwn, kSqLong},
    {"licenses", 'L', Arg::kRequired, Use::kUnsupported, 0, nullptr, "Muster has no licenses"},
    {"cluster", 'M', Arg::kRequired, Use::kUnsupported, 0, "clusters", kOneCluster},
    {"clusters", 'M', Arg::kRequired, Use::kUnsupported, 0, nullptr, kOneCluster},
    {"me", 0, Arg::kNone, Use::kOwn, kSqMe},
    {"name", 'n', Arg::kRequired, Use::kOwn, kSqName},
    {"noconvert", 0, Arg::kNone, Use::kUnsupported, 0, nullptr, kNoConvert},
    {"node", 'w', Arg::kRequired, Use::kUnsupported, 0, "nodelist", "not implemented: no selection by node"},
    {"nodes", 'w', Arg::kRequired, Use::kUnsupported, 0, "nodelist", "not implemented: no selection by node"},
    {"nodelist", 'w', Arg::kRequired, Use::kUnsupported, 0, nullptr, "not implemented: no selection by node"},
    {"noheader", 'h', Arg::kNone, Use::kOwn, kSqNoHeader},
    {"partitions", 'p', Arg::kRequired, Use::kOwn, kSqPartitions},
    {"priority", 'P', Arg::kNone, Use::kUnsupported, 0, nullptr,
     "not implemented: a job is listed once, in the partition it runs or waits in"},
    {"qos", 'q', Arg::kRequired, Use::kUnsupported, 0, nullptr, "not implemented: no selection by QOS"},
    {"reservation", 'R', Arg::kRequired, Use::kUnsupported, 0, nullptr, kNoReservations},
    {"sib", 0, Arg::kNone, Use::kUnsupported, 0, "sibling", kNoFederation},
    {"sibling", 0, Arg::kNone, Use::kUnsupported, 0, nullptr, kNoFederation},
    {"sort", 'S', Arg::kRequired, Use::kOwn, kSqSort},
    {"start", 0, Arg::kNone, Use::kOwn, kSqStart},
    {"steps", 's', Arg::kOptional, Use::kOwn, kSqSteps, nullptr,
     "without a value, the first operand is the step list, as in Slurm"},
    {"states", 't', Arg::kRequired, Use::kOwn, kSqStates},
    {"usage", 0, Arg::kNone, Use::kMeta},
    {"user", 'u', Arg::kRequired, Use::kOwn, kSqUser},
    {"users", 'u', Arg::kRequired, Use::kOwn, kSqUser, "user"},
    {"verbose", 'v', Arg::kNone, Use::kIgnored, 0, nullptr, kVerbose},
    {"version", 'V', Arg::kNone, Use::kMeta},
    {"json", 0, Arg::kNone, Use::kOwn, kSqJson},
    {"yaml", 0, Arg::kNone, Use::kUnsupported, 0, nullptr, kOnlyJson},
    {"", 'U', Arg::kRequired, Use::kOwn, kSqAccounts, "accounts", "Slurm's old -A"},
};

constexpr GetoptStyle kSqueueStyle{.program = "squeue", .end = "\n", .permute = true};

Status SqueueJobs(const std::string& list, SqueueArgs* r) {
  for (const std::string& s : Split(list, ',')) {
    if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string::npos) {
      return InvalidArgument("squeue: error: Invalid job id: " + s + "\n");
    }
    r->selection.ids.insert(std::stoll(s));
  }
  return Status::Ok();
}

Status SqueueStates(const std::string& list, SqueueArgs* r) {
  for (const std::string& s : Split(list, ',')) {
    std::string up = s;
    for (char& ch : up) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    if (up == "ALL") {
      r->selection.states.insert("ALL");
      continue;
    }
    StatusOr<JobState> st = ParseJobState(up);
    if (!st.ok()) {
      return InvalidArgument(
          "squeue: error: Invalid job state specified: " + s +
          "\nsqueue: error: Valid job states include: PENDING,RUNNING,SUSPENDED,COMPLETED,CANCELLED,FAILED,"
          "TIMEOUT,NODE_FAIL,PREEMPTED,BOOT_FAIL,DEADLINE,OUT_OF_MEMORY,COMPLETING\n\n");
    }
    r->selection.states.insert(JobStateName(*st));
  }
  return Status::Ok();
}

// ----------------------------------------------------------------------------------------------- sinfo

enum SinfoOpt : int { kSiLong, kSiNodes, kSiNoHeader, kSiNode, kSiFormat, kSiPartition, kSiReasons, kSiSummarize,
                      kSiStates, kSiJson };

constexpr OptionSpec kSinfoOptions[] = {
    {"all", 'a', Arg::kNone, Use::kIgnored, 0, nullptr, kNoHiddenPartitions},
    {"dead", 'd', Arg::kNone, Use::kUnsupported, 0, nullptr, "not implemented (-t down,no_respond selects nodes)"},
    {"exact", 'e', Arg::kNone, Use::kUnsupported, 0, nullptr, "not implemented: nodes are grouped as Muster groups them"},
    {"federation", 0, Arg::kNone, Use::kUnsupported, 0, nullptr, kNoFederation},
    {"help", 0, Arg::kNone, Use::kMeta},
    {"hide", 0, Arg::kNone, Use::kIgnored, 0, nullptr, kNoHiddenPartitions},
    {"iterate", 'i', Arg::kRequired, Use::kUnsupported, 0, nullptr, kNoIterate},
    {"local", 0, Arg::kNone, Use::kIgnored, 0, nullptr, "no effect: one cluster"},
    {"long", 'l', Arg::kNone, Use::kOwn, kSiLong},
    {"cluster", 'M', Arg::kRequired, Use::kUnsupported, 0, "clusters", kOneCluster},
    {"clusters", 'M', Arg::kRequired, Use::kUnsupported, 0, nullptr, kOneCluster},
    {"nodes", 'n', Arg::kRequired, Use::kOwn, kSiNodes},
    {"noconvert", 0, Arg::kNone, Use::kUnsupported, 0, nullptr, kNoConvert},
    {"noheader", 'h', Arg::kNone, Use::kOwn, kSiNoHeader},
    {"Node", 'N', Arg::kNone, Use::kOwn, kSiNode},
    {"format", 'o', Arg::kRequired, Use::kOwn, kSiFormat},
    {"Format", 'O', Arg::kRequired, Use::kUnsupported, 0, nullptr, "not implemented: use -o"},
    {"partition", 'p', Arg::kRequired, Use::kOwn, kSiPartition},
    {"responding", 'r', Arg::kNone, Use::kUnsupported, 0, nullptr, "not implemented (-t selects nodes by state)"},
    {"list-reasons", 'R', Arg::kNone, Use::kOwn, kSiReasons},
    {"summarize", 's', Arg::kNone, Use::kOwn, kSiSummarize},
    {"sort", 'S', Arg::kRequired, Use::kUnsupported, 0, nullptr, "not implemented: Slurm's default order only"},
    {"states", 't', Arg::kRequired, Use::kOwn, kSiStates},
    {"reservation", 'T', Arg::kNone, Use::kUnsupported, 0, nullptr, kNoReservations},
    {"usage", 0, Arg::kNone, Use::kMeta},
    {"verbose", 'v', Arg::kNone, Use::kIgnored, 0, nullptr, kVerbose},
    {"version", 'V', Arg::kNone, Use::kMeta},
    {"json", 0, Arg::kNone, Use::kOwn, kSiJson},
    {"yaml", 0, Arg::kNone, Use::kUnsupported, 0, nullptr, kOnlyJson},
};

constexpr GetoptStyle kSinfoStyle{.program = "sinfo", .end = "\n", .permute = true};

// --------------------------------------------------------------------------------------------- scancel

enum ScancelOpt : int { kScAccount, kScBatch, kScFull, kScMe, kScName, kScNodelist, kScPartition, kScSignal,
                        kScState, kScUser, kScVerbose };

constexpr OptionSpec kScancelOptions[] = {
    {"account", 'A', Arg::kRequired, Use::kOwn, kScAccount},
    {"batch", 'b', Arg::kNone, Use::kOwn, kScBatch},
    {"ctld", 0, Arg::kNone, Use::kIgnored, 0, nullptr, "no effect: requests always go to the controller"},
    {"full", 'f', Arg::kNone, Use::kOwn, kScFull},
    {"help", 'h', Arg::kNone, Use::kMeta, 0, nullptr, "-h is Muster's (Slurm's scancel has --help alone)"},
    {"hurry", 'H', Arg::kNone, Use::kIgnored, 0, nullptr, "no effect: Muster has no burst buffers to skip"},
    {"interactive", 'i', Arg::kNone, Use::kUnsupported, 0, nullptr, "not implemented: no confirmation prompt"},
    {"cluster", 'M', Arg::kRequired, Use::kUnsupported, 0, "clusters", kOneCluster},
    {"clusters", 'M', Arg::kRequired, Use::kUnsupported, 0, nullptr, kOneCluster},
    {"jobname", 'n', Arg::kRequired, Use::kOwn, kScName, "name"},
    {"me", 0, Arg::kNone, Use::kOwn, kScMe},
    {"name", 'n', Arg::kRequired, Use::kOwn, kScName},
    {"nodelist", 'w', Arg::kRequired, Use::kOwn, kScNodelist},
    {"partition", 'p', Arg::kRequired, Use::kOwn, kScPartition},
    {"qos", 'q', Arg::kRequired, Use::kUnsupported, 0, nullptr, "not implemented: no selection by QOS"},
    {"quiet", 'Q', Arg::kNone, Use::kIgnored, 0, nullptr, "no effect: errors are still printed"},
    {"reservation", 'R', Arg::kRequired, Use::kUnsupported, 0, nullptr, kNoReservations},
    {"sibling", 0, Arg::kRequired, Use::kUnsupported, 0, nullptr, kNoFederation},
    {"signal", 's', Arg::kRequired, Use::kOwn, kScSignal},
    {"state", 't', Arg::kRequired, Use::kOwn, kScState},
    {"usage", 0, Arg::kNone, Use::kMeta},
    {"user", 'u', Arg::kRequired, Use::kOwn, kScUser},
    {"verbose", 'v', Arg::kNone, Use::kOwn, kScVerbose},
    {"version", 'V', Arg::kNone, Use::kMeta},
    {"wckey", 0, Arg::kRequired, Use::kUnsupported, 0, nullptr, "Muster has no WCKeys"},
};

constexpr GetoptStyle kScancelStyle{.program = "scancel", .end = "\n", .permute = true};

}  // namespace

StatusOr<SqueueArgs> ParseSqueueArgs(const std::vector<std::string>& args, uint32_t uid, const GetEnv& getenv) {
  SqueueArgs r;
  // The default layouts from the environment, as Slurm's squeue reads them; options override.
  if (const char* f = getenv("SQUEUE_FORMAT"); f != nullptr && *f) r.format = f;
  if (const char* f = getenv("SQUEUE_FORMAT2"); f != nullptr && *f) r.fields = f;
  if (const char* f = getenv("SQUEUE_SORT"); f != nullptr && *f) r.opt.sort_keys = f;
  bool jobs_flag = false;
  ASSIGN_OR_RETURN(
      CommandLine line, ReadCommandLine(kSqueueOptions, args, kSqueueStyle, [&](const OptionOccurrence& o) -> Status {
        const std::string v = o.value.value_or("");
        switch (static_cast<SqueueOpt>(o.spec->id)) {
          case kSqAccounts:
            for (const std::string& s : Items(v)) r.selection.accounts.insert(s);
            break;
          case kSqArray:
            r.opt.expand_arrays = true;
            break;
          case kSqFormatFields:
            r.fields = v;
            r.format.clear();
            break;
          case kSqFormat:
            r.format = v;
            r.fields.clear();
            break;
          case kSqJobs:
            jobs_flag = true;
            if (o.value) return SqueueJobs(v, &r);
            break;
          case kSqLong:
            r.long_format = true;
            break;
          case kSqMe:
            r.selection.users.insert(std::to_string(uid));  // the selection takes names and numeric uids alike
            break;
          case kSqName:
            for (const std::string& s : Items(v)) r.selection.names.insert(s);
            break;
          case kSqNoHeader:
            r.opt.no_header = true;
            break;
          case kSqPartitions:
            for (const std::string& s : Items(v)) r.selection.partitions.insert(s);
            break;
          case kSqSort:
            r.opt.sort_keys = v;
            break;
          case kSqStart:
            r.start = true;
            break;
          case kSqSteps:
            r.steps = true;
            for (const std::string& s : Items(v)) r.step_ids.insert(s);
            break;
          case kSqStates:
            return SqueueStates(v, &r);
          case kSqUser:
            // The controller checks the names against its user database ("Invalid user: x").
            for (const std::string& s : Items(v)) r.selection.users.insert(s);
            break;
          case kSqJson:
            r.json = true;
            break;
        }
        return Status::Ok();
      }));
  r.meta = line.meta;
  if (!r.meta.empty()) return r;  // answered at once, the rest unread
  // An operand is the list of -j (or -s) given without a value; anything more is refused.
  size_t next = 0;
  if (next < line.operands.size() && jobs_flag) {
    RETURN_IF_ERROR(SqueueJobs(line.operands[next++], &r));
  } else if (next < line.operands.size() && r.steps) {
    for (const std::string& s : Items(line.operands[next++])) r.step_ids.insert(s);
  }
  if (next < line.operands.size()) {
    return InvalidArgument("squeue: error: Unrecognized option: " + line.operands[next] + "\n" + UsageOf("squeue"));
  }
  return r;
}

OptionTable SqueueOptionTable() { return kSqueueOptions; }

StatusOr<SinfoArgs> ParseSinfoArgs(const std::vector<std::string>& args) {
  SinfoArgs r;
  ASSIGN_OR_RETURN(
      CommandLine line, ReadCommandLine(kSinfoOptions, args, kSinfoStyle, [&](const OptionOccurrence& o) -> Status {
        const std::string v = o.value.value_or("");
        switch (static_cast<SinfoOpt>(o.spec->id)) {
          case kSiLong:
            r.opt.long_output = true;
            break;
          case kSiNodes: {
            StatusOr<std::vector<std::string>> names = ExpandHostlist(v);
            if (!names.ok()) return InvalidArgument("sinfo: error: Invalid node name list: " + v + "\n");
            r.opt.node_names.insert(r.opt.node_names.end(), names->begin(), names->end());
            break;
          }
          case kSiNoHeader:
            r.opt.no_header = true;
            break;
          case kSiNode:
            r.opt.node_oriented = true;
            break;
          case kSiFormat:
            r.opt.format = v;
            break;
          case kSiPartition:
            for (const std::string& s : Items(v)) r.partitions.insert(s);
            break;
          case kSiReasons:
            r.opt.reasons = true;
            break;
          case kSiSummarize:
            r.opt.summarize = true;
            break;
          case kSiStates:
            for (const std::string& st : Split(v, ',')) {
              if (Status ok = CheckSinfoState(st); !ok.ok()) {
                return InvalidArgument("sinfo: error: " + ok.message() + "\n");
              }
              r.opt.states.push_back(st);
            }
            break;
          case kSiJson:
            r.json = true;
            break;
        }
        return Status::Ok();
      }));
  r.meta = line.meta;
  if (!r.meta.empty()) return r;  // answered at once, the rest unread
  // Slurm's sinfo ignores operands; Muster says that it does not take them.
  RETURN_IF_ERROR(RefuseOperands("sinfo", line));
  return r;
}

OptionTable SinfoOptionTable() { return kSinfoOptions; }

StatusOr<ScancelArgs> ParseScancelArgs(const std::vector<std::string>& args, uint32_t uid) {
  ScancelArgs r;
  std::string signal_name;
  ASSIGN_OR_RETURN(
      CommandLine line, ReadCommandLine(kScancelOptions, args, kScancelStyle, [&](const OptionOccurrence& o) -> Status {
        const std::string v = o.value.value_or("");
        switch (static_cast<ScancelOpt>(o.spec->id)) {
          case kScAccount:
            r.account = v;
            break;
          case kScBatch:
            r.batch_only = true;  // the signal goes to the batch shell (and its children), not to the steps
            break;
          case kScFull:
            r.full = true;  // the batch shell, its children and the steps
            break;
          case kScMe:
            r.user = std::to_string(uid);
            break;
          case kScName:
            r.name = v;
            break;
          case kScNodelist: {
            StatusOr<std::vector<std::string>> names = ExpandHostlist(v);
            if (!names.ok()) return InvalidArgument("scancel: error: Invalid node name list: " + v + "\n");
            r.on_nodes = *names;
            break;
          }
          case kScPartition:
            r.partition = v;
            break;
          case kScSignal:
            signal_name = v;
            break;
          case kScState:
            for (const std::string& st : Split(v, ',')) {
              StatusOr<JobState> js = ParseJobState(st);
              if (!js.ok() ||
                  (*js != JobState::kPending && *js != JobState::kRunning && *js != JobState::kSuspended)) {
                return InvalidArgument("scancel: error: Invalid job state specified: " + st +
                                       "\nscancel: error: Valid job states are PENDING, RUNNING, and SUSPENDED\n");
              }
              r.states.insert(*js);
            }
            break;
          case kScUser:
            r.user = v;
            break;
          case kScVerbose:
            r.verbose = true;
            break;
        }
        return Status::Ok();
      }));
  r.meta = line.meta;
  if (!r.meta.empty()) return r;  // answered at once, the rest unread
  // "12", "12_3" (task 3 of job array 12), "12_[1-3,5]"; commas separate jobs outside brackets.
  for (const std::string& a : line.operands) {
    std::string cur;
    int depth = 0;
    for (char ch : a + ",") {
      if (ch == ',' && depth == 0) {
        StatusOr<JobToken> t = ParseJobToken(cur);
        if (!t.ok()) return InvalidArgument("scancel: error: Invalid job id " + cur + "\n");
        r.tokens.push_back(*t);
        cur.clear();
        continue;
      }
      depth += ch == '[' ? 1 : ch == ']' ? -1 : 0;
      cur += ch;
    }
  }
  if (!signal_name.empty()) {
    r.signal = SignalNumber(signal_name);
    if (r.signal == 0) return InvalidArgument("scancel: error: Invalid job signal: " + signal_name + "\n");
  } else if (r.batch_only || r.full) {
    r.signal = SIGKILL;  // Slurm's scancel -b/-f without -s: a signal, SIGKILL
  }
  if (r.tokens.empty() && !r.Filtered()) return InvalidArgument("scancel: error: No job identification provided\n");
  return r;
}

OptionTable ScancelOptionTable() { return kScancelOptions; }

}  // namespace muster
