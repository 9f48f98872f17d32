#include "agent/private_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace muster {

Status CheckPrivateDir(const std::string& path) {
  std::string p = std::filesystem::absolute(path).lexically_normal().string();
  while (!p.empty()) {
    struct stat st;
    if (lstat(p.c_str(), &st) != 0) return InvalidArgument("cannot inspect '" + p + "': " + std::strerror(errno));
    if (!S_ISDIR(st.st_mode)) return InvalidArgument("'" + p + "' is not a directory (a symbolic link?)");
    if (st.st_uid != 0 && st.st_uid != geteuid()) {
      return InvalidArgument("'" + p + "' belongs to uid " + std::to_string(st.st_uid) +
                             ": the runs' directory and those above it must be root's or the agent's");
    }
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (st.st_mode & S_ISVTX) == 0) {
      return InvalidArgument("'" + p + "' is writable by others: the runs' directory and those above it may not be");
    }
    if (p == "/") break;
    const size_t slash = p.rfind('/');
    p = slash == 0 ? "/" : p.substr(0, slash);
  }
  return Status::Ok();
}

}  // namespace muster
