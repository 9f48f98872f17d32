// The contract every Store implementation keeps. An implementation joins by adding a StoreFactory
// to the INSTANTIATE_TEST_SUITE_P at the bottom; tests of one implementation's internals live in
// its own test file (sqlite_store_test.cc).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <boost/json.hpp>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "model/record_json.h"
#include "store/memory_store.h"
#include "store/sqlite_store.h"
#include "store/store.h"

namespace muster {
namespace {

// Opens a store kept under `dir` (a fresh directory per test; opening the same dir again reopens
// the same store). `commits` reports transactions committed so far, where the implementation
// counts them (else null).
struct StoreFactory {
  std::string name;
  std::function<StatusOr<std::unique_ptr<Store>>(const std::string& dir)> open;
  std::function<int64_t(Store&)> commits;
  bool survives_its_process = true;  // false: the memory store, whose records die with it
};

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "muster_store_XXXXXX").string();
    MUSTER_CHECK(mkdtemp(pattern.data()) != nullptr) << "mkdtemp " << pattern;
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Every field set to a non-default value (RichRecordsSetEveryField checks that stays true).
JobRecord RichJob(int64_t id) {
  JobRecord j;
  j.id = id;
  j.name = "train-" + std::to_string(id);
  j.uid = 1000 + static_cast<uint32_t>(id);
  j.gid = 100;
  j.user = "alice";
  j.group = "ml";
  j.account = "vision";
  j.qos = "high";
  j.sched_nodes = "gpu[001-002]";
  j.nice = 50;
  j.partition = "gpu";
  JobRequest& r = j.request;
  r.name = j.name;
  r.partition = "gpu";
  r.min_nodes = 2;
  r.max_nodes = 4;
  r.ntasks = 16;
  r.ntasks_per_node = 8;
  r.cpus_per_task = 4;
  r.mem_per_node_mb = 512000;
  r.mem_per_cpu_mb = 4096;
  r.mem_per_gpu_mb = 81920;
  r.gpu_type = "h100";
  r.gpus_per_node = 8;
  r.gpus_total = 16;
  r.gpus_per_task = 1;
  r.cpus_per_gpu = 12;
  r.gpu_milli = 250;
  r.gpu_memory_mb = 20480;
  r.constraint = "nvlink&ib";
  r.exclusive = true;
  r.overcommit = true;
  r.min_cpus_per_node = 4;
  r.tmp_disk_mb = 1024;
  r.time_limit_s = 86400;
  r.nodelist = {"gpu001", "gpu002"};
  r.exclude = {"gpu013"};
  j.submit_args = {"-N", "2-4", "--gres=gpu:h100:8", "--time=1-00:00:00"};
  j.script = "#!/bin/bash\n#SBATCH -J train\nsrun python train.py --lr=3e-4 \"$@\"\n";
  j.script_args = {"--epochs", "90"};
  j.workdir = "/home/alice/проект";
  j.submit_host = "login-01.example.org";
  j.submit_sid = 31337;
  j.environment = {"PATH=/usr/bin:/bin", "OPTS=a=b=c", "EMPTY=", "GREETING=héllo 世界 🚀", "QUOTE=\"x\"\t\\n"};
  j.stdout_pattern = "slurm-%j.out";
  j.stderr_pattern = "slurm-%j.err";
  j.stdin_path = "/dev/zero";
  j.priority = 4294967296;
  j.time_limit_s = 86400;
  j.requeue = false;
  j.held = true;
  j.comment = "a comment";
  j.submit_key = "retry-key-0042";
  j.interactive = true;
  j.array_job_id = 5;
  j.array_task_id = 2;
  j.array_tasks = "0-3";
  j.array_max_running = 2;
  j.het_job_id = 41;
  j.het_job_offset = 1;
  j.het_job_size = 2;
  j.het_environment = {"SLURM_HET_SIZE=2"};
  j.dependency = "afterok:6,afterany:5";
  j.dependency_left = "afterok:6(unfulfilled)";
  j.begin_time = 1700000600;
  j.warn_signal = 10;
  j.warn_time_s = 90;
  j.warn_batch_only = true;
  j.warn_sent = true;
  j.state = JobState::kRunning;
  j.reason = "None";
  j.reason_detail = "UnavailableNodes:gpu[003-004]";
  j.submit_time = 1700000000 + id;
  j.eligible_time = 1700000001 + id;
  j.start_time = 1700000002 + id;
  j.expected_start = 1700000001 + id;
  j.end_time = 1700000003 + id;
  j.exit_code = 3;
  j.exit_signal = 9;
  j.restart_count = 2;
  j.allocation = {
      {"gpu001", 32000, 256000, 8, FromStoredGpus({{0, 1, 3, 4, 5, 6, 7}, 2, 500}), true},
      {"gpu002", 32000, 256000, 8, FromStoredGpus({{0, 1, 2, 3}, 5, 250}), true},
  };
  j.batch_host = "gpu001";
  j.ending = "preempt-requeue";
  j.kill_at = 1700000530;
  j.cancelled_by = 1000;
  j.preempted_by = 41;
  j.preempt_time = 1700000500;
  j.preempt_reason = "QOS high preempts QOS normal";
  j.preemptions = {PreemptionEvent{40, 1700000400, "REQUEUE", "quota reclaim"},
                   PreemptionEvent{41, 1700000500, "CANCEL", "QOS high preempts QOS normal"}};
  j.suspend_time = 1700000450;
  j.suspended_s = 75;
  j.run_before_s = 3600;
  return j;
}

NodeRecord RichNode(const std::string& name) {
  NodeRecord n;
  Node& node = n.node;
  node.name = name;
  node.cpus = 128;
  node.sockets = 2;
  node.cores_per_socket = 32;
  node.threads_per_core = 2;
  node.numa_nodes = 8;
  node.memory_mb = 1024000;
  node.tmp_disk_mb = 200000;
  node.features = {"h100", "nvlink", "ib"};
  node.state = NodeState::kMixed;
  node.drain = true;
  node.reason = "ECC errors (ünïcode)";
  node.reason_user = "admin";
  node.reason_time = 1700000400;
  for (int i = 0; i < 4; ++i) {
    node.gpus.push_back({i, "h100", 81559, "GPU-" + std::to_string(i), i / 2, i < 2 ? "" : "1g.10gb", i < 2 ? -1 : 1});
  }
  node.links = GpuLinkMatrix::NvSwitch(4, 12);  // every field set, the NVSwitch flag included
  n.failed_gpus = {{1, false, "Xid 79 (GPU has fallen off the bus)"}, {3, true, "row remapping pending"}};
  n.agent_address = "unix:/run/musterd.sock";
  n.last_heartbeat = 1700000100;
  n.boot_time = 1699990000;
  n.start_time = 1699990100;
  n.version = "0.1.0";
  n.arch = "x86_64";
  n.os = "Linux 6.1.0-13-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.55-1 (2023-09-29)";
  n.hostname = "gpu001.cluster.example";
  return n;
}

StepRecord RichStep(int64_t job_id, int step_id) {
  StepRecord s;
  s.job_id = job_id;
  s.step_id = step_id;
  s.name = step_id == -5 ? "batch" : "python";
  s.nodes = {"gpu001", "gpu002"};
  s.node_cpus = {4, 2};
  s.node_mem_mb = {8000, 4000};
  s.node_gpus = {{0, 1}, {3}};
  s.time_limit_s = 600;
  s.ntasks = 16;
  s.state = JobState::kCompleted;
  s.start_time = 1700000010;
  s.end_time = 1700000020;
  s.exit_code = 1;
  return s;
}

class StoreContractTest : public ::testing::TestWithParam<StoreFactory> {
 protected:
  std::unique_ptr<Store> Open() { return OpenAt(dir_.path()); }
  std::unique_ptr<Store> OpenAt(const std::string& dir) {
    StatusOr<std::unique_ptr<Store>> s = GetParam().open(dir);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(s).value() : nullptr;
  }
  TempDir dir_;
};

#define ASSERT_OK(expr)                                  \
  do {                                                   \
    auto _st = (expr);                                   \
    ASSERT_TRUE(_st.ok()) << #expr << ": " << _st.ToString(); \
  } while (0)

// Guards the fixtures: a field added to a record but not to its Rich* builder (or to the codec)
// shows up here, so the round trips keep covering every field.
TEST(StoreFixtures, RichRecordsSetEveryField) {
  auto expect_all_differ = [](const boost::json::value& rich, const boost::json::value& plain, const std::string& what) {
    for (const boost::json::key_value_pair& kv : plain.as_object()) {
      EXPECT_NE(rich.at(kv.key()), kv.value()) << what << "." << std::string(kv.key()) << " keeps its default";
    }
  };
  JobRecord job = RichJob(7);
  expect_all_differ(ToJson(job), ToJson(JobRecord{}), "job");
  expect_all_differ(ToJson(job.request), ToJson(JobRequest{}), "job.request");
  JobRecord one_default_allocation;
  one_default_allocation.allocation.emplace_back();
  expect_all_differ(ToJson(job).at("allocation").at(0), ToJson(one_default_allocation).at("allocation").at(0),
                    "job.allocation[]");
  NodeRecord node = RichNode("gpu001");
  expect_all_differ(ToJson(node), ToJson(NodeRecord{}), "node_record");
  expect_all_differ(ToJson(node.node), ToJson(Node{}), "node");
  expect_all_differ(ToJson(RichStep(7, 3)), ToJson(StepRecord{}), "step");
}

TEST_P(StoreContractTest, EmptyStoreLoadsNothing) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(store->LoadJobs()->empty());
  EXPECT_TRUE(store->LoadNodes()->empty());
  EXPECT_TRUE(store->LoadSteps()->empty());
}

