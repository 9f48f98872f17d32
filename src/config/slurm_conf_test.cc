// slurm.conf (+ gres.conf, topology.conf) -> cluster: tables of good inputs with the cluster they
// give, of bad inputs with the exact error, the Slurm peer's real files, examples/cluster.yaml's
// cluster written as a Slurm site would, and a few thousand mangled lines that must never crash.
#include "config/slurm_conf.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <sstream>

#include "base/test_util.h"
#include "config/muster_config.h"
#include "config/slurm_conf_test_util.h"
#include "model/hostlist.h"
#include "sched/cluster_builder.h"
#include "sched/scheduler.h"

namespace muster {
namespace {

using test::Extras;
using test::Join;
using test::kRepo;
using test::kTestData;

// "a100:4,mig/1g.10gb:2": runs of devices of one kind, in device order ("gpu" = untyped).
std::string GpuRuns(const Node& n) {
  std::string out, last;
  int count = 0;
  auto flush = [&] {
    if (count > 0) out += (out.empty() ? "" : ",") + last + ":" + std::to_string(count);
  };
  for (const Gpu& g : n.gpus) {
    const std::string kind = g.is_mig() ? "mig/" + g.mig_profile : (g.model.empty() ? "gpu" : g.model);
    if (kind != last) {
      flush();
      last = kind;
      count = 0;
    }
    ++count;
  }
  flush();
  return out;
}

// "" when no pair has NVLinks, else the matrix as "0,2;2,0".
std::string Links(const Node& n) {
  const int size = n.links.size();
  bool any = false;
  std::string rows;
  for (int a = 0; a < size; ++a) {
    std::string row;
    for (int b = 0; b < size; ++b) {
      row += (b ? "," : "") + std::to_string(n.links.links(a, b));
      any = any || n.links.links(a, b) != 0;
    }
    rows += (a ? ";" : "") + row;
  }
  return any ? rows : "";
}

// The cluster as text, one line per node and partition, then the switch tree.
std::string Summary(const ClusterConfig& c) {
  std::ostringstream o;
  o << "cluster '" << c.name << "'\n";
  for (const Node& n : c.spec.nodes) {
    o << "node " << n.name << " cpus=" << n.cpus << " (" << n.sockets << "x" << n.cores_per_socket << "x"
      << n.threads_per_core << ") numa=" << n.numa_nodes << " mem=" << n.memory_mb;
    if (!n.features.empty()) o << " features=" << Join(n.features);
    if (n.state != NodeState::kIdle) o << " state=" << NodeStateName(n.state);
    if (n.drain) o << " drain";
    if (!n.reason.empty()) o << " reason='" << n.reason << "'";
    if (!n.gpus.empty()) o << " gpus=" << GpuRuns(n);
    if (const std::string l = Links(n); !l.empty()) o << " links=" << l;
    o << "\n";
  }
  for (const Partition& p : c.spec.partitions) {
    o << "partition " << p.name << " nodes=" << CompressHostlist(p.nodes) << (p.is_default ? " default" : "")
      << (p.up ? "" : " down") << " max_time=" << FormatTimeSpec(p.max_time_s)
      << " default_time=" << FormatTimeSpec(p.default_time_s) << " job_nodes=" << p.min_nodes << "-"
      << (p.max_nodes == kUnlimited ? "UNLIMITED" : std::to_string(p.max_nodes)) << " tier=" << p.priority_tier
      << " def_mem_per_cpu=" << p.def_mem_per_cpu_mb << "\n";
  }
  o << c.spec.topology.ToTopologyConf();
  return o.str();
}

struct GoodCase {
  const char* what;
  const char* slurm_conf;
  const char* gres_conf;  // nullptr: none
  const char* topology_conf;
  const char* want;       // Summary()
};

TEST(SlurmConf, GoodInputs) {
  const GoodCase cases[] = {
      {"minimal", "NodeName=n1 CPUs=4 RealMemory=1000\nPartitionName=p Nodes=n1\n", nullptr, nullptr,
       "cluster ''\n"
       "node n1 cpus=4 (4x1x1) numa=4 mem=1000\n"
       "partition p nodes=n1 max_time=UNLIMITED default_time=UNLIMITED job_nodes=0-UNLIMITED tier=1 "
       "def_mem_per_cpu=0\n"},
      {"the syntax and most keys",
       "# a comment line\n"
       "ClusterName=Lab  SlurmctldHost=ctl   # two keys on one line, a name in upper case\n"
       "DefMemPerCPU=512\n"
       "GresTypes=gpu,mps\n"
       "SchedulerParameters=bf_continue,bf_window=4320\n"
       "nodename=DEFAULT Sockets=2 CoresPerSocket=4 ThreadsPerCore=2 RealMemory=64000\n"
       "NodeName=a[1-2] Gres=gpu:a100:4,mps:400 Feature=ib,fast\n"
       "NodeName=b1 CPUs=8 \\\n"
       "  Gres=gpu:2(S:0-1) State=DOWN Reason=\"bad fan\"\n"
       "NodeName = c1  Weight=10  state=future\n"
       "DownNodes=a2 State=DRAIN Reason=\"disk \\# 3\"\n"
       "NodeSet=fastones Feature=fast\n"
       "PartitionName=DEFAULT MaxTime=4:00:00 State=UP\n"
       "PartitionName=main Nodes=ALL Default=YES MaxNodes=UNLIMITED\n"
       "PartitionName=fast Nodes=fastones,b1 Default=yes DefaultTime=30 MaxTime=1-0 MinNodes=0 MaxNodes=2 "
       "PriorityTier=5 DefMemPerCPU=2G\n"
       "PartitionName=old Nodes=b1 State=INACTIVE Priority=3 MaxTime=INFINITE\n"
       "PartitionName=drained Nodes=c1 State=DRAIN Hidden=YES AllowAccounts=ALL\n",
       nullptr, nullptr,
       "cluster 'lab'\n"
       "node a1 cpus=16 (2x4x2) numa=2 mem=64000 features=ib,fast gpus=a100:4\n"
       "node a2 cpus=16 (2x4x2) numa=2 mem=64000 features=ib,fast drain reason='disk # 3' gpus=a100:4\n"
       "node b1 cpus=8 (2x4x2) numa=2 mem=64000 state=down reason='bad fan' gpus=gpu:2\n"
       "node c1 cpus=16 (2x4x2) numa=2 mem=64000 state=future\n"
       "partition main nodes=a[1-2],b1,c1 max_time=04:00:00 default_time=UNLIMITED job_nodes=0-UNLIMITED tier=1 "
       "def_mem_per_cpu=512\n"
       "partition fast nodes=a[1-2],b1 default max_time=1-00:00:00 default_time=00:30:00 job_nodes=0-2 tier=5 "
       "def_mem_per_cpu=2048\n"
       "partition old nodes=b1 down max_time=UNLIMITED default_time=UNLIMITED job_nodes=0-UNLIMITED tier=3 "
       "def_mem_per_cpu=512\n"
       "partition drained nodes=c1 max_time=04:00:00 default_time=UNLIMITED job_nodes=0-UNLIMITED tier=1 "
       "def_mem_per_cpu=512\n"},
      {"CPU layouts as Slurm completes them",
       "NodeName=d[01-02] Boards=2 SocketsPerBoard=2 CoresPerSocket=2 ThreadsPerCore=2\n"
       "NodeName=e1 CPUs=6 CoresPerSocket=3\n"
       "NodeName=f1\n"
       "NodeName=g1 Procs=12 Sockets=2 CoresPerSocket=3 ThreadsPerCore=2 RealMemory=16G\n"
       "NodeName=h1 CPUs=2 Sockets=2 CoresPerSocket=4 ThreadsPerCore=2\n"
       "PartitionName=all Nodes=ALL\n",
       nullptr, nullptr,
       "cluster ''\n"
       "node d01 cpus=16 (4x2x2) numa=4 mem=1\n"
       "node d02 cpus=16 (4x2x2) numa=4 mem=1\n"
       "node e1 cpus=6 (2x3x1) numa=2 mem=1\n"
       "node f1 cpus=1 (1x1x1) numa=1 mem=1\n"
       "node g1 cpus=12 (2x3x2) numa=2 mem=16384\n"
       "node h1 cpus=2 (2x4x2) numa=2 mem=1\n"
       "partition all nodes=d[01-02],e1,f1,g1,h1 max_time=UNLIMITED default_time=UNLIMITED job_nodes=0-UNLIMITED "
       "tier=1 def_mem_per_cpu=0\n"},
      {"gres.conf: types, devices and NVLinks",
       "NodeName=n[1-2] CPUs=8 Sockets=2 CoresPerSocket=4 Gres=gpu:4\n"
       "NodeName=m1 CPUs=8 Gres=gpu:tesla:2\n"
       "NodeName=t1 CPUs=2 Gres=gpu:a100:2\n"
       "NodeName=cpu1 CPUs=4\n"
       "PartitionName=p Nodes=ALL\n",
       "# per-GPU lines with NVLinks on n1\n"
       "NodeName=n1 Name=gpu Type=a100 File=/dev/nvidia0 Links=-1,2,0,0\n"
       "NodeName=n1 Name=gpu Type=a100 File=/dev/nvidia1 Links=2,-1,0,0\n"
       "NodeName=n1 Name=gpu Type=a100 File=/dev/nvidia2 Links=0,0,-1,4\n"
       "nodename=n1 name=gpu type=a100 file=/dev/nvidia3 links=0,0,4,-1\n"
       "NodeName=n2 Name=gpu File=/dev/nvidia[0-3] Cores=0-3\n"
       "NodeName=t1 Name=gpu Count=2\n"
       "NodeName=n[1-2],elsewhere9 Name=mps Count=400\n",
       nullptr,
       "cluster ''\n"
       "node n1 cpus=8 (2x4x1) numa=2 mem=1 gpus=a100:4 links=0,2,0,0;2,0,0,0;0,0,0,4;0,0,4,0\n"
       "node n2 cpus=8 (2x4x1) numa=2 mem=1 gpus=gpu:4\n"
       "node m1 cpus=8 (8x1x1) numa=8 mem=1 gpus=tesla:2\n"
       "node t1 cpus=2 (2x1x1) numa=2 mem=1 gpus=a100:2\n"
       "node cpu1 cpus=4 (4x1x1) numa=4 mem=1\n"
       "partition p nodes=cpu1,m1,n[1-2],t1 max_time=UNLIMITED default_time=UNLIMITED job_nodes=0-UNLIMITED tier=1 "
       "def_mem_per_cpu=0\n"},
      {"gres.conf: AutoDetect, lines for every node",
       "NodeName=g[1-2] CPUs=4 Gres=gpu:h100:2\n"
       "NodeName=c1 CPUs=4\n"
       "PartitionName=p Nodes=g[1-2]\n",
       "AutoDetect=nvml\n"
       "Name=gpu Type=h100 File=/dev/nvidia[0-1]\n"
       "NodeName=g1 Name=gpu Type=ignored File=/dev/nvidia9\n"
       "NodeName=g2 AutoDetect=off\n",
       nullptr,
       "cluster ''\n"
       "node g1 cpus=4 (4x1x1) numa=4 mem=1 gpus=h100:2\n"
       "node g2 cpus=4 (4x1x1) numa=4 mem=1 gpus=h100:2\n"
       "node c1 cpus=4 (4x1x1) numa=4 mem=1\n"
       "partition p nodes=g[1-2] max_time=UNLIMITED default_time=UNLIMITED job_nodes=0-UNLIMITED tier=1 "
       "def_mem_per_cpu=0\n"},
      {"topology.conf",
       "TopologyPlugin=topology/tree\nNodeName=n[1-4] CPUs=2\nNodeName=lone CPUs=2\nPartitionName=p Nodes=n[1-4]\n",
       nullptr,
       "SwitchName=s1 Nodes=n[1-2]\nSwitchName=s2 Nodes=n[3-4]  # a comment\nSwitchName=top Switches=s[1-2]\n",
       "cluster ''\n"
       "node n1 cpus=2 (2x1x1) numa=2 mem=1\n"
       "node n2 cpus=2 (2x1x1) numa=2 mem=1\n"
       "node n3 cpus=2 (2x1x1) numa=2 mem=1\n"
       "node n4 cpus=2 (2x1x1) numa=2 mem=1\n"
       "node lone cpus=2 (2x1x1) numa=2 mem=1\n"
       "partition p nodes=n[1-4] max_time=UNLIMITED default_time=UNLIMITED job_nodes=0-UNLIMITED tier=1 "
       "def_mem_per_cpu=0\n"
       "SwitchName=s1 Nodes=n[1-2]\nSwitchName=s2 Nodes=n[3-4]\nSwitchName=top Switches=s[1-2]\n"},
      {"MIG profiles as gres types, and Slurm's blanks around '='",
       "NodeName=m1 CPUs = 4 Feature= ib Gres=gpu:a100:1,gpu:1g.10gb:2,gpu:3g.40gb:1\n"
       "PartitionName=p Nodes=m1 \\\n",  // a trailing '\' at the end of the text
       nullptr, nullptr,
       "cluster ''\n"
       "node m1 cpus=4 (4x1x1) numa=4 mem=1 features=ib gpus=a100:1,mig/1g.10gb:2,mig/3g.40gb:1\n"
       "partition p nodes=m1 max_time=UNLIMITED default_time=UNLIMITED job_nodes=0-UNLIMITED tier=1 "
       "def_mem_per_cpu=0\n"},
      {"a partition before its nodes, Gres without GPUs, CLOUD and FAIL",
       "PartitionName=late Nodes=z1\nNodeName=z1 Gres=mps:100 State=CLOUD\nNodeName=z2 Gres=(null) State=FAIL\n",
       nullptr, nullptr,
       "cluster ''\n"
       "node z1 cpus=1 (1x1x1) numa=1 mem=1\n"
       "node z2 cpus=1 (1x1x1) numa=1 mem=1 state=down\n"
       "partition late nodes=z1 max_time=UNLIMITED default_time=UNLIMITED job_nodes=0-UNLIMITED tier=1 "
       "def_mem_per_cpu=0\n"},
  };
  for (const GoodCase& c : cases) {
    StatusOr<ClusterConfig> r = LoadSlurmConf(c.slurm_conf, "s.conf", Extras(c.gres_conf, c.topology_conf));
    ASSERT_TRUE(r.ok()) << c.what << ": " << r.status().ToString();
    EXPECT_EQ(Summary(*r), c.want) << c.what;
    EXPECT_TRUE(r->spec.Validate().ok()) << c.what;
    EXPECT_TRUE(r->usage.empty()) << c.what;
  }
}

TEST(SlurmConf, GpuDetails) {
  StatusOr<ClusterConfig> r = LoadSlurmConf(
      "NodeName=m1 Sockets=2 CoresPerSocket=2 Gres=gpu:a100:2,gpu:1g.10gb:2\nNodeName=n1 Gres=gpu:4\n"
      "NodeName=k1 Gres=gpu:a100_2g.20gb:1,gpu:tesla_t4:1\n",
      "s.conf");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const Node& m1 = r->spec.nodes[0];
  ASSERT_EQ(m1.gpus.size(), 4u);
  EXPECT_EQ(m1.gpus[0].model, "a100");
  EXPECT_EQ(m1.gpus[0].memory_mb, 0);  // unknown until an agent reports it
  EXPECT_EQ(m1.gpus[0].uuid, "GPU-m1-0");
  EXPECT_EQ(m1.gpus[0].numa_node, 0);
  EXPECT_EQ(m1.gpus[2].numa_node, 1);
  EXPECT_EQ(m1.gpus[3].mig_profile, "1g.10gb");
  EXPECT_EQ(m1.gpus[3].type(), "1g.10gb");
  EXPECT_EQ(m1.gpus[3].memory_mb, 10 * 1024);
  EXPECT_EQ(m1.gpus[3].parent_index, -1);
  EXPECT_EQ(m1.gpus[3].uuid, "MIG-m1-3");
  EXPECT_EQ(m1.links, GpuLinkMatrix::PcieOnly(4));
  const Node& n1 = r->spec.nodes[1];
  EXPECT_EQ(n1.gpus[3].model, "");  // untyped: any --gres=gpu:N request may have it
  EXPECT_EQ(n1.gpus[3].type(), "");
  const Node& k1 = r->spec.nodes[2];
  EXPECT_EQ(k1.gpus[0].type(), "a100_2g.20gb");
  EXPECT_TRUE(k1.gpus[0].is_mig());
  EXPECT_EQ(k1.gpus[0].model, "a100");
  EXPECT_EQ(m1.gpus[3].model, "");
  EXPECT_EQ(k1.gpus[0].memory_mb, 20 * 1024);
  EXPECT_FALSE(k1.gpus[1].is_mig());
  EXPECT_EQ(k1.gpus[1].type(), "tesla_t4");
}

struct BadCase {
  const char* slurm_conf;
  const char* gres_conf;
  const char* topology_conf;
  const char* error;  // the whole message
};

// TmpDisk= (MB, as Slurm) is the node's temporary disk, which --tmp asks for.
TEST(SlurmConf, TmpDiskIsTheNodesTemporaryDisk) {
  StatusOr<ClusterConfig> c = LoadSlurmConf(
      "NodeName=DEFAULT TmpDisk=2048\nNodeName=n1 CPUs=4\nNodeName=n2 CPUs=4 TmpDisk=500000\nPartitionName=p Nodes=n[1-2]\n",
      "s.conf");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_EQ(c->spec.nodes.size(), 2u);
  EXPECT_EQ(c->spec.nodes[0].tmp_disk_mb, 2048);
  EXPECT_EQ(c->spec.nodes[1].tmp_disk_mb, 500000);
  EXPECT_TRUE(c->warnings.empty()) << Join(c->warnings, "\n");
}

TEST(SlurmConf, PartitionPreemptModeAndGraceTime) {
  StatusOr<ClusterConfig> c = LoadSlurmConf(
      "NodeName=n1 CPUs=4 RealMemory=1000\n"
      "PartitionName=low Nodes=n1 PreemptMode=SUSPEND,GANG GraceTime=120\n"
      "PartitionName=high Nodes=n1 PreemptMode=off\n"
      "PartitionName=plain Nodes=n1\n",
      "s.conf");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const std::vector<Partition>& p = c->spec.partitions;
  ASSERT_EQ(p.size(), 3u);
  EXPECT_TRUE(p[0].has_preempt_mode);
  EXPECT_EQ(p[0].preempt_mode, PreemptMode::kSuspend);
  EXPECT_EQ(p[0].grace_time_s, 120);
  EXPECT_EQ(p[1].preempt_mode, PreemptMode::kOff);
  EXPECT_FALSE(p[2].has_preempt_mode);
  EXPECT_EQ(p[2].grace_time_s, kUnlimited);
  StatusOr<ClusterConfig> bad =
      LoadSlurmConf("NodeName=n1 CPUs=4 RealMemory=1000\nPartitionName=p Nodes=n1 PreemptMode=sometimes\n", "s.conf");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "s.conf:2: PreemptMode=sometimes: invalid preempt mode 'sometimes' (expected OFF, CANCEL, REQUEUE or SUSPEND)");
}

TEST(SlurmConf, ErrorsNameTheLineAndKey) {
  const char* kUnits = " (expected a number of MiB with an optional K, M, G or T suffix)";
  const std::string mem_error = std::string("s.conf:1: RealMemory=lots: invalid memory size 'lots'") + kUnits;
  const std::string def_mem_error = std::string("s.conf:1: DefMemPerCPU=abc: invalid memory size 'abc'") + kUnits;
  const BadCase cases[] = {
      {"NodeName=gpu[01- CPUs=4", nullptr, nullptr, "s.conf:1: NodeName=gpu[01-: unterminated '[' in 'gpu[01-'"},
      {"NodeName=n1 CPUs=many", nullptr, nullptr, "s.conf:1: CPUs=many: expected an integer in [1, 1000000]"},
      {"NodeName=n1 CPUs=4\nfoo\n", nullptr, nullptr, "s.conf:2: expected Key=Value, got 'foo'"},
      {"=x", nullptr, nullptr, "s.conf:1: expected Key=Value, got '=x'"},
      {"NodeName=n1 Gress=gpu:8", nullptr, nullptr, "s.conf:1: Gress=gpu:8: not a NodeName option"},
      {"NodeName=n1 CPUs=4 CPUs=8", nullptr, nullptr, "s.conf:1: CPUs=8: given twice on this line"},
      {"NodeName=n1 Feature=a Features=b", nullptr, nullptr, "s.conf:1: Features=b: given twice on this line"},
      {"NodeName=n1 CPUs=15 Sockets=2 CoresPerSocket=4 ThreadsPerCore=2", nullptr, nullptr,
       "s.conf:1: CPUs=15: matches none of Sockets (2), Sockets x CoresPerSocket (8) or Sockets x CoresPerSocket x "
       "ThreadsPerCore (16)"},
      {"NodeName=n1 CPUs=10 CoresPerSocket=4", nullptr, nullptr,
       "s.conf:1: CPUs=10: does not divide into sockets of CoresPerSocket=4 x ThreadsPerCore=1"},
      {"NodeName=n1 Sockets=2 SocketsPerBoard=2", nullptr, nullptr,
       "s.conf:1: SocketsPerBoard=2: give Sockets= or SocketsPerBoard=, not both"},
      {"NodeName=n1 ThreadsPerCore=65", nullptr, nullptr,
       "s.conf:1: ThreadsPerCore=65: expected an integer in [1, 64]"},
      {"NodeName=n1 RealMemory=lots", nullptr, nullptr, mem_error.c_str()},
      {"DefMemPerCPU=abc\nNodeName=n1", nullptr, nullptr, def_mem_error.c_str()},
      {"NodeName=n1 Gres=gpu:a&b:2", nullptr, nullptr, "s.conf:1: Gres=gpu:a&b:2: invalid GPU type 'a&b'"},
      {"NodeName=n1 Gres=gpu:65", nullptr, nullptr, "s.conf:1: Gres=gpu:65: more than 64 GPUs on a node"},
      {"NodeName=n1 Gres=gpu:x:y:2", nullptr, nullptr,
       "s.conf:1: Gres=gpu:x:y:2: expected gpu[:type]:count, got 'gpu:x:y:2'"},
      {"NodeName=n1 State=BROKEN", nullptr, nullptr,
       "s.conf:1: State=BROKEN: unknown node state (expected UNKNOWN, IDLE, CLOUD, DOWN, DRAIN, FAIL, FAILING or "
       "FUTURE)"},
      {"NodeName=n1 Features=i&b", nullptr, nullptr, "s.conf:1: Features=i&b: invalid feature name 'i&b'"},
      {"NodeName=n1\nNodeName=n[0-2]", nullptr, nullptr,
       "s.conf:2: NodeName=n[0-2]: node 'n1' is already defined on line 1"},
      {"NodeName=n1 \\\n  CPUs=x", nullptr, nullptr, "s.conf:2: CPUs=x: expected an integer in [1, 1000000]"},
      {"NodeName=n1 Reason=\"open", nullptr, nullptr, "s.conf:1: unterminated '\"' in the value of Reason="},
      {"NodeName=n1 Reason=\"a\"b", nullptr, nullptr, "s.conf:1: text after the closing '\"' of Reason="},
      {"ClusterName=\"a b\"\nNodeName=n1", nullptr, nullptr, "s.conf:1: ClusterName=a b: invalid cluster name"},
      {"Include /etc/slurm/nodes.conf\nNodeName=n1", nullptr, nullptr,
       "s.conf:1: Include is not supported (put the included lines into this file)"},
      {"", nullptr, nullptr, "s.conf: defines no nodes (no NodeName= lines)"},
      {"# only comments\nNodeName=DEFAULT CPUs=2\n", nullptr, nullptr, "s.conf: defines no nodes (no NodeName= lines)"},
      {"NodeName=n1\nPartitionName=p Nodes=n[1-2]", nullptr, nullptr, "s.conf:2: Nodes=n[1-2]: unknown node 'n2'"},
      {"NodeName=n1\nPartitionName=p Nodes=n[1", nullptr, nullptr,
       "s.conf:2: Nodes=n[1: unterminated '[' in 'n[1'"},
      {"NodeName=n1\nPartitionName=p MaxTime=soon", nullptr, nullptr,
       "s.conf:2: MaxTime=soon: invalid time specification 'soon' (expected minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM "
       "or D-HH:MM:SS)"},
      {"NodeName=n1\nPartitionName=p State=SIDEWAYS", nullptr, nullptr,
       "s.conf:2: State=SIDEWAYS: expected UP, DOWN, DRAIN or INACTIVE"},
      {"NodeName=n1\nPartitionName=p Default=MAYBE", nullptr, nullptr, "s.conf:2: Default=MAYBE: expected YES or NO"},
      {"NodeName=n1\nPartitionName=p MaxNodes=2 MinNodes=3", nullptr, nullptr,
       "s.conf:2: MaxNodes=2: is less than MinNodes=3"},
      {"NodeName=n1\nPartitionName=p MaxNodes=0", nullptr, nullptr,
       "s.conf:2: MaxNodes=0: expected an integer in [1, 2147483647]"},
      {"NodeName=n1\nPartitionName=p MaxTime=1:00:00 DefaultTime=2:00:00", nullptr, nullptr,
       "s.conf:2: DefaultTime=2:00:00: is longer than MaxTime=01:00:00"},
      {"NodeName=n1\nPartitionName=p\nPartitionName=p", nullptr, nullptr,
       "s.conf:3: PartitionName=p: partition 'p' is already defined on line 2"},
      {"NodeName=n1\nPartitionName=p Shred=NO", nullptr, nullptr, "s.conf:2: Shred=NO: not a PartitionName option"},
      {"NodeName=n1\nPartitionName=p,q", nullptr, nullptr, "s.conf:2: PartitionName=p,q: invalid partition name"},
      {"NodeName=n1\nDownNodes=n9", nullptr, nullptr, "s.conf:2: DownNodes=n9: unknown node 'n9'"},
      {"NodeName=n1\nDownNodes=n1 State=UP", nullptr, nullptr,
       "s.conf:2: State=UP: unknown node state (expected UNKNOWN, IDLE, CLOUD, DOWN, DRAIN, FAIL, FAILING or FUTURE)"},
      // gres.conf
      {"NodeName=n1 CPUs=4 Gres=gpu:a100:2", "NodeName=n1 Name=gpu Type=a100 File=/dev/nvidia0", nullptr,
       "g.conf:1: node 'n1' has gpu:a100:1 here but Gres=gpu:a100:2 in s.conf:1"},
      {"NodeName=n1 CPUs=4 Gres=gpu:a100:2", "\nNodeName=n1 Name=gpu Type=v100 File=/dev/nvidia[0-1]", nullptr,
       "g.conf:2: node 'n1' has gpu:v100:2 here but Gres=gpu:a100:2 in s.conf:1"},
      {"NodeName=n1 CPUs=4 Gres=gpu:a100:2\nNodeName=c1", "NodeName=c1 Name=gpu File=/dev/nvidia0", nullptr,
       "g.conf:1: node 'c1' has gpu:1 here but no GPUs in s.conf:2"},
      {"NodeName=n1 Gres=gpu:2", "NodeName=n1 Name=gpu File=/dev/nvidia[0-1] Links=-1,2", nullptr,
       "g.conf:1: Links=-1,2: applies to a line of one device, and this line has 2"},
      {"NodeName=n1 Gres=gpu:2",
       "NodeName=n1 Name=gpu File=/dev/nvidia0 Links=-1,2\nNodeName=n1 Name=gpu File=/dev/nvidia1 Links=3,-1", nullptr,
       "g.conf:2: Links=3,-1: GPU 1 of node 'n1' has 3 links to GPU 0, but GPU 0 has 2 to it"},
      {"NodeName=n1 Gres=gpu:2",
       "NodeName=n1 Name=gpu File=/dev/nvidia0 Links=-1,2\nNodeName=n1 Name=gpu File=/dev/nvidia1", nullptr,
       "g.conf:1: Links=-1,2: given for some GPUs of node 'n1' but not for GPU 1"},
      {"NodeName=n1 Gres=gpu:2",
       "NodeName=n1 Name=gpu File=/dev/nvidia0 Links=-1,2,2\nNodeName=n1 Name=gpu File=/dev/nvidia1 Links=2,-1",
       nullptr, "g.conf:1: Links=-1,2,2: lists 3 GPUs, node 'n1' has 2"},
      {"NodeName=n1 Gres=gpu:2",
       "NodeName=n1 Name=gpu File=/dev/nvidia0 Links=2,2\nNodeName=n1 Name=gpu File=/dev/nvidia1 Links=2,-1", nullptr,
       "g.conf:1: Links=2,2: GPU 0 of node 'n1' must list itself as -1, got 2"},
      {"NodeName=n1 Gres=gpu:2",
       "NodeName=n1 Name=gpu File=/dev/nvidia0 Links=-1,300\nNodeName=n1 Name=gpu File=/dev/nvidia1 Links=300,-1",
       nullptr, "g.conf:1: Links=-1,300: GPU 0 of node 'n1' has 300 links to GPU 1 (expected 0 to 255)"},
      {"NodeName=n1 Gres=gpu:1", "NodeName=n1 Name=gpu File=/dev/nvidia0 Links=-1,x", nullptr,
       "g.conf:1: Links=-1,x: expected a comma-separated list of link counts (-1 for the GPU itself)"},
      {"NodeName=n1 Gres=gpu:1", "NodeName=n1 Type=a100", nullptr,
       "g.conf:1: missing Name= (the gres name, e.g. Name=gpu)"},
      {"NodeName=n1 Gres=gpu:1", "AutoDetect=magic", nullptr,
       "g.conf:1: AutoDetect=magic: expected off, nvml, nvidia, rsmi, oneapi or nrt"},
      {"NodeName=n1 Gres=gpu:1", "NodeName=n1 Name=gpu Bogus=1", nullptr, "g.conf:1: Bogus=1: not a gres.conf option"},
      {"NodeName=n1 Gres=gpu:1", "NodeName=n1 Name=gpu File=/dev/nvidia[0-1] Count=3", nullptr,
       "g.conf:1: Count=3: File= names 2 devices"},
      {"NodeName=n1 Gres=gpu:1", "NodeName=n[1 Name=gpu", nullptr, "g.conf:1: NodeName=n[1: unterminated '[' in 'n[1'"},
      {"NodeName=n1 Gres=gpu:1", "Include x", nullptr,
       "g.conf:1: Include is not supported (put the included lines into this file)"},
      // topology.conf
      {"NodeName=n1", nullptr, "SwitchName=s0 Nodes=n1\nSwitchName=s1 Nodes=n9",
       "t.conf:2: switch 's1' lists node 'n9', which s.conf does not define"},
      {"NodeName=n1", nullptr, "SwitchName=s1 Nodes=n1\nSwitchName=s1",
       "t.conf:2: switch 's1' is already defined on line 1"},
      {"NodeName=n1", nullptr, "Switch=s1", "t.conf:1: expected SwitchName= first, got 'Switch='"},
  };
  for (const BadCase& c : cases) {
    StatusOr<ClusterConfig> r = LoadSlurmConf(c.slurm_conf, "s.conf", Extras(c.gres_conf, c.topology_conf));
    ASSERT_FALSE(r.ok()) << c.slurm_conf << " loaded";
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << c.slurm_conf;
    EXPECT_EQ(r.status().message(), c.error) << c.slurm_conf;
  }
}

// The files the Slurm peer (shared/peers/slurm/setup.sh) runs slurmctld with, copied as they are.
TEST(SlurmConf, SlurmPeersFiles) {
  StatusOr<ClusterConfig> r = LoadSlurmConfFile((kTestData / "peer" / "slurm.conf").string());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Summary(*r),
            "cluster 'peer'\n"
            "node n1 cpus=16 (2x8x1) numa=2 mem=64000 gpus=gpu:8\n"
            "node n2 cpus=16 (2x8x1) numa=2 mem=64000 gpus=gpu:8\n"
            "node n3 cpus=16 (2x8x1) numa=2 mem=64000 gpus=gpu:8\n"
            "node n4 cpus=16 (2x8x1) numa=2 mem=64000 gpus=gpu:8\n"
            "partition gpu nodes=n[1-4] default max_time=UNLIMITED default_time=UNLIMITED job_nodes=0-UNLIMITED "
            "tier=1 def_mem_per_cpu=500\n"
            "partition debug nodes=n1 max_time=00:30:00 default_time=UNLIMITED job_nodes=0-UNLIMITED tier=1 "
            "def_mem_per_cpu=500\n");
  std::vector<PendingJob> queue = {MakeJob(1, "-N 4 --gres=gpu:8"), MakeJob(2, "-p debug --gres=gpu:1 -t 10")};
  std::vector<Decision> d = RunCycle(ClusterSnapshot(r->spec), queue);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].kind, DecisionKind::kStart) << d[0].ToString();
  EXPECT_EQ(d[1].kind, DecisionKind::kPending) << d[1].ToString();  // n1 is taken whole by job 1
}

