// sbatch's command line and batch script -> what to submit (the parse half of `sbatch`).
//
// Pure: the script is read through a ScriptReader the caller supplies; nothing here touches the
// environment, the clock or the file system. Errors are Status values whose message is exactly the
// text Slurm's sbatch prints on stderr; SbatchError() gives that text and the exit status.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/job_options.h"
#include "model/job_request.h"
#include "model/option_engine.h"
#include "wire/submit.h"

namespace muster {

struct SbatchRequest {
  JobRequest request;  // the resource options, read once (JobRequestBuilder); request.name == name
  // The same options, directives first then the command line, each in canonical form
  // ("--time=10", "--exclusive"), as the job keeps them for display.
  std::vector<std::string> resource_args;
  std::string name;         // -J; default: the script's base name, "wrap" with --wrap, "sbatch" on stdin
  std::string output;       // -o as given ("" = slurm-%j.out)
  std::string error;        // -e as given ("" = same as output)
  std::string input;        // -i as given ("" = /dev/null)
  std::string workdir;      // -D made absolute against the submit directory; default: that directory
  std::string account;      // -A
  std::string export_mode;  // --export as given: "ALL" (default), "NONE", or a list "ALL,X=1" / "A,B"
  JobOptions options;       // --comment, ...: carried unchanged to the job (model/job_options.h)
  std::string array;        // -a as given (SetArray reads it: "Invalid job array specification")
  std::string dependency;   // -d as given (SetDependency reads it: "Job dependency problem")
  std::string begin;        // -b as given (a Slurm time: "now+1hour", "16:00", "2026-12-24T08:00")
  std::string qos;          // -q
  int64_t nice = 0;         // --nice[=adjustment] (100 without a value)
  std::string script;       // the batch script text (the generated one with --wrap)
  std::vector<std::string> script_args;  // arguments after the script path
  bool parsable = false;    // --parsable: print only the job id
  bool wait = false;        // -W/--wait: return when the job (every task of an array) ended, with its exit code
  bool test_only = false;   // --test-only: say when and where the job would start; submit nothing
  int signal = 0;           // --signal=[B:]SIG[@TIME]: SIG (0 = none) TIME seconds before the time limit
  int signal_time_s = 60;
  bool signal_batch_only = false;
  bool hold = false;        // -H: submit held (JobHeldUser)
  bool requeue = true;      // --requeue / --no-requeue
  // A heterogeneous job (`#SBATCH hetjob` lines, ':' between the command line's components): the
  // components after the first, which the fields above describe.
  std::vector<HetComponentSpec> het_components;

  // Beyond the fields above:
  std::string script_path;                // as given; "" for standard input and --wrap
  std::vector<std::string> ignored_args;  // Slurm options accepted without effect (-v, --mail-type=END)
  bool help = false;     // -h/--help: print SbatchHelp() and exit 0; nothing else is filled
  bool usage = false;    // -u/--usage: print SbatchUsage() and exit 0
  bool version = false;  // -V/--version: print the version and exit 0
};

// Reads the batch script: the path as given on the command line, or standard input when path is "".
using ScriptReader = std::function<StatusOr<std::string>(const std::string& path)>;

// Parses `args` (the arguments after "sbatch") the way Slurm's sbatch does: a first pass over the
// command line (unknown options fail here, before any script is read), then the script (read unless
// --wrap; it must be non-empty and start with "#!"), then its #SBATCH directives (read until the
// first line that is neither blank nor a comment), then the command line again, which overrides them.
// `cwd` is the submit directory (absolute). The reader is not called for --help/--usage/--version/--wrap.
StatusOr<SbatchRequest> ParseSbatchArgs(const std::vector<std::string>& args, const std::string& cwd,
                                        const ScriptReader& read_script);

// What sbatch prints to stderr for a parse error, and its exit status: 255 for option errors (as
// Slurm's option processing exits with -1), 1 for the script and for checks across options.
struct CommandError {
  int exit_code = 1;
  std::string stderr_text;  // ends with '\n'
};
CommandError SbatchError(const Status& status);

// The script --wrap submits (Slurm's script_wrap).
std::string WrapScript(const std::string& command);

// Where sbatch's options end in `args`: the index of the first operand (after "--" if that ends
// them), as getopt_long in "+" mode finds it. salloc reads its options the same way. Errors are
// getopt's (unknown or ambiguous options), as ParseSbatchArgs reports them, with `program` in
// place of "sbatch".
StatusOr<size_t> SbatchFirstOperand(const std::vector<std::string>& args, std::string_view program = "sbatch");

// sbatch's options (Slurm 22.05's, and what Muster does with each).
OptionTable SbatchOptionTable();

// sbatch's input environment variables (SBATCH_JOB_NAME, SBATCH_PARTITION, SBATCH_TIMELIMIT, ...)
// as options ("--job-name=x"), in a fixed order. Placed before the command line's own options, they
// override #SBATCH directives and are overridden by the command line, as in Slurm.
std::vector<std::string> SbatchEnvironmentArgs(const std::function<const char*(const char*)>& getenv);

std::string SbatchUsage();  // Slurm's `sbatch --usage` line
std::string SbatchHelp();   // a short option summary for --help

}  // namespace muster
