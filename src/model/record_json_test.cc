#include "model/record_json.h"

#include <gtest/gtest.h>

#include <functional>

#include <boost/json.hpp>

namespace muster {
namespace {

JobRecord RichJob() {
  JobRecord j;
  j.id = 42;
  j.name = "train \"llm\" ü";
  j.uid = 1000;
  j.gid = 1000;
  j.user = "alice";
  j.group = "ml";
  j.account = "research";
  j.partition = "gpu";
  j.request.min_nodes = 2;
  j.request.gpus_per_node = 8;
  j.request.gpu_type = "h100";
  j.request.time_limit_s = 3600;
  j.request.nodelist = {"gpu01", "gpu02"};
  j.submit_args = {"-N", "2", "--gres=gpu:h100:8"};
  j.script = "#!/bin/bash\nsrun hostname\n";
  j.workdir = "/home/alice";
  j.submit_host = "login1";
  j.environment = {"PATH=/usr/bin", "X=a=b"};
  j.stdout_pattern = "out-%j.txt";
  j.priority = 7;
  j.time_limit_s = 3600;
  j.state = JobState::kRunning;
  j.reason = "None";
  j.submit_time = 1000;
  j.start_time = 1005;
  j.exit_code = 3;
  j.allocation = {{"gpu01", 2000, 4096, 1, FromStoredGpus({{0, 1, 2, 3, 4, 5, 6, 7}, -1, 0}), false},
                  {"gpu02", 2000, 4096, 1, FromStoredGpus({{}, 3, 250}), false}};
  j.batch_host = "gpu01";
  j.restart_count = 3;  // runs 0 to 2 requeued, one of them a launch that never started
  j.lost_launches = 1;
  return j;
}

TEST(RecordJsonTest, JobRoundTrip) {
  JobRecord j = RichJob();
  StatusOr<JobRecord> back = JobRecordFromJson(*ParseRecordText(ToJsonText(j)));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, j);
}

// lost_launches (the requeues of runs that never started) is stored with the record; a record
// stored before it existed loads with none, and every requeue it had counts as a restart.
TEST(RecordJsonTest, LostLaunchesAreStoredAndOlderRecordsHaveNone) {
  JobRecord j = RichJob();
  EXPECT_EQ(Restarts(j), 2);
  boost::json::object o = ToJson(j);
  ASSERT_TRUE(o.contains("lost_launches"));
  EXPECT_EQ(o.at("lost_launches"), boost::json::value(1));
  StatusOr<JobRecord> back = JobRecordFromJson(o);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->restart_count, 3);
  EXPECT_EQ(back->lost_launches, 1);
  EXPECT_EQ(Restarts(*back), 2);
  o.erase("lost_launches");  // as written before the key existed
  back = JobRecordFromJson(o);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->restart_count, 3);
  EXPECT_EQ(back->lost_launches, 0);
  EXPECT_EQ(Restarts(*back), 3);
  o["lost_launches"] = "one";
  EXPECT_EQ(JobRecordFromJson(o).status().message(), "job.lost_launches: wrong type");
}

TEST(RecordJsonTest, NodeAndStepAndPartitionRoundTrip) {
  NodeRecord n;
  n.node.name = "gpu01";
  n.node.cpus = 64;
  n.node.memory_mb = 1024;
  n.node.drain = true;
  n.node.reason = "fan";
  n.node.state = NodeState::kMixed;
  for (int g = 0; g < 4; ++g) n.node.gpus.push_back(Gpu{g, "h100", 81920, "GPU-x", g / 2, "", -1});
  n.node.links = *GpuLinkMatrix::Parse("islands:2", 4);
  n.agent_address = "127.0.0.1:7001";
  n.last_heartbeat = 99;
  StatusOr<NodeRecord> nb = NodeRecordFromJson(ToJson(n));
  ASSERT_TRUE(nb.ok()) << nb.status().ToString();
  EXPECT_EQ(*nb, n);

  n.node.links = GpuLinkMatrix::NvSwitch(4, 12);
  StatusOr<NodeRecord> nvs = NodeRecordFromJson(ToJson(n));
  ASSERT_TRUE(nvs.ok());
  EXPECT_EQ(*nvs, n);

  StepRecord s{42, 1, "torchrun", {"gpu01", "gpu02"}, 16, JobState::kCompleted, 10, 20, 0};
  StatusOr<StepRecord> sb = StepRecordFromJson(ToJson(s));
  ASSERT_TRUE(sb.ok());
  EXPECT_EQ(*sb, s);

  Partition p;
  p.name = "debug";
  p.nodes = {"n1"};
  p.max_time_s = 1800;
  StatusOr<Partition> pb = PartitionFromJson(ToJson(p));
  ASSERT_TRUE(pb.ok());
  EXPECT_EQ(pb->name, "debug");
  EXPECT_EQ(pb->max_time_s, 1800);
}

