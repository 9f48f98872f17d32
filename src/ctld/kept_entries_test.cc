#include "ctld/kept_entries.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
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

// Passes that mostly repeat the last one's ids in order (as the controller's do) and sometimes
// drop long runs, add many, or come in another order: whatever Next finds an entry by (last pass's
// positions or the table), each job keeps its own entry and tag, and only a job not in the last
// pass gets a new one.
TEST(KeptEntriesTest, EachJobKeepsItsEntryWhateverTheOrderAndTheChanges) {
  KeptEntries<Item, int> kept;
  std::vector<Item> list;
  std::mt19937 rng(7);
  std::vector<int64_t> ids;
  int64_t next_id = 1;
  std::set<int64_t> last;
  for (int pass = 0; pass < 400; ++pass) {
    std::vector<int64_t> now;
    for (int64_t id : ids) {
      if (rng() % 10 != 0) now.push_back(id);  // about one in ten ends
    }
    if (pass % 37 == 5 && now.size() > 20) now.erase(now.begin() + 3, now.begin() + 18);  // a long run ends
    const int arrivals = pass % 50 == 9 ? 30 : static_cast<int>(rng() % 4);
    for (int k = 0; k < arrivals; ++k) now.push_back(next_id++);
    if (pass % 23 == 11) std::shuffle(now.begin(), now.end(), rng);  // another order, once in a while
    std::vector<bool> want;
    for (int64_t id : now) want.push_back(!last.count(id));
    ASSERT_EQ(Pass(kept, list, now), want) << "pass " << pass;
    ASSERT_EQ(list.size(), now.size());
    for (const Item& item : list) {
      ASSERT_EQ(item.text, "job" + std::to_string(item.id)) << "pass " << pass;
      ASSERT_EQ(*kept.FindTag(item.id), item.id * 10) << "pass " << pass;
    }
    last = std::set<int64_t>(now.begin(), now.end());
    ids = now;
    std::sort(ids.begin(), ids.end());
  }
}

}  // namespace
}  // namespace muster
