// The cluster key: the secret the controller and the agents sign and verify tokens with.
#pragma once

#include <cstddef>
#include <string>

#include "base/status.h"

namespace muster {

// Reads the cluster key from `path`; creates it (32 random bytes, mode 0600, never visible
// half-written) if missing and `create` is set. Refuses (PermissionDenied) a key file
// accessible by group or others, owned by anyone but this process's user or root, a symbolic
// link or anything but a regular file, and
// (InvalidArgument) a key shorter than 16 or longer than 4096 bytes.
StatusOr<std::string> LoadClusterKey(const std::string& path, bool create);

// `n` bytes from the kernel's CSPRNG (getrandom).
std::string RandomBytes(size_t n);

}  // namespace muster