TEST_P(StoreContractTest, JobRoundTripKeepsEveryField) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->SaveJob(RichJob(42)));
  JobRecord plain;
  plain.id = 43;
  ASSERT_OK(store->SaveJob(plain));
  StatusOr<std::vector<JobRecord>> jobs = store->LoadJobs();
  ASSERT_OK(jobs.status());
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_EQ((*jobs)[0], RichJob(42));
  EXPECT_EQ((*jobs)[1], plain);
}

TEST_P(StoreContractTest, SaveReplacesByIdAndLoadsAscending) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->SaveJobs({RichJob(9), RichJob(3), RichJob(5)}));
  JobRecord done = RichJob(5);
  done.state = JobState::kCompleted;
  done.allocation.pop_back();
  done.environment.clear();
  ASSERT_OK(store->SaveJob(done));
  ASSERT_OK(store->SaveJobs({}));
  StatusOr<std::vector<JobRecord>> jobs = store->LoadJobs();
  ASSERT_OK(jobs.status());
  ASSERT_EQ(jobs->size(), 3u);
  EXPECT_EQ((*jobs)[0], RichJob(3));
  EXPECT_EQ((*jobs)[1], done);
  EXPECT_EQ((*jobs)[2], RichJob(9));
}

// sacct's selection, answered by the store: the same jobs JobFilter::Matches picks from all of them,
// for every kind of criterion and a few combinations.
TEST_P(StoreContractTest, QueryJobsSelectsWhatTheFilterMatches) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  std::vector<JobRecord> all;
  const JobState states[] = {JobState::kPending, JobState::kRunning, JobState::kCompleted, JobState::kFailed};
  for (int64_t id = 1; id <= 40; ++id) {
    JobRecord j;
    j.id = id;
    j.uid = 1000 + static_cast<uint32_t>(id % 3);
    j.user = "user" + std::to_string(id % 3);
    j.account = id % 4 == 0 ? "vision" : "nlp";
    j.partition = id % 5 == 0 ? "debug" : "gpu";
    j.state = states[id % 4];
    j.submit_time = 1000 + id * 10;
    j.end_time = IsFinished(j.state) ? j.submit_time + 100 : 0;
    j.script = "#!/bin/sh\necho " + std::to_string(id) + "\n";
    if (id >= 30 && id <= 33) {  // an array: 30 names 30..33
      j.array_job_id = 30;
      j.array_task_id = static_cast<int>(id - 30);
      j.script = "#!/bin/sh\necho array\n";
    }
    all.push_back(j);
  }
  ASSERT_OK(store->SaveJobs(all));
  std::vector<JobFilter> filters(9);
  filters[1].ids = {3, 7, 30};
  filters[2].users = {"user1"};
  filters[3].users = {"1002", "user0"};
  filters[4].accounts = {"vision"};
  filters[5].partitions = {"debug"};
  filters[6].states = {JobState::kCompleted, JobState::kPending};
  filters[7].start = 1300;
  filters[7].end = 1350;
  filters[8].users = {"user2"};
  filters[8].accounts = {"nlp"};
  filters[8].states = {JobState::kFailed};
  for (size_t f = 0; f < filters.size(); ++f) {
    std::vector<JobRecord> want;
    for (const JobRecord& j : all) {
      if (filters[f].Matches(j)) want.push_back(j);
    }
    StatusOr<std::vector<JobRecord>> got = store->QueryJobs(filters[f]);
    ASSERT_OK(got.status());
    EXPECT_EQ(*got, want) << "filter " << f;
    EXPECT_FALSE(want.empty()) << "filter " << f << " selects something";
  }
}

