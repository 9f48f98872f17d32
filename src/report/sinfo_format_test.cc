// sinfo against the captures sinfo.txt and sinfo_Nl.txt, then node states (mix/alloc/drain/drng/
// down, '*' for a silent node) and their grouping.
#include "report/sinfo_format.h"

#include <gtest/gtest.h>

#include "base/json_test_util.h"

#include <string>
#include <vector>

#include "report/slurm_format_testdata.h"

namespace muster {
namespace {

using testdata::kT0;

class SinfoFormatTest : public ::testing::Test {
 protected:
  void SetUp() override { testdata::UseUtc(); }

  std::string Sinfo(const std::vector<NodeRecord>& nodes, const NodeActivityMap& usage, const SinfoOptions& o,
                    const std::vector<Partition>& parts = testdata::CapturedPartitions()) {
    StatusOr<std::string> out = FormatSinfo(parts, nodes, usage, o, kT0);
    EXPECT_TRUE(out.ok()) << out.status().message();
    return out.ok() ? *out : "";
  }
};

TEST_F(SinfoFormatTest, DefaultMatchesCapture) {  // sinfo.txt
  EXPECT_EQ(Sinfo(testdata::CapturedNodes(kT0), {}, SinfoOptions()),
            "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
            "gpu*         up   infinite      4   idle n[1-4]\n"
            "debug        up      30:00      1   idle n1\n");
}

TEST_F(SinfoFormatTest, NodeLongMatchesCapture) {  // sinfo_Nl.txt
  SinfoOptions o;
  o.node_oriented = true;
  o.long_output = true;
  EXPECT_EQ(Sinfo(testdata::CapturedNodes(kT0), {}, o),
            "Mon Nov 30 03:12:59 2026\n"
            "NODELIST   NODES PARTITION       STATE CPUS    S:C:T MEMORY"
            " TMP_DISK WEIGHT AVAIL_FE REASON              \n"
            "n1             1      gpu*        idle 16      2:8:1  64000"
            "        0      1   (null) none                \n"
            "n1             1     debug        idle 16      2:8:1  64000"
            "        0      1   (null) none                \n"
            "n2             1      gpu*        idle 16      2:8:1  64000"
            "        0      1   (null) none                \n"
            "n3             1      gpu*        idle 16      2:8:1  64000"
            "        0      1   (null) none                \n"
            "n4             1      gpu*        idle 16      2:8:1  64000"
            "        0      1   (null) none                \n");
}

TEST_F(SinfoFormatTest, StatesFromUsageAndFlags) {
  std::vector<NodeRecord> nodes = testdata::CapturedNodes(kT0);
  nodes.push_back(testdata::CapturedNode("n5", kT0));
  nodes.push_back(testdata::CapturedNode("n6", kT0));
  nodes[2].node.drain = true;                     // n3: drained, idle
  nodes[2].node.reason = "ECC errors";
  nodes[3].node.state = NodeState::kDown;         // n4: down and silent for an hour
  nodes[3].last_heartbeat = kT0 - 3600;
  nodes[4].node.drain = true;                     // n5: draining (still has work)
  NodeActivityMap usage = UsageFromJobs(testdata::CapturedJobs());  // n1: 5 CPUs, n2: 1 CPU
  usage["n5"].cpus = 2;
  usage["n6"].cpus = 16;                          // n6: every CPU
  std::vector<Partition> parts = testdata::CapturedPartitions();
  parts[0].nodes = {"n1", "n2", "n3", "n4", "n5", "n6"};
  EXPECT_EQ(Sinfo(nodes, usage, SinfoOptions(), parts),
            "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n"
            "gpu*         up   infinite      1  down* n4\n"  // DOWN|NO_RESPOND = 0x801 sorts first
            "gpu*         up   infinite      1   drng n5\n"  // MIXED|DRAIN = 0x205
            "gpu*         up   infinite      1  drain n3\n"  // IDLE|DRAIN = 0x202
            "gpu*         up   infinite      2    mix n[1-2]\n"
            "gpu*         up   infinite      1  alloc n6\n"
            "debug        up      30:00      1    mix n1\n");
  SinfoOptions node_long;
  node_long.node_oriented = true;
  node_long.long_output = true;
  node_long.format = "%N %.11T %E";
  EXPECT_EQ(Sinfo(nodes, usage, node_long, parts),
            "Mon Nov 30 03:12:59 2026\n"
            "NODELIST       STATE REASON\n"
            "n1       mixed none\n"  // %N without '#': no padding
            "n1       mixed none\n"
            "n2       mixed none\n"
            "n3     drained ECC errors\n"
            "n4       down* none\n"
            "n5    draining none\n"
            "n6   allocated none\n");
}

TEST_F(SinfoFormatTest, SortRankOrdersDrainedBeforeBusyBeforeIdle) {
  // Slurm sorts "-t" by its numeric state, flags included (sinfo/sort.c _sort_by_state).
  const NodeRecord n = testdata::CapturedNode("x", kT0);
  NodeActivity busy;
  busy.cpus = 1;
  EXPECT_GT(NodeStateOf(n, busy, true).sort_rank, NodeStateOf(n, NodeActivity(), true).sort_rank);
  NodeRecord drained = n;
  drained.node.drain = true;
  EXPECT_GT(NodeStateOf(drained, NodeActivity(), true).sort_rank, NodeStateOf(n, busy, true).sort_rank);
  EXPECT_EQ(NodeStateOf(drained, busy, false).complete, "MIXED+DRAIN+NOT_RESPONDING");
  NodeActivity gpus_only;
  gpus_only.gpus = 1;
  EXPECT_EQ(NodeStateOf(n, gpus_only, true).compact, "mix");  // as Slurm's _set_node_mixed_op
}

TEST_F(SinfoFormatTest, LongPartitionLayoutAndEmptyPartition) {
  std::vector<Partition> parts = testdata::CapturedPartitions();
  Partition empty;
  empty.name = "a-rather-long-name";
  empty.up = false;
  empty.max_time_s = 2 * 86400;
  parts.push_back(empty);
  SinfoOptions o;
  o.long_output = true;
  EXPECT_EQ(Sinfo(testdata::CapturedNodes(kT0), {}, o, parts),
            "Mon Nov 30 03:12:59 2026\n"
            "PARTITION          AVAIL  TIMELIMIT   JOB_SIZE ROOT OVERSUBS     GROUPS  NODES       STATE NODELIST\n"
            "gpu*                  up   infinite 1-infinite   no       NO        all      4        idle n[1-4]\n"
            "debug                 up      30:00 1-infinite   no       NO        all      1        idle n1\n"
            "a-rather-long-name  down 2-00:00:00 1-infinite   no       NO        all      0         n/a \n");
}

TEST_F(SinfoFormatTest, CustomFormatAggregatesAndGres) {
  std::vector<NodeRecord> nodes = testdata::CapturedNodes(kT0);
  for (Gpu& g : nodes[0].node.gpus) g.model = "h100";
  nodes[0].node.features = {"h100", "ib"};
  SinfoOptions o;
  o.format = "%P %D %C %F %G %f %N";
  const NodeActivityMap usage = UsageFromJobs(testdata::CapturedJobs());
  EXPECT_EQ(Sinfo(nodes, usage, o),
            "PARTITION NODES CPUS(A/I/O/T) NODES(A/I/O/T) GRES AVAIL_FEATURES NODELIST\n"
            "gpu* 1 5/11/0/16 1/0/0/1 gpu:h100:8 h100,ib n1\n"
            "gpu* 3 1/47/0/48 1/2/0/3 gpu:8 (null) n[2-4]\n"
            "debug 1 5/11/0/16 1/0/0/1 gpu:h100:8 h100,ib n1\n");
  o.format = "%P %y";
  StatusOr<std::string> bad = FormatSinfo(testdata::CapturedPartitions(), nodes, usage, o, kT0);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "Invalid node format specification: y");
}

// sinfo --json: Slurm 22.05's node keys (those of the peer's v0.0.38 records), the machine's
// host name and the agent's port.
TEST_F(SinfoFormatTest, JsonHasSlurmsNodeKeys) {
  std::vector<NodeRecord> nodes = testdata::CapturedNodes(kT0);
  nodes[0].agent_address = "127.0.0.1:16821";
  nodes[0].hostname = "vm";
  nodes[1].agent_address = "unix:/run/musterd.sock";
  const test_json::Json j = SinfoJson(testdata::CapturedPartitions(), nodes, {}, kT0);
  ASSERT_GE(j["nodes"].size(), 2u);
  for (const char* key :
       {"architecture", "burstbuffer_network_address", "boards", "boot_time", "comment", "cores", "cpu_binding",
        "cpu_load", "extra", "free_memory", "cpus", "last_busy", "features", "active_features", "gres",
        "gres_drained", "gres_used", "mcs_label", "name", "next_state_after_reboot",
        "next_state_after_reboot_flags", "address", "hostname", "state", "state_flags", "operating_system", "owner",
        "partitions", "port", "real_memory", "reason", "reason_changed_at", "reason_set_by_user",
        "slurmd_start_time", "sockets", "threads", "temporary_disk", "weight", "tres", "slurmd_version",
        "alloc_memory", "alloc_cpus", "idle_cpus", "tres_used", "tres_weighted"}) {
    EXPECT_TRUE(j["nodes"][0].contains(key)) << key;
  }
  EXPECT_EQ(j["nodes"][0]["port"], 16821);
  EXPECT_EQ(j["nodes"][0]["hostname"], "vm");
  EXPECT_EQ(j["nodes"][1]["port"], 0);
  EXPECT_EQ(j["nodes"][1]["hostname"], nodes[1].node.name) << "not reported: the node's name";
}

}  // namespace
}  // namespace muster
