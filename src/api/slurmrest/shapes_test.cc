// The v0.0.38 shapes against slurmrestd 22.05.8's own answers for the same cluster and job
// (testdata/: the peer's captures, trimmed): the same keys in the same order, and the values
// Muster's records give for them.
#include "api/slurmrest/shapes.h"

#include <fstream>
#include <sstream>

#include <boost/json.hpp>

#include "gtest/gtest.h"
#include "report/sacct_format.h"
#include "report/slurm_format_testdata.h"

namespace muster::slurmrest {
namespace {

namespace bj = boost::json;
using testdata::kT0;

bj::object Capture(const std::string& name) {
  std::ifstream in(std::string(MUSTER_SOURCE_DIR) + "/src/api/slurmrest/testdata/" + name);
  std::stringstream text;
  text << in.rdbuf();
  bj::value v = bj::parse(text.str());
  return v.as_object();
}

std::vector<std::string> Keys(const bj::object& o) {
  std::vector<std::string> keys;
  for (const auto& kv : o) keys.emplace_back(kv.key());
  return keys;
}

// Job 9148 of the captures (sbatch -N1 -n4 --gres=gpu:8 -t 10 on n1, COMPLETED after 30 s).
JobRecord Job9148() {
  JobRecord j = testdata::BaseJob(9148, "gpujob");
  j.state = JobState::kCompleted;
  j.eligible_time = kT0;
  j.start_time = kT0;
  j.end_time = kT0 + 30;
  j.time_limit_s = 600;
  j.request.time_limit_s = 600;
  j.request.ntasks = 4;
  j.request.gpus_per_node = 8;
  j.request.mem_per_cpu_mb = 500;
  j.request.nodelist = {"n1"};
  j.batch_host = "n1";
  j.reason = "None";
  j.priority = 4294892681;
  j.stdin_path = "/dev/null";
  j.stdout_pattern = "/w/cap_%j.out";
  j.workdir = "/w";
  NodeAllocation a;
  a.node = "n1";
  a.cpu_milli = 4000;
  a.memory_mb = 2000;
  a.tasks = 4;
  for (int i = 0; i < 8; ++i) a.gpus.push_back(GpuShare{i});
  j.allocation = {a};
  return j;
}

TEST(SlurmRestShapes, EnvelopeIsSlurmrestds) {
  const bj::object peer = Capture("ping.json");
  const bj::object ours = Envelope(Plugin::kV0038);
  EXPECT_EQ(ours.at("meta"), peer.at("meta"));
  EXPECT_EQ(ours.at("errors"), bj::array());
  EXPECT_EQ(Envelope(Plugin::kDbV0038).at("meta"), Capture("slurmdb_job.json").at("meta"));
}

TEST(SlurmRestShapes, JobHasTheKeysAndValuesOfSlurms) {
  const bj::object peer = Capture("job_9148.json").at("jobs").as_array()[0].as_object();
  const bj::object ours = JobJson(Job9148(), "peer");
  EXPECT_EQ(Keys(ours), Keys(peer));
  for (const char* key : {"account", "batch_flag", "batch_host", "cluster", "job_id", "job_state", "name", "nodes",
                          "cpus", "node_count", "tasks", "partition", "memory_per_cpu", "memory_per_node", "priority",
                          "qos", "required_nodes", "requeue", "start_time", "end_time", "submit_time", "time_limit",
                          "tres_per_node", "tres_req_str", "tres_alloc_str", "standard_input", "state_reason",
                          "user_name", "group_name", "exit_code", "cpus_per_task", "nice", "show_flags", "gres_detail",
                          "minimum_cpus_per_node", "eligible_time"}) {
    EXPECT_EQ(ours.at(key), peer.at(key)) << key;
  }
  // job_resources: the same keys; Muster does not place CPUs by socket and core (no "sockets").
  const bj::object& res = ours.at("job_resources").as_object();
  EXPECT_EQ(Keys(res), Keys(peer.at("job_resources").as_object()));
  EXPECT_EQ(res.at("allocated_cores"), 4);
  const bj::object& node = res.at("allocated_nodes").as_array()[0].as_object();
  EXPECT_EQ(Keys(node), Keys(peer.at("job_resources").at("allocated_nodes").as_array()[0].as_object()));
  EXPECT_EQ(node.at("memory_allocated"), 2000);
  EXPECT_EQ(node.at("sockets"), bj::object());
}

TEST(SlurmRestShapes, PendingAndUnlimitedJobs) {
  JobRecord j = testdata::BaseJob(7, "wait");
  j.state = JobState::kPending;
  j.reason = "Resources";
  j.time_limit_s = kUnlimited;
  j.expected_start = kT0 + 100;
  const bj::object o = JobJson(j, "c");
  EXPECT_EQ(o.at("job_state"), "PENDING");
  EXPECT_EQ(o.at("state_reason"), "Resources");
  EXPECT_EQ(o.at("time_limit"), nullptr) << "UNLIMITED, as slurmrestd writes it";
  EXPECT_EQ(o.at("start_time"), kT0 + 100);
  EXPECT_EQ(o.at("nodes"), "");
  EXPECT_EQ(o.at("job_resources"), bj::object());
  EXPECT_EQ(o.at("tres_alloc_str"), "");
  EXPECT_EQ(o.at("gres_detail"), bj::array());
  EXPECT_EQ(o.at("wckey"), "");
  j.options.wckey = "proj";
  EXPECT_EQ(JobJson(j, "c").at("wckey"), "proj");
}

TEST(SlurmRestShapes, RunningJobShowsItsGpus) {
  JobRecord j = Job9148();
  j.state = JobState::kRunning;
  j.end_time = 0;
  j.allocation[0].gpus = {GpuShare{0}, GpuShare{1}, GpuShare{5}};
  EXPECT_EQ(JobJson(j, "c").at("gres_detail"), (bj::array{"gpu:3(IDX:0-1,5)"}));
  EXPECT_EQ(JobJson(j, "c").at("end_time"), kT0 + 600) << "start + limit while it runs";
}

TEST(SlurmRestShapes, PartitionsAreSlurms) {
  const bj::array peer = Capture("partitions.json").at("partitions").as_array();
  const std::vector<Partition> parts = testdata::CapturedPartitions();
  const std::vector<NodeRecord> nodes = testdata::CapturedNodes(kT0);
  ASSERT_EQ(peer.size(), parts.size());
  for (size_t i = 0; i < parts.size(); ++i) {
    EXPECT_EQ(bj::value(PartitionJson(parts[i], nodes)), peer[i]) << parts[i].name;
  }
}

TEST(SlurmRestShapes, NodesHaveSlurmsKeys) {
  const bj::object peer = Capture("nodes_n1.json").at("nodes").as_array()[0].as_object();
  std::vector<NodeRecord> nodes = testdata::CapturedNodes(kT0);
  nodes[0].agent_address = "127.0.0.1:16821";
  nodes[0].hostname = "vm";
  const bj::array ours = NodesJson(testdata::CapturedPartitions(), nodes, {}, kT0);
  ASSERT_EQ(ours.size(), 4u);
  const bj::object& n1 = ours[0].as_object();
  EXPECT_EQ(Keys(n1), Keys(peer));
  for (const char* key : {"name", "address", "hostname", "port", "cpus", "sockets", "cores", "threads", "boards",
                          "real_memory", "gres", "gres_used", "gres_drained", "state", "state_flags", "partitions",
                          "features", "active_features", "tres", "tres_used", "alloc_cpus", "idle_cpus",
                          "alloc_memory", "owner", "reason", "reason_changed_at", "reason_set_by_user"}) {
    EXPECT_EQ(n1.at(key), peer.at(key)) << key;
  }
}

// What the peer answered for n1 with 5 CPUs, 2500 MB and 8 GPUs in use.
TEST(SlurmRestShapes, NodeInUseWritesItsMemoryExactly) {
  NodeActivityMap usage;
  usage["n1"] = NodeActivity{5, 8, 2500};
  const bj::array ours = NodesJson(testdata::CapturedPartitions(), testdata::CapturedNodes(kT0), usage, kT0);
  EXPECT_EQ(ours[0].at("tres_used"), "cpu=5,mem=2500M,gres/gpu=8");
  EXPECT_EQ(ours[0].at("alloc_cpus"), 5);
  EXPECT_EQ(ours[0].at("gres_used"), "gpu:8");
  EXPECT_EQ(ours[1].at("tres_used"), nullptr);
}

TEST(SlurmRestShapes, DiagHasSlurmsKeys) {
  const bj::object peer = Capture("diag.json").at("statistics").as_object();
  DiagAnswer f;
  f.now = kT0;
  f.since = kT0 - 120;
  f.jobs_pending = 2;
  f.jobs_running = 1;
  f.cycles = 4;
  f.cycle_total_us = 400;
  f.cycle_max_us = 250;
  f.rpcs.push_back(DiagRpc{"GET", "/v1/jobs", 2, 30});
  f.rpc_users.push_back(DiagRpcUser{"root", 0, 4, 100});
  f.gettimeofday_latency_us = 27;
  const bj::object ours = DiagJson(f);
  EXPECT_EQ(Keys(ours), Keys(peer));
  EXPECT_EQ(ours.at("jobs_pending"), 2);
  EXPECT_EQ(ours.at("jobs_running"), 1);
  EXPECT_EQ(ours.at("req_time_start"), kT0 - 120);
  EXPECT_EQ(ours.at("schedule_cycle_mean"), 100);
  EXPECT_EQ(ours.at("schedule_cycle_max"), 250);
  EXPECT_EQ(ours.at("schedule_cycle_per_minute"), 2);
  const bj::object& rpc = ours.at("rpcs_by_message_type").as_array().at(0).as_object();
  EXPECT_EQ(Keys(rpc), Keys(peer.at("rpcs_by_message_type").as_array().at(0).as_object()));
  EXPECT_EQ(rpc.at("message_type"), "GET /v1/jobs");
  EXPECT_EQ(rpc.at("average_time"), 15);
  const bj::object& user = ours.at("rpcs_by_user").as_array().at(0).as_object();
  EXPECT_EQ(Keys(user), Keys(peer.at("rpcs_by_user").as_array().at(0).as_object()));
  EXPECT_EQ(user.at("user"), "root");
  EXPECT_EQ(user.at("average_time"), 25);
  EXPECT_EQ(ours.at("gettimeofday_latency"), 27);
}

TEST(SlurmRestShapes, SlurmdbJobHasSlurmsKeys) {
  const bj::object peer = Capture("slurmdb_job.json").at("jobs").as_array()[0].as_object();
  const bj::value all = SacctJson({Job9148()}, {}, "peer", kT0 + 60);
  const bj::object& ours = all.at("jobs").as_array()[0].as_object();
  std::vector<std::string> a = Keys(ours), b = Keys(peer);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_EQ(a, b);
}

TEST(SlurmRestShapes, ErrorNumbersAreSlurms) {
  EXPECT_EQ(SlurmErrorNumber("Invalid job id specified"), 2017);
  EXPECT_EQ(SlurmErrorNumber("Access/permission denied"), 2002);
  EXPECT_EQ(SlurmErrorNumber("something else"), -1);
  EXPECT_EQ(Keys(ErrorEntry("d", 1, "e", "s")), (std::vector<std::string>{"description", "error_number", "error", "source"}));
}

TEST(SlurmRestShapes, InOrderPutsTheNamedKeysFirst) {
  const bj::object o{{"b", 1}, {"c", 2}, {"a", 3}};
  EXPECT_EQ(Keys(InOrder(o, {"a", "x", "b"})), (std::vector<std::string>{"a", "b", "c"}));
}

}  // namespace
}  // namespace muster::slurmrest
