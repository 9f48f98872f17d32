#include "model/slurm_time.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>

namespace muster {
namespace {

class SlurmTimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
  static constexpr int64_t kNow = 1796008379;  // 2026-11-30T03:12:59Z
};

TEST_F(SlurmTimeTest, KeywordsAndOffsets) {
  EXPECT_EQ(*ParseSlurmTime("now", kNow), kNow);
  EXPECT_EQ(*ParseSlurmTime("now+1hour", kNow), kNow + 3600);
  EXPECT_EQ(*ParseSlurmTime("NOW+30", kNow), kNow + 30);
  EXPECT_EQ(*ParseSlurmTime("now-2days", kNow), kNow - 2 * 86400);
  EXPECT_EQ(*ParseSlurmTime("today", kNow), 1795996800);  // 2026-11-30T00:00:00Z
  EXPECT_EQ(*ParseSlurmTime("midnight", kNow), 1795996800);
  EXPECT_EQ(*ParseSlurmTime("tomorrow", kNow), 1795996800 + 86400);
  EXPECT_EQ(*ParseSlurmTime("noon", kNow), 1795996800 + 12 * 3600);
  EXPECT_EQ(*ParseSlurmTime("teatime+1h", kNow), 1795996800 + 17 * 3600);
  EXPECT_EQ(LocalMidnight(kNow), 1795996800);
}

TEST_F(SlurmTimeTest, DatesAndTimesOfDay) {
  EXPECT_EQ(*ParseSlurmTime("2026-11-30T03:12:59", kNow), kNow);
  EXPECT_EQ(*ParseSlurmTime("2026-11-30T03:12", kNow), kNow - 59);
  EXPECT_EQ(*ParseSlurmTime("2026-11-30", kNow), 1795996800);
  EXPECT_EQ(*ParseSlurmTime("11/30", kNow), 1795996800);
  EXPECT_EQ(*ParseSlurmTime("11/30/26", kNow), 1795996800);
  EXPECT_EQ(*ParseSlurmTime("113026", kNow), 1795996800);
  EXPECT_EQ(*ParseSlurmTime("04:00", kNow), 1795996800 + 4 * 3600);
  // A time already past today: tomorrow's, for --begin.
  EXPECT_EQ(*ParseSlurmTime("02:00", kNow, /*roll_forward=*/true), 1795996800 + 26 * 3600);
}

TEST_F(SlurmTimeTest, ErrorsNameTheText) {
  for (const char* bad : {"", "yesterday", "now+", "now+5parsecs", "2026-13-01", "2026-11-30X10:00", "25:00",
                          "1/x", "today-1day", "12345"}) {
    StatusOr<int64_t> t = ParseSlurmTime(bad, kNow);
    ASSERT_FALSE(t.ok()) << bad;
    EXPECT_EQ(t.status().message(), "invalid time specification '" + std::string(bad) + "'");
  }
}

}  // namespace
}  // namespace muster
