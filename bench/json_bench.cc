// The two JSON libraries on squeue --json's path with 10,000 jobs: the job list as the controller
// writes it (GET /v1/jobs: every field but the script, at non-default values) and as the command
// reads it back, each written and read through the same field visitor (model/job_record_fields.h)
// with Boost.JSON (model/job_list_json.cc, what runs) and with nlohmann (below), and the
// command's own output (every field, indented) with nlohmann, as squeue --json prints it.
// bench/json.sh runs it and prints the ratios.
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/job_list_json.h"
#include "model/job_record_fields.h"
#include "model/job_request.h"
#include "model/record_json.h"

namespace muster {
namespace {

using nlohmann::json;

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

// The compact list form written with nlohmann: the fields that differ from their defaults.
struct NlohmannListWriter {
  json& out;
  static bool Skipped(std::string_view key) { return key == "script" || key == "script_args" || key == "environment"; }
  template <typename T>
  void Field(const char* key, const T& value, const T& def) {
    if (value == def || Skipped(key)) return;
    out[key] = value;
  }
  void Field(const char* key, const JobState& value, const JobState& def) {
    if (value != def) out[key] = JobStateName(value);
  }
  void Field(const char*, const SharedText&, const SharedText&) {}
  template <typename T, typename Fn>
  void Object(const char* key, const T& value, const T& def, Fn fields) {
    if (value == def) return;
    json sub = json::object();
    NlohmannListWriter w{sub};
    fields(w, value, def);
    out[key] = std::move(sub);
  }
  template <typename T, typename Fn>
  void Objects(const char* key, const std::vector<T>& values, const std::vector<T>&, Fn fields) {
    if (values.empty()) return;
    json arr = json::array();
    for (const T& v : values) {
      json sub = json::object();
      NlohmannListWriter w{sub};
      fields(w, v, T{});
      arr.push_back(std::move(sub));
    }
    out[key] = std::move(arr);
  }
};

std::string NlohmannListJson(const std::vector<JobRecord>& jobs) {
  static const JobRecord kDefault;
  json arr = json::array();
  for (const JobRecord& j : jobs) {
    json o = json::object();
    NlohmannListWriter w{o};
    record_fields::JobRecordFields(w, j, kDefault);
    arr.push_back(std::move(o));
  }
  return json{{"jobs", std::move(arr)}}.dump();
}

std::vector<JobRecord> NlohmannParseList(const std::string& text) {
  std::vector<JobRecord> out;
  const json doc = json::parse(text);
  for (const json& j : doc.at("jobs")) out.push_back(*JobRecordFromJson(j));
  return out;
}

const std::vector<JobRecord>& TenThousand() {
  static const std::vector<JobRecord> jobs = Jobs(10000);
  return jobs;
}

void BM_ListEncode_Boost(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(JobListJson(TenThousand()));
}
void BM_ListEncode_Nlohmann(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(NlohmannListJson(TenThousand()));
}
void BM_ListDecode_Boost(benchmark::State& state) {
  const std::string text = JobListJson(TenThousand());
  for (auto _ : state) benchmark::DoNotOptimize(ParseJobListJson(text));
}
void BM_ListDecode_Nlohmann(benchmark::State& state) {
  const std::string text = JobListJson(TenThousand());
  for (auto _ : state) benchmark::DoNotOptimize(NlohmannParseList(text));
}
// squeue --json's output: every field of each listed job, indented by two.
void BM_SqueueJsonOutput_Nlohmann(benchmark::State& state) {
  std::vector<JobRecord> listed;
  for (const JobRecord& j : TenThousand()) listed.push_back(ListedJob(j));
  for (auto _ : state) {
    json arr = json::array();
    for (const JobRecord& j : listed) arr.push_back(ToJson(j));
    benchmark::DoNotOptimize(json{{"jobs", arr}}.dump(2, ' ', false, json::error_handler_t::replace));
  }
}

// The same output as squeue --json writes it now (model/job_list_json.h, Boost.JSON).
void BM_SqueueJsonOutput_Boost(benchmark::State& state) {
  std::vector<JobRecord> listed;
  for (const JobRecord& j : TenThousand()) listed.push_back(ListedJob(j));
  for (auto _ : state) benchmark::DoNotOptimize(JobRecordsPrettyJson(listed));
}

BENCHMARK(BM_ListEncode_Boost)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ListEncode_Nlohmann)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ListDecode_Boost)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ListDecode_Nlohmann)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SqueueJsonOutput_Nlohmann)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SqueueJsonOutput_Boost)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace muster

BENCHMARK_MAIN();
