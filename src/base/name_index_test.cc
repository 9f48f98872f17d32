#include "base/name_index.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace muster {
namespace {

TEST(NameIndexTest, EmptyFindsNothing) {
  NameIndex idx;
  EXPECT_EQ(idx.Find("gpu01"), -1);
  EXPECT_EQ(idx.Find(""), -1);
  EXPECT_EQ(idx.size(), 0u);
}

TEST(NameIndexTest, FindsWhatWasInsertedAndReplaces) {
  NameIndex idx;
  idx.Insert("gpu01", 0);
  idx.Insert("gpu02", 1);
  EXPECT_EQ(idx.Find("gpu01"), 0);
  EXPECT_EQ(idx.Find("gpu02"), 1);
  EXPECT_EQ(idx.Find("gpu03"), -1);
  EXPECT_EQ(idx.Find("gpu0"), -1);
  idx.Insert("gpu01", 7);
  EXPECT_EQ(idx.Find("gpu01"), 7);
  EXPECT_EQ(idx.size(), 2u);
}

// Through several growths of the table, against std::map as the reference.
TEST(NameIndexTest, AgreesWithAMapThroughGrowth) {
  NameIndex idx;
  std::map<std::string, int> ref;
  for (int i = 0; i < 5000; ++i) {
    const std::string name = "n" + std::to_string(i * 7919 % 10007);
    idx.Insert(name, i);
    ref[name] = i;
  }
  EXPECT_EQ(idx.size(), ref.size());
  for (const auto& [name, v] : ref) ASSERT_EQ(idx.Find(name), v) << name;
  for (int i = 0; i < 1000; ++i) {
    const std::string absent = "m" + std::to_string(i);
    ASSERT_EQ(idx.Find(absent), -1) << absent;
  }
}

}  // namespace
}  // namespace muster
