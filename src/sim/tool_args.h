// The offline tools' command lines (`muster sim ...`, `muster place`, `muster admin ...`), read with
// the option engine (model/option_engine.h) and a table per command, as the Slurm commands are, but
// in getopt_long's "+" order: the options come first, and the first operand ends them (a tool's
// verb: "sim philly ...", "admin migrate ..."). These are Muster's own commands, so a message is
// getopt's line alone ("unrecognized option '--bogus'"); each tool frames it as before
// ("muster place: " ... and its usage). (The Slurm commands' version, cli/command_args.h's
// ReadCommandLine, sits above this layer.)
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/option_engine.h"

namespace muster {

struct ToolLine {
  bool help = false;                  // --help (the table's kMeta option) came first: the rest unread
  std::vector<std::string> operands;  // from the first operand (or after "--") on
};

// Each kOwn option goes to `apply` as it is read, so that a bad value is reported before a later
// syntax error; kIgnored ones are dropped. A tool's table holds no kUnsupported option.
StatusOr<ToolLine> ReadToolLine(OptionTable table, const std::vector<std::string>& args,
                                const std::function<Status(const OptionOccurrence&)>& apply);

// For a tool that takes no operands: "unexpected argument 'c.yaml'" for the first one, else OK.
Status RefuseToolOperands(const ToolLine& line);

}  // namespace muster
