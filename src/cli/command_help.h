// -V/--version, --usage and --help for the Slurm-compatible commands that parse their own options
// (squeue, sinfo, scancel, scontrol; sbatch, srun and sacct answer them in their parsers).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace muster {

inline constexpr char kMusterVersion[] = "0.1.0";

// When `args` holds --help, --usage or -V/--version (or -h where it means help: scancel,
// scontrol), prints the answer for `command` to `out` and returns 0; else returns -1. The commands
// call it with the meta option their parser read first (cli/command_options.h).
int AnswerMetaOption(const std::string& command, const std::vector<std::string>& args, std::ostream& out);

// `muster` with no or an unknown command.
std::string MusterUsage();

}  // namespace muster