// Normalises what Slurm's files cannot say (GPU memory and NVLinks, the physical GPU of a MIG
// slice and its model).
std::vector<Node> Comparable(std::vector<Node> nodes) {
  for (Node& n : nodes) {
    n.links = GpuLinkMatrix();
    for (Gpu& g : n.gpus) {
      g.memory_mb = 0;
      if (g.is_mig()) {
        g.parent_index = -1;
        g.model.clear();
      }
    }
  }
  return nodes;
}

// examples/cluster.yaml's cluster as slurm.conf + topology.conf (tests/testdata/slurm/demo).
TEST(SlurmConf, SameClusterAsTheYamlExample) {
  StatusOr<ClusterConfig> yaml = LoadClusterConfigFile((kRepo / "examples" / "cluster.yaml").string());
  ASSERT_TRUE(yaml.ok()) << yaml.status().ToString();
  StatusOr<ClusterConfig> slurm = LoadSlurmConfFile((kTestData / "demo" / "slurm.conf").string());
  ASSERT_TRUE(slurm.ok()) << slurm.status().ToString();
  EXPECT_EQ(slurm->name, yaml->name);
  EXPECT_EQ(Comparable(slurm->spec.nodes), Comparable(yaml->spec.nodes));
  ASSERT_EQ(slurm->spec.partitions.size(), yaml->spec.partitions.size());
  for (size_t i = 0; i < yaml->spec.partitions.size(); ++i) {
    const Partition& a = slurm->spec.partitions[i];
    const Partition& b = yaml->spec.partitions[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.nodes, b.nodes) << a.name;
    EXPECT_EQ(a.is_default, b.is_default) << a.name;
    EXPECT_EQ(a.up, b.up) << a.name;
    EXPECT_EQ(a.min_nodes, b.min_nodes) << a.name;
    EXPECT_EQ(a.max_nodes, b.max_nodes) << a.name;
    EXPECT_EQ(a.max_time_s, b.max_time_s) << a.name;
    EXPECT_EQ(a.default_time_s, b.default_time_s) << a.name;
    EXPECT_EQ(a.priority_tier, b.priority_tier) << a.name;
    EXPECT_EQ(a.def_mem_per_cpu_mb, b.def_mem_per_cpu_mb) << a.name;
  }
  EXPECT_FALSE(slurm->spec.topology.empty());
  EXPECT_EQ(slurm->spec.topology.ToTopologyConf(), yaml->spec.topology.ToTopologyConf());
  // MIG slices keep their memory (from the profile name), as the YAML loader gives them.
  const Node& mig = slurm->spec.nodes.back();
  EXPECT_EQ(mig.gpus[0].memory_mb, 40 * 1024);
}

