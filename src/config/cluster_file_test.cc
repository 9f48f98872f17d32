// Cluster files: a valid file loads into the expected cluster; each kind of mistake
// gives one clear error naming the line and the field; mangled files never crash.
#include "config/cluster_file.h"

#include <gtest/gtest.h>

#include "config/text_edit_test_util.h"

#include <filesystem>
#include <fstream>
#include <random>

#include "sched/cluster_builder.h"
#include "sched/scheduler.h"

namespace muster {
namespace {

using test::Edit;
using test::ErrorCase;

// Line numbers matter: the error table below points into this text.
constexpr const char* kCluster = R"(cluster: t
node_types:
  h100: {cpus: 112, sockets: 2, memory: 2T, gpus: 8, gpu_model: h100, gpu_memory: 80G, links: nvswitch, features: [ib]}
  v100: {cpus: 80, memory: 512G, gpus: 8, gpu_model: v100, gpu_memory: 32G, links: dgx1}
  mig: {cpus: 64, memory: 1T, gpu_model: a100, mig: [3g.40gb, 2g.20gb, 1g.10gb, 1g.10gb]}
nodes:
  - {names: "gpu[01-04]", type: h100}
  - {names: "v[01-02]", type: v100, state: drain, reason: "fan failure"}
  - {names: m1, type: mig, state: down}
topology: |
  SwitchName=leaf1 Nodes=gpu[01-02]
  SwitchName=leaf2 Nodes=gpu[03-04],v[01-02],m1
  SwitchName=spine Switches=leaf[1-2]
partitions:
  - {name: gpu, nodes: "gpu[01-04],v[01-02]", default: true, max_time: "2-00:00:00", max_nodes: 8, def_mem_per_cpu: 4G}
  - {name: debug, nodes: m1, max_time: "1:00:00", max_nodes: 1, state: down}
usage:
  - {node: gpu03, cpus: 8, memory: 64G, gpus: [0, 1, 2, 3]}
  - {node: gpu03, cpus: 2, gpu_milli: {4: 500}}
)";

const Node& NodeNamed(const ClusterSpec& c, const std::string& name) {
  for (const Node& n : c.nodes) {
    if (n.name == name) return n;
  }
  ADD_FAILURE() << "no node " << name;
  return c.nodes.front();
}

TEST(ClusterFile, LoadsTheValidFile) {
  StatusOr<ClusterConfig> c = LoadClusterConfigYaml(kCluster, "t.yaml");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->name, "t");
  const ClusterSpec& s = c->spec;
  ASSERT_EQ(s.nodes.size(), 7u);

  const Node& gpu01 = NodeNamed(s, "gpu01");
  EXPECT_EQ(gpu01.cpus, 112);
  EXPECT_EQ(gpu01.sockets, 2);
  EXPECT_EQ(gpu01.cores_per_socket, 56);
  EXPECT_EQ(gpu01.numa_nodes, 2);  // defaults to the socket count
  EXPECT_EQ(gpu01.memory_mb, 2 * 1024 * 1024);
  EXPECT_EQ(gpu01.features, std::vector<std::string>{"ib"});
  ASSERT_EQ(gpu01.gpus.size(), 8u);
  EXPECT_EQ(gpu01.gpus[5].model, "h100");
  EXPECT_EQ(gpu01.gpus[5].memory_mb, 80 * 1024);
  EXPECT_EQ(gpu01.gpus[5].numa_node, 1);
  EXPECT_EQ(gpu01.gpus[5].uuid, "GPU-gpu01-5");
  EXPECT_TRUE(gpu01.links.nvswitch());
  EXPECT_TRUE(gpu01.schedulable());

  const Node& v01 = NodeNamed(s, "v01");
  EXPECT_TRUE(v01.drain);
  EXPECT_EQ(v01.reason, "fan failure");
  EXPECT_EQ(v01.links, GpuLinkMatrix::Dgx1HybridCubeMesh());
  EXPECT_EQ(v01.numa_nodes, 1);

  const Node& m1 = NodeNamed(s, "m1");
  EXPECT_EQ(m1.state, NodeState::kDown);
  ASSERT_EQ(m1.gpus.size(), 4u);
  EXPECT_EQ(m1.gpus[0].mig_profile, "3g.40gb");
  EXPECT_EQ(m1.gpus[0].memory_mb, 40 * 1024);  // from the profile name
  EXPECT_EQ(m1.gpus[3].type(), "1g.10gb");
  EXPECT_EQ(m1.gpus[3].parent_index, 0);
  EXPECT_EQ(m1.gpus[3].uuid, "MIG-m1-3");

