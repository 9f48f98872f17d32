// muster-shepherd: the runs' shepherds (agent/shepherd.h). musterd starts it once as
// `muster-shepherd --spawner` (agent/shepherd_spawner.h), which forks a shepherd for each run. A
// program of its own rather than musterd itself: it links only the shepherd, the launcher and the
// codec (1.7 MB of text against musterd's 10.9 MB), so each shepherd forked from it is small.
#include <cstdio>
#include <cstring>

#include "agent/shepherd_spawner.h"

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--spawner") == 0) {
    return muster::SpawnerMain(argc, argv);
  }
  std::fprintf(stderr, "usage: muster-shepherd --spawner (started by musterd, which it serves on stdin)\n");
  return 2;
}