TEST(SlurmConf, FilesBesideSlurmConf) {
  TempDir dir("muster_slurm_conf_test.");
  const std::string conf = dir.Write("slurm.conf", "TopologyPlugin=topology/tree\nNodeName=n[1-2] Gres=gpu:2\n");
  // The tree plugin needs topology.conf, as slurmctld does.
  StatusOr<ClusterConfig> r = LoadSlurmConfFile(conf);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(r.status().message(), conf + ":1: TopologyPlugin=topology/tree: cannot open " +
                                      dir.Path("topology.conf") + ": No such file or directory");
  const std::string topo = dir.Write("topology.conf", "SwitchName=s Nodes=n[1-3]\n");
  r = LoadSlurmConfFile(conf);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), topo + ":1: switch 's' lists node 'n3', which " + conf + " does not define");
  dir.Write("topology.conf", "SwitchName=s Nodes=n[1-2]\n");
  const std::string gres = dir.Write("gres.conf", "NodeName=n1 Name=gpu Type=a100 File=/dev/nvidia[0-2]\n");
  r = LoadSlurmConfFile(conf);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            gres + ":1: node 'n1' has gpu:a100:3 here but Gres=gpu:2 in " + conf + ":2");
  dir.Write("gres.conf", "NodeName=n1 Name=gpu Type=a100 File=/dev/nvidia[0-1]\n");
  r = LoadSlurmConfFile(conf);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(GpuRuns(r->spec.nodes[0]), "a100:2");
  EXPECT_EQ(GpuRuns(r->spec.nodes[1]), "gpu:2");
  EXPECT_EQ(r->spec.topology.switches().size(), 1u);
  // Without the tree plugin topology.conf is not read, even when it is there (as in Slurm).
  dir.Write("slurm.conf", "NodeName=n[1-2] Gres=gpu:2\n");
  r = LoadSlurmConfFile(conf);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->spec.topology.empty());

  StatusOr<ClusterConfig> missing = LoadSlurmConfFile(dir.Path("nope.conf"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "cannot open " + dir.Path("nope.conf") + ": No such file or directory");
}

