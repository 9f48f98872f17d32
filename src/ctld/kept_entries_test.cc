#include "ctld/kept_entries.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace muster {
namespace {

struct Item {
  int64_t id = 0;
  std::string text;
};

// One pass asking for `ids` in turn; returns whether each entry was new.
std::vector<bool> Pass(KeptEntries<Item, int>& kept, std::vector<Item>& list, const std::vector<int64_t>& ids) {
  std::vector<bool> fresh;
  kept.Begin(list);
  for (int64_t id : ids) {
    bool f = false;
    int* tag = nullptr;
    Item& item = kept.Next(id, &f, &tag);
    EXPECT_EQ(item.id, id);
    EXPECT_NE(tag, nullptr);
    if (f) {
      EXPECT_EQ(*tag, 0) << "a new entry's tag starts as a default one";
      item.text = "job" + std::to_string(id);
      *tag = static_cast<int>(id) * 10;
    }
    fresh.push_back(f);
  }
  kept.Finish();
  return fresh;
}

TEST(KeptEntriesTest, EntriesAndTagsStayWithTheirJobsAcrossPasses) {
  KeptEntries<Item, int> kept;
  std::vector<Item> list;
  EXPECT_EQ(Pass(kept, list, {1, 2, 3, 4}), (std::vector<bool>{true, true, true, true}));
  // Job 1 gone: the last entry (4) takes its slot, and carries its tag along.
  EXPECT_EQ(Pass(kept, list, {2, 3, 4, 5}), (std::vector<bool>{false, false, false, true}));
  ASSERT_EQ(list.size(), 4u);
  for (const Item& item : list) {
    EXPECT_EQ(item.text, "job" + std::to_string(item.id));
    int* tag = kept.FindTag(item.id);
    ASSERT_NE(tag, nullptr) << item.id;
    EXPECT_EQ(*tag, item.id * 10) << item.id;
  }
  EXPECT_EQ(kept.FindTag(1), nullptr);
  EXPECT_EQ(kept.FindTag(99), nullptr);
  // Several gone at once, the last ones among them.
  EXPECT_EQ(Pass(kept, list, {3}), (std::vector<bool>{false}));
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].id, 3);
  EXPECT_EQ(*kept.FindTag(3), 30);
  // A job back after a pass away is new again, with a default tag.
  EXPECT_EQ(Pass(kept, list, {3, 1}), (std::vector<bool>{false, true}));
  EXPECT_EQ(*kept.FindTag(1), 10);
}

TEST(KeptEntriesTest, AListChangedBehindItsBackIsIndexedAfresh) {
  KeptEntries<Item, int> kept;
  std::vector<Item> list;
  Pass(kept, list, {1, 2});
  list.clear();  // as the controller does when the nodes change
  EXPECT_EQ(Pass(kept, list, {1, 2}), (std::vector<bool>{true, true}));
  EXPECT_EQ(list.size(), 2u);
  EXPECT_EQ(*kept.FindTag(2), 20);
}

}  // namespace
}  // namespace muster
