#include "ctld/usage_json.h"

#include <gtest/gtest.h>

namespace muster {
namespace {

// Usage saved by the earlier JSON codec (captured from it before the move to Boost.JSON): it loads,
// and saving it again writes the same bytes.
constexpr const char* kOldUsage =
    R"json({"charged_through":[[5,3600],[7,1000]],"usage":[{"account":"nlp","amount":3600.0,"at":3600,"user":"bob"},{"account":"physics","amount":2700.0,"at":1000,"user":"alice"}]})json";

TEST(UsageJsonTest, OldSavedUsageLoadsAndSavesToTheSameBytes) {
  StatusOr<PriorityPolicy::Saved> saved = ParseUsageJson(kOldUsage);
  ASSERT_TRUE(saved.ok()) << saved.status().ToString();
  ASSERT_EQ(saved->usage.size(), 2u);
  EXPECT_EQ(saved->usage[0].account, "nlp");
  EXPECT_EQ(saved->usage[0].user, "bob");
  EXPECT_DOUBLE_EQ(saved->usage[0].amount, 3600);
  EXPECT_EQ(saved->usage[1].at, 1000);
  EXPECT_EQ(saved->charged_through, (std::vector<std::pair<int64_t, int64_t>>{{5, 3600}, {7, 1000}}));
  EXPECT_EQ(UsageJson(*saved), kOldUsage);
}

TEST(UsageJsonTest, RoundTripsAPolicysUsage) {
  PrioritySettings s;
  s.half_life_s = 3600;
  PriorityPolicy p(s);
  p.Charge(5, "nlp", "bob", 1, 0, 3600);
  p.Charge(9, "chem", "eve", 0.25, 0, 7);
  StatusOr<PriorityPolicy::Saved> back = ParseUsageJson(UsageJson(p.Save()));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  PriorityPolicy restored(s);
  restored.Restore(*back);
  EXPECT_DOUBLE_EQ(restored.usage().Usage("nlp", "bob", 7200), p.usage().Usage("nlp", "bob", 7200));
  EXPECT_DOUBLE_EQ(restored.usage().Usage("chem", "eve", 7200), p.usage().Usage("chem", "eve", 7200));
  EXPECT_EQ(UsageJson(restored.Save()), UsageJson(p.Save()));
}

TEST(UsageJsonTest, MalformedUsageIsNamed) {
  for (const char* bad : {"{", "{\"usage\": 3}", "{\"usage\": [], \"charged_through\": [[1]]}",
                          "{\"usage\": [{\"account\": 1}], \"charged_through\": []}"}) {
    StatusOr<PriorityPolicy::Saved> s = ParseUsageJson(bad);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.status().message().find("stored usage is malformed"), std::string::npos) << s.status().message();
  }
}

}  // namespace
}  // namespace muster