// A restarting controller loads the jobs it holds, not the history.
TEST_P(StoreContractTest, LoadLiveJobsLeavesOldHistoryOut) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  JobRecord waiting, running, recent, old;
  waiting.id = 1;
  running.id = 2;
  running.state = JobState::kRunning;
  recent.id = 3;
  recent.state = JobState::kCompleted;
  recent.end_time = 5000;
  old.id = 4;
  old.state = JobState::kFailed;
  old.end_time = 100;
  ASSERT_OK(store->SaveJobs({waiting, running, recent, old}));
  StatusOr<std::vector<JobRecord>> live = store->LoadLiveJobs(4700);
  ASSERT_OK(live.status());
  ASSERT_EQ(live->size(), 3u);
  EXPECT_EQ((*live)[0].id, 1);
  EXPECT_EQ((*live)[1].id, 2);
  EXPECT_EQ((*live)[2].id, 3);
  EXPECT_EQ(store->LoadLiveJobs(0)->size(), 4u);
}

// A job array's tasks come back with their script (the SQLite store keeps it once: one copy,
// shared by the tasks it loads).
TEST_P(StoreContractTest, ArrayTasksShareTheirScript) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  const std::string script = "#!/bin/sh\n" + std::string(100000, '#') + "\necho $SLURM_ARRAY_TASK_ID\n";
  std::vector<JobRecord> tasks(50);
  for (int t = 0; t < 50; ++t) {
    tasks[t].id = 100 + t;
    tasks[t].array_job_id = 100;
    tasks[t].array_task_id = t;
    tasks[t].script = script;
  }
  ASSERT_OK(store->SaveJobs(tasks));
  StatusOr<std::vector<JobRecord>> back = store->LoadJobs();
  ASSERT_OK(back.status());
  ASSERT_EQ(back->size(), 50u);
  for (const JobRecord& j : *back) {
    EXPECT_EQ(j.script.str(), script) << j.id;
    if (GetParam().name == "sqlite") EXPECT_TRUE(j.script.SharesWith(back->front().script)) << j.id;
  }
  StatusOr<std::vector<JobRecord>> one = store->QueryJobs(JobFilter{.ids = {120}});
  ASSERT_OK(one.status());
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].script.str(), script);
}