  EXPECT_EQ(s.topology.switches().size(), 3u);
  EXPECT_EQ(s.topology.switches()[s.topology.LeafOf("m1")].name, "leaf2");

  ASSERT_EQ(s.partitions.size(), 2u);
  const Partition& gpu = s.partitions[0];
  EXPECT_EQ(gpu.name, "gpu");
  EXPECT_TRUE(gpu.is_default);
  EXPECT_TRUE(gpu.up);
  EXPECT_EQ(gpu.nodes.size(), 6u);
  EXPECT_EQ(gpu.max_time_s, 2 * 86400);
  EXPECT_EQ(gpu.max_nodes, 8);
  EXPECT_EQ(gpu.def_mem_per_cpu_mb, 4096);
  EXPECT_FALSE(s.partitions[1].up);
  EXPECT_EQ(s.partitions[1].max_time_s, 3600);

  ASSERT_EQ(c->usage.size(), s.nodes.size());
  const NodeUsage& u = c->usage[2];  // gpu03
  EXPECT_EQ(u.cpu_milli, 10000);
  EXPECT_EQ(u.memory_mb, 64 * 1024);
  EXPECT_EQ(u.jobs, 2);
  ASSERT_EQ(u.gpus.size(), 8u);
  EXPECT_EQ(u.gpus[3].milli, 1000);
  EXPECT_EQ(u.gpus[4].milli, 500);
  EXPECT_EQ(u.gpus[5].milli, 0);
  EXPECT_EQ(c->usage[0], NodeUsage{});
}

