#include "model/job_list_json.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <boost/json.hpp>

#include "base/pretty_json.h"
#include "model/record_json.h"

namespace muster {
namespace {

JobRecord Rich() {
  JobRecord j;
  j.id = 42;
  j.name = "train \"llm\" ü\t\x01";
  j.uid = 1000;
  j.gid = 1001;
  j.user = "alice";
  j.group = "ml";
  j.account = "research";
  j.partition = "gpu";
  j.request.min_nodes = 2;
  j.request.gpus_per_node = 8;
  j.request.gpu_type = "h100";
  j.request.exclusive = true;
  j.request.nodelist = {"gpu01", "gpu02"};
  j.submit_args = {"-N", "2"};
  j.script = "#!/bin/bash\nsrun hostname\n";
  j.script_args = {"a"};
  j.environment = {"PATH=/usr/bin"};
  j.workdir = "/home/alice";
  j.stdout_pattern = "out-%j.txt";
  j.priority = -7;
  j.time_limit_s = 0;   // differs from the default (unlimited): must survive being "zero"
  j.requeue = false;    // default true: must survive
  j.held = true;
  j.state = JobState::kRunning;
  j.reason = "None";
  j.submit_time = 1000;
  j.start_time = 1005;
  j.exit_code = 3;
  j.allocation = {{"gpu01", 2000, 4096, 1, FromStoredGpus({{0, 1, 7}, -1, 0}), false}, {"gpu02", 2000, 0, 1, FromStoredGpus({{}, 0, 250}), true}};
  j.batch_host = "gpu01";
  return j;
}

TEST(JobListJson, RoundTripsEverythingButThePayload) {
  const std::vector<JobRecord> jobs = {Rich(), JobRecord{}};
  StatusOr<std::vector<JobRecord>> back = ParseJobListJson(JobListJson(jobs));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0], ListedJob(jobs[0]));
  EXPECT_EQ((*back)[1], JobRecord{});
  EXPECT_TRUE((*back)[0].script.empty());
  EXPECT_TRUE((*back)[0].environment.empty());
  EXPECT_TRUE((*back)[0].script_args.empty());
}

TEST(JobListJson, ListedJobDropsOnlyThePayload) {
  JobRecord j = Rich();
  JobRecord listed = ListedJob(j);
  j.script.clear();
  j.script_args.clear();
  j.environment.clear();
  EXPECT_EQ(listed, j);
}

TEST(JobListJson, LeavesOutDefaultsAndThePayload) {
  JobRecord j;
  j.id = 5;
  j.name = "x";
  j.script = "secret script";
  j.environment = {"TOKEN=abc"};
  const std::string text = JobListJson({j});
  EXPECT_EQ(text, R"({"jobs":[{"id":5,"name":"x"}]})");
}

TEST(JobListJson, ReadsWhatTheNlohmannCodecWrites) {
  // The full wire form (GET /v1/jobs/{id}, the store) is a valid list entry too.
  const JobRecord j = Rich();
  const std::string text = "{\"jobs\":[" + boost::json::serialize(ToJson(j)) + "]}";
  StatusOr<std::vector<JobRecord>> back = ParseJobListJson(text);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ((*back)[0], j);  // the reader keeps what it is given, payload included
}

TEST(JobListJson, ErrorsNameTheJobAndField) {
  EXPECT_EQ(ParseJobListJson(R"({"jobs":[{"id":1},{"id":"2"}]})").status().message(), "jobs[1].id: wrong type");
  EXPECT_EQ(ParseJobListJson(R"({"jobs":[{"state":"SLEEPING"}]})").status().message(),
            "jobs[0].state: invalid job state 'SLEEPING'");
  EXPECT_EQ(ParseJobListJson(R"({"jobs":[{"request":{"ntasks":true}}]})").status().message(),
            "jobs[0].request.ntasks: wrong type");
  EXPECT_EQ(ParseJobListJson(R"({"jobs":[{"allocation":[{"gpus":["a"]}]}]})").status().message(),
            "jobs[0].allocation[].gpus: wrong type");
  EXPECT_EQ(ParseJobListJson(R"({"jobs":[{"uid":-1}]})").status().message(), "jobs[0].uid: wrong type");
  EXPECT_EQ(ParseJobListJson(R"({"jobs":[{"exit_code":99999999999}]})").status().message(),
            "jobs[0].exit_code: wrong type");
  EXPECT_FALSE(ParseJobListJson("{\"jobs\":[").ok());
  EXPECT_FALSE(ParseJobListJson(R"({"nodes":[]})").ok());
  EXPECT_FALSE(ParseJobListJson(R"({"jobs":[1]})").ok());
  EXPECT_TRUE(ParseJobListJson(R"({"jobs":[{"unknown_key":[1,2],"id":3}]})").ok());
}