TEST_P(StoreContractTest, NodesRoundTripAndReplace) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->SaveNode(RichNode("gpu10")));
  ASSERT_OK(store->SaveNode(RichNode("gpu2")));
  NodeRecord down = RichNode("gpu10");
  down.node.state = NodeState::kDown;
  down.node.gpus.clear();
  down.node.links = GpuLinkMatrix();
  ASSERT_OK(store->SaveNode(down));
  StatusOr<std::vector<NodeRecord>> nodes = store->LoadNodes();
  ASSERT_OK(nodes.status());
  ASSERT_EQ(nodes->size(), 2u);
  EXPECT_EQ((*nodes)[0], RichNode("gpu2"));
  EXPECT_EQ((*nodes)[1], down);
}

TEST_P(StoreContractTest, StepsRoundTripAndReplace) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_OK(store->SaveStep(RichStep(8, 1)));
  ASSERT_OK(store->SaveStep(RichStep(8, -5)));
  ASSERT_OK(store->SaveStep(RichStep(7, 0)));
  StepRecord failed = RichStep(8, 1);
  failed.state = JobState::kFailed;
  failed.exit_code = 137;
  ASSERT_OK(store->SaveStep(failed));
  StatusOr<std::vector<StepRecord>> steps = store->LoadSteps();
  ASSERT_OK(steps.status());
  ASSERT_EQ(steps->size(), 3u);
  EXPECT_EQ((*steps)[0], RichStep(7, 0));
  EXPECT_EQ((*steps)[1], RichStep(8, -5));
  EXPECT_EQ((*steps)[2], failed);
}

