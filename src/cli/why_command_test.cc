// muster why's words: the answer of GET /v1/jobs/{id}/why as the command prints it.
#include "cli/why_command.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <sstream>

namespace muster {
namespace {

class WhyCommandTest : public testing::Test {
 protected:
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
};

// 2026-12-05T23:10:00 UTC.
constexpr int64_t kPlanned = 1796512200;

WhyAnswer Pending() {
  WhyAnswer a;
  a.job_id = 42;
  a.user = "alice";
  a.account = "ml";
  a.partition = "gpu";
  a.state = "PENDING";
  a.reason = "Resources";
  a.explained = true;
  a.gpus = 8;
  a.outcome.start = "planned";
  a.outcome.reason = "Resources";
  a.outcome.start_time = kPlanned;
  a.outcome.nodes = "node03";
  a.outcome.gpus = {"node03:0-7"};
  a.position = 3;
  a.queue_size = 5;
  a.ahead_total = 2;
  a.ahead_in_partition = 2;
  WhyAheadAnswer first{40, 1, "bob", "ml", "gpu", 1200, 16, {}};
  first.outcome.start = "planned";
  first.outcome.reason = "Resources";
  first.outcome.start_time = kPlanned - 600;
  WhyAheadAnswer second{41, 2, "carol", "cv", "gpu", 1100, 2, {}};
  second.outcome.start = "now";
  a.ahead = {first, second};
  WhySoonerAnswer gpus;
  gpus.kind = "gpus";
  gpus.change = "4 GPUs (--gres=gpu:4)";
  gpus.outcome.start = "now";
  gpus.outcome.nodes = "node01";
  WhySoonerAnswer time;
  time.kind = "time";
  time.change = "--time=00:30:00";
  time.outcome.start = "now";
  time.outcome.nodes = "node02";
  WhySoonerAnswer partition;
  partition.kind = "partition";
  partition.change = "-p debug";
  partition.outcome.start = "planned";
  partition.outcome.start_time = kPlanned - 3000;
  partition.outcome.nodes = "dbg1";
  a.sooner = {gpus, time, partition};
  return a;
}

TEST_F(WhyCommandTest, APendingJobInPlainWords) {
  EXPECT_EQ(FormatWhy(Pending()),
            "Job 42 (alice, account ml) is pending: Resources - the 8 GPUs it asks for are not free now.\n"
            "The scheduler takes it 3rd of 5 waiting jobs.\n"
            "Ahead of it in partition gpu (scheduling order):\n"
            "  1. job 40 prio 1200 (bob/ml, 16 GPUs): waits: Resources, planned 2026-12-05T23:00:00\n"
            "  2. job 41 prio 1100 (carol/cv, 2 GPUs): starts now\n"
            "Expected start: 2026-12-05T23:10:00 on node03 GPUs 0-7 (backfill plan).\n"
            "Would start sooner with: 4 GPUs (--gres=gpu:4) (now on node01); --time=00:30:00 (now on node02, "
            "backfilled); -p debug (2026-12-05T22:20:00 on dbg1).\n");
}

TEST_F(WhyCommandTest, ALimitAndNothingSooner) {
  WhyAnswer a = Pending();
  a.outcome = {};
  a.outcome.start = "unplanned";
  a.outcome.reason = "AssocGrpGRES";
  a.ahead.clear();
  a.ahead_in_partition = 0;
  a.ahead_total = 1;
  a.position = 2;
  a.queue_size = 2;
  a.sooner.clear();
  std::string text = FormatWhy(a);
  EXPECT_EQ(text,
            "Job 42 (alice, account ml) is pending: AssocGrpGRES - its account's GPU limit would be exceeded.\n"
            "The scheduler takes it 2nd of 2 waiting jobs.\n"
            "No job of partition gpu is ahead of it (1 of other partitions are).\n"
            "Expected start: none planned (no backfill reservation for it in this pass).\n"
            "Nothing checked starts it sooner (fewer GPUs, a shorter time limit, another partition, its "
            "account's limits).\n");
  WhySoonerAnswer lifted;
  lifted.kind = "limit";
  lifted.change = "account ml's GrpTRES=gres/gpu (8) lifted";
  lifted.in_use = 8;
  lifted.outcome.start = "now";
  lifted.outcome.nodes = "n2";
  a.sooner = {lifted};
  EXPECT_NE(FormatWhy(a).find("Would start sooner with: account ml's GrpTRES=gres/gpu (8) lifted (now on n2, 8 in use).\n"),
            std::string::npos)
      << FormatWhy(a);
}

TEST_F(WhyCommandTest, NotPendingIsSaidPlainly) {
  WhyAnswer a;
  a.job_id = 7;
  a.user = "bob";
  a.state = "RUNNING";
  a.note = "it is not pending";
  EXPECT_EQ(FormatWhy(a), "Job 7 (bob) is RUNNING: it is not pending.\n");
}

TEST_F(WhyCommandTest, StartsAtTheNextPass) {
  WhyAnswer a = Pending();
  a.outcome = {};
  a.outcome.start = "now";
  a.outcome.nodes = "node01";
  a.outcome.gpus = {"node01:0-3"};
  const std::string text = FormatWhy(a);
  EXPECT_EQ(text.substr(0, text.find('\n') + 1),
            "Job 42 (alice, account ml) is pending (Resources), but the scheduler would start it at its next pass, on "
            "node01 GPUs 0-3.\n");
  // Nothing to plan, nothing to change.
  EXPECT_EQ(text.find("Expected start"), std::string::npos) << text;
  EXPECT_EQ(text.find("sooner"), std::string::npos) << text;
}

TEST_F(WhyCommandTest, BadCommandLines) {
  std::ostringstream out, err;
  EXPECT_EQ(WhyMain({}, out, err), 2);
  EXPECT_EQ(WhyMain({"abc"}, out, err), 2);
  EXPECT_NE(err.str().find("invalid job id 'abc'"), std::string::npos);
  EXPECT_EQ(WhyMain({"1", "2"}, out, err), 2);
  EXPECT_EQ(WhyMain({"--bogus"}, out, err), 2);
  EXPECT_EQ(WhyMain({"--help"}, out, err), 0);
  EXPECT_NE(out.str().find("usage: muster why JOBID [--json]"), std::string::npos);
}

}  // namespace
}  // namespace muster