TEST(ClusterFile, MinimalFileAndOptionalFields) {
  StatusOr<ClusterConfig> c = LoadClusterConfigYaml(
      "node_types:\n  cpu: {cpus: 16, memory: 64G}\n"
      "  mig: {cpus: 8, memory: 64G, gpus: 2, gpu_model: a100, mig: [odd, 7g.80gb], mig_memory: 5G,\n"
      "        sockets: 2, threads_per_core: 2, numa_nodes: 4}\n"
      "nodes: [{names: \"c[1-2]\", type: cpu, features: [fast]}, {names: m, type: mig}]\n"
      "partitions: [{name: all, nodes: ALL, max_nodes: UNLIMITED, max_time: UNLIMITED}]\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->usage.empty());
  EXPECT_TRUE(c->spec.topology.empty());
  EXPECT_EQ(c->spec.partitions[0].nodes, (std::vector<std::string>{"c1", "c2", "m"}));
  EXPECT_EQ(c->spec.partitions[0].max_nodes, kUnlimited);
  EXPECT_EQ(c->spec.partitions[0].max_time_s, kUnlimited);
  EXPECT_TRUE(c->spec.nodes[0].gpus.empty());
  EXPECT_EQ(c->spec.nodes[0].features, std::vector<std::string>{"fast"});
  const Node& m = c->spec.nodes[2];
  EXPECT_EQ(m.cores_per_socket, 2);
  ASSERT_EQ(m.gpus.size(), 4u);  // 2 GPUs x 2 slices
  EXPECT_EQ(m.gpus[3].parent_index, 1);
  EXPECT_EQ(m.gpus[3].numa_node, 2);
  EXPECT_EQ(m.gpus[0].memory_mb, 5 * 1024);  // mig_memory wins over the profile name
}

TEST(ClusterFile, ErrorsNameTheLineAndField) {
  const ErrorCase cases[] = {
      {"type: h100}", "type: h200}", "t.yaml:7: nodes[0].type: unknown node type 'h200' (known: h100, v100, mig)"},
      {"gpu_model: h100", "gpu_modle: h100",
       "t.yaml:3: node_types.h100: unknown field 'gpu_modle' (known: cpus, sockets, threads_per_core, numa_nodes, "
       "memory, gpus, gpu_model, gpu_memory, links, mig, mig_memory, features)"},
      {"cpus: 112, ", "", "t.yaml:3: node_types.h100: missing required field 'cpus'"},
      {"cpus: 80", "cpus: many", "t.yaml:4: node_types.v100.cpus: expected an integer, got 'many'"},
      {"cpus: 112", "cpus: 113", "t.yaml:3: node_types.h100.cpus: 113 CPUs do not divide into 2 sockets of 1-thread cores"},
      {"memory: 2T", "memory: 2X",
       "t.yaml:3: node_types.h100.memory: invalid memory size '2X' (expected a number of MiB with an optional K, M, G "
       "or T suffix)"},
      {"links: nvswitch", "links: nvlink",
       "t.yaml:3: node_types.h100.links: unknown GPU link layout 'nvlink' (expected nvswitch, pcie, dgx1, "
       "islands:<size> or a matrix like '0,2;2,0')"},
      {"gpus: 8, gpu_model: v100", "gpus: 65, gpu_model: v100",
       "t.yaml:4: node_types.v100.gpus: '65' is out of range (expected an integer in [0, 64])"},
      {"gpu_model: a100, mig", "gpus: 17, gpu_model: a100, mig",
       "t.yaml:5: node_types.mig.mig: 17 GPUs x 4 slices is more than 64 devices per node"},
      {"gpu_model: a100, mig", "gpu_model: a100, links: nvswitch, mig",
       "t.yaml:5: node_types.mig.links: does not apply to MIG slices (their memory comes from mig_memory or the "
       "profile name; slices share no NVLink)"},
      {"mig: [3g.40gb", "mig: [big",
       "t.yaml:5: node_types.mig.mig: cannot tell the memory of MIG profile 'big' from its name; set mig_memory"},
      {"features: [ib]", "features: [i&b]", "t.yaml:3: node_types.h100.features: invalid feature name 'i&b'"},
      {"\"gpu[01-04]\", type", "\"gpu[01-04\", type", "t.yaml:7: nodes[0].names: unterminated '[' in 'gpu[01-04'"},
      {"\"v[01-02]\"", "\"v[01-02],gpu04\"", "t.yaml:8: nodes[1].names: node 'gpu04' is already defined"},
      {"state: drain", "state: broken", "t.yaml:8: nodes[1].state: expected one of idle, down, drain, got 'broken'"},
      {"state: drain, ", "", "t.yaml:8: nodes[1].reason: only a down or drained node has a reason"},
      {"reason: \"fan failure\"", "reason: [a]", "t.yaml:8: nodes[1].reason: expected a string, got a list"},
      {"type: h100}", "type: }", "t.yaml:7: nodes[0].type: expected a string, got nothing"},
      {"Nodes=gpu[01-02]", "Nodes=gpu[01-02],gpu09", "t.yaml:10: topology: switch 'leaf1' lists unknown node 'gpu09'"},
      {"SwitchName=leaf2", "SwitchNam=leaf2",
       "t.yaml:12: topology: line 2: expected SwitchName= first, got 'SwitchNam='"},
      {"nodes: m1,", "nodes: m2,", "t.yaml:16: partitions[1].nodes: unknown node 'm2'"},
      {"max_time: \"1:00:00\"", "max_time: \"1:00:0x\"",
       "t.yaml:16: partitions[1].max_time: invalid time specification '1:00:0x' (expected minutes, MM:SS, HH:MM:SS, "
       "D-HH, D-HH:MM or D-HH:MM:SS)"},
      {"max_nodes: 1,", "max_nodes: 1, default: true,",
       "t.yaml:16: partitions[1].default: partition 'gpu' is already the default"},
      {"name: debug", "name: gpu", "t.yaml:16: partitions[1].name: partition 'gpu' is already defined"},
      {"state: down}\nusage", "state: sideways}\nusage",
       "t.yaml:16: partitions[1].state: expected one of up, down, inactive, got 'sideways'"},
      {"node: gpu03, cpus: 2", "node: gpu09, cpus: 2", "t.yaml:19: usage[1].node: unknown node 'gpu09'"},
      {"gpus: [0, 1, 2, 3]", "gpus: [0, 1, 2, 8]", "t.yaml:18: usage[0].gpus[3]: node 'gpu03' has 8 GPUs (indexes 0-7)"},
      {"gpus: [0, 1, 2, 3]", "gpus: [0, 1, 1]", "t.yaml:18: usage[0].gpus[2]: GPU 1 listed twice"},
      {"gpus: [0, 1, 2, 3]", "gpus: 0", "t.yaml:18: usage[0].gpus: expected a list of GPU indexes, got '0'"},
      {"cpus: 2, gpu", "cpus: 200, gpu", "t.yaml:19: usage[1].cpus: '200' is out of range (expected an integer in [0, 112])"},
      {"cpus: 2, gpu", "cpus: 110, gpu", "t.yaml:19: usage[1].cpus: node 'gpu03' has only 112 CPUs (8 already in use)"},
      {"memory: 64G, gpus", "memory: 3T, gpus",
       "t.yaml:18: usage[0].memory: node 'gpu03' has only 2097152 MiB of memory (0 MiB already in use)"},
      {"{4: 500}", "{3: 500}", "t.yaml:19: usage[1]: GPU 3 of node 'gpu03' would be 1500/1000 used"},
      {"{4: 500}", "{4: 0.5}", "t.yaml:19: usage[1].gpu_milli.4: expected an integer, got '0.5'"},
      {"{4: 500}", "{4: 500}, exclusive: true", "t.yaml:19: usage[1].exclusive: node 'gpu03' already runs other work"},
      {"max_nodes: 1, state: down}", "max_nodes: 1, state: down, allow_groups: [gpu, \"a&b\"]}",
       "t.yaml:16: partitions[1].allow_groups: invalid name 'a&b'"},
      {"max_nodes: 1, state: down}", "max_nodes: 1, state: down, allow_accounts: [a], deny_accounts: [b]}",
       "t.yaml:16: partitions[1].deny_accounts: give allow_accounts or deny_accounts, not both"},
      {"max_nodes: 1, state: down}", "max_nodes: 1, state: down, allow_qos: [high], deny_qos: low}",
       "t.yaml:16: partitions[1].deny_qos: give allow_qos or deny_qos, not both"},
      {"max_nodes: 1, state: down}", "max_nodes: 1, state: down, deny_qos: []}",
       "t.yaml:16: partitions[1].deny_qos: lists no names (leave it out for ALL)"},
      {"cluster: t\n", "cluster: t\ncluster: u\n", "t.yaml:2: cluster: field given twice"},
      {"cluster: t\n", "clutser: t\n",
       "t.yaml:1: unknown field 'clutser' (known: cluster, node_types, nodes, topology, partitions, usage)"},
      {"cluster: t\n", "- a\n", "t.yaml:1: expected a map (key: value), got a list"},
      {"{names: m1,", "{names: m1", "t.yaml:9:20: invalid YAML: end of map flow not found"},
      {"nodes:\n", "nodes: []\n", "t.yaml:7:3: invalid YAML: end of map not found"},
  };
  for (const ErrorCase& c : cases) {
    StatusOr<ClusterConfig> r = LoadClusterConfigYaml(Edit(kCluster, c.from, c.to), "t.yaml");
    ASSERT_FALSE(r.ok()) << "'" << c.from << "' -> '" << c.to << "' loaded";
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(r.status().message(), c.error) << "'" << c.from << "' -> '" << c.to << "'";
  }
}

// allow_groups, allow_accounts, deny_accounts, allow_qos, deny_qos: slurm.conf's AllowGroups=, ...
// (a single name may stand alone; allow_*: ALL is everyone, as leaving it out).
TEST(ClusterFile, PartitionAccessLists) {
  StatusOr<ClusterConfig> c = LoadClusterConfigYaml(
      Edit(Edit(kCluster, "def_mem_per_cpu: 4G}",
                "def_mem_per_cpu: 4G, allow_groups: [gpu, staff], allow_accounts: physics, deny_qos: [low]}"),
           "max_nodes: 1, state: down}", "max_nodes: 1, state: down, allow_groups: ALL, deny_accounts: [guests]}"),
      "t.yaml");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  const PartitionAccess& gpu = c->spec.partitions[0].access;
  EXPECT_EQ(gpu.allow_groups, (std::vector<std::string>{"gpu", "staff"}));
  EXPECT_EQ(gpu.allow_accounts, std::vector<std::string>{"physics"});
  EXPECT_EQ(gpu.deny_qos, std::vector<std::string>{"low"});
  EXPECT_TRUE(gpu.allow_qos.empty());
  const PartitionAccess& debug = c->spec.partitions[1].access;
  EXPECT_TRUE(debug.allow_groups.empty());
  EXPECT_EQ(debug.deny_accounts, std::vector<std::string>{"guests"});
}

TEST(ClusterFile, WholeDocumentErrors) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "t.yaml: the cluster file is empty (see docs/cluster-file.md)"},
      {"# nothing\n", "t.yaml: the cluster file is empty (see docs/cluster-file.md)"},
      {"x", "t.yaml:1: expected a map (key: value), got 'x'"},
      {"cluster: t", "t.yaml:1: missing required field 'node_types'"},
      {"node_types: {}", "t.yaml:1: node_types: lists no node types"},
      {"node_types: [a]", "t.yaml:1: node_types: expected a map of node types (name: {cpus: ..., memory: ...}), got a list"},
      {"node_types: {a: {cpus: 1, memory: 1}}\nnodes: []\npartitions: []", "t.yaml:2: nodes: lists no nodes"},
      {"node_types: {a: {cpus: 1, memory: 1}}\nnodes: [{names: n, type: a}]\n",
       "t.yaml:1: missing required field 'partitions'"},
      {"node_types: {a: {cpus: 1, memory: 1}}\nnodes: [{names: n, type: a}]\npartitions: [{name: p, nodes: n}]\n"
       "topology: \"SwitchName=s Nodes=n\\nSwitchName=s Nodes=n\"",
       "t.yaml:4: topology: line 2: switch 's' is already defined on line 1"},
      {"{", "t.yaml:1:1: invalid YAML: end of map flow not found"},
      {"[", "t.yaml:1:1: invalid YAML: end of sequence flow not found"},
  };
  for (const auto& [text, error] : cases) {
    StatusOr<ClusterConfig> r = LoadClusterConfigYaml(text, "t.yaml");
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().message(), error) << text;
  }
}