TEST(RecordJsonTest, ErrorsNameTheField) {
  boost::json::value j = ToJson(RichJob());
  j.as_object()["state"] = "SLEEPING";
  EXPECT_EQ(JobRecordFromJson(j).status().message(), "job.state: invalid job state 'SLEEPING'");
  j = ToJson(RichJob());
  j.as_object()["uid"] = "root";
  EXPECT_EQ(JobRecordFromJson(j).status().message(), "job.uid: wrong type");
  EXPECT_FALSE(JobRecordFromJson(boost::json::array()).ok());
  EXPECT_FALSE(NodeRecordFromJson(boost::json::object()).ok());
}

TEST(RecordJsonTest, ErrorsNameNestedFields) {
  boost::json::value j = ToJson(RichJob());
  j.as_object()["allocation"].as_array()[1].as_object()["memory_mb"] = "lots";
  EXPECT_EQ(JobRecordFromJson(j).status().message(), "job.allocation[].memory_mb: wrong type");
  NodeRecord n;
  n.node.gpus.push_back(Gpu{});
  boost::json::value nj = ToJson(n);
  nj.as_object()["node"].as_object()["gpus"].as_array()[0].as_object()["index"] = 1.5;
  EXPECT_EQ(NodeRecordFromJson(nj).status().message(), "node.gpus[].index: wrong type");
  nj = ToJson(n);
  nj.as_object()["node"].as_object()["state"] = "asleep";
  EXPECT_EQ(NodeRecordFromJson(nj).status().message(), "node.state: unknown state 'asleep'");
  boost::json::value sj = ToJson(StepRecord{});
  sj.as_object()["state"] = "NAPPING";
  EXPECT_EQ(StepRecordFromJson(sj).status().message(), "step.state: invalid job state 'NAPPING'");
  // Unknown keys are ignored; a missing or null key keeps the default.
  sj = ToJson(StepRecord{});
  sj.as_object()["from_the_future"] = boost::json::array{1, 2};
  sj.as_object()["ntasks"] = nullptr;
  ASSERT_TRUE(StepRecordFromJson(sj).ok());
  EXPECT_EQ(*StepRecordFromJson(sj), StepRecord{});
}

// Rows that the earlier JSON codec wrote (captured from it before the move to Boost.JSON, keys
// sorted as it wrote them): a state.db of that age must still load, and each record written
// again must hold the same keys and values.
constexpr const char* kOldJob =
    R"json({"account":"research","allocation":[{"cpu_milli":2000,"exclusive":false,"gpus":[0,1,2,3],"memory_mb":4096,"node":"gpu01","shared_gpu":-1,"shared_milli":0,"tasks":1},{"cpu_milli":2000,"exclusive":false,"gpus":[],"memory_mb":4096,"node":"gpu02","shared_gpu":3,"shared_milli":250,"tasks":1}],"array_job_id":0,"array_max_running":0,"array_task_id":-1,"array_tasks":"","batch_host":"gpu01","begin_time":0,"cancelled_by":-1,"comment":"","dependency":"","dependency_left":"","eligible_time":0,"end_time":0,"ending":"","environment":["PATH=/usr/bin","X=a=b"],"exit_code":3,"exit_signal":0,"expected_start":0,"gid":1000,"group":"ml","held":false,"id":42,"interactive":false,"kill_at":0,"name":"train \"llm\" ü","nice":-5,"partition":"gpu","preempt_reason":"","preempt_time":0,"preempted_by":0,"preemptions":[{"by":43,"mode":"","reason":"qos","time":1010}],"priority":7,"qos":"high","reason":"None","reason_detail":"","request":{"constraint":"","cpus_per_gpu":0,"cpus_per_task":1,"exclude":[],"exclusive":false,"gpu_memory_mb":0,"gpu_milli":0,"gpu_type":"h100","gpus_per_node":8,"gpus_per_task":0,"gpus_total":0,"max_nodes":0,"mem_per_cpu_mb":0,"mem_per_gpu_mb":0,"mem_per_node_mb":0,"min_nodes":2,"name":"","nodelist":["gpu01","gpu02"],"ntasks":0,"ntasks_per_node":0,"partition":"","time_limit_s":3600},"requeue":true,"restart_count":0,"run_before_s":0,"sched_nodes":"","script":"#!/bin/bash\nsrun hostname\n","script_args":[],"start_time":1005,"state":"RUNNING","stderr":"","stdin":"","stdout":"out-%j.txt","submit_args":["-N","2","--gres=gpu:h100:8"],"submit_host":"","submit_key":"","submit_sid":0,"submit_time":1000,"suspend_time":0,"suspended_s":0,"time_limit_s":3600,"uid":1000,"user":"alice","warn_batch_only":false,"warn_sent":false,"warn_signal":0,"warn_time_s":0,"workdir":"/home/alice"})json";
