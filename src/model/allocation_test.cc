#include "model/allocation.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "model/job_list_json.h"
#include "model/record_json.h"

namespace muster {
namespace {

NodeAllocation TwoWholeOneShared() {
  NodeAllocation a;
  a.node = "gpu01";
  a.cpu_milli = 2500;
  a.gpus = {{0, kMilliPerGpu}, {3, 250}, {5, kMilliPerGpu}};
  return a;
}

TEST(AllocationTest, HelpersSeeWholeAndSharedGpus) {
  const NodeAllocation a = TwoWholeOneShared();
  EXPECT_EQ(WholeGpus(a), (std::vector<int>{0, 5}));
  EXPECT_EQ(GpuIndexes(a), (std::vector<int>{0, 3, 5}));
  ASSERT_NE(SharedGpu(a), nullptr);
  EXPECT_EQ(*SharedGpu(a), (GpuShare{3, 250}));
  EXPECT_TRUE(HoldsGpu(a, 3));
  EXPECT_FALSE(HoldsGpu(a, 1));
  EXPECT_EQ(GpuCount(a), 3);
  EXPECT_DOUBLE_EQ(GpuUnits(a), 2.25);
  EXPECT_EQ(CpusOf(a), 3);
  EXPECT_EQ(SharedGpu(NodeAllocation{}), nullptr);
}

TEST(AllocationTest, StoredFormRoundTrips) {
  const NodeAllocation a = TwoWholeOneShared();
  const StoredGpus s = ToStoredGpus(a);
  EXPECT_EQ(s.whole, (std::vector<int>{0, 5}));
  EXPECT_EQ(s.shared, 3);
  EXPECT_EQ(s.shared_milli, 250);
  EXPECT_EQ(FromStoredGpus(s), a.gpus);
  EXPECT_EQ(FromStoredGpus({{7, 2}}), (std::vector<GpuShare>{{2, kMilliPerGpu}, {7, kMilliPerGpu}}));
}

// A record stored before the allocation became one type (gpus as whole indexes, the shared GPU
// apart) reads into the same GPUs, and is written back under the same keys.
TEST(AllocationTest, StoredRecordsKeepTheirKeys) {
  const boost::json::value stored = boost::json::parse(R"({"id": 7, "allocation": [
      {"node": "gpu01", "cpu_milli": 2500, "memory_mb": 0, "tasks": 1, "gpus": [5, 0],
       "shared_gpu": 3, "shared_milli": 250, "exclusive": false}]})");
  StatusOr<JobRecord> j = JobRecordFromJson(stored);
  ASSERT_TRUE(j.ok()) << j.status().message();
  ASSERT_EQ(j->allocation.size(), 1u);
  EXPECT_EQ(j->allocation[0].gpus, TwoWholeOneShared().gpus);
  const boost::json::object back = ToJson(*j).at("allocation").at(0).as_object();
  EXPECT_EQ(back.at("gpus"), (boost::json::array{0, 5}));
  EXPECT_EQ(back.at("shared_gpu"), 3);
  EXPECT_EQ(back.at("shared_milli"), 250);
  // The job list (squeue's form) leaves defaults out: no shared GPU, no key.
  JobRecord whole = *j;
  whole.allocation[0].gpus = {{1, kMilliPerGpu}};
  const std::string listed = JobListJson({whole});
  EXPECT_EQ(listed.find("shared_gpu"), std::string::npos) << listed;
  StatusOr<std::vector<JobRecord>> read = ParseJobListJson(listed);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->at(0).allocation, whole.allocation);
}

}  // namespace
}  // namespace muster