TEST_P(StoreContractTest, MetaSetGetAndNotFound) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  StatusOr<std::string> missing = store->GetMeta("cluster_name");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("cluster_name"), std::string::npos) << missing.status().ToString();
  ASSERT_OK(store->SetMeta("cluster_name", "alpha"));
  ASSERT_OK(store->SetMeta("cluster_name", "béta 🚀"));
  ASSERT_OK(store->SetMeta("empty", ""));
  EXPECT_EQ(store->GetMeta("cluster_name").value(), "béta 🚀");
  EXPECT_EQ(store->GetMeta("empty").value(), "");
  EXPECT_EQ(store->SetMeta("", "x").code(), StatusCode::kInvalidArgument);
}

TEST_P(StoreContractTest, JobIdsAreMonotonicAndUniqueAcrossReopen) {
  int64_t last = 0;
  for (int round = 0; round < 3; ++round) {
    auto store = Open();
    ASSERT_NE(store, nullptr);
    for (int count : {1, 5, 1, 100}) {
      StatusOr<int64_t> first = store->AllocateJobIds(count);
      ASSERT_OK(first.status());
      EXPECT_GE(*first, 1);
      EXPECT_GT(*first, last) << "round " << round;
      last = *first + count - 1;
    }
    EXPECT_EQ(store->AllocateJobIds(0).status().code(), StatusCode::kInvalidArgument);
  }
}

TEST_P(StoreContractTest, ConcurrentIdAllocationsAreDisjoint) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  std::vector<std::vector<int64_t>> firsts(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        StatusOr<int64_t> first = store->AllocateJobIds(3);
        if (first.ok()) firsts[t].push_back(*first);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  std::set<int64_t> ids;
  for (const auto& f : firsts) {
    ASSERT_EQ(f.size(), 50u);
    for (int64_t first : f) {
      for (int64_t id = first; id < first + 3; ++id) EXPECT_TRUE(ids.insert(id).second) << "id " << id << " twice";
    }
  }
}

