// `muster place`: argument parsing, the report (a golden text from hand-written decisions, so it
// does not move when the scheduler's choices do), the cycles, and the exit statuses.
#include "sim/place_command.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "sched/cluster_builder.h"

namespace muster {
namespace {

constexpr const char* kCluster = R"(cluster: tiny
node_types:
  h100: {cpus: 32, memory: 256G, gpus: 8, gpu_model: h100, gpu_memory: 80G, links: nvswitch}
  dgx1: {cpus: 40, memory: 512G, gpus: 8, gpu_model: v100, links: dgx1}
  mig: {cpus: 16, memory: 128G, gpu_model: a100, mig: [3g.40gb, 2g.20gb, 1g.10gb, 1g.10gb]}
nodes:
  - {names: "n[1-3]", type: h100}
  - {names: v1, type: dgx1}
  - {names: m1, type: mig}
  - {names: bad, type: h100, state: drain, reason: "ECC errors"}
topology: |
  SwitchName=leaf1 Nodes=n[1-2]
  SwitchName=leaf2 Nodes=n3,v1,m1,bad
  SwitchName=spine Switches=leaf[1-2]
partitions:
  - {name: gpu, nodes: "n[1-3],v1,bad", default: true, max_time: "1-00:00:00"}
  - {name: debug, nodes: m1, max_time: "1:00:00", max_nodes: 1}
usage:
  - {node: n3, cpus: 4, memory: 16G, gpu_milli: {1: 500}}
)";

ClusterConfig Tiny() {
  StatusOr<ClusterConfig> c = LoadClusterConfigYaml(kCluster, "tiny.yaml");
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return *c;
}

PendingJob Job(int64_t id, const std::string& name, const std::string& user, const std::string& options) {
  PendingJob j = MakeJob(id, options);
  j.request.name = name;
  j.user = user;
  return j;
}

NodeAllocation Alloc(const std::string& node, int cpus, int64_t mem_mb, std::vector<GpuShare> gpus) {
  NodeAllocation a;
  a.node = node;
  a.cpu_milli = cpus * 1000;
  a.memory_mb = mem_mb;
  a.tasks = 1;
  a.gpus = std::move(gpus);
  return a;
}

std::vector<GpuShare> Whole(std::initializer_list<int> idx) {
  std::vector<GpuShare> v;
  for (int i : idx) v.push_back({i, 1000});
  return v;
}

TEST(PlaceArgs, Parses) {
  StatusOr<PlaceArgs> a = ParsePlaceArgs({"--cluster", "c.yaml", "--queue=q.yaml", "--no-strict", "--cycles", "3"});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->cluster_path, "c.yaml");
  EXPECT_EQ(a->queue_path, "q.yaml");
  EXPECT_FALSE(a->strict);
  EXPECT_EQ(a->cycles, 3);
  EXPECT_FALSE(a->help);

  a = ParsePlaceArgs({"--queue", "q", "--cluster=c", "--strict"});
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->strict);
  EXPECT_EQ(a->cycles, 1);
  EXPECT_TRUE(ParsePlaceArgs({"--bogus", "-h"}).ok() == false);
  EXPECT_TRUE(ParsePlaceArgs({"-h"})->help);
  EXPECT_TRUE(ParsePlaceArgs({"--cluster", "c", "--help"})->help);
  // The option engine's forms: unique prefixes, "--name=value", a value that looks like an option.
  a = ParsePlaceArgs({"--cl=c", "--qu", "-q", "--no", "--cyc=2"});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->cluster_path, "c");
  EXPECT_EQ(a->queue_path, "-q");
  EXPECT_FALSE(a->strict);
  EXPECT_EQ(a->cycles, 2);
  EXPECT_TRUE(ParsePlaceArgs({"--he", "--bogus"})->help);  // answered, the rest unread
}

