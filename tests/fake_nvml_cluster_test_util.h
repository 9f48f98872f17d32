// A local cluster whose agents read their GPUs through the fake NVML library (tests/fake_nvml),
// for the integration tests of NVML's paths (discovery, features, health, metrics).
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "local_cluster_test_util.h"

namespace muster_test {

class FakeNvmlCluster : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("muster_fakenvml_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "bin");
    fs::permissions(dir_, fs::perms::all);
    std::ofstream(dir_ / "nvml.json") << R"({"gpus": 4, "name": "NVIDIA H100 80GB HBM3", "memory_mb": 81559,
                                           "driver": "580.65.06", "cuda": 13000, "cc": [9, 0]})";
    fs::create_symlink(fs::path(MUSTER_SOURCE_DIR) / "tests/testdata/fake-nvidia-smi", dir_ / "bin/nvidia-smi");
    env_ = "PATH=" + (dir_ / "bin").string() + ":" + BinDir() + ":$PATH MUSTER_FAKE_NVML=" + (dir_ / "nvml.json").string() +
           " MUSTER_CONF=" + (dir_ / "c/muster.yaml").string() + " ";
  }
  void TearDown() override {
    Sh(env_ + "muster down --dir " + (dir_ / "c").string());
    fs::remove_all(dir_);
  }
  std::string Library() const { return BinDir() + "/libmuster_fake_nvml.so"; }
  fs::path dir_;
  std::string env_;
};

}  // namespace muster_test
