// sreport's output against Slurm 22.05.8's own, byte for byte: the captures under
// testdata/sreport_peer were printed by Debian's Slurm (the peer of ../shared/peers/slurm, with
// slurmdbd) over the hour 2026-12-06T01:00-02:00 in which it ran four jobs (root in accounts ml
// and bio, nobody in ml; 4 nodes of 16 CPUs and 8 GPUs, registered at 01:28:56). Each capture's
// first line is its command. The figures the peer reported (its `-t seconds -P` captures) are
// given to Muster's formatter with the same command line: every layout, unit and rounding must
// come out the same.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <time.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/sreport_command.h"

namespace muster {
namespace {

constexpr int64_t kHour = 1796518800;  // 2026-12-06T01:00:00Z

// The peer's figures, as its `-t seconds -P` captures print them (cu_tres_sec_P, aubu_sec_P).
UsageAnswer PeerHour() {
  UsageAnswer u;
  u.cluster = "peer";
  u.start = u.measured_start = kHour;
  u.end = u.measured_end = kHour + 3600;
  // (tres, count, alloc, down, planned down, idle, planned, over)
  u.tres = {{"cpu", 64, 1320, 0, 0, 117976, 0, 0}, {"gres/gpu", 32, 600, 0, 0, 59048, 0, 0}};
  u.assocs = {{"root", "bio", "root", 180, 0}, {"nobody", "ml", "nobody", 60, 60}, {"root", "ml", "root", 1080, 540}};
  u.accounts = {{"bio", ""}, {"ml", ""}};  // (parent "": under the root)
  return u;
}

struct Capture {
  std::vector<std::string> args;  // after "sreport"
  std::string text;
};

Capture Read(const std::string& name) {
  std::ifstream in(std::string(MUSTER_SOURCE_DIR) + "/src/cli/testdata/sreport_peer/" + name + ".txt");
  Capture c;
  std::string first;
  std::getline(in, first);
  std::istringstream words(first);
  std::string w;
  words >> w >> w;  // "#", "sreport"
  while (words >> w) c.args.push_back(w);
  std::stringstream rest;
  rest << in.rdbuf();
  c.text = rest.str();
  return c;
}

class SreportPeerTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);  // the peer's zone
    tzset();
  }
};

TEST_P(SreportPeerTest, PrintsWhatSlurmPrinted) {
  const Capture c = Read(GetParam());
  ASSERT_FALSE(c.args.empty()) << GetParam();
  ASSERT_FALSE(c.text.empty()) << GetParam();
  StatusOr<SreportRequest> req = ParseSreportArgs(c.args, kHour + 3900);
  ASSERT_TRUE(req.ok()) << req.status().message();
  std::string err;
  EXPECT_EQ(FormatSreport(*req, PeerHour(), &err), c.text) << GetParam();
  EXPECT_EQ(err, "");
}

// Every capture but cu_tres_all: Slurm's -T ALL lists every TRES it accounts (mem, energy,
// billing, fs/disk, vmem, pages); Muster's ALL is the two it accounts, cpu and gres/gpu
// (docs/slurm-compatibility.md).
INSTANTIATE_TEST_SUITE_P(Captures, SreportPeerTest,
                         ::testing::Values("cu_default", "cu_hours", "cu_percent", "cu_hourper", "cu_tres_sec_P",
                                           "cu_p", "ut_default", "ut_sec_P", "ut_gpu", "aubu_default", "aubu_sec_P",
                                           "aubu_percent", "aubu_n", "uuba_default", "uuba_sec_P"));

}  // namespace
}  // namespace muster
