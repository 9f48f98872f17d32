// The JSON codec (Boost.JSON) with 10,000 jobs: the job list as the controller writes it (GET
// /v1/jobs: every field but the script, at non-default values) and as squeue reads it back,
// squeue --json's own output (every field, sorted and indented), and the stored record form the
// store writes and reads. bench/json.sh runs it (--save: bench/results/json_boost.json);
// bench/results/json.json is the earlier comparison with the library the project dropped, which
// chose Boost.JSON (docs/architecture.md).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "model/job_list_json.h"
#include "model/job_record_fields.h"
#include "model/job_request.h"
#include "model/record_json.h"

namespace muster {
namespace {

std::vector<JobRecord> Jobs(int n) {
  std::vector<JobRecord> jobs;
  const JobRequest req = *ParseJobRequest({"-N", "2", "--gres=gpu:4", "-t", "4:00:00", "-c", "8", "--mem=64G"});
  for (int i = 0; i < n; ++i) {
    JobRecord j;
    j.id = 1000 + i;
    j.name = "train-" + std::to_string(i % 97);
    j.user = "user" + std::to_string(i % 41);
    j.uid = 1000 + i % 41;
    j.gid = 1000;
    j.account = "team" + std::to_string(i % 7);
    j.partition = "gpu";
    j.request = req;
    j.priority = 4000 + i % 300;
    j.submit_time = 1'700'000'000 + i;
    j.eligible_time = j.submit_time;
    j.workdir = "/home/" + j.user + "/runs/" + std::to_string(i);
    j.script = std::string(600, 'x');
    for (int e = 0; e < 40; ++e) j.environment.push_back("VAR" + std::to_string(e) + "=value" + std::to_string(i));
    if (i % 3 == 0) {
      j.state = JobState::kRunning;
      j.start_time = j.submit_time + 60;
      for (int k = 0; k < 2; ++k) {
        NodeAllocation a;
        a.node = "gpu" + std::to_string((i + k) % 500);
        a.cpu_milli = 8000;
        a.memory_mb = 65536;
        a.tasks = 1;
        a.gpus = FromStoredGpus({{0, 1, 2, 3}});
        j.allocation.push_back(a);
      }
      j.batch_host = j.allocation.front().node;
    } else {
      j.reason = "Resources";
    }
    jobs.push_back(std::move(j));
  }
  return jobs;
}

const std::vector<JobRecord>& TenThousand() {
  static const std::vector<JobRecord> jobs = Jobs(10000);
  return jobs;
}

void BM_ListEncode(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(JobListJson(TenThousand()));
}
void BM_ListDecode(benchmark::State& state) {
  const std::string text = JobListJson(TenThousand());
  for (auto _ : state) benchmark::DoNotOptimize(ParseJobListJson(text));
}
// squeue --json's output: every field of each listed job, keys sorted, indented by two.
void BM_SqueueJsonOutput(benchmark::State& state) {
  std::vector<JobRecord> listed;
  for (const JobRecord& j : TenThousand()) listed.push_back(ListedJob(j));
  for (auto _ : state) benchmark::DoNotOptimize(JobRecordsPrettyJson(listed));
}
// The stored form (model/record_json.h: every field, the script and environment too), as the
// store writes each job's row and reads it back at a restart.
void BM_RecordEncode(benchmark::State& state) {
  for (auto _ : state) {
    for (const JobRecord& j : TenThousand()) benchmark::DoNotOptimize(ToJsonText(j));
  }
}
void BM_RecordDecode(benchmark::State& state) {
  std::vector<std::string> rows;
  for (const JobRecord& j : TenThousand()) rows.push_back(ToJsonText(j));
  for (auto _ : state) {
    for (const std::string& row : rows) benchmark::DoNotOptimize(JobRecordFromJson(*ParseRecordText(row)));
  }
}

BENCHMARK(BM_ListEncode)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ListDecode)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SqueueJsonOutput)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RecordEncode)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RecordDecode)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace muster

BENCHMARK_MAIN();
