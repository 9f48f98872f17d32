// The option engine of the Slurm-like commands: a command describes its options in a table
// (OptionSpec) and reads its command line with Getopt, which follows getopt_long in "+" mode:
//   - options stop at the first operand (a word that is not "-" and something) and after "--";
//   - "--name=value" or "--name value"; a long name may be cut to a prefix that only one option
//     starts with, or only aliases of one option (same canonical name and argument kind); an exact
//     name always wins;
//   - short options cluster ("-HJname" is -H, then -J name); a required argument is the rest of the
//     word, else the next word whatever it looks like ("-t -5");
//   - an optional argument is taken only when attached ("--nice=5", "-k1"), never from the next word.
// Errors are InvalidArgument with getopt's words, framed as the command prints them (GetoptStyle).
// With GetoptStyle::permute it follows getopt_long's default order instead (GNU's permutation, an
// option string without "+"): options may come after operands, which are gathered in their order;
// "--" still ends the options.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace muster {

enum class OptionArg { kNone, kRequired, kOptional };

// What Muster does with an option.
enum class OptionUse {
  kResource,     // a resource option: handed on to ParseJobRequest in canonical form
  kOwn,          // handled by the command itself
  kMeta,         // --help, --usage, --version
  kIgnored,      // accepted, no effect
  kUnsupported,  // a Slurm option Muster does not implement: refused
  kJob,          // an option the job carries to its record (model/job_options.h), shared by sbatch and srun
};

struct OptionSpec {
  const char* name;                 // the long name, without "--"; "" for a short option alone ("-t")
  char short_name = 0;              // 0 = none
  OptionArg arg = OptionArg::kNone;
  OptionUse use = OptionUse::kOwn;
  int id = 0;                       // the command's own code for the option (its enum), for dispatch
  const char* canonical = nullptr;  // the option this one is an alias of ("cluster" -> "clusters")
  const char* note = nullptr;       // where Muster differs from Slurm, or why it refuses the option

  std::string Canonical() const { return canonical != nullptr ? canonical : name; }
};

// A command's options; their order is that of the possibilities in an "is ambiguous" message.
using OptionTable = std::span<const OptionSpec>;

struct OptionOccurrence {
  const OptionSpec* spec = nullptr;
  std::optional<std::string> value;  // nullopt: none allowed, or an optional one left out

  std::string CanonicalArg() const;  // "--canonical" or "--canonical=value"
};

// How a command's getopt reads its line: the order of options and operands, and how error messages
// are framed. With program "sbatch" a message reads
//   sbatch: unrecognized option '--bogus'
//   Try "sbatch --help" for more information
// then `end`; with no program it is getopt's line alone.
struct GetoptStyle {
  std::string_view program;
  std::string_view end;  // appended to every message
  // "is ambiguous" quotes the whole argument ("--gpu=1", as glibc does), not only the name ("--gpu").
  bool ambiguity_quotes_argument = false;
  size_t quote_limit = 0;  // user text quoted in a message is cut to this many characters + "..." (0: never)
  // getopt_long without "+" (squeue, scancel, scontrol, ...): options after operands are read too.
  bool permute = false;
};

// Reads the options at the start of `args`, calling `each` on every option as it is read, so that
// a bad value is reported before a later syntax error; returns the first error (getopt's or each's)
// or the index of the first operand (args.size() if none). With style.permute it reads them all,
// puts the operands in `operands` (which must then be given) and returns args.size().
StatusOr<size_t> Getopt(OptionTable table, const std::vector<std::string>& args, const GetoptStyle& style,
                        const std::function<Status(const OptionOccurrence&)>& each,
                        std::vector<std::string>* operands = nullptr);

struct ParsedOptions {
  std::vector<OptionOccurrence> options;  // in command-line order
  size_t first_operand = 0;               // args.size() with style.permute
  std::vector<std::string> operands;      // in order (without "+": args from first_operand on)
};
StatusOr<ParsedOptions> Getopt(OptionTable table, const std::vector<std::string>& args, const GetoptStyle& style);

// One option of a table as the compatibility documentation lists it.
struct OptionRow {
  std::string name;        // "--account", or "" for a short option alone
  std::string short_name;  // "-A", or ""
  std::string argument;    // "none", "required", "optional"
  std::string state;       // "resource", "own", "meta", "ignored", "unsupported", "job"
  std::string alias_of;    // "--clusters", or ""
  std::string note;
};
std::vector<OptionRow> ListOptions(OptionTable table);

}  // namespace muster
