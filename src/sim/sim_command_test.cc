// `muster sim philly` and `muster sim swf` as a user runs them, in-process: the table and the JSON of a replay of a small
// trace file, and the errors for bad options and outputs that cannot be written.
#include "sim/sim_command.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "base/json_test_util.h"
#include <sstream>

namespace muster {
namespace {

using test_json::Json;

Json ReadJson(const std::string& path) {
  std::ifstream in(path);
  return test_json::Parse(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
}

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
  Json doc = ReadJson(json);
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

namespace muster {
namespace {

// An SWF log on its own machine (the header's 1 node of 4 CPUs).
class SimSwfCommand : public SimPhillyCommand {
 protected:
  std::string Log(const std::string& jobs) {
    const std::string path = (dir_ / "log.swf").string();
    std::ofstream(path) << "; Version: 2.2\n; MaxNodes: 1\n; MaxProcs: 4\n" << jobs;
    return path;
  }
  Json Replayed(const std::string& log, const std::string& policy) {
    const std::string json = (dir_ / "swf.json").string();
    EXPECT_EQ(Run({"swf", "--trace", log, "--policy", policy, "--restart-penalty", "30", "--json", json}), 0) << err_.str();
    return ReadJson(json);
  }
};

TEST_F(SimSwfCommand, CpuJobsShareTheNodeAndJobsThatNeverRanAreLeftOut) {
  //           id submit wait run procs cpu mem  req-procs req-time mem status user group app queue part prev think
  const std::string log = Log("1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n"
                              "2 10 -1 50 2 -1 -1 2 60 -1 1 2 1 -1 1 -1 -1 -1\n"
                              "3 20 -1 10 2 -1 -1 2 30 -1 1 3 1 -1 2 -1 -1 -1\n"
                              "4 30 -1 -1 2 -1 -1 2 30 -1 5 3 1 -1 2 -1 -1 -1\n"   // cancelled: never ran
                              "5 40 -1 10 8 -1 -1 8 30 -1 1 3 1 -1 2 -1 -1 -1\n");  // 8 CPUs: larger than the machine
  Json doc = Replayed(log, "fifo");
  EXPECT_NE(out_.str().find("SWF queueing: 5 jobs (2 left out: never ran or larger than the cluster), 1 node x 4 CPUs"),
            std::string::npos) << out_.str();
  EXPECT_EQ(doc["left_out"], 2);
  EXPECT_EQ(doc["cluster"]["cpus"], 4);
  // 1 runs 0-100 on all 4 CPUs; then 2 (100-150) and 3 (100-110) side by side, 2 CPUs each.
  const Json f = doc["policies"]["fifo"];
  EXPECT_DOUBLE_EQ(f["avg_jct_s"].get<double>(), (100.0 + 140 + 90) / 3);
  EXPECT_EQ(f["makespan_s"], 150);
  EXPECT_DOUBLE_EQ(f["gpu_utilization"].get<double>(), (400.0 + 100 + 20) / (4 * 150));  // CPU-seconds here
  // SRTF: 2 (50 s) stops 1 (90 s left) at 10, which loses its 10 s and 30 more (the penalty),
  // and restarts at 60 for all of its 100 s; 3 runs 20-30 beside 2.
  doc = Replayed(log, "srtf_oracle");
  EXPECT_DOUBLE_EQ(doc["policies"]["srtf_oracle"]["avg_jct_s"].get<double>(), (160.0 + 50 + 10) / 3);
  EXPECT_EQ(doc["policies"]["srtf_oracle"]["preemptions"], 1);
}

TEST_F(SimSwfCommand, EasyBackfillUsesTheTimesUsersAskedFor) {
  // 1 holds 2 CPUs until 100; 2 needs all 4 and waits for it; 3 (2 CPUs, asked 60 s) ends before
  // 2's reserved start, so backfill starts it at once, where FIFO keeps it behind 2.
  const std::string log = Log("1 0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n"
                              "2 1 -1 10 4 -1 -1 4 10 -1 1 2 1 -1 1 -1 -1 -1\n"
                              "3 2 -1 50 2 -1 -1 2 60 -1 1 3 1 -1 1 -1 -1 -1\n");
  EXPECT_DOUBLE_EQ(Replayed(log, "fifo")["policies"]["fifo"]["avg_jct_s"].get<double>(), (100.0 + 109 + 158) / 3);
  EXPECT_DOUBLE_EQ(Replayed(log, "fifo_backfill")["policies"]["fifo_backfill"]["avg_jct_s"].get<double>(),
                   (100.0 + 109 + 50) / 3);
  // Asked less than it ran: the site let it run, and so does the replay (no TIMEOUT).
  const std::string over = Log("1 0 -1 100 2 -1 -1 2 50 -1 1 1 1 -1 1 -1 -1 -1\n");
  EXPECT_EQ(Replayed(over, "fifo_backfill")["policies"]["fifo_backfill"]["timeouts"], 0);
}

TEST_F(SimSwfCommand, BadInputIsNamed) {
  const std::string bare = (dir_ / "bare.swf").string();
  std::ofstream(bare) << "1 0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n";
  EXPECT_EQ(Run({"swf", "--trace", bare}), 2);
  EXPECT_NE(err_.str().find("has no MaxNodes/MaxProcs header: give --nodes and --cpus-per-node"), std::string::npos)
      << err_.str();
  EXPECT_EQ(Run({"swf", "--trace", bare, "--nodes", "2", "--cpus-per-node", "4", "--policy", "fifo"}), 0) << err_.str();
  EXPECT_NE(out_.str().find("2 nodes x 4 CPUs (8 CPUs)"), std::string::npos) << out_.str();
  std::ofstream(bare) << "1 0 -1 100 2\n";
  EXPECT_EQ(Run({"swf", "--trace", bare, "--nodes", "2", "--cpus-per-node", "4"}), 1);
  EXPECT_NE(err_.str().find("bare.swf:1: has 5 fields, SWF has 18"), std::string::npos) << err_.str();
  EXPECT_EQ(Run({"swf", "--trace", bare, "--cpus-per-node", "0"}), 2);
  EXPECT_NE(err_.str().find("--cpus-per-node '0' is not a CPU count"), std::string::npos) << err_.str();
}

}  // namespace
}  // namespace muster

namespace muster {
namespace {

// The command lines of `muster sim` and its benchmarks, read with the option engine: getopt's
// messages for a line it cannot read (with the usage), the command's own for a bad value.
TEST_F(SimPhillyCommand, OptionsAreReadWithTheEngine) {
  // "--name=value" and unique prefixes.
  ASSERT_EQ(Run({"philly", "--trace=" + (dir_ / "philly.csv").string(), "--clu", (dir_ / "cluster.yaml").string(),
                 "--pol=fifo", "--restart=0", "--check"}),
            0)
      << err_.str();
  EXPECT_NE(out_.str().find("Philly queueing: 3 jobs, 1 nodes of "), std::string::npos) << out_.str();
  EXPECT_NE(out_.str().find("fifo"), std::string::npos) << out_.str();
  EXPECT_EQ(Run({"philly", "--he", "--bogus"}), 0);  // answered, the rest unread
  EXPECT_EQ(out_.str(), SimPhillyUsage());
  EXPECT_EQ(Run({"swf", "-h"}), 0);
  EXPECT_EQ(out_.str(), SimSwfUsage());
}

TEST_F(SimPhillyCommand, BadOptionsInGetoptsWords) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--bogus"}, "muster sim: unrecognized option '--bogus'\n" + SimUsage()},
      {{"philly", "--trace"}, "muster sim philly: option '--trace' requires an argument\n" + SimPhillyUsage()},
      {{"philly", "--cpus-per-node", "4"}, "muster sim philly: unrecognized option '--cpus-per-node'\n" +
                                               SimPhillyUsage()},  // swf's alone
      {{"philly", "--c", "x"}, "muster sim philly: option '--c' is ambiguous; possibilities: '--cluster' '--csv' "
                               "'--check-caches'\n" + SimPhillyUsage()},
      {{"philly", "--check-caches=1"}, "muster sim philly: option '--check-caches' doesn't allow an argument\n" +
                                           SimPhillyUsage()},
      {{"philly", "--trace", "t.csv", "more.csv"}, "muster sim philly: unexpected argument 'more.csv'\n" +
                                                       SimPhillyUsage()},
      {{"swf", "-x"}, "muster sim swf: invalid option -- 'x'\n" + SimSwfUsage()},
      {{"swf", "--trace", "t", "--cpus", "0"}, "muster sim swf: --cpus-per-node '0' is not a CPU count\n" +
                                                   SimSwfUsage()},
      {{"openb", "--nodes"}, "muster sim openb: option '--nodes' requires an argument\n" + SimUsage()},
      {{"openb", "--nodes", "n.csv", "p.csv"}, "muster sim openb: unexpected argument 'p.csv'\n" + SimUsage()},
      // A bad value: its message alone, as before.
      {{"openb", "--seeds", "0"}, "muster sim openb: --seeds '0' is not a valid count\n"},
      {{"openb", "--first=x"}, "muster sim openb: --first-seed 'x' is not a valid count\n"},
      {{"openb", "--ratio", "11"}, "muster sim openb: --ratio '11' must be a number in (0, 10]\n"},
      {{"openb", "--pods=p.csv"}, "muster sim openb: --nodes and --pods are required\n" + SimUsage()},
  };
  for (const auto& [args, error] : cases) {
    EXPECT_EQ(Run(args), 2) << args[0];
    EXPECT_EQ(err_.str(), error);
    EXPECT_EQ(out_.str(), "");
  }
  EXPECT_EQ(Run({}), 2);
  EXPECT_EQ(err_.str(), SimUsage());
  EXPECT_EQ(Run({"--help"}), 0);
  EXPECT_EQ(out_.str(), SimUsage());
  EXPECT_EQ(Run({"openb", "--help"}), 0);
  EXPECT_EQ(out_.str(), SimUsage());
}

}  // namespace
}  // namespace muster