TEST(JobListJson, BytesThatAreNotUtf8SurviveTheTrip) {
  JobRecord j;
  j.name = std::string("bad\xff\xfe name");
  StatusOr<std::vector<JobRecord>> back = ParseJobListJson(JobListJson({j}));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ((*back)[0].name, j.name);
}

RC_GTEST_PROP(JobListJson, RandomRecordsRoundTrip, ()) {
  JobRecord j;
  j.id = *rc::gen::inRange<int64_t>(-5, 1'000'000'000'000);
  j.name = *rc::gen::arbitrary<std::string>();
  j.uid = *rc::gen::arbitrary<uint32_t>();
  j.user = *rc::gen::arbitrary<std::string>();
  j.time_limit_s = *rc::gen::inRange<int64_t>(-1, 100000);
  j.requeue = *rc::gen::arbitrary<bool>();
  j.state = static_cast<JobState>(*rc::gen::inRange(0, static_cast<int>(JobState::kDeadline) + 1));
  j.submit_args = *rc::gen::container<std::vector<std::string>>(rc::gen::arbitrary<std::string>());
  j.request.ntasks = *rc::gen::inRange(0, 1 << 20);
  j.request.nodelist = *rc::gen::container<std::vector<std::string>>(rc::gen::arbitrary<std::string>());
  const int nodes = *rc::gen::inRange(0, 4);
  for (int i = 0; i < nodes; ++i) {
    NodeAllocation a;
    a.node = *rc::gen::arbitrary<std::string>();
    // A valid allocation: distinct indexes ascending, at most one of them shared (1-999 thousandths).
    const std::vector<int> held = *rc::gen::unique<std::vector<int>>(rc::gen::inRange(0, 64));
    const int shared = held.empty() ? -1 : *rc::gen::inRange(-1, static_cast<int>(held.size()));
    const int milli = *rc::gen::inRange(1, kMilliPerGpu);
    for (size_t g = 0; g < held.size(); ++g) {
      a.gpus.push_back({held[g], static_cast<int>(g) == shared ? milli : kMilliPerGpu});
    }
    std::sort(a.gpus.begin(), a.gpus.end(), [](const GpuShare& x, const GpuShare& y) { return x.index < y.index; });
    a.exclusive = *rc::gen::arbitrary<bool>();
    j.allocation.push_back(a);
  }
  StatusOr<std::vector<JobRecord>> back = ParseJobListJson(JobListJson({j}));
  RC_ASSERT(back.ok());
  RC_ASSERT((*back)[0] == j);
}

// squeue --json's output: the full records (every key, sorted), indented, as the sorted pretty
// writer (base/pretty_json.h, held byte for byte to the former writer's output by its own test)
// writes them.
TEST(JobRecordsPrettyJson, IsThePrettyFullRecords) {
  JobRecord a = Rich();
  a.name = std::string("tab\there \"quoted\" back\\slash \x01 caf\xc3\xa9 bad\xff\xc3 end");
  a.options.comment = "\xe2\x82";  // a truncated sequence
  a.environment = {"A=1", std::string("B=\x7f\xf0\x9f\x98\x80")};
  const std::vector<JobRecord> jobs = {a, JobRecord{}};
  boost::json::array arr;
  for (const JobRecord& j : jobs) arr.push_back(ToJson(j));
  EXPECT_EQ(JobRecordsPrettyJson(jobs), PrettyJson(boost::json::object{{"jobs", arr}}));
  EXPECT_EQ(JobRecordsPrettyJson({}), "{\n  \"jobs\": []\n}");
  const std::string text = JobRecordsPrettyJson(jobs);
  EXPECT_NE(text.find("\"name\": \"tab\\there \\\"quoted\\\" back\\\\slash \\u0001 caf\xc3\xa9 bad\xef\xbf\xbd\xef\xbf\xbd end\""),
            std::string::npos)
      << text;
}

// Any bytes at all in the strings: valid JSON and UTF-8 (a strict parser reads it), and valid
// UTF-8 strings read back unchanged.
RC_GTEST_PROP(JobRecordsPrettyJson, AnyBytesGiveValidJson, ()) {
  JobRecord j;
  j.name = *rc::gen::arbitrary<std::string>();
  j.options.comment = *rc::gen::container<std::string>(rc::gen::inRange<char>(-128, 127));
  boost::json::error_code ec;
  const boost::json::value v = boost::json::parse(JobRecordsPrettyJson({j}), ec);  // strict UTF-8
  RC_ASSERT(!ec);
  const boost::json::value& name = v.at("jobs").at(0).at("name");
  boost::json::error_code ec2;
  boost::json::parse(boost::json::serialize(boost::json::value(j.name)), ec2);
  if (!ec2) RC_ASSERT(name.as_string() == j.name);
}

}  // namespace
}  // namespace muster
