// sprio (pending jobs' priority factors) and sshare (the fair-share tree), as Slurm prints them.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace muster {

int SprioMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
int SshareMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace muster
