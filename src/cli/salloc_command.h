// salloc: an interactive allocation, and a command run inside it (salloc_command.cc).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace muster {

int SallocMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace muster
