// Test helpers shared by the slurm.conf reader's tests (slurm_conf_test.cc: nodes, GPUs,
// partitions, errors and robustness; slurm_conf_keys_test.cc: global keys and access lists).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "config/slurm_conf.h"

namespace muster::test {

inline const std::filesystem::path kRepo = MUSTER_SOURCE_DIR;
inline const std::filesystem::path kTestData = kRepo / "tests" / "testdata" / "slurm";

inline std::string Join(const std::vector<std::string>& v, const char* sep = ",") {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

inline SlurmConfExtras Extras(const char* gres, const char* topology) {
  SlurmConfExtras e;
  if (gres != nullptr) e.gres_conf = gres;
  e.gres_source = "g.conf";
  if (topology != nullptr) e.topology_conf = topology;
  e.topology_source = "t.conf";
  return e;
}

}  // namespace muster::test