TEST(SlurmConf, ChoosingTheLoaderByName) {
  EXPECT_TRUE(IsSlurmConfPath("/etc/slurm/slurm.conf"));
  EXPECT_TRUE(IsSlurmConfPath("cluster.conf"));
  EXPECT_FALSE(IsSlurmConfPath("cluster.yaml"));
  EXPECT_FALSE(IsSlurmConfPath("/etc/slurm.conf.d/nodes"));
  EXPECT_FALSE(IsSlurmConfPath(".conf"));
  StatusOr<ClusterConfig> yaml = LoadAnyClusterFile((kRepo / "examples" / "cluster.yaml").string());
  ASSERT_TRUE(yaml.ok()) << yaml.status().ToString();
  EXPECT_FALSE(yaml->usage.empty());
  StatusOr<ClusterConfig> slurm = LoadAnyClusterFile((kTestData / "demo" / "slurm.conf").string());
  ASSERT_TRUE(slurm.ok()) << slurm.status().ToString();
  EXPECT_EQ(slurm->spec.nodes.size(), yaml->spec.nodes.size());

  // muster.yaml's cluster_file: may name a slurm.conf.
  TempDir dir("muster_slurm_conf_test.");
  const std::string conf = dir.Write(
      "muster.yaml", "cluster_file: " + (kTestData / "demo" / "slurm.conf").string() + "\n");
  StatusOr<MusterConfig> m = LoadMusterConfig(conf);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->cluster_name, "demo");
  EXPECT_EQ(m->cluster.spec.nodes.size(), 22u);
}

