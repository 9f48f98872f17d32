// What the root agent does on a user's behalf with that user's rights only: connecting to the
// I/O address an srun gave, and appending Slurm's ending line to a job's output. Each runs on a
// short-lived thread of its own whose file-system identity (fsuid, fsgid, supplementary groups,
// which Linux keeps per thread) is the user's, so the kernel checks every path as it would for
// the user; the agent's other threads never change identity, and none of them waits long on a
// path the user chose.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace muster {

struct UserIdentity {
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string user;  // for the supplementary groups; "" = gid alone
};

// Connects to a step's I/O address ("unix:/path", "/path" or "host:port") as `who`, waiting at
// most `timeout_ms` (a listener that never accepts cannot hold the caller). A TCP port below 1024
// is refused: root's connections come from ports users cannot bind, and some services trust that.
StatusOr<int> ConnectAsUser(const std::string& address, const UserIdentity& who, int timeout_ms);

// Appends `text` to the regular file `path` owned by `who`, opened as `who` without following any
// symbolic link on the way (openat2 RESOLVE_NO_SYMLINKS) and without blocking: a FIFO, a device,
// another user's file or a path through a link is left alone (FailedPrecondition/PermissionDenied).
// Waits for it at most `wait_ms` (Unavailable after that; the write goes on by itself).
Status AppendAsUser(const std::string& path, const UserIdentity& who, std::string_view text, int wait_ms = 1000);

}  // namespace muster