TEST(PlaceArgs, UsageErrors) {
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{}, "--cluster FILE is required"},
      {{"--cluster", "c"}, "--queue FILE is required"},
      {{"--cluster"}, "option '--cluster' requires an argument"},
      {{"--cluster="}, "--cluster needs a file name"},
      {{"--cluster", "a", "--cluster", "b"}, "--cluster given twice"},
      {{"--strict", "--no-strict"}, "--strict and --no-strict contradict each other"},
      {{"--strict=yes"}, "option '--strict' doesn't allow an argument"},
      {{"--cycles", "0"}, "--cycles: expected a number from 1 to 1000, got '0'"},
      {{"--cycles=x"}, "--cycles: expected a number from 1 to 1000, got 'x'"},
      {{"--frobnicate"}, "unrecognized option '--frobnicate'"},
      {{"-x"}, "invalid option -- 'x'"},
      {{"--cl", "c", "--c", "2"}, "option '--c' is ambiguous; possibilities: '--cluster' '--cycles'"},
      {{"c.yaml"}, "unexpected argument 'c.yaml'"},
      {{"--cluster", "c", "--queue", "q", "c.yaml", "--cycles", "0"}, "unexpected argument 'c.yaml'"},
  };
  for (const auto& [args, error] : cases) {
    StatusOr<PlaceArgs> a = ParsePlaceArgs(args);
    ASSERT_FALSE(a.ok()) << error;
    EXPECT_EQ(a.status().message(), error);
  }
}

TEST(PlaceFormat, Numbers) {
  EXPECT_EQ(FormatMemoryMb(0), "0");
  EXPECT_EQ(FormatMemoryMb(512 * 1024), "512G");
  EXPECT_EQ(FormatMemoryMb(2 * 1024 * 1024), "2T");
  EXPECT_EQ(FormatMemoryMb(1536), "1536M");
  EXPECT_EQ(FormatGpuMilli(22500), "22.5");
  EXPECT_EQ(FormatGpuMilli(1000), "1");
  EXPECT_EQ(FormatGpuMilli(250), "0.25");
  EXPECT_EQ(FormatGpuMilli(1), "0.001");
  EXPECT_EQ(FormatGpuMilli(0), "0");
}

