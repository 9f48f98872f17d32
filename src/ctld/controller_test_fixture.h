// The controller tests' fixtures: a fake agent fleet, a manual clock and a real SQLite store
// (ControllerTest), agents that heartbeat as time passes (FairShareTest), and a scheduling policy
// with helpers for submitting as a user with a QOS (PolicyTest). Shared by controller_test.cc
// and controller_policy_test.cc.
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <functional>
#include <vector>

#include "ctld/controller.h"
#include "sched/cluster_builder.h"

namespace muster::ctld_test {

class FakeAgents : public AgentClient {
 public:
  Status LaunchJob(const NodeRecord& node, const JobRecord& job) override {
    if (during_launch) during_launch(job);  // (without the lock: it may call the controller)
    std::lock_guard<std::mutex> l(mu);
    if (fail_launch) return Status(StatusCode::kFailedPrecondition, "cgroup: cannot create job_1");
    if (!launch_error.ok()) return launch_error;
    launched.push_back({node.node.name, job.id});
    return Status::Ok();
  }
  Status SignalJob(const NodeRecord& node, const JobRun& run, int signal, int64_t kill_after_s,
                   const std::string& why) override {
    std::lock_guard<std::mutex> l(mu);
    signals.push_back({node.node.name, run.job_id, signal, why, kill_after_s, run.restart_count});
    return Status::Ok();
  }
  struct Sig {
    std::string node;
    int64_t job;
    int signal;
    std::string why;
    int64_t kill_after = 0;
    int restart_count = 0;  // the run it was meant for
  };
  std::mutex mu;
  bool fail_launch = false;
  Status launch_error;  // what every launch answers, when not OK
  std::function<void(const JobRecord&)> during_launch;  // called as each launch begins
  std::vector<std::pair<std::string, int64_t>> launched;
  std::vector<Sig> signals;
};

inline Caller User(uint32_t uid) { return Caller{true, uid, uid, "unix", ""}; }
// A node's report of running these jobs' first runs.
inline NodeReport Running(std::initializer_list<int64_t> ids, int restart_count = 0) {
  NodeReport r;
  for (int64_t id : ids) r.running.push_back(JobRun{id, restart_count});
  return r;
}
inline const Caller kAdmin{true, 0, 0, "unix", ""};
inline const Caller kAlice = User(1000);
inline const Caller kBob = User(1001);

class ControllerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("ctld_test_" + std::to_string(getpid()) + "_" +
                                                     std::to_string(counter_++));
    std::filesystem::create_directories(dir_);
    config_.cluster_name = "test";
    NodeTemplate t;
    t.cpus = 16;
    t.memory_mb = 65536;
    t.gpus = 4;
    config_.cluster = ClusterBuilder()
                          .Nodes("n[1-2]", t)
                          .Leaf("leaf1", "n[1-2]")
                          .Partition("gpu", "n[1-2]", true)
                          .Partition("debug", "n1")
                          .SetPartition("debug", [](Partition& p) { p.max_time_s = 600; })
                          .Build();
    config_.heartbeat_timeout_s = 30;
    config_.kill_wait_s = 10;
    Open();
  }
  void TearDown() override {
    ctld_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  void Open() {
    ctld_.reset();
    store_.reset();
    store_ = OpenSqliteStore((dir_ / "state.db").string()).value();
    ctld_ = std::make_unique<Controller>(config_, store_.get(), &agents_, &clock_);
    ASSERT_TRUE(ctld_->Recover().ok());
  }
  void RegisterAll() {
    for (const Node& n : config_.cluster.nodes) {
      NodeRecord r;
      r.node = n;
      r.agent_address = "unix:/nowhere/" + n.name;
      ASSERT_TRUE(ctld_->RegisterNode(r, {}, kAdmin).ok());
    }
  }
  int64_t Submit(const std::vector<std::string>& args, const Caller& who = kAlice) {
    JobSpec s;
    EXPECT_TRUE(SetResourceOptions(s, args).ok());
    s.script = "#!/bin/sh\ntrue\n";
    s.workdir = "/tmp";
    StatusOr<int64_t> id = ctld_->Submit(s, who);
    EXPECT_TRUE(id.ok()) << id.status().ToString();
    return id.ok() ? *id : -1;
  }
  JobRecord Job(int64_t id) { return *ctld_->GetJob(id); }

  static inline int counter_ = 0;
  std::filesystem::path dir_;
  ControllerConfig config_;
  ManualClock clock_;
  FakeAgents agents_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<Controller> ctld_;
};

// Users no system has, so that their names are their uids everywhere ("4242").
inline const Caller kHeavy = User(4242);
inline const Caller kLight = User(4243);

class FairShareTest : public ControllerTest {
 protected:
  // Time passes with the agents heartbeating (else the nodes go DOWN and their jobs requeue), each
  // reporting the runs it holds: those the controller has running there (the fake fleet runs what
  // it is told).
  void Pass(int64_t seconds) {
    clock_.AdvanceSeconds(seconds);
    for (const Node& n : config_.cluster.nodes) ASSERT_TRUE(ctld_->Heartbeat(n.name, Holding(n.name), kAdmin).ok());
  }
  NodeReport Holding(const std::string& node) {
    NodeReport r;
    for (const JobRecord& j : ctld_->ListJobs(JobQuery{.active_only = true})) {
      if (HoldsResources(j.state) && j.batch_host == node) r.running.push_back(JobRun{j.id, j.restart_count});
    }
    return r;
  }
};

// Preemption and limits through the controller, in virtual time.
class PolicyTest : public FairShareTest {
 protected:
  void UsePolicy(const SchedPolicy& p) {
    config_.scheduler.policy = std::make_shared<SchedPolicy>(p);
    config_.priority.accounts = p.accounts;
    Open();
    RegisterAll();  // 2 nodes x 4 GPUs
  }
  static SchedPolicy QosPolicy() {
    SchedPolicy p;
    p.qos = {Qos{.name = "high", .priority = 100, .preempt = {"normal"}}, Qos{.name = "normal", .priority = 10}};
    p.preemption.grace_time_s = 20;
    return p;
  }
  int64_t SubmitAs(const Caller& who, const std::vector<std::string>& args, const std::string& qos = "",
                   const std::string& account = "", bool requeue = true) {
    JobSpec s;
    EXPECT_TRUE(SetResourceOptions(s, args).ok());
    s.script = "#!/bin/sh\ntrue\n";
    s.qos = qos;
    s.account = account;
    s.requeue = requeue;
    StatusOr<int64_t> id = ctld_->Submit(s, who);
    EXPECT_TRUE(id.ok()) << id.status().ToString();
    return id.ok() ? *id : -1;
  }
  std::vector<FakeAgents::Sig> SignalsFor(int64_t job) {
    std::vector<FakeAgents::Sig> out;
    for (const FakeAgents::Sig& s : agents_.signals) {
      if (s.job == job) out.push_back(s);
    }
    return out;
  }
};

}  // namespace muster::ctld_test
