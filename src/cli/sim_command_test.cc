// `muster sim philly` as a user runs it, in-process: the table and the JSON of a replay of a small
// trace file, and the errors for bad options and outputs that cannot be written.
#include "cli/sim_command.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace muster {
namespace {

class SimPhillyCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("sim_cmd_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "philly.csv") << "timestamp,duration,num_gpus,gpu_time,cluster\n"
                                          "2017-10-09 07:00:00,100,1,100,vc1\n"
                                          "2017-10-09 07:00:10,10,1,10,vc2\n"
                                          "2017-10-09 07:00:20,10,1,10,vc2\n";
    // One node, one GPU: the three jobs of replay_test's Abc().
    std::ofstream(dir_ / "cluster.yaml") << "node_types:\n  one: {cpus: 8, memory: 64G, gpus: 1, gpu_model: v100}\n"
                                            "nodes:\n  - {names: g1, type: one}\n"
                                            "partitions:\n  - {name: p, nodes: g1, default: true}\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  int Run(const std::vector<std::string>& args) {
    out_.str("");
    err_.str("");
    return SimMain(args, out_, err_);
  }
  std::filesystem::path dir_;
  std::ostringstream out_, err_;
};

TEST_F(SimPhillyCommand, PrintsATableAndWritesJson) {
  const std::string json = (dir_ / "out.json").string();
  ASSERT_EQ(Run({"philly", "--trace", (dir_ / "philly.csv").string(), "--cluster", (dir_ / "cluster.yaml").string(),
                 "--policy", "srtf_oracle", "--restart-penalty", "0", "--json", json}),
            0)
      << err_.str();
  EXPECT_NE(out_.str().find("Philly queueing: 3 jobs, 1 nodes of "), std::string::npos) << out_.str();
  EXPECT_NE(out_.str().find("srtf_oracle"), std::string::npos) << out_.str();
  nlohmann::json doc = nlohmann::json::parse(std::ifstream(json));
  // a 0-120 (stopped for b and c), b 10-20, c 20-30.
  EXPECT_DOUBLE_EQ(doc["policies"]["srtf_oracle"]["avg_jct_s"].get<double>(), (120.0 + 10 + 10) / 3);
  EXPECT_EQ(doc["policies"]["srtf_oracle"]["preemptions"], 1);
  EXPECT_EQ(doc["jobs"], 3);
  EXPECT_EQ(doc["cluster"]["gpus"], 1);
}

TEST_F(SimPhillyCommand, BadInputIsNamed) {
  EXPECT_EQ(Run({"philly"}), 2);
  EXPECT_NE(err_.str().find("--trace is required"), std::string::npos) << err_.str();
  EXPECT_EQ(Run({"philly", "--trace", "x", "--policy", "lifo"}), 2);
  EXPECT_NE(err_.str().find("unknown policy 'lifo'"), std::string::npos) << err_.str();
  EXPECT_EQ(Run({"philly", "--trace", "x", "--las-queues", "2:00:00,1:00:00"}), 2);
  EXPECT_NE(err_.str().find("--las-queues '2:00:00,1:00:00' is not a list of ascending times"), std::string::npos)
      << err_.str();
  EXPECT_EQ(Run({"philly", "--trace", (dir_ / "missing.csv").string()}), 1);
  EXPECT_NE(err_.str().find("missing.csv"), std::string::npos) << err_.str();
  // An output that cannot be written fails before the replay, not after it.
  EXPECT_EQ(Run({"philly", "--trace", (dir_ / "philly.csv").string(), "--json", "/nonexistent/dir/x.json"}), 1);
  EXPECT_NE(err_.str().find("cannot write '/nonexistent/dir/x.json'"), std::string::npos) << err_.str();
  EXPECT_EQ(out_.str(), "");
}

}  // namespace
}  // namespace muster
