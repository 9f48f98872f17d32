// Whether a directory the agent keeps root's secrets in may be trusted: the runs' directory holds
// what the shepherds run as root (their specs), so no other user may change it or move it away.
#pragma once

#include <string>

#include "base/status.h"

namespace muster {

// OK when `path` and every directory above it are directories (not symbolic links) owned by root or
// by this process's effective user, and writable by no one else unless sticky (as /dev/shm and /tmp
// are: others cannot move what they do not own). Else InvalidArgument naming the first that is not.
Status CheckPrivateDir(const std::string& path);

}  // namespace muster
