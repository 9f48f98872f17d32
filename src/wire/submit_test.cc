#include "wire/submit.h"

#include <gtest/gtest.h>

namespace muster {
namespace {

JobSpec Full() {
  JobSpec r;
  EXPECT_TRUE(SetResourceOptions(r, {"-N2", "--gres=gpu:4"}).ok());
  r.name = "train";
  r.script = "#!/bin/sh\necho hi\n";
  r.script_args = {"a", "b"};
  r.workdir = "/home/alice";
  r.environment = {"A=1", "B=2"};
  r.stdout_pattern = "out-%j";
  r.stderr_pattern = "err-%j";
  r.stdin_path = "/dev/null";
  r.account = "team";
  r.qos = "high";
  r.nice = 5;
  r.hold = true;
  r.requeue = false;
  r.submit_host = "login1";
  r.submit_sid = 4242;
  r.options.comment = "c";
  r.options.wckey = "w";
  r.options.mail_type = kMailAll;
  r.options.mail_user = "m";
  r.submit_key = "k1";
  r.interactive = true;
  r.array = ParseArraySpec("1-3").value();
  r.dependency = ParseDependency("afterok:7").value();
  r.begin_time = 1'700'000'000;
  r.warn_signal = 10;
  r.warn_time_s = 60;
  r.warn_batch_only = true;
  HetComponentSpec c;
  EXPECT_TRUE(SetResourceOptions(c, {"-N2"}).ok());
  c.account = "other";
  c.qos = "low";
  r.het_components = {c};
  return r;
}

TEST(JobSpecTest, EveryFieldRoundTripsUnderItsKey) {
  const JobSpec r = Full();
  const wire::bj::object j = wire::ToObject(r);
  EXPECT_EQ(j.size(), 30u);
  EXPECT_EQ(j.at("stdout"), "out-%j");
  EXPECT_EQ(j.at("stderr"), "err-%j");
  EXPECT_EQ(j.at("stdin"), "/dev/null");
  StatusOr<JobSpec> back = wire::Decode<JobSpec>(wire::Encode(r));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, r);
  // Every field differs from its default, so a key left out of either side would show here.
  const JobSpec defaults;
  for (const auto& kv : j) {
    wire::bj::object one;
    one[kv.key()] = kv.value();
    StatusOr<JobSpec> only = wire::FromValue<JobSpec>(one);
    ASSERT_TRUE(only.ok()) << kv.key();
    EXPECT_NE(*only, defaults) << kv.key() << " is not read";
  }
}

TEST(JobSpecTest, MissingKeysKeepDefaultsAndTheFirstWrongTypeIsNamed) {
  StatusOr<JobSpec> empty = wire::Decode<JobSpec>("{}");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(*empty, JobSpec{});
  EXPECT_TRUE(empty->requeue);
  EXPECT_EQ(wire::Decode<JobSpec>(R"({"nice": "x", "hold": 3})").status().message(),
            "field 'hold' has the wrong type");
  EXPECT_EQ(wire::Decode<JobSpec>(R"({"resource_args": [1, 2]})").status().message(),
            "field 'resource_args' has the wrong type");
  EXPECT_EQ(wire::Decode<JobSpec>(R"({"resources": {"ntasks": "4"}})").status().message(),
            "field 'resources.ntasks' has the wrong type");
  EXPECT_TRUE(wire::Decode<JobSpec>(R"({"name": null, "unknown": 1})").ok());
  EXPECT_FALSE(wire::Decode<JobSpec>("[]").ok());
}

TEST(JobSpecTest, TheDependencyIsTypedAndItsTextIsReadAtTheEdge) {
  StatusOr<JobSpec> r = wire::Decode<JobSpec>(R"({"dependency": "afterok:7:8,afterany:9"})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->dependency.items, (std::vector<DependencyItem>{{DependencyType::kAfterOk, 7},
                                                              {DependencyType::kAfterOk, 8},
                                                              {DependencyType::kAfterAny, 9}}));
  EXPECT_EQ(wire::ToObject(*r).at("dependency"), "afterok:7:8,afterany:9");
  const Status bad = wire::Decode<JobSpec>(R"({"dependency": "afterok:x"})").status();
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("dependency"), std::string::npos) << bad.message();
  EXPECT_NE(bad.message().find("'x' is not a job id"), std::string::npos) << bad.message();
  // A command reads --dependency with SetDependency: slurmctld's words when it does not parse.
  JobSpec s;
  EXPECT_EQ(SetDependency(s, "after:1?afterok:x").message(), "Job dependency problem");
  EXPECT_TRUE(s.dependency.empty());
  ASSERT_TRUE(SetDependency(s, "singleton").ok());
  EXPECT_EQ(s.dependency.items, (std::vector<DependencyItem>{{DependencyType::kSingleton, 0}}));
}

TEST(JobSpecTest, TheArrayIsTypedAndItsTextIsReadAtTheEdge) {
  StatusOr<JobSpec> r = wire::Decode<JobSpec>(R"({"array": "0-6:2%2"})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->array.tasks, (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(r->array.max_running, 2);
  EXPECT_EQ(wire::ToObject(*r).at("array"), "0,2,4,6%2");
  // At most MaxArraySize ids: a body cannot make the route hold more.
  const Status big = wire::Decode<JobSpec>(R"({"array": "0-999999999"})").status();
  EXPECT_NE(big.message().find("over the limit"), std::string::npos) << big.message();
  EXPECT_FALSE(wire::Decode<JobSpec>(R"({"array": "5-1"})").ok());
  // A command reads --array with SetArray: slurmctld's words when it does not parse.
  JobSpec s;
  EXPECT_EQ(SetArray(s, "1-x").message(), "Invalid job array specification");
  EXPECT_TRUE(s.array.empty());
  ASSERT_TRUE(SetArray(s, "3").ok());
  EXPECT_EQ(s.array.tasks, std::vector<int>{3});
  ASSERT_TRUE(SetArray(s, "").ok());
  EXPECT_TRUE(s.array.empty());
  EXPECT_FALSE(ValidateArraySpec(ArraySpec{{-1}, 0}).ok());
  EXPECT_FALSE(ValidateArraySpec(ArraySpec{{}, 2}).ok());
  EXPECT_TRUE(ValidateArraySpec(ArraySpec{{0, 1000}, 1}).ok());
}

TEST(JobSpecTest, TheTestOnlyAnswerRoundTrips) {
  const WillRun w{7, 1'700'000'100, "n[1-2]", 16, "gpu"};
  StatusOr<WillRun> back = wire::Decode<WillRun>(wire::Encode(w));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, w);
  EXPECT_EQ(wire::Decode<WillRun>(R"({"cpus": "many"})").status().message(), "field 'cpus' has the wrong type");
}

}  // namespace
}  // namespace muster
