// The contract every Store implementation keeps. An implementation joins by adding a StoreFactory
// to the INSTANTIATE_TEST_SUITE_P at the bottom; tests of one implementation's internals live in
// its own test file (sqlite_store_test.cc, pg_store_test.cc). The PostgreSQL store runs on the
// server MUSTER_TEST_PG_URL names (tools/test.sh starts one with tools/pg-test-server.sh), one
// schema per test directory.
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

#include "base/test_util.h"
#include "model/record_json.h"
#include "store/memory_store.h"
#include "store/pg_store.h"
#include "store/pg_test_util.h"
#include "store/sqlite_store.h"
#include "store/store.h"
#include "store/store_test_records.h"

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
  bool needs_pg_server = false;      // runs on MUSTER_TEST_PG_URL
};

class StoreContractTest : public ::testing::TestWithParam<StoreFactory> {
 protected:
  void SetUp() override {
    if (GetParam().needs_pg_server) MUSTER_PG_TEST_SERVER_OR_SKIP();
  }
  void TearDown() override {
    if (GetParam().needs_pg_server) DropPgTestSchemas(dir_.path());
  }
  std::unique_ptr<Store> Open() { return OpenAt(dir_.path()); }
  std::unique_ptr<Store> OpenAt(const std::string& dir) {
    StatusOr<std::unique_ptr<Store>> s = GetParam().open(dir);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(s).value() : nullptr;
  }
  TempDir dir_{"muster_store_"};
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

// A job array's tasks come back with their script (the SQLite and PostgreSQL stores keep it once:
// one copy, shared by the tasks it loads).
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
    if (GetParam().name != "memory") EXPECT_TRUE(j.script.SharesWith(back->front().script)) << j.id;
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

TEST_P(StoreContractTest, LoadMetaReturnsEveryKey) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  StatusOr<std::map<std::string, std::string>> none = store->LoadMeta();
  ASSERT_OK(none.status());
  EXPECT_TRUE(none->empty());
  ASSERT_OK(store->SetMeta("usage", "{\"alice\": 12.5}"));
  ASSERT_OK(store->SetMeta("policy", "é 🚀"));
  ASSERT_OK(store->SetMeta("usage", "{}"));
  StatusOr<std::map<std::string, std::string>> meta = store->LoadMeta();
  ASSERT_OK(meta.status());
  EXPECT_EQ(*meta, (std::map<std::string, std::string>{{"policy", "é 🚀"}, {"usage", "{}"}}));
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

// A rewind (a controller starting to lead) numbers again the ids reserved but never given to a
// stored job, across a reopen too; never a stored job's id, never one below the floor.
TEST_P(StoreContractTest, RewindNumbersUnusedIdsAgainButNoStoredJobs) {
  int64_t first = 0;
  {
    auto store = Open();
    ASSERT_NE(store, nullptr);
    EXPECT_EQ(store->RewindJobIds(1).value(), 1) << "nothing stored";
    StatusOr<int64_t> block = store->AllocateJobIds(1000);
    ASSERT_OK(block.status());
    first = *block;
    ASSERT_OK(store->SaveJobs({RichJob(first), RichJob(first + 1)}));
  }
  auto store = Open();  // the controller started again (after a clean stop or a crash alike)
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->RewindJobIds(1).value(), first + 2);
  EXPECT_EQ(store->AllocateJobIds(1).value(), first + 2);
  EXPECT_EQ(store->RewindJobIds(1).value(), first + 2) << "reserved, never stored: numbered again";
  EXPECT_EQ(store->RewindJobIds(5000).value(), 5000) << "a floor above the ids used";
  EXPECT_EQ(store->AllocateJobIds(10).value(), 5000);
  EXPECT_EQ(store->RewindJobIds(0).status().code(), StatusCode::kInvalidArgument);
}

// A token's nonce is taken once, across a reopen (a controller's restart) too; the nonces of
// expired tokens go, and concurrent takers of one nonce see one first use between them.
TEST_P(StoreContractTest, NoncesAreTakenOnceAcrossReopen) {
  {
    auto store = Open();
    ASSERT_NE(store, nullptr);
    EXPECT_EQ(store->UseNonce("aaaa", 1300, 1000).value(), true);
    EXPECT_EQ(store->UseNonce("aaaa", 1300, 1001).value(), false);
    EXPECT_EQ(store->UseNonce("bbbb", 1100, 1001).value(), true);
    EXPECT_EQ(store->UseNonce("", 1300, 1000).status().code(), StatusCode::kInvalidArgument);
  }
  auto store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->UseNonce("aaaa", 1300, 1002).value(), false) << "a replay after a restart";
  EXPECT_EQ(store->UseNonce("cccc", 1300, 1002).value(), true);
  // "bbbb"'s token expired at 1100: its nonce may be dropped (its token is refused as expired).
  EXPECT_EQ(store->UseNonce("dddd", 1400, 1200).value(), true);
  EXPECT_EQ(store->UseNonce("aaaa", 1300, 1200).value(), false);
  std::atomic<int> firsts{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      StatusOr<bool> first = store->UseNonce("eeee", 1400, 1200);
      if (first.ok() && *first) ++firsts;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(firsts.load(), 1);
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

StoreFactory PgFactory() {
  return {"postgresql",
          [](const std::string& dir) -> StatusOr<std::unique_ptr<Store>> {
            StatusOr<std::unique_ptr<PgStore>> s = PgStore::Open(PgTestUrl(), 1, PgTestSchema(dir));
            if (!s.ok()) return s.status();
            return std::unique_ptr<Store>(std::move(s).value());
          },
          [](Store& s) { return dynamic_cast<PgStore&>(s).stats().commits; }, true, true};
}

INSTANTIATE_TEST_SUITE_P(Stores, StoreContractTest,
                         ::testing::Values(SqliteFactory(), MemoryFactory(), PgFactory()),
                         [](const ::testing::TestParamInfo<StoreFactory>& info) { return info.param.name; });

}  // namespace
}  // namespace muster
