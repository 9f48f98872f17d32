#include "ctld/job_ids.h"

#include <gtest/gtest.h>

#include "store/memory_store.h"

namespace muster {
namespace {

TEST(JobIds, NumbersOnFromTheRestartPointAndReservesBlocksFromTheStore) {
  std::shared_ptr<MemoryStoreData> data = NewMemoryStoreData(1);
  std::unique_ptr<Store> store = OpenMemoryStore(data);
  ASSERT_TRUE(store->RewindJobIds(40).ok());
  JobIds ids(store.get());
  ids.Restart(40);
  EXPECT_EQ(ids.Peek(), 40);
  StatusOr<int64_t> a = ids.Take();
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(*a, 40);
  StatusOr<int64_t> het = ids.Take(3);  // a heterogeneous job's components: consecutive
  ASSERT_TRUE(het.ok());
  EXPECT_EQ(*het, 41);
  EXPECT_EQ(ids.Peek(), 44);
  // One block was reserved in the store: its counter is past it, not past the ids given.
  StatusOr<int64_t> next_block = store->AllocateJobIds(1);
  ASSERT_TRUE(next_block.ok());
  EXPECT_EQ(*next_block, 40 + JobIds::kBlock);
}

TEST(JobIds, ABlockThatRunsOutIsFollowedByTheStoresNextOne) {
  std::unique_ptr<Store> store = OpenMemoryStore(NewMemoryStoreData(1));
  JobIds ids(store.get());
  ids.Restart(1);
  ASSERT_TRUE(ids.Take(JobIds::kBlock - 1).ok());  // 1 .. 999
  // Two do not fit in what is left of the first block: both come from the next one.
  ASSERT_TRUE(store->AllocateJobIds(5).ok());  // someone else reserved meanwhile: 1001 .. 1005
  StatusOr<int64_t> two = ids.Take(2);
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(*two, 1 + JobIds::kBlock + 5);
  EXPECT_EQ(ids.Peek(), 1 + JobIds::kBlock + 7);
}

TEST(JobIds, RefusesCountsOutsideOneBlock) {
  std::unique_ptr<Store> store = OpenMemoryStore(NewMemoryStoreData(1));
  JobIds ids(store.get());
  ids.Restart(1);
  EXPECT_EQ(ids.Take(0).status().code(), StatusCode::kInvalidArgument);
  StatusOr<int64_t> many = ids.Take(JobIds::kBlock + 1);
  EXPECT_EQ(many.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(many.status().message().find("too many job ids at once: 1001"), std::string::npos);
  EXPECT_EQ(ids.Peek(), 1);  // nothing taken
}

}  // namespace
}  // namespace muster
