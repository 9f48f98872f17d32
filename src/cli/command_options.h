// The command lines of squeue, sinfo, scancel (cli/query_options.cc), sprio, sshare, scontrol and
// sacctmgr (cli/admin_options.cc), each read with the option engine (model/option_engine.h) and a
// table of every option of Slurm 22.05's command, as its getopt_long reads it (options and operands
// in any order: none of these option strings starts with "+"). Errors carry the whole text the
// command prints on stderr, in Slurm's words; the exit status is 1. `meta` is the first of --help,
// --usage or --version given ("help", "usage", "version"): the command answers it and exits, the
// rest unread, as Slurm's do.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "cli/command_args.h"
#include "model/job_record.h"
#include "model/option_engine.h"
#include "report/priority_format.h"
#include "report/sinfo_format.h"
#include "report/squeue_format.h"

namespace muster {

// The environment as the parsers read it (std::getenv, or a test's map).
using GetEnv = std::function<const char*(const char*)>;

struct SqueueArgs {
  std::string meta;
  SqueueOptions opt;
  SqueueSelection selection;
  bool json = false, long_format = false, start = false, steps = false;
  std::set<std::string> step_ids;  // -s/--steps=LIST: "12.0", "12" (every step of job 12)
  std::string format, fields;      // -o / -O ($SQUEUE_FORMAT / $SQUEUE_FORMAT2 unless given)
};
// $SQUEUE_FORMAT, $SQUEUE_FORMAT2 and $SQUEUE_SORT are the defaults; --me is `uid`.
StatusOr<SqueueArgs> ParseSqueueArgs(const std::vector<std::string>& args, uint32_t uid, const GetEnv& getenv);
OptionTable SqueueOptionTable();

struct SinfoArgs {
  std::string meta;
  SinfoOptions opt;
  std::set<std::string> partitions;
  bool json = false;
};
StatusOr<SinfoArgs> ParseSinfoArgs(const std::vector<std::string>& args);
OptionTable SinfoOptionTable();

struct ScancelArgs {
  std::string meta;
  std::vector<JobToken> tokens;  // the jobs named ("12", "12_3", "12_[1-3]")
  std::string user, name, account, partition;
  std::set<JobState> states;
  std::vector<std::string> on_nodes;
  bool verbose = false, batch_only = false, full = false;
  int signal = 0;  // -s, or SIGKILL for -b/-f alone; 0: cancel
  bool Filtered() const {
    return !user.empty() || !name.empty() || !account.empty() || !partition.empty() || !states.empty() ||
           !on_nodes.empty();
  }
};
StatusOr<ScancelArgs> ParseScancelArgs(const std::vector<std::string>& args, uint32_t uid);
OptionTable ScancelOptionTable();

struct SprioArgs {
  std::string meta;
  SprioOptions opt;
  std::set<int64_t> ids;
  std::set<std::string> users, partitions;
};
StatusOr<SprioArgs> ParseSprioArgs(const std::vector<std::string>& args);
OptionTable SprioOptionTable();
std::string SprioUsage();

struct SshareArgs {
  std::string meta;
  SshareOptions opt;
  bool all = false;
  std::set<std::string> users, accounts;
};
StatusOr<SshareArgs> ParseSshareArgs(const std::vector<std::string>& args);
OptionTable SshareOptionTable();

// scontrol's options before (or among) its command's words.
struct ScontrolArgs {
  std::string meta;
  bool one_liner = false, json = false, details = false;
  std::vector<std::string> words;  // "show", "job", "12"
};
StatusOr<ScontrolArgs> ParseScontrolArgs(const std::vector<std::string>& args);
OptionTable ScontrolOptionTable();

// scontrol's commands (the first word after its options, "show" with its entity) and what Muster
// does with each: kOwn implemented, kMeta help, kIgnored accepted without effect, kUnsupported
// refused with the note. ScontrolMain refuses by this table; docs/slurm-compatibility.md lists it.
struct ScontrolCommandSpec {
  const char* name;  // "hold", "show job"
  OptionUse use = OptionUse::kOwn;
  const char* note = nullptr;
};
std::span<const ScontrolCommandSpec> ScontrolCommandTable();
// The row for `words` ("show", "job", "12"): the "verb entity" row if there is one, else the verb's
// (case-insensitive, as Slurm's); nullptr when scontrol has no such command.
const ScontrolCommandSpec* FindScontrolCommand(const std::vector<std::string>& words);

struct SacctmgrArgs {
  std::string meta;
  bool header = true;
  int parsable = 0;  // 1: -P (no '|' at the end), 2: -p
  std::vector<std::string> words;  // "add", "account", "ml", "set", ...
};
StatusOr<SacctmgrArgs> ParseSacctmgrArgs(const std::vector<std::string>& args);
OptionTable SacctmgrOptionTable();

}  // namespace muster
