// sacct --json and sinfo --json stay byte for byte what they were (report/json_output_golden.inc).
#include <gtest/gtest.h>

#include "base/pretty_json.h"
#include "report/sacct_format.h"
#include "report/sinfo_format.h"
#include "report/slurm_format_testdata.h"

namespace muster {
namespace {

#include "report/json_output_golden.inc"

using testdata::kT0;

// The captured jobs, ended (as sacct_format_test.cc has them), one killed by a signal.
std::vector<JobRecord> EndedJobs() {
  std::vector<JobRecord> jobs = testdata::CapturedJobs();
  for (JobRecord& j : jobs) j.reason = "None";
  jobs[0].state = jobs[1].state = JobState::kCompleted;
  jobs[0].end_time = jobs[1].end_time = kT0 + 30;
  jobs[2].state = JobState::kCompleted;
  jobs[2].start_time = jobs[2].end_time = kT0 + 30;
  jobs[2].allocation = {testdata::Alloc("n1", 1, 500, 4)};
  jobs[2].batch_host = "n1";
  jobs[3].state = JobState::kCancelled;
  jobs[3].cancelled_by = 0;
  jobs[3].end_time = kT0 + 31;
  jobs[1].exit_signal = 9; jobs[1].options.comment = "a \"comment\"";
  return jobs;
}
TEST(ReportJsonTest, SacctAndSinfoJsonAreAsBefore) {
  StepRecord s;
  s.job_id = 9148; s.step_id = 0; s.name = "hostname"; s.nodes = {"n1"}; s.ntasks = 2; s.state = JobState::kFailed;
  s.start_time = kT0 + 5; s.end_time = kT0 + 7; s.exit_code = 1; s.node_cpus = {4}; s.node_mem_mb = {1000}; s.node_gpus = {{1, 3}};
  EXPECT_EQ(PrettyJson(SacctJson(EndedJobs(), {s}, "peer", kT0 + 60)), kSacctJsonGolden);
  std::vector<NodeRecord> nodes = testdata::CapturedNodes(kT0);
  nodes[0].agent_address = "127.0.0.1:16821"; nodes[0].hostname = "vm"; nodes[1].agent_address = "unix:/run/musterd.sock";
  NodeActivityMap usage;
  usage[nodes[0].node.name].cpus = 2; usage[nodes[0].node.name].gpus = 1; usage[nodes[0].node.name].memory_mb = 100;
  usage[nodes[0].node.name].cpu_load = 0.37; usage[nodes[0].node.name].free_memory_mb = 1234;
  EXPECT_EQ(PrettyJson(SinfoJson(testdata::CapturedPartitions(), nodes, usage, kT0)), kSinfoJsonGolden);
}

}  // namespace
}  // namespace muster