// ---- robustness -----------------------------------------------------------------------------------

const char* const kFragments[] = {
    "NodeName=", "PartitionName=", "NodeName=DEFAULT", "PartitionName=DEFAULT", "DownNodes=", "NodeSet=",
    "Nodes=", "CPUs=", "Sockets=", "SocketsPerBoard=", "Boards=", "CoresPerSocket=", "ThreadsPerCore=",
    "RealMemory=", "Gres=", "Feature=", "State=", "Reason=", "Default=", "MaxTime=", "DefaultTime=", "MaxNodes=",
    "MinNodes=", "DefMemPerCPU=", "PriorityTier=", "ClusterName=", "TopologyPlugin=topology/tree", "Include ",
    "n1", "n[1-4]", "n[01-", "gpu[1-2],n3", "ALL", "DEFAULT", "gpu:8", "gpu:a100:4", "gpu:1g.10gb:2",
    "gpu:4(S:0-1),mps:100", "gpu:x:y:z", "gpu:65", "YES", "NO", "UP", "DOWN", "DRAIN", "FUTURE", "INACTIVE",
    "UNLIMITED", "1-00:00:00", "30", "0", "-1", "2", "16", "64000", "2T", "99999999999999", "\"a b\"", "\"",
    "=", "==", " ", "  ", "\t", "\\", "\\\n", "#", "\\#", "\n", ",", ":", "[", "]", "(", ")", "x",
};

