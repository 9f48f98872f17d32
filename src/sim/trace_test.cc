// The trace readers: the rows of each format as the files write them, and every bad row an
// error naming the file, the line and what is wrong.
#include "sim/trace.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace muster {
namespace {

TEST(OpenbTrace, NodesAndPods) {
  StatusOr<std::vector<OpenbNode>> nodes = ParseOpenbNodes(
      "sn,cpu_milli,memory_mib,gpu,model\n"
      "openb-node-0000,64000,262144,2,P100\r\n"
      "\n"
      "openb-node-0227,32000,262144,0,nan\n",
      "nodes.csv");
  ASSERT_TRUE(nodes.ok()) << nodes.status().ToString();
  ASSERT_EQ(nodes->size(), 2u);
  EXPECT_EQ((*nodes)[0].name, "openb-node-0000");
  EXPECT_EQ((*nodes)[0].cpu_milli, 64000);
  EXPECT_EQ((*nodes)[0].memory_mib, 262144);
  EXPECT_EQ((*nodes)[0].gpus, 2);
  EXPECT_EQ((*nodes)[0].model, "P100");
  EXPECT_EQ((*nodes)[1].model, "");  // "nan": none
  // Columns are found by name, in any order.
  StatusOr<std::vector<OpenbPod>> pods = ParseOpenbPods(
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
      "openb-pod-0001,6000,12288,1,460,,LS,Running,427061,12902960,427061\n"
      "openb-pod-0017,88000,327680,8,1000,nan,Burstable,Succeeded,9437497,10769854,9437497\n"
      "openb-pod-0035,16000,32768,1,1000,V100M16|V100M32,LS,Running,9967058,,\n"
      "openb-pod-0040,2000,4096,0,0,,BE,Running,1,2,1\n",
      "pods.csv");
  ASSERT_TRUE(pods.ok()) << pods.status().ToString();
  ASSERT_EQ(pods->size(), 4u);
  EXPECT_EQ((*pods)[0].gpu_milli, 460);
  EXPECT_EQ((*pods)[0].gpu_demand_milli(), 460);
  EXPECT_EQ((*pods)[1].gpu_demand_milli(), 8000);
  EXPECT_EQ((*pods)[1].gpu_spec, "");
  EXPECT_EQ((*pods)[2].gpu_spec, "V100M16|V100M32");
  EXPECT_EQ((*pods)[2].deletion_s, 0);
  EXPECT_EQ((*pods)[3].num_gpu, 0);
  EXPECT_EQ((*pods)[3].gpu_demand_milli(), 0);
  // The multigpu lists have the first five columns only.
  StatusOr<std::vector<OpenbPod>> short_list = ParseOpenbPods(
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli\nopenb-pod-0000,12000,16384,1,1000\n", "multigpu20.csv");
  ASSERT_TRUE(short_list.ok()) << short_list.status().ToString();
  EXPECT_EQ((*short_list)[0].gpu_spec, "");
  EXPECT_EQ((*short_list)[0].creation_s, 0);
}

TEST(OpenbTrace, BadRowsNameTheLine) {
  const std::string head = "sn,cpu_milli,memory_mib,gpu,model\n";
  struct Case {
    std::string text, error;
  };
  for (const Case& c : std::vector<Case>{
           {"", "n.csv: empty file (expected a header line)"},
           {"sn,cpu_milli,gpu,model\n", "n.csv:1: no column 'memory_mib' in the header"},
           {head, "n.csv: no nodes"},
           {head + "a,1,2,3,X\nb,64000,x,2,P100\n", "n.csv:3: memory_mib 'x' is not a whole number"},
           {head + "a,1,2,3\n", "n.csv:2: has 4 fields, the header 5"},
           {head + "a,1,2,-1,X\n", "n.csv:2: gpu -1 is out of range [0, 64]"},
           {head + "a,1,2,2,nan\n", "n.csv:2: a node with GPUs has no model"},
       }) {
    StatusOr<std::vector<OpenbNode>> r = ParseOpenbNodes(c.text, "n.csv");
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_EQ(r.status().message(), c.error);
  }
  const std::string pods = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
                           "deletion_time,scheduled_time\n";
  EXPECT_EQ(ParseOpenbPods(pods + "p,1,1,2,500,,LS,Running,0,0,0\n", "p.csv").status().message(),
            "p.csv:2: gpu_milli 500 for 2 GPUs (only a single GPU is shared)");
  EXPECT_EQ(ParseOpenbPods(pods + "p,1,1,1,0,,LS,Running,0,0,0\n", "p.csv").status().message(),
            "p.csv:2: num_gpu 1 with gpu_milli 0");
  EXPECT_EQ(ParseOpenbPods(pods + "p,1,1,1,1001,,LS,Running,0,0,0\n", "p.csv").status().message(),
            "p.csv:2: gpu_milli 1001 is out of range [0, 1000]");
}

TEST(PhillyTrace, SortedByArrivalWithDurationsInWholeSeconds) {
  StatusOr<std::vector<PhillyJob>> jobs = ParsePhilly(
      "timestamp,duration,num_gpus,gpu_time,cluster\n"
      "2017-10-09 07:01:55,66.0,1,66.0,11cb48\n"
      "2017-10-09 06:13:03,2951.2,8,23609.6,6214e9\n"
      "2017-10-09 06:13:03,0.0,2,0,6214e9\n",
      "philly.csv");
  ASSERT_TRUE(jobs.ok()) << jobs.status().ToString();
  ASSERT_EQ(jobs->size(), 3u);
  EXPECT_EQ((*jobs)[0].id, 2);  // the file's second row arrived first
  EXPECT_EQ((*jobs)[0].arrival_s, 1507529583);  // 2017-10-09 06:13:03 UTC
  EXPECT_EQ((*jobs)[0].duration_s, 2952);
  EXPECT_EQ((*jobs)[0].gpus, 8);
  EXPECT_EQ((*jobs)[0].vc, "6214e9");
  EXPECT_EQ((*jobs)[1].id, 3);  // same second: file order
  EXPECT_EQ((*jobs)[1].duration_s, 1);
  EXPECT_EQ((*jobs)[2].arrival_s, 1507532515);
  const std::string head = "timestamp,duration,num_gpus,gpu_time,cluster\n";
  EXPECT_EQ(ParsePhilly(head + "2017-10-09 07:01,66,1,66,a\n", "p.csv").status().message(),
            "p.csv:2: timestamp '2017-10-09 07:01' is not YYYY-MM-DD HH:MM:SS");
  EXPECT_EQ(ParsePhilly(head + "2017-10-09 07:01:55,-3,1,66,a\n", "p.csv").status().message(),
            "p.csv:2: duration -3 is below 0");
  EXPECT_EQ(ParsePhilly(head + "2017-10-09 07:01:55,3,0,66,a\n", "p.csv").status().message(),
            "p.csv:2: num_gpus 0 is out of range [1, 4096]");
  EXPECT_EQ(ParsePhilly(head + "2017-10-09 07:01:55,abc,1,66,a\n", "p.csv").status().message(),
            "p.csv:2: duration 'abc' is not a number");
}

TEST(SwfTrace, FieldsCommentsAndErrors) {
  StatusOr<std::vector<SwfJob>> jobs = ParseSwf(
      "; Version: 2.2\n"
      ";\n"
      "    1      0   10   3600   64  -1 -1   64  7200 -1  1  3  1 -1  1 -1 -1 -1\n"
      "    2     30   -1     -1   -1  -1 -1   16   600 -1  5  4  1 -1  2  1 -1 -1\n",
      "log.swf");
  ASSERT_TRUE(jobs.ok()) << jobs.status().ToString();
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_EQ((*jobs)[0].run_s, 3600);
  EXPECT_EQ((*jobs)[0].processors, 64);
  EXPECT_EQ((*jobs)[0].requested_s, 7200);
  EXPECT_EQ((*jobs)[1].processors, 16);  // not allocated (cancelled): the request
  EXPECT_EQ((*jobs)[1].status, 5);
  EXPECT_EQ((*jobs)[1].partition, 1);
  EXPECT_EQ(ParseSwf("; c\n1 0 0 1\n", "x.swf").status().message(), "x.swf:2: has 4 fields, SWF has 18");
  EXPECT_EQ(ParseSwf("1 0 0 1 1 -1 -1 1 1 -1 1 1 1 -1 1 -1 -1 z\n", "x.swf").status().message(),
            "x.swf:1: field 18 'z' is not a number");
  EXPECT_EQ(ParseSwf("; only comments\n", "x.swf").status().message(), "x.swf: no jobs");
}

// The real files, where this checkout has them beside it (../shared): every row reads.
TEST(RealTraces, ReadWhole) {
  const std::string dir = std::string(MUSTER_SOURCE_DIR) + "/../shared/data/traces";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no " << dir << " here";
  StatusOr<std::string> nodes = ReadTraceFile(dir + "/openb/openb_node_list_gpu_node.csv");
  ASSERT_TRUE(nodes.ok());
  StatusOr<std::vector<OpenbNode>> n = ParseOpenbNodes(*nodes, "openb_node_list_gpu_node.csv");
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_EQ(n->size(), 1213u);
  int gpus = 0;
  for (const OpenbNode& x : *n) gpus += x.gpus;
  EXPECT_EQ(gpus, 6212);
  StatusOr<std::string> pods = ReadTraceFile(dir + "/openb/openb_pod_list_default.csv");
  ASSERT_TRUE(pods.ok());
  StatusOr<std::vector<OpenbPod>> p = ParseOpenbPods(*pods, "openb_pod_list_default.csv");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->size(), 8152u);
  StatusOr<std::string> philly = ReadTraceFile(dir + "/philly/philly.csv");
  ASSERT_TRUE(philly.ok());
  StatusOr<std::vector<PhillyJob>> j = ParsePhilly(*philly, "philly.csv");
  ASSERT_TRUE(j.ok()) << j.status().ToString();
  EXPECT_EQ(j->size(), 82247u);
  EXPECT_EQ(ReadTraceFile(dir + "/nope.csv").status().message(), "cannot read trace file '" + dir + "/nope.csv'");
}

}  // namespace
}  // namespace muster
