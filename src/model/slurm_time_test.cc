#include "model/slurm_time.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

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

// What Slurm 22.05.8's own parse_time() returned for each text (0: refused), at two fixed times
// (2026-11-30T03:12:59Z and 2026-12-31T23:59:50Z, TZ=UTC), looking ahead (sbatch --begin) and back
// (sacct): captured by calling libslurmfull.so's slurm_parse_time with time() fixed by LD_PRELOAD.
struct Oracle {
  int64_t now;
  TimeDirection direction;
  std::vector<std::pair<std::string, int64_t>> cases;
};
const Oracle kSlurm[] = {
  {1796008379, TimeDirection::kFuture, {
      {"now", 1796008379},
      {"NOW", 1796008379},
      {"now+1hour", 1796011979},
      {"now+30", 1796008409},
      {"now + 2 hours", 1796015579},
      {"now-10", 1796008369},
      {"now-2days", 1795835579},
      {"now+1week", 1796613179},
      {"now+3minutes", 1796008559},
      {"now+1h", 0},
      {"now+5min", 0},
      {"now+", 0},
      {"now+5parsecs", 0},
      {"nowhere", 0},
      {"midnight", 1796083200},
      {"MIDNIGHT", 1796083200},
      {"noon", 1796040000},
      {"fika", 1796050800},
      {"teatime", 1796054400},
      {"elevenses", 0},
      {"today", 1795996800},
      {"tomorrow", 1796083200},
      {"today+1hour", 0},
      {"teatime+1h", 0},
      {"tomorrow 10:00", 1796119200},
      {"teatime tomorrow", 1796140800},
      {"midnight tomorrow", 1796083200},
      {"tomorrow noon", 1796126400},
      {"10:00am", 1796032800},
      {"4:30pm", 1796056200},
      {"12:00am", 1796083200},
      {"12:30pm", 1796041800},
      {"13:00pm", 0},
      {"16:00", 1796054400},
      {"02:00", 1796090400},
      {"03:12", 1796094720},
      {"03:13", 1796008380},
      {"3:14:15", 1796008455},
      {"04:00", 1796011200},
      {"24:00", 0},
      {"10:60", 0},
      {"1:2", 0},
      {"2027-01-02", 1798848000},
      {"2027-01-02T10:00", 1798884000},
      {"2027-01-02T10:00:30", 1798884030},
      {"2026-11-30", 1795996800},
      {"2026-11-30T03:12:59", 1796008379},
      {"2026-13-01", 0},
      {"2026-11-30X10:00", 0},
      {"11/30", 1827532800},
      {"11/29", 1827446400},
      {"12/01", 1796083200},
      {"01/02", 1798848000},
      {"0102", 1798848000},
      {"010227", 1798848000},
      {"11/30/26", 1795996800},
      {"113026", 1795996800},
      {"01/02-10:00", 1798884000},
      {"01.02.27", 1798848000},
      {"1/x", 0},
      {"12345", 0},
      {"", 0},
      {"T", 0},
      {"-", 0},
      {"yesterday", 0},
      {"uts1800000000", 1800000000},
      {"uts12", 0},
      {"uts1800000000x", 0},
      {"today-1day", 0},
      {"noon+1", 0},
  }},
  {1796008379, TimeDirection::kPast, {
      {"now", 1796008379},
      {"NOW", 1796008379},
      {"now+1hour", 1796011979},
      {"now+30", 1796008409},
      {"now + 2 hours", 1796015579},
      {"now-10", 1796008369},
      {"now-2days", 1795835579},
      {"now+1week", 1796613179},
      {"now+3minutes", 1796008559},
      {"now+1h", 0},
      {"now+5min", 0},
      {"now+", 0},
      {"now+5parsecs", 0},
      {"nowhere", 0},
      {"midnight", 1795996800},
      {"MIDNIGHT", 1795996800},
      {"noon", 1796040000},
      {"fika", 1796050800},
      {"teatime", 1796054400},
      {"elevenses", 0},
      {"today", 1795996800},
      {"tomorrow", 1796083200},
      {"today+1hour", 0},
      {"teatime+1h", 0},
      {"tomorrow 10:00", 1796119200},
      {"teatime tomorrow", 1796140800},
      {"midnight tomorrow", 1796083200},
      {"tomorrow noon", 1796126400},
      {"10:00am", 1796032800},
      {"4:30pm", 1796056200},
      {"12:00am", 1795996800},
      {"12:30pm", 1796041800},
      {"13:00pm", 0},
      {"16:00", 1796054400},
      {"02:00", 1796004000},
      {"03:12", 1796008320},
      {"03:13", 1796008380},
      {"3:14:15", 1796008455},
      {"04:00", 1796011200},
      {"24:00", 0},
      {"10:60", 0},
      {"1:2", 0},
      {"2027-01-02", 1798848000},
      {"2027-01-02T10:00", 1798884000},
      {"2027-01-02T10:00:30", 1798884030},
      {"2026-11-30", 1795996800},
      {"2026-11-30T03:12:59", 1796008379},
      {"2026-13-01", 0},
      {"2026-11-30X10:00", 0},
      {"11/30", 1795996800},
      {"11/29", 1795910400},
      {"12/01", 1764547200},
      {"01/02", 1767312000},
      {"0102", 1767312000},
      {"010227", 1798848000},
      {"11/30/26", 1795996800},
      {"113026", 1795996800},
      {"01/02-10:00", 1767348000},
      {"01.02.27", 1798848000},
      {"1/x", 0},
      {"12345", 0},
      {"", 0},
      {"T", 0},
      {"-", 0},
      {"yesterday", 0},
      {"uts1800000000", 1800000000},
      {"uts12", 0},
      {"uts1800000000x", 0},
      {"today-1day", 0},
      {"noon+1", 0},
  }},
  {1798761590, TimeDirection::kFuture, {
      {"now", 1798761590},
      {"NOW", 1798761590},
      {"now+1hour", 1798765190},
      {"now+30", 1798761620},
      {"now + 2 hours", 1798768790},
      {"now-10", 1798761580},
      {"now-2days", 1798588790},
      {"now+1week", 1799366390},
      {"now+3minutes", 1798761770},
      {"now+1h", 0},
      {"now+5min", 0},
      {"now+", 0},
      {"now+5parsecs", 0},
      {"nowhere", 0},
      {"midnight", 1798761600},
      {"MIDNIGHT", 1798761600},
      {"noon", 1798804800},
      {"fika", 1798815600},
      {"teatime", 1798819200},
      {"elevenses", 0},
      {"today", 1798675200},
      {"tomorrow", 1798761600},
      {"today+1hour", 0},
      {"teatime+1h", 0},
      {"tomorrow 10:00", 1798797600},
      {"teatime tomorrow", 1798819200},
      {"midnight tomorrow", 1798761600},
      {"tomorrow noon", 1798804800},
      {"10:00am", 1798797600},
      {"4:30pm", 1798821000},
      {"12:00am", 1798761600},
      {"12:30pm", 1798806600},
      {"13:00pm", 0},
      {"16:00", 1798819200},
      {"02:00", 1798768800},
      {"03:12", 1798773120},
      {"03:13", 1798773180},
      {"3:14:15", 1798773255},
      {"04:00", 1798776000},
      {"24:00", 0},
      {"10:60", 0},
      {"1:2", 0},
      {"2027-01-02", 1798848000},
      {"2027-01-02T10:00", 1798884000},
      {"2027-01-02T10:00:30", 1798884030},
      {"2026-11-30", 1795996800},
      {"2026-11-30T03:12:59", 1796008379},
      {"2026-13-01", 0},
      {"2026-11-30X10:00", 0},
      {"11/30", 1827532800},
      {"11/29", 1827446400},
      {"12/01", 1827619200},
      {"01/02", 1798848000},
      {"0102", 1798848000},
      {"010227", 1798848000},
      {"11/30/26", 1795996800},
      {"113026", 1795996800},
      {"01/02-10:00", 1798884000},
      {"01.02.27", 1798848000},
      {"1/x", 0},
      {"12345", 0},
      {"", 0},
      {"T", 0},
      {"-", 0},
      {"yesterday", 0},
      {"uts1800000000", 1800000000},
      {"uts12", 0},
      {"uts1800000000x", 0},
      {"today-1day", 0},
      {"noon+1", 0},
  }},
  {1798761590, TimeDirection::kPast, {
      {"now", 1798761590},
      {"NOW", 1798761590},
      {"now+1hour", 1798765190},
      {"now+30", 1798761620},
      {"now + 2 hours", 1798768790},
      {"now-10", 1798761580},
      {"now-2days", 1798588790},
      {"now+1week", 1799366390},
      {"now+3minutes", 1798761770},
      {"now+1h", 0},
      {"now+5min", 0},
      {"now+", 0},
      {"now+5parsecs", 0},
      {"nowhere", 0},
      {"midnight", 1798675200},
      {"MIDNIGHT", 1798675200},
      {"noon", 1798718400},
      {"fika", 1798729200},
      {"teatime", 1798732800},
      {"elevenses", 0},
      {"today", 1798675200},
      {"tomorrow", 1798761600},
      {"today+1hour", 0},
      {"teatime+1h", 0},
      {"tomorrow 10:00", 1798797600},
      {"teatime tomorrow", 1798819200},
      {"midnight tomorrow", 1798761600},
      {"tomorrow noon", 1798804800},
      {"10:00am", 1798711200},
      {"4:30pm", 1798734600},
      {"12:00am", 1798675200},
      {"12:30pm", 1798720200},
      {"13:00pm", 0},
      {"16:00", 1798732800},
      {"02:00", 1798682400},
      {"03:12", 1798686720},
      {"03:13", 1798686780},
      {"3:14:15", 1798686855},
      {"04:00", 1798689600},
      {"24:00", 0},
      {"10:60", 0},
      {"1:2", 0},
      {"2027-01-02", 1798848000},
      {"2027-01-02T10:00", 1798884000},
      {"2027-01-02T10:00:30", 1798884030},
      {"2026-11-30", 1795996800},
      {"2026-11-30T03:12:59", 1796008379},
      {"2026-13-01", 0},
      {"2026-11-30X10:00", 0},
      {"11/30", 1795996800},
      {"11/29", 1795910400},
      {"12/01", 1796083200},
      {"01/02", 1767312000},
      {"0102", 1767312000},
      {"010227", 1798848000},
      {"11/30/26", 1795996800},
      {"113026", 1795996800},
      {"01/02-10:00", 1767348000},
      {"01.02.27", 1798848000},
      {"1/x", 0},
      {"12345", 0},
      {"", 0},
      {"T", 0},
      {"-", 0},
      {"yesterday", 0},
      {"uts1800000000", 1800000000},
      {"uts12", 0},
      {"uts1800000000x", 0},
      {"today-1day", 0},
      {"noon+1", 0},
  }},
};