std::string RandomLines(std::mt19937& rng, int lines) {
  std::string s;
  for (int l = 0; l < lines; ++l) {
    const int pieces = 1 + static_cast<int>(rng() % 8);
    for (int k = 0; k < pieces; ++k) {
      s += kFragments[rng() % std::size(kFragments)];
      if (rng() % 2) s += ' ';
    }
    s += '\n';
  }
  return s;
}

std::string Mutate(std::mt19937& rng, std::string s) {
  const std::string alphabet = "=[]-,:#\\\" \n\t0123456789xnGT()";
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits && !s.empty(); ++e) {
    const size_t at = rng() % s.size();
    switch (rng() % 5) {
      case 0: s[at] = alphabet[rng() % alphabet.size()]; break;
      case 1: s.erase(at, 1 + rng() % 6); break;
      case 2: s.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
      case 3: s.insert(at, std::to_string(rng() % 100000)); break;
      default: s.insert(at, kFragments[rng() % std::size(kFragments)]); break;
    }
  }
  return s;
}

void CheckLoadsOrFails(const std::string& slurm, const SlurmConfExtras& extras,
                       const std::vector<PendingJob>& queue, int* loaded) {
  StatusOr<ClusterConfig> r = LoadSlurmConf(slurm, "s.conf", extras);
  if (!r.ok()) {
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << slurm;
    const std::string& m = r.status().message();
    EXPECT_TRUE(m.rfind("s.conf", 0) == 0 || m.rfind("g.conf", 0) == 0 || m.rfind("t.conf", 0) == 0) << m;
    return;
  }
  ++*loaded;
  EXPECT_TRUE(r->spec.Validate().ok()) << slurm;
  EXPECT_EQ(RunCycle(ClusterSnapshot(r->spec), queue).size(), queue.size());
}