TEST_P(StoreContractTest, ReopenKeepsEverything) {
  int64_t first = 0;
  {
    auto store = Open();
    ASSERT_NE(store, nullptr);
    ASSERT_OK(store->SaveJobs({RichJob(1), RichJob(2)}));
    ASSERT_OK(store->SaveNode(RichNode("gpu001")));
    ASSERT_OK(store->SaveStep(RichStep(1, 0)));
    ASSERT_OK(store->SetMeta("cluster_name", "alpha"));
    StatusOr<int64_t> ids = store->AllocateJobIds(10);
    ASSERT_OK(ids.status());
    first = *ids;
  }
  auto store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->LoadJobs().value(), (std::vector<JobRecord>{RichJob(1), RichJob(2)}));
  EXPECT_EQ(store->LoadNodes().value(), std::vector<NodeRecord>{RichNode("gpu001")});
  EXPECT_EQ(store->LoadSteps().value(), std::vector<StepRecord>{RichStep(1, 0)});
  EXPECT_EQ(store->GetMeta("cluster_name").value(), "alpha");
  EXPECT_GE(store->AllocateJobIds(1).value(), first + 10);
}

// 8 threads x 500 single-job saves: all present afterwards, and (where the implementation counts
// transactions) batched into fewer commits than calls. Rates are printed, never asserted.
TEST_P(StoreContractTest, ConcurrentSavesAreAllKeptAndBatched) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::time_point since) { return std::chrono::duration<double>(Clock::now() - since).count(); };
  constexpr int kThreads = 8;
  constexpr int kPerThread = 500;

  const int64_t commits_start = GetParam().commits ? GetParam().commits(*store) : 0;
  Clock::time_point start = Clock::now();
  for (int i = 1; i <= kPerThread; ++i) ASSERT_OK(store->SaveJob(RichJob(i)));
  double single_s = seconds(start);
  const int64_t commits_single = GetParam().commits ? GetParam().commits(*store) - commits_start : -1;

  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  start = Clock::now();
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        if (!store->SaveJob(RichJob(1000000 + t * kPerThread + i)).ok()) ++failures;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  double multi_s = seconds(start);
  const int64_t calls = kThreads * kPerThread;
  const int64_t commits_multi =
      GetParam().commits ? GetParam().commits(*store) - commits_start - commits_single : -1;

  std::cout << "[ " << GetParam().name << " ] 1 thread: " << kPerThread << " saves in " << single_s << " s = "
            << kPerThread / single_s << " saves/s, " << commits_single << " commits\n"
            << "[ " << GetParam().name << " ] " << kThreads << " threads: " << calls << " saves in " << multi_s
            << " s = " << calls / multi_s << " saves/s, " << commits_multi << " commits ("
            << (commits_multi > 0 ? static_cast<double>(calls) / commits_multi : 0) << " saves/commit)\n";

  EXPECT_EQ(failures.load(), 0);
  StatusOr<std::vector<JobRecord>> jobs = store->LoadJobs();
  ASSERT_OK(jobs.status());
  ASSERT_EQ(jobs->size(), static_cast<size_t>(kPerThread + calls));
  size_t k = kPerThread;
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kPerThread; ++i, ++k) ASSERT_EQ((*jobs)[k].id, 1000000 + t * kPerThread + i);
  }
  EXPECT_EQ((*jobs)[kPerThread + 123], RichJob(1000123));
  if (GetParam().commits) {
    EXPECT_EQ(commits_single, kPerThread);
    EXPECT_LT(commits_multi, calls) << "group commit did not batch";
  }
}

