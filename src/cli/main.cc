// muster: the command-line tool, one multi-call binary. `muster <command> ...`, or a Slurm command
// name through a symlink (sbatch, srun, salloc, squeue, sinfo, scancel, sacct, scontrol, sreport, ... -> muster).
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli/command_help.h"
#include "cli/commands.h"
#include "cli/local_cluster.h"
#include "cli/option_doc.h"
#include "cli/priority_commands.h"
#include "cli/sacct_command.h"
#include "cli/salloc_command.h"
#include "cli/sdiag_command.h"
#include "cli/sreport_command.h"
#include "cli/sacctmgr_command.h"
#include "cli/srun.h"
#include "cli/why_command.h"

namespace {

// A command's CPU time is mostly the process itself (exec, page faults, glibc's start), so only
// `muster up` pays for finding its own path.

std::string SelfExe(const char* argv0) {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) return std::string(buf, n);
  return argv0;
}

// `muster sim` and `muster place` are the offline tools, a program of their own (muster-sim,
// installed beside muster): the commands' binary links no controller, store or simulator.
int RunSimTool(const std::string& command, const std::vector<std::string>& args, const char* argv0) {
  const std::string self = SelfExe(argv0);
  const std::string tool = self.substr(0, self.rfind('/') + 1) + "muster-sim";
  std::vector<std::string> argv_s = {tool, command};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv_c;
  for (std::string& a : argv_s) argv_c.push_back(a.data());
  argv_c.push_back(nullptr);
  execv(tool.c_str(), argv_c.data());
  std::cerr << "muster " << command << ": cannot run " << tool << " (the simulator, installed beside muster): "
            << std::strerror(errno) << "\n";
  return 1;
}

int Dispatch(const std::string& command, const std::vector<std::string>& args, const char* argv0) {
  if (command == "sbatch") return muster::SbatchMain(args, std::cout, std::cerr);
  if (command == "squeue") return muster::SqueueMain(args, std::cout, std::cerr);
  if (command == "sinfo") return muster::SinfoMain(args, std::cout, std::cerr);
  if (command == "scancel") return muster::ScancelMain(args, std::cout, std::cerr);
  if (command == "scontrol") return muster::ScontrolMain(args, std::cout, std::cerr);
  if (command == "srun") return muster::SrunMain(args, std::cout, std::cerr);
  if (command == "sprio") return muster::SprioMain(args, std::cout, std::cerr);
  if (command == "sshare") return muster::SshareMain(args, std::cout, std::cerr);
  if (command == "salloc") return muster::SallocMain(args, std::cout, std::cerr);
  if (command == "sacct") return muster::SacctMain(args, std::cout, std::cerr);
  if (command == "sacctmgr") return muster::SacctmgrMain(args, std::cout, std::cerr);
  if (command == "sdiag") return muster::SdiagMain(args, std::cout, std::cerr);
  if (command == "why") return muster::WhyMain(args, std::cout, std::cerr);
  if (command == "sreport") return muster::SreportMain(args, std::cout, std::cerr);
  if (command == "up") return muster::UpMain(args, SelfExe(argv0), std::cout, std::cerr);
  if (command == "down") return muster::DownMain(args, std::cout, std::cerr);
  // `muster admin migrate` too: it opens stores, which this binary does not link.
  if (command == "place" || command == "sim" || command == "admin") return RunSimTool(command, args, argv0);
  // Hidden: the options tables of docs/slurm-compatibility.md, generated from the commands' own.
  if (command == "options-doc") return muster::OptionsDocMain(args, std::cout, std::cerr);
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string name = argv[0];
  if (auto slash = name.rfind('/'); slash != std::string::npos) name = name.substr(slash + 1);
  std::vector<std::string> args(argv + 1, argv + argc);
  if (name != "muster") {
    int rc = Dispatch(name, args, argv[0]);
    if (rc >= 0) return rc;
  }
  if (args.empty()) {
    std::cerr << muster::MusterUsage();
    return 2;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  if (command == "-h" || command == "--help" || command == "help") {
    std::cout << muster::MusterUsage();
    return 0;
  }
  int rc = Dispatch(command, args, argv[0]);
  if (rc >= 0) return rc;
  std::cerr << "muster: unknown command '" << command << "'\n\n" << muster::MusterUsage();
  return 2;
}