constexpr const char* kOldNodeRecord =
    R"json({"agent_address":"127.0.0.1:7001","arch":"","boot_time":0,"failed_gpus":[{"index":1,"needs_reset":true,"reason":"Xid 79"}],"hostname":"h1","last_heartbeat":99,"node":{"cores_per_socket":1,"cpus":64,"drain":true,"features":["a100","ib"],"gpus":[{"index":0,"memory_mb":81920,"mig_profile":"","model":"h100","numa_node":0,"parent_index":-1,"uuid":"GPU-x"},{"index":1,"memory_mb":81920,"mig_profile":"","model":"h100","numa_node":0,"parent_index":-1,"uuid":"GPU-x"},{"index":2,"memory_mb":81920,"mig_profile":"","model":"h100","numa_node":1,"parent_index":-1,"uuid":"GPU-x"},{"index":3,"memory_mb":81920,"mig_profile":"","model":"h100","numa_node":1,"parent_index":-1,"uuid":"GPU-x"}],"links":[[0,2,0,0],[2,0,0,0],[0,0,0,2],[0,0,2,0]],"memory_mb":1024,"name":"gpu01","numa_nodes":1,"nvswitch":false,"reason":"fan","reason_time":0,"reason_user":"","sockets":1,"state":"mix","threads_per_core":1},"os":"","start_time":0,"version":"0.1"})json";
constexpr const char* kOldNvSwitchNodeRecord =
    R"json({"agent_address":"127.0.0.1:7001","arch":"","boot_time":0,"failed_gpus":[{"index":1,"needs_reset":true,"reason":"Xid 79"}],"hostname":"h1","last_heartbeat":99,"node":{"cores_per_socket":1,"cpus":64,"drain":true,"features":["a100","ib"],"gpus":[{"index":0,"memory_mb":81920,"mig_profile":"","model":"h100","numa_node":0,"parent_index":-1,"uuid":"GPU-x"},{"index":1,"memory_mb":81920,"mig_profile":"","model":"h100","numa_node":0,"parent_index":-1,"uuid":"GPU-x"},{"index":2,"memory_mb":81920,"mig_profile":"","model":"h100","numa_node":1,"parent_index":-1,"uuid":"GPU-x"},{"index":3,"memory_mb":81920,"mig_profile":"","model":"h100","numa_node":1,"parent_index":-1,"uuid":"GPU-x"}],"links":[[0,12,12,12],[12,0,12,12],[12,12,0,12],[12,12,12,0]],"memory_mb":1024,"name":"gpu01","numa_nodes":1,"nvswitch":true,"reason":"fan","reason_time":0,"reason_user":"","sockets":1,"state":"mix","threads_per_core":1},"os":"","start_time":0,"version":"0.1"})json";
constexpr const char* kOldStep =
    R"json({"end_time":20,"exit_code":0,"job_id":42,"name":"torchrun","node_cpus":[4,4],"node_gpus":[[0,1],[2]],"node_mem_mb":[100,200],"nodes":["gpu01","gpu02"],"ntasks":16,"start_time":10,"state":"COMPLETED","step_id":1,"time_limit_s":60})json";
constexpr const char* kOldPartition =
    R"json({"def_mem_from_cluster":false,"def_mem_per_cpu_mb":0,"default":true,"default_time_s":-1,"max_nodes":-1,"max_time_s":1800,"min_nodes":0,"name":"debug","nodes":["n1"],"priority_tier":1,"up":true})json";
constexpr const char* kOldRequest =
    R"json({"constraint":"","cpus_per_gpu":0,"cpus_per_task":1,"exclude":[],"exclusive":false,"gpu_memory_mb":0,"gpu_milli":0,"gpu_type":"h100","gpus_per_node":8,"gpus_per_task":0,"gpus_total":0,"max_nodes":0,"mem_per_cpu_mb":0,"mem_per_gpu_mb":0,"mem_per_node_mb":0,"min_nodes":2,"name":"","nodelist":["gpu01","gpu02"],"ntasks":0,"ntasks_per_node":0,"partition":"","time_limit_s":3600})json";