// A few thousand mangled files and random lines: each loads (and then schedules) or fails with a
// message naming its file; nothing crashes, throws or trips a CHECK.
TEST(SlurmConf, MangledInputsNeverCrash) {
  const std::string base =
      "ClusterName=t\nDefMemPerCPU=100\nNodeName=DEFAULT Sockets=2 CoresPerSocket=4 RealMemory=64000\n"
      "NodeName=n[1-4] Gres=gpu:a100:4,mps:100 Feature=ib State=UNKNOWN\n"
      "NodeName=m1 CPUs=8 Gres=gpu:1g.10gb:2,gpu:2 \\\n  State=DRAIN Reason=\"x y\"\n"
      "DownNodes=n4 State=DOWN\nNodeSet=ibs Feature=ib\n"
      "PartitionName=DEFAULT MaxTime=1-00:00:00\nPartitionName=p Nodes=ibs,m1 Default=YES MaxNodes=4\n"
      "PartitionName=q Nodes=ALL State=DOWN DefaultTime=30\n";
  const std::string gres =
      "AutoDetect=off\nNodeName=n1 Name=gpu Type=a100 File=/dev/nvidia0 Links=-1,2,0,0\n"
      "NodeName=n1 Name=gpu Type=a100 File=/dev/nvidia1 Links=2,-1,0,0\n"
      "NodeName=n1 Name=gpu Type=a100 File=/dev/nvidia2 Links=0,0,-1,2\n"
      "NodeName=n1 Name=gpu Type=a100 File=/dev/nvidia3 Links=0,0,2,-1\n"
      "NodeName=n[2-3] Name=gpu File=/dev/nvidia[0-3]\n";
  const std::string topo = "SwitchName=s1 Nodes=n[1-2]\nSwitchName=s2 Nodes=n[3-4],m1\nSwitchName=t Switches=s[1-2]\n";
  ASSERT_TRUE(LoadSlurmConf(base, "s.conf", Extras(gres.c_str(), topo.c_str())).ok());
  std::vector<PendingJob> queue = {MakeJob(1, "-N 2 --gres=gpu:4"), MakeJob(2, "--gres=gpu:2"),
                                   MakeJob(3, "--gres=gpu:1g.10gb:1 -p q"), MakeJob(4, "-n 4 --exclusive")};
  std::mt19937 rng(20261130);
  int loaded = 0, runs = 0;
  for (int k = 0; k < 1500; ++k, ++runs) {
    const int which = k % 3;  // mangle one of the three files
    const std::string s = which == 0 ? Mutate(rng, base) : base;
    const std::string g = which == 1 ? Mutate(rng, gres) : gres;
    const std::string t = which == 2 ? Mutate(rng, topo) : topo;
    CheckLoadsOrFails(s, Extras(g.c_str(), t.c_str()), queue, &loaded);
  }
  for (int k = 0; k < 1500; ++k, ++runs) {
    // Random lines appended to a valid file (so that the nodes exist), and alone.
    const std::string lines = RandomLines(rng, 1 + static_cast<int>(rng() % 3));
    CheckLoadsOrFails(k % 2 ? base + lines : lines, Extras(k % 3 ? nullptr : lines.c_str(), nullptr), queue, &loaded);
  }
  EXPECT_GT(loaded, 100);  // the mutations are not all fatal: the scheduler saw odd clusters too
  EXPECT_LT(loaded, runs);
}

