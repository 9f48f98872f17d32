#include "agent/mps.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace muster {
namespace {

// A stand-in for nvidia-cuda-mps-control: `-d` records a start, "quit" on stdin records a stop,
// each with the GPU and pipe directory it was given.
class MpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("mps_test_" + std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    control_ = (dir_ / "mps-control").string();
    std::ofstream(control_) << "#!/bin/sh\n"
                               "if [ \"$1\" = -d ]; then echo \"start $CUDA_VISIBLE_DEVICES $CUDA_MPS_PIPE_DIRECTORY\" >> "
                            << (dir_ / "calls").string()
                            << "; exit 0; fi\n"
                               "read cmd; echo \"$cmd $CUDA_VISIBLE_DEVICES\" >> "
                            << (dir_ / "calls").string() << "\n";
    chmod(control_.c_str(), 0755);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Calls() {
    std::ifstream in(dir_ / "calls");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::filesystem::path dir_;
  std::string control_;
};

TEST_F(MpsTest, TheDaemonRunsFromTheFirstSharerToTheLastAndEachGetsItsShare) {
  MpsManager mps(control_, (dir_ / "mps").string(), "node1");
  ASSERT_TRUE(mps.available());
  MpsShare a{3, "GPU-aaaa", 0, 250, 20480};
  StatusOr<std::vector<std::string>> env = mps.Acquire(a);
  ASSERT_TRUE(env.ok()) << env.status().ToString();
  const std::string pipe = (dir_ / "mps/3/pipe").string();
  EXPECT_EQ(*env, (std::vector<std::string>{"CUDA_MPS_PIPE_DIRECTORY=" + pipe,
                                            "CUDA_MPS_LOG_DIRECTORY=" + (dir_ / "mps/3/log").string(),
                                            "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25",
                                            "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=20480M",
                                            "MUSTER_GPU_SHARE=250/1000 of GPU 3 on node1 (20480 MiB), enforced by MPS"}));
  MpsShare b{3, "GPU-aaaa", 0, 500, 40960};
  ASSERT_TRUE(mps.Acquire(b).ok());
  EXPECT_EQ(mps.sharers(3), 2);
  EXPECT_EQ(Calls(), "start GPU-aaaa " + pipe + "\n") << "one daemon for the GPU";
  mps.Release(3);
  EXPECT_EQ(Calls(), "start GPU-aaaa " + pipe + "\n") << "a sharer is left";
  mps.Release(3);
  EXPECT_EQ(Calls(), "start GPU-aaaa " + pipe + "\nquit GPU-aaaa\n") << "stopped after the last";
  EXPECT_EQ(mps.sharers(3), 0);
}

TEST_F(MpsTest, WithoutMpsTheShareIsCountedAndSaidNotEnforced) {
  MpsManager none("", (dir_ / "mps").string(), "node1");
  StatusOr<std::vector<std::string>> env = none.Acquire(MpsShare{1, "1", 0, 500, 0});
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(*env, (std::vector<std::string>{"MUSTER_GPU_SHARE=500/1000 of GPU 1 on node1, not enforced: no MPS "
                                            "(nvidia-cuda-mps-control) on node1, the job may use the whole GPU"}));
}

TEST_F(MpsTest, AFailingControlProgramIsAnError) {
  std::ofstream(control_, std::ios::trunc) << "#!/bin/sh\nexit 4\n";
  MpsManager mps(control_, (dir_ / "mps").string(), "node1");
  StatusOr<std::vector<std::string>> env = mps.Acquire(MpsShare{0, "0", 0, 100, 0});
  ASSERT_FALSE(env.ok());
  EXPECT_NE(env.status().message().find("-d failed (exit 4)"), std::string::npos) << env.status().message();
  EXPECT_EQ(mps.sharers(0), 0);
}

}  // namespace
}  // namespace muster
