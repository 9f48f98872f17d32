#include "api/slurmrest/submit.h"

#include "gtest/gtest.h"

namespace muster::slurmrest {
namespace {

TEST(SlurmRestSubmit, ReadsJobProperties) {
  StatusOr<JobSpec> s = ReadSubmission(R"({"script": "#!/bin/sh\nsleep 1\n", "job": {
      "name": "rest", "partition": "gpu", "time_limit": 5, "nodes": "1-2", "tasks": 4, "cpus_per_task": 2,
      "memory_per_node": 1000, "gres": "gpu:2", "account": "a", "qos": "high", "comment": "c", "wckey": "w", "nice": 3,
      "mail_type": "END,FAIL", "mail_user": "m@x", "hold": true, "requeue": false,
      "current_working_directory": "/tmp", "standard_output": "/tmp/o-%j",
      "argv": ["x", "y"], "environment": {"PATH": "/bin", "N": 1}}})");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->script, "#!/bin/sh\nsleep 1\n");
  EXPECT_EQ(s->name, "rest");
  EXPECT_EQ(s->submit_args, (std::vector<std::string>{"--partition=gpu", "--time=5", "--nodes=1-2", "--ntasks=4",
                                                         "--cpus-per-task=2", "--mem=1000", "--gres=gpu:2"}));
  EXPECT_EQ(s->account, "a");
  EXPECT_EQ(s->qos, "high");
  EXPECT_EQ(s->options.comment, "c");
  EXPECT_EQ(s->options.wckey, "w");
  EXPECT_EQ(s->options.mail_type, kMailEnd | kMailFail);
  EXPECT_EQ(s->options.mail_user, "m@x");
  EXPECT_EQ(s->nice, 3);
  EXPECT_TRUE(s->hold);
  EXPECT_FALSE(s->requeue);
  EXPECT_EQ(s->workdir, "/tmp");
  EXPECT_EQ(s->stdout_pattern, "/tmp/o-%j");
  EXPECT_EQ(s->script_args, (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(s->environment, (std::vector<std::string>{"PATH=/bin", "N=1"}));
}

TEST(SlurmRestSubmit, ErrorsNameTheKey) {
  auto error = [](const std::string& body) {
    StatusOr<JobSpec> s = ReadSubmission(body);
    return s.ok() ? std::string("ok") : s.status().message();
  };
  EXPECT_EQ(error(R"({"script": "x", "job": {"environment": {}, "tres_per_node": "gres:gpu:1"}})"),
            "Unknown key \"tres_per_node\"");
  EXPECT_EQ(error(R"({"script": "x", "job": {"environment": {}, "licenses": "a"}})"),
            "Muster does not take key \"licenses\"");
  EXPECT_EQ(error(R"({"script": "x", "job": {"name": "x"}})"), "environment must be set");
  // A dependency is read here, typed; one that does not parse is the job's error, as slurmctld's.
  EXPECT_EQ(error(R"({"script": "x", "job": {"environment": {}, "dependency": "afterok:x"}})"), kDependencyProblem);
  StatusOr<JobSpec> dep = ReadSubmission(R"({"script": "x", "job": {"environment": {}, "dependency": "after:4?after:5"}})");
  ASSERT_TRUE(dep.ok()) << dep.status().ToString();
  EXPECT_TRUE(dep->dependency.any);
  EXPECT_EQ(DependencyText(dep->dependency), "after:4?after:5");
  EXPECT_EQ(error(R"({"script": "x", "job": {"environment": {}, "array": "1-"}})"), kArrayProblem);
  StatusOr<JobSpec> arr = ReadSubmission(R"({"script": "x", "job": {"environment": {}, "array": "1-3%1"}})");
  ASSERT_TRUE(arr.ok()) << arr.status().ToString();
  EXPECT_EQ(arr->array.tasks, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(arr->array.max_running, 1);
  EXPECT_EQ(error(R"({"script": "x", "job": {"environment": ["A=b"]}})"), "environment must be a dictionary");
  EXPECT_EQ(error(R"({"script": "x", "job": {"environment": {}, "hold": "maybe"}})"), "\"hold\" must be true or false");
  EXPECT_EQ(error(R"({"script": "x"})"), "\"job\" must be an object of job properties");
  EXPECT_EQ(error(R"({"script": "x", "job": {"environment": {}}, "extra": 1})"), "Unknown key \"extra\"");
  EXPECT_EQ(error("[1]"), "request body is not a JSON object");
  EXPECT_EQ(error(R"({"job": {"environment": {}}})"), "ok") << "the route answers a missing script";
  std::string key;
  EXPECT_FALSE(ReadSubmission(R"({"script": "x", "job": {"environment": ["A=b"]}})", &key).ok());
  EXPECT_EQ(key, "environment") << "slurmrestd's 'Unable to process key' names it";
  key.clear();
  EXPECT_FALSE(ReadSubmission(R"({"script": "x", "job": {"environment": {}, "bogus": 1}})", &key).ok());
  EXPECT_EQ(key, "");
}

TEST(SlurmRestSubmit, ReadsUpdates) {
  StatusOr<RestUpdate> u = ReadUpdate(R"({"time_limit": 7, "name": "n", "comment": "c", "nice": 2, "hold": true})");
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  EXPECT_EQ(u->fields, (std::map<std::string, std::string>{
                           {"TimeLimit", "7"}, {"JobName", "n"}, {"Comment", "c"}, {"Nice", "2"}}));
  EXPECT_EQ(u->hold, 1);
  u = ReadUpdate(R"({"hold": false})");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->hold, -1);
  u = ReadUpdate(R"({"partition": "debug"})");
  ASSERT_FALSE(u.ok());
  EXPECT_EQ(u.status().message(), "Update of this parameter is not supported: partition");
}

}  // namespace
}  // namespace muster::slurmrest