// Hand-written decisions: the formatting alone is under test.
TEST(PlaceFormat, Golden) {
  PlaceResult r;
  ClusterConfig c = Tiny();
  r.cluster_name = c.name;
  r.before = ClusterSnapshot(c.spec);
  r.before.usage = c.usage;
  r.queue = {Job(1, "train", "alice", "-N 2 --gres=gpu:8"), Job(2, "nb", "bob", "--gpu-fraction=0.5"),
             Job(3, "pair", "carol", "--gres=gpu:v100:2"), Job(4, "mig", "dave", "-p debug --gres=gpu:1g.10gb:1"),
             Job(5, "big", "erin", "-N 3 --gres=gpu:8"), Job(6, "huge", "frank", "--gres=gpu:16"),
             Job(7, "", "", "-c 1")};
  std::vector<Decision> d(7);
  for (int k = 0; k < 7; ++k) d[k].job_id = k + 1;
  d[0].kind = DecisionKind::kStart;
  d[0].nodes = {Alloc("n1", 1, 4096, Whole({0, 1, 2, 3, 4, 5, 6, 7})), Alloc("n2", 1, 4096, Whole({0, 1, 2, 3, 4, 5, 6, 7}))};
  d[1].kind = DecisionKind::kStart;
  d[1].nodes = {Alloc("n3", 1, 0, {{1, 500}})};
  d[2].kind = DecisionKind::kStart;
  d[2].nodes = {Alloc("v1", 2, 1536, Whole({0, 3}))};
  d[2].nodes[0].exclusive = true;
  d[3].kind = DecisionKind::kStart;
  d[3].nodes = {Alloc("m1", 1, 0, {{2, 1000}})};
  d[4].reason = PendingReason::kResources;
  d[5].kind = DecisionKind::kReject;
  d[5].message = "Requested node configuration is not available";
  d[6].reason = PendingReason::kPriority;
  d[6].message = "behind job 5";
  r.after = r.before;
  for (const Decision& x : d) ApplyAllocation(r.after, x.nodes);
  r.cycles = {d};

  const std::string golden = R"(Cluster tiny: 6 nodes (1 drained, 0 down), 44 GPU devices (32 h100, 8 v100, 4 a100 MIG slices), 2 partitions
GPUs already in use: 0.5 of 44 (1.1%), work running on 1 node
Unavailable: bad drained (ECC errors)

PARTITION  AVAIL  TIMELIMIT    MAXNODES  NODES  GPUS  NODELIST
gpu*       up     1-00:00:00  UNLIMITED      5    40  bad,n[1-3],v1
debug      up     1:00:00             1      1     4  m1

Queue after 1 cycle (strict priority), in scheduling order:
JOBID  PARTITION  NAME   USER   ST  NODES  NODELIST(REASON)
    1  gpu        train  alice  R       2  n[1-2]
    2  gpu        nb     bob    R       1  n3
    3  gpu        pair   carol  R       1  v1
    4  debug      mig    dave   R       1  m1
    5  gpu        big    erin   PD      3  (Resources)
    7  gpu        -      -      PD      1  (Priority, behind job 5)

Rejected (sbatch refuses these at submission):
  job 6 huge (frank): sbatch: error: Batch job submission failed: Requested node configuration is not available

Allocations (GPU indexes as CUDA_VISIBLE_DEVICES sees them; (f) = fraction of a GPU):
  1 train (alice): n[1-2], 2 nodes under switch leaf1
      n1  cpus=1  mem=4G  gpus=0,1,2,3,4,5,6,7  [h100, NVSwitch]
      n2  cpus=1  mem=4G  gpus=0,1,2,3,4,5,6,7  [h100, NVSwitch]
  2 nb (bob): n3
      n3  cpus=1  mem=0  gpus=1(0.5)  [h100, shared]
  3 pair (carol): v1
      v1  cpus=2  mem=1536M  gpus=0,3  [v100, 2 NVLink links within the set]  exclusive
  4 mig (dave): m1
      m1  cpus=1  mem=0  gpus=2(1g.10gb)  [a100 MIG]

Summary: 7 jobs: 4 started, 2 pending, 1 rejected
GPUs allocated: 0.5/44 (1.1%) before, 20/44 (45.5%) after
)";
  EXPECT_EQ(FormatPlace(r), golden);
}

TEST(PlacePipeline, LaterCyclesChangeNothing) {
  const std::vector<PendingJob> queue = {
      Job(1, "train", "alice", "-N 2 --gres=gpu:8"), Job(2, "nb", "bob", "--gpu-fraction=0.5"),
      Job(3, "big", "erin", "-N 3 --gres=gpu:8"), Job(4, "huge", "frank", "--gres=gpu:16"),
      Job(5, "small", "gina", "--gres=gpu:1")};
  PlaceResult r = RunPlace(Tiny(), queue, /*strict=*/true, /*cycles=*/3);
  ASSERT_EQ(r.cycles.size(), 3u);
  EXPECT_EQ(r.cycles[0].size(), 5u);
  for (size_t k = 1; k < r.cycles.size(); ++k) {
    for (const Decision& d : r.cycles[k]) EXPECT_EQ(d.kind, DecisionKind::kPending) << d.ToString();
  }
  const std::string out = FormatPlace(r);
  EXPECT_NE(out.find("  cycle 2: 0 started, 2 pending, 0 rejected (no change)\n"), std::string::npos) << out;
  EXPECT_NE(out.find("  cycle 3: 0 started, 2 pending, 0 rejected (no change)\n"), std::string::npos) << out;
  EXPECT_NE(out.find("job 4 huge (frank): sbatch: error: Batch job submission failed: "), std::string::npos) << out;
  // The same inputs give the same report.
  EXPECT_EQ(FormatPlace(RunPlace(Tiny(), queue, true, 3)), out);
}

