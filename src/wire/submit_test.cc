#include "wire/submit.h"

#include <gtest/gtest.h>

namespace muster {
namespace {

SubmitRequest Full() {
  SubmitRequest r;
  r.resource_args = {"-N2", "--gres=gpu:4"};
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
  r.comment = "c";
  r.submit_key = "k1";
  r.interactive = true;
  r.array = "1-3";
  r.dependency = "afterok:7";
  r.begin_time = 1'700'000'000;
  r.warn_signal = 10;
  r.warn_time_s = 60;
  r.warn_batch_only = true;
  r.het_components = {HetComponentRequest{{"-N2"}, "other", "low"}};
  return r;
}

TEST(SubmitRequestTest, EveryFieldRoundTripsUnderItsKey) {
  const SubmitRequest r = Full();
  const wire::bj::object j = wire::ToObject(r);
  EXPECT_EQ(j.size(), 26u);
  EXPECT_EQ(j.at("stdout"), "out-%j");
  EXPECT_EQ(j.at("stderr"), "err-%j");
  EXPECT_EQ(j.at("stdin"), "/dev/null");
  StatusOr<SubmitRequest> back = wire::Decode<SubmitRequest>(wire::Encode(r));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, r);
  // Every field differs from its default, so a key left out of either side would show here.
  const SubmitRequest defaults;
  for (const auto& kv : j) {
    wire::bj::object one;
    one[kv.key()] = kv.value();
    StatusOr<SubmitRequest> only = wire::FromValue<SubmitRequest>(one);
    ASSERT_TRUE(only.ok()) << kv.key();
    EXPECT_NE(*only, defaults) << kv.key() << " is not read";
  }
}

TEST(SubmitRequestTest, MissingKeysKeepDefaultsAndTheFirstWrongTypeIsNamed) {
  StatusOr<SubmitRequest> empty = wire::Decode<SubmitRequest>("{}");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(*empty, SubmitRequest{});
  EXPECT_TRUE(empty->requeue);
  EXPECT_EQ(wire::Decode<SubmitRequest>(R"({"nice": "x", "hold": 3})").status().message(),
            "field 'hold' has the wrong type");
  EXPECT_EQ(wire::Decode<SubmitRequest>(R"({"resource_args": [1, 2]})").status().message(),
            "field 'resource_args' has the wrong type");
  EXPECT_TRUE(wire::Decode<SubmitRequest>(R"({"name": null, "unknown": 1})").ok());
  EXPECT_FALSE(wire::Decode<SubmitRequest>("[]").ok());
}

TEST(SubmitRequestTest, TheTestOnlyAnswerRoundTrips) {
  const WillRun w{7, 1'700'000'100, "n[1-2]", 16, "gpu"};
  StatusOr<WillRun> back = wire::Decode<WillRun>(wire::Encode(w));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, w);
  EXPECT_EQ(wire::Decode<WillRun>(R"({"cpus": "many"})").status().message(), "field 'cpus' has the wrong type");
}

}  // namespace
}  // namespace muster