// `added`: the keys written since that form was captured, with their defaults (written again,
// the record holds them too).
template <class T, class Decode>
void ExpectOldFormReads(const char* text, Decode decode, const char* added = "{}") {
  SCOPED_TRACE(text);
  StatusOr<boost::json::value> parsed = ParseRecordText(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  StatusOr<T> record = decode(*parsed);
  ASSERT_TRUE(record.ok()) << record.status().ToString();
  boost::json::value expected = *parsed;
  const StatusOr<boost::json::value> more = ParseRecordText(added);
  ASSERT_TRUE(more.ok()) << more.status().ToString();
  // (Merged into nested objects too: a key added to a record's request is given as
  // {"request": {"key": default}}.)
  std::function<void(boost::json::object&, const boost::json::object&)> merge = [&](boost::json::object& into,
                                                                                     const boost::json::object& add) {
    for (const auto& kv : add) {
      if (kv.value().is_object() && into.contains(kv.key()) && into.at(kv.key()).is_object()) {
        merge(into.at(kv.key()).as_object(), kv.value().as_object());
      } else {
        into[kv.key()] = kv.value();
      }
    }
  };
  merge(expected.as_object(), more->as_object());
  EXPECT_EQ(boost::json::value(ToJson(*record)), expected);  // objects compare regardless of key order
  StatusOr<T> again = decode(*ParseRecordText(ToJsonText(*record)));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(boost::json::value(ToJson(*again)), boost::json::value(ToJson(*record)));
}

TEST(RecordJsonTest, PartitionAccessListsRoundTrip) {
  Partition p;
  p.name = "gpu";
  p.access.allow_groups = {"gpu", "staff"};
  p.access.deny_accounts = {"guests"};
  p.access.allow_qos = {"high"};
  StatusOr<Partition> back = PartitionFromJson(*ParseRecordText(ToJsonText(p)));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->access, p.access);
}

TEST(RecordJsonTest, OldStoredFormsStillLoad) {
  ExpectOldFormReads<JobRecord>(kOldJob, JobRecordFromJson,
                                R"json({"het_job_id":0,"het_job_offset":0,"het_job_size":0,"het_environment":[],
                                        "lost_launches":0,"wckey":"","mail_type":0,"mail_user":"",
                                        "request":{"overcommit":false,"min_cpus_per_node":0,"tmp_disk_mb":0}})json");
  ExpectOldFormReads<NodeRecord>(kOldNodeRecord, NodeRecordFromJson, R"json({"node":{"tmp_disk_mb":0}})json");
  ExpectOldFormReads<NodeRecord>(kOldNvSwitchNodeRecord, NodeRecordFromJson, R"json({"node":{"tmp_disk_mb":0}})json");
  ExpectOldFormReads<StepRecord>(kOldStep, StepRecordFromJson);
  ExpectOldFormReads<Partition>(
      kOldPartition, PartitionFromJson,
      R"json({"allow_groups":[],"allow_accounts":[],"deny_accounts":[],"allow_qos":[],"deny_qos":[]})json");
  ExpectOldFormReads<JobRequest>(kOldRequest, JobRequestFromJson,
                                 R"json({"overcommit":false,"min_cpus_per_node":0,"tmp_disk_mb":0})json");

  const JobRecord job = *JobRecordFromJson(*ParseRecordText(kOldJob));
  EXPECT_EQ(job.name, "train \"llm\" \u00fc");
  EXPECT_EQ(job.state, JobState::kRunning);
  EXPECT_EQ(job.script.str(), "#!/bin/bash\nsrun hostname\n");
  ASSERT_EQ(job.allocation.size(), 2u);
  EXPECT_EQ(ToStoredGpus(job.allocation[1]).shared_milli, 250);
  ASSERT_EQ(job.preemptions.size(), 1u);
  EXPECT_EQ(job.preemptions[0].by, 43);
  const NodeRecord node = *NodeRecordFromJson(*ParseRecordText(kOldNvSwitchNodeRecord));
  EXPECT_EQ(node.node.links, GpuLinkMatrix::NvSwitch(4, 12));
  EXPECT_EQ(node.node.state, NodeState::kMixed);
  EXPECT_EQ(node.failed_gpus, (std::vector<GpuFault>{GpuFault{1, true, "Xid 79"}}));
  const StepRecord step = *StepRecordFromJson(*ParseRecordText(kOldStep));
  EXPECT_EQ(step.node_gpus, (std::vector<std::vector<int>>{{0, 1}, {2}}));
  EXPECT_EQ(step.state, JobState::kCompleted);
}

TEST(RecordJsonTest, StateNames) {
  EXPECT_STREQ(JobStateName(JobState::kOutOfMemory), "OUT_OF_MEMORY");
  EXPECT_STREQ(JobStateCompact(JobState::kCompleting), "CG");
  EXPECT_EQ(*ParseJobState("pd"), JobState::kPending);
  EXPECT_EQ(*ParseJobState("canceled"), JobState::kCancelled);
  EXPECT_TRUE(IsFinished(JobState::kTimeout));
  EXPECT_FALSE(IsFinished(JobState::kCompleting));
}

}  // namespace
}  // namespace muster
