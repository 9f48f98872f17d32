// Reading a whole file with read(2), never by an iostream: libstdc++'s filebuf throws from a failed
// read(2) through std::istreambuf_iterator (nothing catches it there), and files of the kernel do
// fail: a removed cgroup's cgroup.procs answers ENODEV. A daemon that read one so died of it (a
// step's shepherd on a loaded host: the step's cgroup went away under it).
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace muster {

// The file's bytes; NotFound when it does not exist, Internal (with errno's text) on any other
// failure to open or read it.
StatusOr<std::string> ReadWholeFile(const std::string& path);

// The file's bytes, or "" when it cannot be read (for the callers to whom both mean "nothing").
std::string ReadFileOrEmpty(const std::string& path);

// Appends what `fd` holds, read(2) to its end, to *out: 0, or the errno of the read that failed.
// For the callers that open the file themselves and word their own errors (a failed open and a
// failed read are different messages to them). Reads until end of file, never by the size stat
// gives: files of /proc and /sys say 0.
int ReadAll(int fd, std::string* out);

// Writes every byte to `fd`, a file, pipe or socket (retrying short writes and EINTR; no SIGPIPE
// from a socket). False when the write fails (the peer is gone).
bool WriteFully(int fd, std::string_view data);

}  // namespace muster
