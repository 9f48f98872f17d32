#include "base/exec_again.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "base/log.h"

namespace muster {

void ExecAgain(char** argv, const std::string& what) {
  if (DIR* d = opendir("/proc/self/fd")) {
    while (dirent* e = readdir(d)) {
      const int fd = std::atoi(e->d_name);
      if (fd > 2 && fd != dirfd(d)) fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
    closedir(d);
  }
  execv("/proc/self/exe", argv);
  LogError("cannot start again " + what + " (execv): " + std::strerror(errno));
  _exit(1);
}

}  // namespace muster