TEST_F(SlurmTimeTest, EveryFormReadsAsSlurmReadsIt) {
  for (const Oracle& o : kSlurm) {
    for (const auto& [text, want] : o.cases) {
      StatusOr<int64_t> got = ParseSlurmTime(text, o.now, o.direction);
      const std::string where = "'" + text + "' at " + std::to_string(o.now) +
                                (o.direction == TimeDirection::kPast ? " (past)" : " (future)");
      if (want == 0) {
        EXPECT_FALSE(got.ok()) << where << " -> " << *got;
      } else {
        ASSERT_TRUE(got.ok()) << where << ": " << got.status().ToString();
        EXPECT_EQ(*got, want) << where;
      }
    }
  }
}

// The next midnight, not the last: a job given --begin=midnight waits for it.
TEST_F(SlurmTimeTest, MidnightIsTheComingOne) {
  EXPECT_EQ(*ParseSlurmTime("midnight", kNow, TimeDirection::kFuture), 1795996800 + 86400);
  EXPECT_EQ(*ParseSlurmTime("midnight", kNow, TimeDirection::kPast), 1795996800);
  EXPECT_EQ(LocalMidnight(kNow), 1795996800);
}

// Slurm's message, with the position where reading stopped as Slurm 22.05.8 printed it.
TEST_F(SlurmTimeTest, ErrorsNameThePositionAndTheText) {
  const std::pair<std::string, int> kCases[] = {
      {"now+1h", 4},   {"now+", 3},      {"now+5parsecs", 4}, {"nowhere", 3},     {"elevenses", 0},
      {"today+1hour", 5}, {"teatime+1h", 7}, {"13:00pm", 5},  {"24:00", 0},       {"10:60", 3},
      {"1:2", 3},      {"2026-13-01", 5}, {"2026-11-30X10:00", 10}, {"1/x", 2},  {"12345", 2},
      {"yesterday", 0}, {"uts12", 0},     {"today-1day", 7},   {"noon+1", 4}};
  for (const auto& [text, pos] : kCases) {
    StatusOr<int64_t> t = ParseSlurmTime(text, kNow, TimeDirection::kFuture);
    ASSERT_FALSE(t.ok()) << text;
    EXPECT_EQ(t.status().message(), "Invalid time specification (pos=" + std::to_string(pos) + "): " + text);
  }
  for (const char* nothing : {"", "T", "-", " "}) {
    StatusOr<int64_t> t = ParseSlurmTime(nothing, kNow, TimeDirection::kFuture);
    ASSERT_FALSE(t.ok()) << "'" << nothing << "'";
    EXPECT_EQ(t.status().message(), "Invalid time specification: " + std::string(nothing));
  }
}

}  // namespace
}  // namespace muster
