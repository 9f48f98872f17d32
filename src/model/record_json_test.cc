#include "model/record_json.h"

#include <gtest/gtest.h>

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
  return j;
}

TEST(RecordJsonTest, JobRoundTrip) {
  JobRecord j = RichJob();
  StatusOr<JobRecord> back = JobRecordFromJson(nlohmann::json::parse(ToJson(j).dump()));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, j);
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
  auto j = ToJson(RichJob());
  j["state"] = "SLEEPING";
  EXPECT_EQ(JobRecordFromJson(j).status().message(), "job.state: invalid job state 'SLEEPING'");
  j = ToJson(RichJob());
  j["uid"] = "root";
  EXPECT_EQ(JobRecordFromJson(j).status().message(), "job.uid: wrong type");
  EXPECT_FALSE(JobRecordFromJson(nlohmann::json::array()).ok());
  EXPECT_FALSE(NodeRecordFromJson(nlohmann::json::object()).ok());
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
