// Reading a whole file with read(2), never by an iostream: libstdc++'s filebuf throws from a failed
// read(2) through std::istreambuf_iterator (nothing catches it there), and files of the kernel do
// fail: a removed cgroup's cgroup.procs answers ENODEV. A daemon that read one so died of it (a
// step's shepherd on a loaded host: the step's cgroup went away under it).
#pragma once

#include <string>

#include "base/status.h"

namespace muster {

// The file's bytes; NotFound when it does not exist, Internal (with errno's text) on any other
// failure to open or read it.
StatusOr<std::string> ReadWholeFile(const std::string& path);

// The file's bytes, or "" when it cannot be read (for the callers to whom both mean "nothing").
std::string ReadFileOrEmpty(const std::string& path);

}  // namespace muster