// The shipped examples load and make a stable demo. Found by walking up from the working
// directory (ctest runs in the build tree); skipped where the source tree is not above it.
std::string FindUp(const std::string& rel) {
  std::filesystem::path dir = std::filesystem::current_path();
  for (int k = 0; k < 6; ++k, dir = dir.parent_path()) {
    if (std::filesystem::exists(dir / rel)) return (dir / rel).string();
  }
  return "";
}

TEST(PlaceExamples, LoadAndStayStable) {
  const std::string cluster_path = FindUp("examples/cluster.yaml"), queue_path = FindUp("examples/queue.yaml");
  if (cluster_path.empty() || queue_path.empty()) GTEST_SKIP() << "examples/ not found above the working directory";
  StatusOr<ClusterConfig> c = LoadClusterConfigFile(cluster_path);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  StatusOr<std::vector<PendingJob>> q = LoadQueueFile(queue_path);
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(c->spec.nodes.size(), 22u);
  EXPECT_EQ(q->size(), 21u);
  PlaceResult r = RunPlace(*c, *q, /*strict=*/true, /*cycles=*/2);
  const std::string out = FormatPlace(r);
  EXPECT_NE(out.find(" (no change)\n"), std::string::npos) << out;
  EXPECT_NE(out.find("job 115 huge-node (mallory): sbatch: error: Batch job submission failed: "), std::string::npos);
  EXPECT_NE(out.find("job 117 b200-only (oscar): sbatch: error: Batch job submission failed: "), std::string::npos);
  EXPECT_NE(out.find("4 nodes under switch leaf"), std::string::npos) << out;  // the 4-node gang
}

class PlaceMainTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("muster_place_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    Write("c.yaml", kCluster);
    Write("q.yaml", "jobs:\n  - {id: 1, name: one, user: u, options: \"--gres=gpu:1\"}\n");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return Path(name);
  }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  int Run(std::vector<std::string> args) {
    out_.str("");
    err_.str("");
    return PlaceMain(args, out_, err_);
  }

  std::filesystem::path dir_;
  std::ostringstream out_, err_;
};

TEST_F(PlaceMainTest, ExitStatuses) {
  EXPECT_EQ(Run({"--cluster", Path("c.yaml"), "--queue", Path("q.yaml")}), 0) << err_.str();
  EXPECT_EQ(out_.str().rfind("Cluster tiny: 6 nodes", 0), 0u) << out_.str();
  EXPECT_NE(out_.str().find("    1  gpu        one   u     R       1  n3\n"), std::string::npos) << out_.str();
  EXPECT_EQ(err_.str(), "");

  EXPECT_EQ(Run({"--help"}), 0);
  EXPECT_EQ(out_.str(), PlaceUsage());

  EXPECT_EQ(Run({"--cluster", Path("c.yaml")}), 2);
  EXPECT_EQ(err_.str(), "muster place: --queue FILE is required\n\n" + PlaceUsage());
  EXPECT_EQ(out_.str(), "");

  EXPECT_EQ(Run({"--cluster", Path("nope.yaml"), "--queue", Path("q.yaml")}), 1);
  EXPECT_EQ(err_.str(), "muster place: cannot open " + Path("nope.yaml") + ": No such file or directory\n");

  Write("bad.yaml", "jobs:\n  - {id: 1, options: \"--gres=gpu:1\", prio: 3}\n");
  EXPECT_EQ(Run({"--cluster", Path("c.yaml"), "--queue", Path("bad.yaml")}), 1);
  EXPECT_EQ(err_.str(), "muster place: " + Path("bad.yaml") +
                            ":2: jobs[0]: unknown field 'prio' (known: id, name, user, account, priority, "
                            "submit_time, options)\n");
}

}  // namespace
}  // namespace muster
