// A daemon that starts again in its own process: the same program (/proc/self/exe) and arguments,
// its pid kept (a supervisor, or a test following it by pid, still does). Every descriptor above
// stderr is closed by the exec. A deposed or reconfigured musterctld, a musterd whose
// configuration changed (configless).
#pragma once

#include <string>

namespace muster {

// Returns only by exiting (status 1) after logging why the exec failed (`what`: "as a standby").
[[noreturn]] void ExecAgain(char** argv, const std::string& what);

}  // namespace muster
