// muster-shepherd: a job's shepherd (agent/shepherd.h), started by musterd for each run as
// `muster-shepherd --shepherd <run dir>`. A program of its own rather than musterd itself: a run
// starts one, and musterd (the whole agent: HTTP, TLS, NVML, metrics) costs over twice as much
// to start (bench/launch_budget.sh). It links only the shepherd, the launcher and the codec.
#include <cstdio>
#include <cstring>

#include "agent/shepherd.h"

int main(int argc, char** argv) {
  if (argc == 3 && std::strcmp(argv[1], "--shepherd") == 0) return muster::ShepherdMain(argv[2]);
  std::fprintf(stderr, "usage: muster-shepherd --shepherd RUN_DIR (started by musterd for each run of a job)\n");
  return 2;
}
