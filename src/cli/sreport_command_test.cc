// sreport's command line and layouts (Slurm 22.05's src/sreport: sreport.c, cluster_reports.c,
// user_reports.c, common.c, and print_fields.c for the columns).
#include "cli/sreport_command.h"

#include <gtest/gtest.h>

#include <stdlib.h>
#include <time.h>

namespace muster {
namespace {

constexpr int64_t kDay = 1796342400;  // 2026-12-04T00:00:00Z

class SreportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
};

// One day of a 4-node cluster (64 CPUs, 32 GPUs): 1234560 CPU-seconds and 345600 GPU-seconds
// allocated, nothing down or planned.
UsageAnswer Day() {
  UsageAnswer u;
  u.cluster = "muster";
  u.start = u.measured_start = kDay;
  u.end = u.measured_end = kDay + 86400;
  u.tres = {{"cpu", 64, 1234560, 0, 0, 64 * 86400 - 1234560, 0, 0},
            {"gres/gpu", 32, 345600, 0, 0, 32 * 86400 - 345600, 0, 0}};
  u.assocs = {{"alice", "bio", "Alice Smith", 24960, 0},
              {"alice", "ml", "Alice Smith", 864000, 172800},
              {"bob", "ml", "", 345600, 172800}};
  u.accounts = {{"ml", ""}, {"bio", ""}};
  return u;
}

SreportRequest Parse(const std::vector<std::string>& args) {
  StatusOr<SreportRequest> r = ParseSreportArgs(args, kDay + 86400 + 5 * 3600);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : SreportRequest{};
}

std::string Format(const std::vector<std::string>& args, const UsageAnswer& u = Day()) {
  std::string err;
  std::string out = FormatSreport(Parse(args), u, &err);
  EXPECT_EQ(err, "");
  return out;
}

const std::string kRule(80, '-');

TEST_F(SreportTest, ThePeriodDefaultsToYesterdayAndIsRoundedToHours) {
  const SreportRequest d = Parse({"cluster", "utilization"});
  EXPECT_EQ(d.start, kDay);
  EXPECT_EQ(d.end, kDay + 86400);
  // 30 s and more round up to the next minute, 30 min and more to the next hour.
  const SreportRequest r = Parse({"cluster", "utilization", "start=2026-12-04T10:29:30", "end=2026-12-04T12:29:29"});
  EXPECT_EQ(r.start, kDay + 11 * 3600);
  EXPECT_EQ(r.end, kDay + 12 * 3600);
  // At least an hour; an end after now is now.
  const SreportRequest s = Parse({"cluster", "utilization", "s=2026-12-04T10:00", "e=2026-12-04T10:10"});
  EXPECT_EQ(s.end - s.start, 3600);
  const SreportRequest n = Parse({"cluster", "utilization", "start=2026-12-05T00:00", "end=now+3days"});
  EXPECT_EQ(n.end, kDay + 86400 + 5 * 3600);
}

TEST_F(SreportTest, ReadsSlurmsOptionsAndConditions) {
  const SreportRequest r = Parse({"-t", "hourper", "user", "topusage", "-P", "TopCount=3", "users=alice,bob", "Group",
                                  "accounts=ml", "-T", "gres/gpu,cpu"});
  EXPECT_EQ(r.report, SreportReport::kTopUsage);
  EXPECT_EQ(r.time, SreportTime::kHoursPer);
  EXPECT_EQ(r.parsable, 2);
  EXPECT_EQ(r.top_count, 3);
  EXPECT_TRUE(r.group);
  EXPECT_EQ(r.users, (std::set<std::string>{"alice", "bob"}));
  EXPECT_EQ(r.accounts, (std::set<std::string>{"ml"}));
  EXPECT_EQ(r.tres, (std::vector<std::string>{"gres/gpu", "cpu"}));
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(Parse({"-t", "h", "cluster", "AccountUtilizationByUser"}).time, SreportTime::kHours);
  EXPECT_EQ(Parse({"-t", "Percent", "cluster", "a"}).report, SreportReport::kAccountByUser);
  EXPECT_EQ(Parse({"cluster", "UA"}).report, SreportReport::kUserByAccount);
  EXPECT_EQ(Parse({"-T", "ALL", "cluster", "ut"}).tres, (std::vector<std::string>{"cpu", "gres/gpu"}));
  // A bare word is a user in the association reports; unknown conditions are said and skipped.
  const SreportRequest w = Parse({"cluster", "AccountUtilizationByUser", "carol", "Bogus=1"});
  EXPECT_EQ(w.users, std::set<std::string>{"carol"});
  ASSERT_EQ(w.warnings.size(), 1u);
  EXPECT_EQ(w.warnings[0], " Unknown condition: Bogus=1\nUse keyword set to modify value");
}

TEST_F(SreportTest, RefusesWhatItDoesNotDo) {
  const int64_t now = kDay;
  EXPECT_EQ(ParseSreportArgs({"-t", "fortnights", "cluster", "utilization"}, now).status().message(),
            "unknown time format fortnights");
  EXPECT_EQ(ParseSreportArgs({"job", "sizesbyaccount"}, now).status().message(),
            "job reports are not supported by Muster (cluster and user reports are)");
  EXPECT_EQ(ParseSreportArgs({"cluster", "WCKeyUtilizationByUser"}, now).status().message(),
            "the WCKey reports are not supported: Muster has no WCKeys");
  EXPECT_EQ(ParseSreportArgs({"bogus"}, now).status().message(), "invalid keyword: bogus");
  EXPECT_EQ(ParseSreportArgs({"cluster"}, now).status().message(), "too few arguments for keyword:cluster");
  EXPECT_FALSE(ParseSreportArgs({}, now).ok());
  EXPECT_EQ(ParseSreportArgs({"-T", "mem", "cluster", "utilization"}, now).status().message(),
            "No valid TRES given (Muster reports cpu and gres/gpu)");
  EXPECT_EQ(ParseSreportArgs({"--bogus", "cluster", "utilization"}, now).status().message(),
            "unrecognized option '--bogus'");
}

TEST_F(SreportTest, ClusterUtilizationLayout) {
  EXPECT_EQ(Format({"cluster", "utilization"}),
            kRule + "\n"
            "Cluster Utilization 2026-12-04T00:00:00 - 2026-12-04T23:59:59\n"
            "Usage reported in CPU Minutes\n" +
                kRule + "\n"
            "  Cluster Allocate     Down PLND Dow     Idle  Planned Reported \n"
            "--------- -------- -------- -------- -------- -------- -------- \n"
            "   muster    20576        0        0    71584        0    92160 \n");
}

TEST_F(SreportTest, ClusterUtilizationParsableHourPercent) {
  EXPECT_EQ(Format({"-t", "hourper", "-P", "cluster", "utilization"}),
            kRule + "\n"
            "Cluster Utilization 2026-12-04T00:00:00 - 2026-12-04T23:59:59\n"
            "Usage reported in CPU Hours/Percentage of Total\n" +
                kRule + "\n"
            "Cluster|Allocated|Down|PLND Down|Idle|Planned|Reported\n"
            "muster|343(22.33%)|0(0.00%)|0(0.00%)|1193(77.67%)|0(0.00%)|1536(100.00%)\n");
}

TEST_F(SreportTest, GpuTresWithoutHeaderAndPercent) {
  // -n: neither the banner nor the column names; -p: '|' after every field.
  EXPECT_EQ(Format({"-n", "-p", "-t", "percent", "-T", "gres/gpu", "cluster", "utilization"}),
            "muster|gres/gpu|12.50%|0.00%|0.00%|87.50%|0.00%|100.00%|\n");
  // Reported against the whole period: a period half measured reports 50%.
  UsageAnswer half = Day();
  half.end = half.start + 2 * 86400;
  EXPECT_EQ(Format({"-n", "-P", "-t", "percent", "-T", "gres/gpu", "cluster", "utilization", "format=rep,count"}, half),
            "50.00%|32\n");
}

TEST_F(SreportTest, NoRowsForAnotherClusterOrAnUnmeasuredPeriod) {
  EXPECT_EQ(Format({"-n", "-P", "cluster", "utilization", "clusters=other"}), "");
  UsageAnswer future = Day();
  future.measured_end = future.start;
  EXPECT_EQ(Format({"-n", "-P", "user", "topusage"}, future), "");
}

TEST_F(SreportTest, TopUsageLayout) {
  EXPECT_EQ(Format({"user", "topusage"}),
            kRule + "\n"
            "Top 10 Users 2026-12-04T00:00:00 - 2026-12-04T23:59:59 (86400 secs)\n"
            "Usage reported in CPU Minutes\n" +
                kRule + "\n"
            "  Cluster     Login     Proper Name         Account     Used   Energy \n"
            "--------- --------- --------------- --------------- -------- -------- \n"
            "   muster     alice     Alice Smith              ml    14400        0 \n"
            "   muster       bob                              ml     5760        0 \n"
            "   muster     alice     Alice Smith             bio      416        0 \n");
}

TEST_F(SreportTest, TopUsageByGpuGroupedAndLimited) {
  // Sorted by the first TRES asked for (GPUs: alice and bob tie, by name), one row per user with
  // Group, TopCount of them.
  EXPECT_EQ(Format({"-n", "-P", "-T", "gres/gpu,cpu", "user", "top", "topcount=1", "group"}),
            "muster|alice|Alice Smith|bio, ml|gres/gpu|2880\n"
            "muster|alice|Alice Smith|bio, ml|cpu|14816\n");
  EXPECT_EQ(Format({"-n", "-P", "-t", "per", "-T", "gres/gpu", "user", "top", "users=bob"}),
            "muster|bob||ml|gres/gpu|6.25%\n");
  EXPECT_EQ(Format({"-n", "-P", "-s", "name", "user", "top", "format=login,used"}),
            "alice|416\nalice|14400\nbob|5760\n");
}

TEST_F(SreportTest, AccountUtilizationByUserFollowsTheHierarchy) {
  EXPECT_EQ(Format({"cluster", "AccountUtilizationByUser"}),
            kRule + "\n"
            "Cluster/Account/User Utilization 2026-12-04T00:00:00 - 2026-12-04T23:59:59 (86400 secs)\n"
            "Usage reported in CPU Minutes\n" +
                kRule + "\n"
            "  Cluster         Account     Login     Proper Name     Used   Energy \n"
            "--------- --------------- --------- --------------- -------- -------- \n"
            "   muster            root                              20576        0 \n"
            "   muster             bio                                416        0 \n"
            "   muster             bio     alice     Alice Smith      416        0 \n"
            "   muster              ml                              20160        0 \n"
            "   muster              ml     alice     Alice Smith    14400        0 \n"
            "   muster              ml       bob                     5760        0 \n");
  // Accounts=: that subtree; Users=: those users' rows alone.
  EXPECT_EQ(Format({"-n", "-P", "cluster", "AccountUtilizationByUser", "accounts=ml", "format=acc,login,used"}),
            "ml||20160\nml|alice|14400\nml|bob|5760\n");
  EXPECT_EQ(Format({"-n", "-P", "cluster", "AccountUtilizationByUser", "users=alice", "format=acc,login,used"}),
            "bio|alice|416\nml|alice|14400\n");
}

TEST_F(SreportTest, UnknownFieldsAreSaidAndLeftOut) {
  std::string err;
  const std::string out = FormatSreport(Parse({"-n", "-P", "cluster", "utilization", "format=cl,bogus,al"}), Day(), &err);
  EXPECT_EQ(out, "muster|20576\n");
  EXPECT_EQ(err, " Unknown field 'bogus'\n");
}

TEST_F(SreportTest, WidthsGrowWithTheFigures) {
  UsageAnswer big = Day();
  big.tres[0].count = 100000;
  big.tres[0].idle_s = 100000LL * 86400 - big.tres[0].alloc_s;  // 8640000000 s: 10 digits
  const std::string out = Format({"-n", "-t", "s", "cluster", "utilization", "format=idle,rep"});
  const std::string wide = Format({"-n", "-t", "s", "cluster", "utilization", "format=idle,rep"}, big);
  EXPECT_EQ(out, " 4295040  5529600 \n");
  EXPECT_EQ(wide, "8638765440 8640000000 \n");
}

}  // namespace
}  // namespace muster
