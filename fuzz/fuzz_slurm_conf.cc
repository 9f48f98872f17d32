// A Slurm site's configuration: slurm.conf, topology.conf and gres.conf, separated in the input by
// lines of "%%".
#include <cstdint>

#include "config/slurm_conf.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace muster;
  std::vector<std::string> files = fuzz::Split(fuzz::Text(data, size), "\n%%\n");
  SlurmConfExtras extras;
  if (files.size() > 1) extras.topology_conf = files[1];
  if (files.size() > 2) extras.gres_conf = files[2];
  (void)LoadSlurmConf(files[0], "slurm.conf", extras);
  return 0;
}