// Any text at all (rapidcheck's strings, and lines of slurm.conf fragments): a cluster or an error.
RC_GTEST_PROP(SlurmConf, AnyTextLoadsOrFails, (const std::string& text)) {
  StatusOr<ClusterConfig> r = LoadSlurmConf(text, "s.conf", Extras(text.c_str(), text.c_str()));
  RC_ASSERT(r.ok() || r.status().message().rfind("s.conf", 0) == 0 || r.status().message().rfind("g.conf", 0) == 0 ||
            r.status().message().rfind("t.conf", 0) == 0);
  if (r.ok()) RC_ASSERT(r->spec.Validate().ok());
}

RC_GTEST_PROP(SlurmConf, FragmentLinesLoadOrFail, ()) {
  const std::vector<std::string> pieces = *rc::gen::container<std::vector<std::string>>(
      rc::gen::map(rc::gen::inRange<size_t>(0, std::size(kFragments)),
                   [](size_t i) { return std::string(kFragments[i]); }));
  std::string text = "NodeName=n[1-4] CPUs=4 Gres=gpu:2\n";
  for (const std::string& p : pieces) text += p;
  StatusOr<ClusterConfig> r = LoadSlurmConf(text, "s.conf");
  RC_ASSERT(r.ok() || r.status().message().rfind("s.conf", 0) == 0);
  if (r.ok()) RC_ASSERT(r->spec.Validate().ok());
}

}  // namespace
}  // namespace muster
