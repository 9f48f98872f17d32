// muster up's argument errors (getopt's wording), reported before anything is started.
#include "cli/local_cluster.h"

#include <gtest/gtest.h>

#include <sstream>

namespace muster {
namespace {

struct Run {
  int rc;
  std::string err;
};

Run Up(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  int rc = UpMain(args, "/nonexistent/muster", out, err);
  return {rc, err.str().substr(0, err.str().find('\n'))};
}

TEST(UpArgs, ErrorsNameTheOption) {
  EXPECT_EQ(Up({"--tcp=x"}).err, "muster up: option '--tcp' doesn't allow an argument");
  EXPECT_EQ(Up({"--bogus"}).err, "muster up: unrecognized option '--bogus'");
  EXPECT_EQ(Up({"--bogus=3"}).err, "muster up: unrecognized option '--bogus=3'");
  EXPECT_EQ(Up({"--nodes"}).err, "muster up: option '--nodes' requires an argument");
  EXPECT_EQ(Up({"--nodes", "0"}).err, "muster up: invalid value '0' for --nodes");
  EXPECT_EQ(Up({"--nodes=x"}).err, "muster up: invalid value 'x' for --nodes");
  EXPECT_EQ(Up({"four"}).err, "muster up: unexpected argument 'four'");
  EXPECT_EQ(Up({"--gpus", "mig"}).err, "muster up: invalid value 'mig' for --gpus");
  EXPECT_EQ(Up({"--gpus", "nvml", "--nodes", "2"}).err,
            "muster up: --gpus nvml runs one node, with this host's GPUs (no --nodes over 1, no --cluster)");
  EXPECT_EQ(Up({"--gpus=nvml", "--cluster", "c.yaml"}).err,
            "muster up: --gpus nvml runs one node, with this host's GPUs (no --nodes over 1, no --cluster)");
  for (const auto& args : std::vector<std::vector<std::string>>{{"--tcp=x"}, {"--bogus"}, {"--nodes"}, {"four"}, {"--gpus", "mig"}}) {
    EXPECT_EQ(Up(args).rc, 2) << args[0];
  }
}

}  // namespace
}  // namespace muster
