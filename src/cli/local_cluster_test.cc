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
  // Read by the option engine: prefixes, and getopt's complaint about an ambiguous one.
  EXPECT_EQ(Up({"--nod", "0"}).err, "muster up: invalid value '0' for --nodes");
  EXPECT_EQ(Up({"--gpu-d"}).err, "muster up: option '--gpu-devices' requires an argument");
  EXPECT_EQ(Up({"--gpu", "x"}).err.rfind("muster up: option '--gpu' is ambiguous; possibilities: '--gpus-per-node'", 0), 0u);
  for (const auto& args : std::vector<std::vector<std::string>>{{"--tcp=x"}, {"--bogus"}, {"--nodes"}, {"four"}, {"--gpus", "mig"}}) {
    EXPECT_EQ(Up(args).rc, 2) << args[0];
  }
}

// `muster up --state URL`: the password leaves the URL (for a password file only the controller
// reads); everything else of the URL stays.
TEST(UpState, ThePasswordIsTakenOutOfTheUrl) {
  struct Case {
    std::string url, without, password;
  };
  const std::vector<Case> cases = {
      {"postgresql://muster:s3cret@127.0.0.1:5432/muster_test", "postgresql://muster@127.0.0.1:5432/muster_test",
       "s3cret"},
      {"postgres://u:p%40ss%3Aw@db1/m?sslmode=verify-full", "postgres://u@db1/m?sslmode=verify-full", "p@ss:w"},
      {"postgresql://u@db1/m?password=x%26y&connect_timeout=5", "postgresql://u@db1/m?connect_timeout=5", "x&y"},
      {"postgresql://u:pw@/m?host=/run/pg", "postgresql://u@/m?host=/run/pg", "pw"},
      {"postgresql://u@db1:5432/m", "postgresql://u@db1:5432/m", ""},
      {"postgresql://db1/m", "postgresql://db1/m", ""},
  };
  for (const Case& c : cases) {
    std::string url = c.url;
    EXPECT_EQ(TakePgPassword(&url), c.password) << c.url;
    EXPECT_EQ(url, c.without) << c.url;
  }
  EXPECT_EQ(PgPassLine("s3cret"), "*:*:*:*:s3cret\n");
  EXPECT_EQ(PgPassLine("a:b\\c"), "*:*:*:*:a\\:b\\\\c\n");
}

TEST(DownArgs, ErrorsNameTheOption) {
  std::ostringstream out, err;
  EXPECT_EQ(DownMain({"--bogus"}, out, err), 2);
  EXPECT_EQ(err.str(), "muster down: unrecognized option '--bogus'\n");
  std::ostringstream out2, err2;
  EXPECT_EQ(DownMain({"--dir"}, out2, err2), 2);
  EXPECT_EQ(err2.str(), "muster down: option '--dir' requires an argument\n");
  std::ostringstream out3, err3;
  EXPECT_EQ(DownMain({"-h"}, out3, err3), 0);
  EXPECT_EQ(out3.str().rfind("usage: muster down", 0), 0u);
}

}  // namespace
}  // namespace muster
