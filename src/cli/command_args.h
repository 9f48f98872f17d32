// Small argument helpers shared by the commands.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "base/status.h"
#include "base/strings.h"  // Split
#include "model/option_engine.h"
#include "report/slurm_format.h"
#include "wire/submit.h"

namespace muster {

// A Slurm command's line read with the option engine (model/option_engine.h), as its getopt_long
// reads it (style.permute for the commands whose option string has no "+"): each kOwn option goes
// to `apply` as it is read (so a bad value is reported before a later syntax error), kIgnored ones
// are dropped, a kUnsupported one is refused ("squeue: error: --federation is not supported by
// Muster" + style.end; without a program, the message alone), and the first kMeta option ends the
// reading, as Slurm's commands answer it and exit there.
// How messages name an option: "--canonical", or "-q" for a short option alone.
std::string OptionName(const OptionSpec& spec);

struct CommandLine {
  std::vector<std::string> operands;
  std::string meta;  // the canonical name of the kMeta option that ended the reading ("help", ...), or ""
};
StatusOr<CommandLine> ReadCommandLine(OptionTable table, const std::vector<std::string>& args,
                                      const GetoptStyle& style,
                                      const std::function<Status(const OptionOccurrence&)>& apply);
// For a command that takes no operands: InvalidArgument in getopt's words for the first one
// ("sinfo: unrecognized option 'x'" and the "Try" line), else OK.
Status RefuseOperands(const char* cmd, const CommandLine& line);

// A job named on a command line: "12", "12_3" (task 3 of job array 12), "12_[1-3,5]", "12+1"
// (component 1 of heterogeneous job 12: its own id, 13).
struct JobToken {
  std::string text;        // as given
  int64_t id = 0;          // the job's, or the job array's id
  std::vector<int> tasks;  // the array tasks named (empty: the whole job or array)
};
StatusOr<JobToken> ParseJobToken(const std::string& text);

// The environment a job or step gets under --export (sbatch, salloc, srun), from the submitting
// environment `env` (KEY=VALUE): "ALL" (also ""): all of it; "NONE"/"NIL": only its SLURM_*
// variables; "[ALL,]NAME[=VALUE],...": with ALL, all of it plus the assignments, else only the
// names listed (those set in `env`) and the assignments; SLURM_* variables always travel, as in
// Slurm. Later entries replace earlier ones of the same name.
std::vector<std::string> ExportedEnvironment(const std::string& mode, const std::vector<std::string>& env);

// Sets NAME=VALUE in `env` (KEY=VALUE entries): replaces an entry of that name, else appends.
void SetEnvEntry(std::vector<std::string>* env, const std::string& kv);

// What a submitting command (sbatch, srun) sends as its environment: its own (environ) under
// --export `mode`, with its umask and soft resource limits (agent/launcher.h) set.
std::vector<std::string> SubmitEnvironment(const std::string& mode);

// A signal as commands take it: "USR1", "SIGUSR1", "10"; 0 if it names none.
int SignalNumber(const std::string& name);

// This host's name (gethostname).
std::string LocalHostname();

// Prints what a formatter produced (report/slurm_format.h) and returns its exit status.
int EmitOutput(const SlurmOutput& o, std::ostream& out, std::ostream& err);

// Connection errors, as the commands print them ("<cmd>: error: <message>"); returns 1.
int ConnectError(const char* cmd, const Status& st, std::ostream& err);

// sbatch's and srun's --test-only answer in Slurm's words (src/api/allocate.c), with its newline:
// "<program>: Job 7 to start at 2026-12-03T11:04:24 using 2 processors on nodes n[1-2] in
// partition gpu" (Unknown and (unknown) when no start was found).
std::string WillRunLine(const std::string& program, const WillRun& w);

}  // namespace muster