TEST(ClusterFile, Files) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "muster_cluster_file_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "c.yaml").string();
  {
    std::ofstream out(path);
    out << Edit(kCluster, "type: h100}", "type: h200}");
  }
  StatusOr<ClusterConfig> bad = LoadClusterConfigFile(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind(path + ":7: nodes[0].type: unknown node type 'h200'", 0), 0u)
      << bad.status().message();
  {
    std::ofstream out(path);
    out << kCluster;
  }
  EXPECT_TRUE(LoadClusterConfigFile(path).ok());
  StatusOr<ClusterConfig> missing = LoadClusterConfigFile((dir / "nope.yaml").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "cannot open " + (dir / "nope.yaml").string() + ": No such file or directory");
  EXPECT_FALSE(LoadClusterConfigFile(dir.string()).ok());  // a directory
  std::filesystem::remove_all(dir);
}

// A few hundred mangled versions of a valid file (truncated, bytes changed, lines dropped or
// repeated): each must load or fail with a message naming the file, never crash or throw. Those
// that load also go through a scheduling cycle.
TEST(ClusterFile, MangledFilesNeverCrash) {
  const std::string base = kCluster;
  std::vector<std::string> variants;
  for (size_t cut = 0; cut < base.size(); cut += 7) variants.push_back(base.substr(0, cut));
  std::mt19937 rng(12345);
  const std::string alphabet = ":-[]{},\"'|# \n0123456789x.gGT&";
  std::vector<std::string> lines;
  for (size_t start = 0; start < base.size();) {
    size_t end = base.find('\n', start);
    lines.push_back(base.substr(start, end - start + 1));
    start = end + 1;
  }
  for (int k = 0; k < 400; ++k) {
    std::string s = base;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      const size_t at = rng() % s.size();
      switch (rng() % 6) {
        case 0: s[at] = alphabet[rng() % alphabet.size()]; break;              // change a byte
        case 1: s.erase(at, 1 + rng() % 4); break;                              // drop bytes
        case 2: s.insert(at, 1, alphabet[rng() % alphabet.size()]); break;      // add a byte
        case 3: s.insert(at, std::to_string(rng() % 100000)); break;            // a number
        case 4: {                                                               // drop a line
          std::string t;
          const size_t skip = rng() % lines.size();
          for (size_t l = 0; l < lines.size(); ++l) t += l == skip ? "" : lines[l];
          s = t;
          break;
        }
        default: {                                                              // repeat a line
          const size_t l = rng() % lines.size();
          s.insert(s.find(lines[l]) + lines[l].size(), lines[l]);
          break;
        }
      }
      if (s.empty()) s = "x";
    }
    variants.push_back(s);
  }
  std::vector<PendingJob> queue = {MakeJob(1, "-N 2 --gres=gpu:8"), MakeJob(2, "--gres=gpu:2"),
                                   MakeJob(3, "--gpu-fraction=0.5"), MakeJob(4, "--gres=gpu:1g.10gb:1 -p debug"),
                                   MakeJob(5, "-n 4 -c 2 --exclusive")};
  int loaded = 0;
  for (const std::string& v : variants) {
    StatusOr<ClusterConfig> r = LoadClusterConfigYaml(v, "m.yaml");
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
      EXPECT_EQ(r.status().message().rfind("m.yaml", 0), 0u) << r.status().message();
      continue;
    }
    ++loaded;
    ClusterSnapshot snapshot(r->spec);
    snapshot.usage = r->usage;
    EXPECT_TRUE(snapshot.Validate().ok());
    std::vector<Decision> d = RunCycle(snapshot, queue);
    EXPECT_EQ(d.size(), queue.size());
  }
  EXPECT_GT(loaded, 10);  // the mutations are not all fatal: the scheduler saw odd clusters too
  EXPECT_LT(loaded, static_cast<int>(variants.size()));
}

}  // namespace
}  // namespace muster
