// The Slurm-compatible commands (sbatch, squeue, sinfo, scancel, scontrol): each parses its
// arguments (pure helpers in sbatch_args.h / *_format.h), talks to the controller through
// CtldClient, and prints what Slurm prints. Each returns the process exit code.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace muster {

int SbatchMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int SqueueMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int SinfoMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int ScancelMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int ScontrolMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace muster