// The child: opens the store, then 4 threads each allocate an id, save that job and report the id
// on `fd` once the save has returned. Never returns.
[[noreturn]] void SaveUntilKilled(const StoreFactory& factory, const std::string& dir, int fd) {
  StatusOr<std::unique_ptr<Store>> store = factory.open(dir);
  if (!store.ok()) _exit(2);
  std::atomic<int> error{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 60 && error == 0; ++i) {
        StatusOr<int64_t> id = (*store)->AllocateJobIds(1);
        if (!id.ok()) error = 3;
        if (error == 0 && !(*store)->SaveJob(RichJob(*id)).ok()) error = 4;
        if (error == 0 && write(fd, &*id, sizeof(int64_t)) != sizeof(int64_t)) error = 5;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  _exit(error.load());
}

// A process killed at a random moment loses nothing it was told is saved, leaves no torn record,
// and never gets an id handed out again.
TEST_P(StoreContractTest, AcknowledgedSavesSurviveSigkill) {
  if (!GetParam().survives_its_process) GTEST_SKIP() << GetParam().name << " keeps nothing past its process, by design";
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  int killed = 0;
  size_t total_acked = 0;
  size_t total_unacked_kept = 0;
  for (int round = 0; round < 20; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::string dir = dir_.path() + "/round" + std::to_string(round);
    ASSERT_TRUE(std::filesystem::create_directory(dir));
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    std::cout.flush();
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(fds[0]);
      SaveUntilKilled(GetParam(), dir, fds[1]);
    }
    close(fds[1]);
    // Kill after a random number of acknowledgements; round 0 kills at once, while the child is
    // likely still creating the store.
    const size_t kill_after = round == 0 ? 0 : rng() % 241;
    std::set<int64_t> acked;
    int64_t id = 0;
    while (acked.size() < kill_after && read(fds[0], &id, sizeof id) == sizeof id) acked.insert(id);
    kill(pid, SIGKILL);
    while (read(fds[0], &id, sizeof id) == sizeof id) acked.insert(id);  // sent before it died
    close(fds[0]);
    int wstatus = 0;
    ASSERT_EQ(waitpid(pid, &wstatus, 0), pid);
    killed += WIFSIGNALED(wstatus) ? 1 : 0;
    ASSERT_TRUE((WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL) ||
                (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0))
        << "child failed with status " << wstatus;

    auto store = OpenAt(dir);
    ASSERT_NE(store, nullptr);
    StatusOr<std::vector<JobRecord>> jobs = store->LoadJobs();
    ASSERT_OK(jobs.status());
    std::map<int64_t, const JobRecord*> by_id;
    for (const JobRecord& j : *jobs) {
      EXPECT_EQ(j, RichJob(j.id)) << "torn record " << j.id;
      by_id[j.id] = &j;
    }
    for (int64_t a : acked) EXPECT_TRUE(by_id.count(a)) << "acknowledged job " << a << " lost";
    EXPECT_LE(by_id.size(), acked.size() + 4) << "more unacknowledged jobs than saves in flight";
    total_acked += acked.size();
    total_unacked_kept += by_id.size() - std::min(by_id.size(), acked.size());
    int64_t highest = acked.empty() ? 0 : *acked.rbegin();
    if (!by_id.empty()) highest = std::max(highest, by_id.rbegin()->first);
    StatusOr<int64_t> next = store->AllocateJobIds(1);
    ASSERT_OK(next.status());
    EXPECT_GT(*next, highest) << "an id was handed out twice";
  }
  std::cout << "[ " << GetParam().name << " ] " << killed << " of 20 children killed mid-run; " << total_acked
            << " acknowledged saves all kept; " << total_unacked_kept << " saves in flight also kept\n";
}

StoreFactory SqliteFactory() {
  return {"sqlite",
          [](const std::string& dir) { return OpenSqliteStore(dir + "/muster.db"); },
          [](Store& s) { return dynamic_cast<SqliteStore&>(s).stats().commits; }};
}

// Reopening a directory reopens the data first opened for it, within this process.
StoreFactory MemoryFactory() {
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<MemoryStoreData>> by_dir;
  return {"memory",
          [](const std::string& dir) -> StatusOr<std::unique_ptr<Store>> {
            std::lock_guard<std::mutex> l(mu);
            std::shared_ptr<MemoryStoreData>& d = by_dir[dir];
            if (d == nullptr) d = NewMemoryStoreData();
            return OpenMemoryStore(d);
          },
          nullptr, false};
}

INSTANTIATE_TEST_SUITE_P(Stores, StoreContractTest, ::testing::Values(SqliteFactory(), MemoryFactory()),
                         [](const ::testing::TestParamInfo<StoreFactory>& info) { return info.param.name; });

}  // namespace
}  // namespace muster
