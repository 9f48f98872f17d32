// The submit rate through each store (issue 35): what Controller::Submit costs the store, one
// SaveJob of a new job record acknowledged once committed, from 1 thread (a commit per
// submission) and from many (submissions sharing commits), through SQLite (WAL, synchronous=FULL)
// and PostgreSQL (synchronous_commit=on, fsync on), in the same run. bench/store.sh runs it on a
// private server (tools/pg-test-server.sh) and prints the figures as JSON.
//   store_bench [POSTGRES_URL]   (without a URL, SQLite alone)
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "store/pg_store.h"
#include "store/sqlite_store.h"

namespace muster {
namespace {

// A job as sbatch submits it: a script, an environment of ~40 variables, the usual options.
JobRecord SubmittedJob(int64_t id) {
  JobRecord j;
  j.id = id;
  j.name = "train-" + std::to_string(id);
  j.uid = 1000;
  j.gid = 1000;
  j.user = "alice";
  j.group = "alice";
  j.account = "vision";
  j.partition = "gpu";
  j.request.partition = "gpu";
  j.request.ntasks = 8;
  j.request.gpus_per_node = 8;
  j.request.time_limit_s = 86400;
  j.submit_args = {"-N", "1", "--gres=gpu:8", "--time=1-00:00:00"};
  j.script = "#!/bin/bash\n#SBATCH -J train\n#SBATCH --gres=gpu:8\nsrun python train.py --lr=3e-4 --epochs 90\n";
  j.workdir = "/home/alice/project";
  j.submit_host = "login-01";
  for (int e = 0; e < 40; ++e) j.environment.push_back("VAR_" + std::to_string(e) + "=/usr/local/value/" + std::to_string(e));
  j.stdout_pattern = "slurm-%j.out";
  j.priority = 1000;
  j.time_limit_s = 86400;
  j.submit_time = 1700000000 + id;
  j.eligible_time = j.submit_time;
  return j;
}

struct Rate {
  double single_per_s = 0;
  double multi_per_s = 0;
  double saves_per_commit = 0;
};

template <typename Commits>
Rate Measure(Store& store, int threads, int per_thread, int single, Commits commits) {
  using Clock = std::chrono::steady_clock;
  Rate r;
  int64_t next = 1;
  Clock::time_point t0 = Clock::now();
  for (int i = 0; i < single; ++i) {
    if (!store.SaveJob(SubmittedJob(next++)).ok()) std::abort();
  }
  r.single_per_s = single / std::chrono::duration<double>(Clock::now() - t0).count();
  const int64_t c0 = commits();
  std::vector<std::thread> ts;
  std::atomic<int> failures{0};
  t0 = Clock::now();
  for (int t = 0; t < threads; ++t) {
    const int64_t base = next + static_cast<int64_t>(t) * per_thread;
    ts.emplace_back([&, base] {
      for (int i = 0; i < per_thread; ++i) {
        if (!store.SaveJob(SubmittedJob(base + i)).ok()) ++failures;
      }
    });
  }
  for (std::thread& t : ts) t.join();
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  if (failures != 0) std::abort();
  r.multi_per_s = threads * per_thread / s;
  r.saves_per_commit = static_cast<double>(threads * per_thread) / static_cast<double>(commits() - c0);
  return r;
}

int Main(int argc, char** argv) {
  constexpr int kThreads = 16;
  constexpr int kPerThread = 250;
  constexpr int kSingle = 500;
  const std::string dir = std::filesystem::temp_directory_path() / ("muster_store_bench_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  Rate sqlite;
  {
    std::unique_ptr<SqliteStore> s = SqliteStore::Open(dir + "/state.db").value();
    sqlite = Measure(*s, kThreads, kPerThread, kSingle, [&] { return s->stats().commits; });
  }
  std::filesystem::remove_all(dir);
  std::printf("{\n  \"threads\": %d, \"saves_per_thread\": %d, \"single_thread_saves\": %d,\n", kThreads, kPerThread,
              kSingle);
  std::printf("  \"sqlite\": {\"1_thread_saves_per_s\": %.0f, \"%d_threads_saves_per_s\": %.0f, \"saves_per_commit\": %.1f}",
              sqlite.single_per_s, kThreads, sqlite.multi_per_s, sqlite.saves_per_commit);
  if (argc > 1) {
    const std::string schema = "bench_" + std::to_string(getpid());
    Rate pg;
    {
      StatusOr<std::unique_ptr<PgStore>> s = PgStore::Open(argv[1], 1, schema);
      if (!s.ok()) {
        std::fprintf(stderr, "%s\n", s.status().ToString().c_str());
        return 1;
      }
      PgStore& store = **s;
      pg = Measure(store, kThreads, kPerThread, kSingle, [&] { return store.stats().commits; });
    }
    (void)PgStore::DropSchema(argv[1], schema);
    std::printf(",\n  \"postgresql\": {\"1_thread_saves_per_s\": %.0f, \"%d_threads_saves_per_s\": %.0f, "
                "\"saves_per_commit\": %.1f},\n",
                pg.single_per_s, kThreads, pg.multi_per_s, pg.saves_per_commit);
    std::printf("  \"postgresql_over_sqlite\": {\"1_thread\": %.2f, \"%d_threads\": %.2f}", pg.single_per_s / sqlite.single_per_s,
                kThreads, pg.multi_per_s / sqlite.multi_per_s);
  }
  std::printf("\n}\n");
  return 0;
}

}  // namespace
}  // namespace muster

int main(int argc, char** argv) { return muster::Main(argc, argv); }
