// The YAML configuration: the cluster file, and muster.yaml (read from a file, as the daemons and
// commands read it; the input before a "%%" line is muster.yaml, the rest the cluster file).
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

#include "config/cluster_file.h"
#include "config/muster_config.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace muster;
  std::vector<std::string> files = fuzz::Split(fuzz::Text(data, size), "\n%%\n");
  const std::string& cluster = files.size() > 1 ? files[1] : files[0];
  (void)LoadClusterConfigYaml(cluster, "cluster.yaml");
  static int fd = memfd_create("muster.yaml", 0);
  if (fd >= 0 && ftruncate(fd, 0) == 0 && pwrite(fd, files[0].data(), files[0].size(), 0) ==
                                               static_cast<ssize_t>(files[0].size())) {
    (void)LoadMusterConfig("/proc/self/fd/" + std::to_string(fd), ConfigReader::kCommand);
  }
  return 0;
}
